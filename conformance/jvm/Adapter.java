/*
 * The JVM adapter of `cargo xtask conformance` (conformance/PROTOCOL.md).
 *
 * JSON lines in, one answer per request out, each through the public API of the
 * io.echomq:emq-id jar on the class path (package io.echomq.emqid). It translates;
 * the runner judges. Fields a request carries that it does not read (a case's
 * `source`) are ignored. `<name>_hex` goes to the byte[] API, `<name>` to the
 * CharSequence/String API, as conformance/python/adapter.py sends each to its bytes
 * and str APIs.
 *
 * Why a JSON reader and writer of its own (the `Json` class at the end): the JDK has
 * none, and the adapter must run with the emq-id jar alone on a bare JRE's class path
 * (the arm64 JRE under qemu has no Maven to fetch a library), so that nothing but the
 * artifact under test answers. The protocol needs little: objects, arrays, strings,
 * integers, booleans and null; numbers are kept as their text and read as Java longs
 * here, where a number no long holds is answered `unsupported`, never guessed.
 *
 * Run: java --enable-native-access=ALL-UNNAMED -cp <classes>:emq-id.jar Adapter
 */

import io.echomq.emqid.Acquired;
import io.echomq.emqid.Action;
import io.echomq.emqid.Codec;
import io.echomq.emqid.EmqIdException;
import io.echomq.emqid.Id;
import io.echomq.emqid.Keyspace;
import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseKeeper;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.LeasedMinter;
import io.echomq.emqid.Minter;
import io.echomq.emqid.Outcome;
import io.echomq.emqid.ParsedKey;
import io.echomq.emqid.Redirect;
import io.echomq.emqid.Snowflake;
import io.echomq.emqid.Step;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public final class Adapter {
    /** Not made: static translation only. */
    private Adapter() {}

    /** A request field this adapter cannot hand to the API (a number no Java long holds). */
    static final class Untranslatable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** Says why the field cannot be handed over. */
        Untranslatable(String why) {
            super(why);
        }
    }

    /** One call of the API, which may refuse. */
    interface Call {
        /** The call's answer. */
        Object get();
    }

    /** The answer's object: keys in the order given (`"ok"` values are compared as JSON). */
    static Map<String, Object> object(Object... keysAndValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            out.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return out;
    }

    /** The contract's refusal, by the gate's code. */
    static Map<String, Object> refused(EmqIdException error) {
        return object("error", object("gate", error.gate().code(), "message", error.getMessage()));
    }

    /** `{"ok": call()}`, or the refusal the call threw, or `unsupported` for an input it cannot take. */
    static Map<String, Object> ok(Call call) {
        try {
            return object("ok", call.get());
        } catch (EmqIdException error) {
            return refused(error);
        } catch (Untranslatable why) {
            return object("unsupported", why.getMessage());
        }
    }

    // --- request fields -------------------------------------------------------------

    /** A JSON object read by Json. */
    @SuppressWarnings("unchecked") // Json reads objects as this type
    static Map<String, Object> asObject(Object value) {
        return (Map<String, Object>) value;
    }

    /** A JSON array read by Json. */
    @SuppressWarnings("unchecked") // Json reads arrays as this type
    static List<Object> asList(Object value) {
        return (List<Object>) value;
    }

    /** A string field, or null when the request has none. */
    static String text(Map<String, Object> r, String name) {
        return (String) r.get(name);
    }

    /** Whether the byte input {@code name} came as exact bytes ({@code <name>_hex}). */
    static boolean hasHex(Map<String, Object> r, String name) {
        return r.containsKey(name + "_hex");
    }

    /** The exact bytes of {@code <name>_hex}. */
    static byte[] hex(Map<String, Object> r, String name) {
        return HexFormat.of().parseHex(text(r, name + "_hex"));
    }

    /** A JSON number as a long. */
    static long number(Map<String, Object> r, String name) {
        return longOf(r.get(name), name);
    }

    /** A number (kept as its text by Json) as a long, or the reason it is none. */
    static long longOf(Object value, String name) {
        if (!(value instanceof Json.Num num)) {
            throw new Untranslatable(name + " is not a number: " + value);
        }
        try {
            return Long.parseLong(num.text());
        } catch (NumberFormatException e) {
            throw new Untranslatable(name + " is not a 64-bit integer: " + num.text());
        }
    }

    /** A JSON number as an int (a node: the API takes an int). */
    static int intNumber(Map<String, Object> r, String name) {
        long value = number(r, name);
        if (value != (int) value) {
            throw new Untranslatable(name + " is not a 32-bit integer: " + value);
        }
        return (int) value;
    }

    /** A signed decimal string (`unix_ms`, `now_ms`) as a long. */
    static long decimal(String text, String name) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new Untranslatable(name + " is not a signed 64-bit decimal: " + text);
        }
    }

    /**
     * A snowflake's decimal string as the long holding its 64 bits: Java has no unsigned
     * long, so a value from 2^63 (which the core's u64 takes, and refuses as `range`)
     * arrives as a negative long, which the API must refuse the same way.
     */
    static long unsignedDecimal(String text, String name) {
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new Untranslatable(name + " is not an unsigned 64-bit decimal: " + text);
        }
    }

    // --- answers --------------------------------------------------------------------

    /** The decoded id; its last four fields by the snowflake functions, as PROTOCOL.md asks. */
    static Object decoded(Id id) {
        long s = id.snowflake();
        return object(
                "ns", id.ns(),
                "snowflake", Long.toUnsignedString(s),
                "unix_ms", Long.toString(Snowflake.unixMs(s)),
                "node", Snowflake.node(s),
                "seq", Snowflake.seq(s),
                "hash32", Snowflake.hash32(s));
    }

    /** One fresh minter of `node`, stepped through every clock reading. */
    static Object mint(Map<String, Object> r) {
        Minter minter = new Minter(intNumber(r, "node"));
        List<Object> steps = new ArrayList<>();
        for (Object now : asList(r.get("now_ms"))) {
            try {
                steps.add(object("snowflake", Long.toUnsignedString(minter.nextAt(decimal((String) now, "now_ms")))));
            } catch (EmqIdException error) {
                steps.add(object("gate", error.gate().code()));
            }
        }
        return object("steps", steps);
    }

    /** The key's slot and hashtag, through the byte[] API or the CharSequence/String API. */
    static Object placed(Map<String, Object> r) {
        if (hasHex(r, "key")) {
            byte[] key = hex(r, "key");
            return object("slot", Keyspace.slot(key), "hashtag_hex", HexFormat.of().formatHex(Keyspace.hashtag(key)));
        }
        String key = text(r, "key");
        byte[] tag = Keyspace.hashtag(key).getBytes(StandardCharsets.UTF_8);
        return object("slot", Keyspace.slot((CharSequence) key), "hashtag_hex", HexFormat.of().formatHex(tag));
    }

    /** A key of the queue's type, with the id when the request has one. */
    static Object key(Map<String, Object> r) {
        String queue = text(r, "queue");
        String kind = text(r, "kind");
        String id = text(r, "id");
        return object("key", id == null ? Keyspace.key(queue, kind) : Keyspace.key(queue, kind, id));
    }

    /** A parsed key; {@code param} only for a family that takes one. */
    static Object parsed(ParsedKey p) {
        Map<String, Object> out = object("queue", p.queue(), "family", p.family());
        p.param().ifPresent(param -> out.put("param", param));
        return out;
    }

    /** The acquire script's reply as read: the node, and the previous mark or null. */
    static Object acquired(Acquired a) {
        return object("node", a.node(), "previous_mark", a.previousMark().isPresent() ? a.previousMark().getAsLong() : null);
    }

    /** The named script's Lua; a name the API does not know is not translated. */
    static Map<String, Object> leaseScript(Map<String, Object> r) {
        String name = text(r, "name");
        return Lease.script(name)
                .map(script -> object("ok", object("text", script.text())))
                .orElseGet(() -> object("unsupported", "no lease script named " + name));
    }

    /** The terms' WAIT timeout, once the terms and WAIT's reply are accepted. */
    static Object leaseWait(Map<String, Object> r) {
        LeaseTerms terms = LeaseTerms.of(number(r, "ttl_ms"), number(r, "margin_ms"));
        Lease.parseWait(number(r, "reply"), number(r, "replicas"));
        return object("wait_ms", terms.waitMs());
    }

    /** A leased minter started at wall `now_ms`, its acquire sent at monotonic 0. */
    static Object leaseStart(Map<String, Object> r) {
        long previous = r.get("previous_mark") == null ? -1 : number(r, "previous_mark");
        Acquired acquired = Lease.parseAcquire(number(r, "node"), previous);
        LeaseTerms terms = LeaseTerms.of(number(r, "ttl_ms"), number(r, "margin_ms"));
        long now = number(r, "now_ms");
        try (LeasedMinter minter = LeasedMinter.start(acquired, now, 0, terms)) {
            long snowflake = minter.nextAt(now, 0);
            return object(
                    "snowflake", Long.toUnsignedString(snowflake),
                    "fence_ms", minter.fenceMs(),
                    "next_mark", minter.nextMark(now));
        }
    }

    /** What an error reply to a lease write means, and where a MOVED/ASK sends it. */
    static Object leaseReply(Map<String, Object> r) {
        String error = text(r, "error");
        Optional<Redirect> to = Lease.redirect(error);
        Object where = to.<Object>map(d -> object("ask", d.ask(), "slot", d.slot(), "host", d.host().orElse(null), "port", d.port()))
                .orElse(null);
        return object("outcome", Lease.readLeaseError(error, (Boolean) r.get("asked")).code(), "redirect", where);
    }

    /** A keeper run through the request's steps: a write due, a release begun, or a write settled. */
    static Object leaseKeeper(Map<String, Object> r) {
        LeaseTerms terms = LeaseTerms.of(number(r, "ttl_ms"), number(r, "margin_ms"));
        LeaseKeeper keeper = new LeaseKeeper(terms, number(r, "since"));
        List<Object> steps = new ArrayList<>();
        for (Object each : asList(r.get("steps"))) {
            Map<String, Object> step = asObject(each);
            if (step.containsKey("release")) {
                keeper.release();
                steps.add(object("phase", keeper.phase().code()));
                continue;
            }
            if (!step.containsKey("outcome")) {
                steps.add(object("next", keeper.next(number(step, "at")).code(), "phase", keeper.phase().code()));
                continue;
            }
            Outcome outcome = Outcome.of(text(step, "outcome"));
            Step done = keeper.settle(outcome, number(step, "sent"), number(step, "at"));
            Map<String, Object> answer =
                    object("action", done.action().code(), "after_ms", done.afterMs(), "phase", keeper.phase().code());
            if (done.action() == Action.GIVE_UP) {
                answer.put("refusal", LeaseKeeper.refusal(outcome).map(e -> e.gate().code()).orElse(null));
            }
            steps.add(answer);
        }
        return object("renew_every_ms", terms.renewEveryMs(), "retry_ms", terms.retryMs(), "steps", steps);
    }

    /** One request as one call (or a few) of the API, and its answer. */
    static Map<String, Object> translate(Map<String, Object> r) {
        String op = text(r, "op");
        switch (op == null ? "" : op) {
            case "decode":
                return ok(() -> decoded(hasHex(r, "text") ? Codec.decode(hex(r, "text")) : Codec.decode(text(r, "text"))));
            case "encode":
                return ok(() -> object("text", Codec.encode(text(r, "ns"), unsignedDecimal(text(r, "snowflake"), "snowflake"))));
            case "min_for":
                return ok(() -> object("snowflake", Long.toUnsignedString(Snowflake.minFor(decimal(text(r, "unix_ms"), "unix_ms")))));
            case "mint":
                return ok(() -> mint(r));
            case "slot":
                return ok(() -> placed(r));
            case "key":
                return ok(() -> key(r));
            case "parse_key":
                return ok(() -> parsed(Keyspace.parseKey(text(r, "key"))));
            case "reserve":
                return ok(() -> object("key", Keyspace.reserve(text(r, "name"))));
            case "prefix_bytes":
                return ok(() -> object("bytes", Keyspace.prefixBytes(text(r, "queue"), text(r, "type"))));
            case "queue_prefix":
                return ok(() -> object("key", Keyspace.queuePrefix(text(r, "queue"))));
            case "job_prefix":
                return ok(() -> object("key", Keyspace.jobPrefix(text(r, "queue"))));
            case "xadd_id":
                return ok(() -> object("entry", Keyspace.xaddId(text(r, "id"))));
            case "from_xadd_id":
                return ok(() -> object("id", Keyspace.fromXaddId(text(r, "entry"), text(r, "ns"))));
            case "lease_script":
                return leaseScript(r);
            case "lease_keys":
                return object("ok", object("lease_key", Lease.KEY));
            case "parse_acquire":
                return ok(() -> acquired(Lease.parseAcquire(number(r, "node"), number(r, "previous"))));
            case "parse_acquire_error":
                return Lease.parseAcquireError(text(r, "message"))
                        .map(Adapter::refused)
                        .orElseGet(() -> object("ok", object("refusal", false)));
            case "parse_renewal":
                return ok(() -> {
                    Lease.parseRenewal(number(r, "reply"));
                    return object();
                });
            case "lease_start":
                return ok(() -> leaseStart(r));
            case "lease_wait":
                return ok(() -> leaseWait(r));
            case "lease_reply":
                return ok(() -> leaseReply(r));
            case "lease_keeper":
                return ok(() -> leaseKeeper(r));
            default:
                return object("unsupported", "unknown op " + op);
        }
    }

    /**
     * Answers every request of stdin on stdout, one line each.
     *
     * @param args none
     * @throws IOException when stdin or stdout fails
     */
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // ASCII out (Json escapes the rest), so the platform's charset never matters.
        Writer out = new OutputStreamWriter(System.out, StandardCharsets.US_ASCII);
        StringBuilder line = new StringBuilder();
        for (String request = in.readLine(); request != null; request = in.readLine()) {
            if (request.isBlank()) {
                continue;
            }
            Map<String, Object> r = asObject(Json.parse(request));
            Map<String, Object> answer = translate(r);
            answer.put("req", r.get("req"));
            line.setLength(0);
            Json.write(line, answer);
            out.write(line.append('\n').toString());
        }
        out.flush();
    }

    /** The protocol's JSON: a reader of one value per line and a writer (see the header). */
    static final class Json {
        /** A number, kept as its text until a field is read as a long. */
        record Num(String text) {}

        private final String s;
        private int i;

        /** A reader of one line. */
        private Json(String s) {
            this.s = s;
        }

        /** The one value {@code text} holds. */
        static Object parse(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.i != text.length()) {
                throw json.fail("text after the value");
            }
            return value;
        }

        /** A failure naming the place in the line. */
        private IllegalArgumentException fail(String what) {
            return new IllegalArgumentException("not JSON (" + what + " at " + i + "): " + s);
        }

        /** Skips white space. */
        private void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        /** Consumes {@code c}, after white space. */
        private void expect(char c) {
            space();
            if (i >= s.length() || s.charAt(i) != c) {
                throw fail("expected '" + c + "'");
            }
            i++;
        }

        /** Any value. */
        private Object value() {
            space();
            if (i >= s.length()) {
                throw fail("end of input");
            }
            switch (s.charAt(i)) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        /** {@code true}, {@code false} or {@code null}. */
        private Object literal(String word, Object value) {
            if (!s.startsWith(word, i)) {
                throw fail("unknown literal");
            }
            i += word.length();
            return value;
        }

        /** An object, its keys in their order. */
        private Map<String, Object> object() {
            expect('{');
            Map<String, Object> out = new LinkedHashMap<>();
            space();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return out;
            }
            do {
                space();
                String key = string();
                expect(':');
                out.put(key, value());
                space();
            } while (i < s.length() && s.charAt(i) == ',' && ++i > 0);
            expect('}');
            return out;
        }

        /** An array. */
        private List<Object> array() {
            expect('[');
            List<Object> out = new ArrayList<>();
            space();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return out;
            }
            do {
                out.add(value());
                space();
            } while (i < s.length() && s.charAt(i) == ',' && ++i > 0);
            expect(']');
            return out;
        }

        /** A number, as its text. */
        private Num number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw fail("unexpected character");
            }
            return new Num(s.substring(start, i));
        }

        /** A string; `\\uXXXX` escapes append their UTF-16 unit (a pair arrives as two). */
        private String string() {
            if (i >= s.length() || s.charAt(i) != '"') {
                throw fail("expected a string");
            }
            i++;
            StringBuilder out = new StringBuilder();
            while (true) {
                if (i >= s.length()) {
                    throw fail("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw fail("unterminated escape");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw fail("short \\u escape");
                        }
                        out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> throw fail("unknown escape");
                }
            }
        }

        /** Writes `value` (a map, list, string, boolean, Integer, Long, Num or null) as JSON in ASCII. */
        static void write(StringBuilder out, Object value) {
            if (value == null) {
                out.append("null");
            } else if (value instanceof String text) {
                quote(out, text);
            } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
                out.append(value);
            } else if (value instanceof Num number) {
                out.append(number.text());
            } else if (value instanceof Map<?, ?> map) {
                out.append('{');
                String comma = "";
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    out.append(comma);
                    quote(out, (String) entry.getKey());
                    out.append(':');
                    write(out, entry.getValue());
                    comma = ",";
                }
                out.append('}');
            } else if (value instanceof List<?> list) {
                out.append('[');
                String comma = "";
                for (Object item : list) {
                    out.append(comma);
                    write(out, item);
                    comma = ",";
                }
                out.append(']');
            } else {
                throw new IllegalArgumentException("no JSON for a " + value.getClass().getName());
            }
        }

        /** A string, every character outside printable ASCII escaped. */
        private static void quote(StringBuilder out, String text) {
            out.append('"');
            for (int k = 0; k < text.length(); k++) {
                char c = text.charAt(k);
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20 || c > 0x7e) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            out.append('"');
        }
    }
}
