package io.echomq.emqid;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The contract's self-check (SPEC.md §8) through this package's public API: every line of the
 * vectors (the forms of the core's {@code check.rs}) is answered by the public classes, so
 * their conversions of strings, bytes, numbers and refusals are checked too, not only the
 * native library. The first line answered differently throws {@link SelfCheckException}.
 */
final class SelfCheck {
    private SelfCheck() {}

    static void run(String vectors) {
        List<String> lines = Arrays.stream(vectors.split("\n")).filter(l -> !l.isEmpty()).toList();
        if (lines.isEmpty()) {
            throw new SelfCheckException("", "nothing: no lines to check", null);
        }
        for (String line : lines) {
            Object[] check;
            try {
                check = check(line.split(" "));
            } catch (RuntimeException raised) {
                throw new SelfCheckException(line, raised.toString(), raised);
            }
            if (!Objects.equals(check[0], check[1])) {
                throw new SelfCheckException(line, String.valueOf(check[1]) + " (expected " + check[0] + ")", null);
            }
        }
    }

    /** The gate of the refusal {@code call} throws, else what it returned. */
    private static Object refusal(java.util.function.Supplier<Object> call) {
        try {
            return call.get();
        } catch (EmqIdException refused) {
            return "refused " + refused.gate().code();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static Object key(String queue, String kind, String id) {
        return refusal(() -> id.equals("-") ? Keyspace.key(queue, kind) : Keyspace.key(queue, kind, id));
    }

    /** One line as {expected, answer}. */
    private static Object[] check(String[] words) {
        String op = words[0];
        String[] a = Arrays.copyOfRange(words, 1, words.length);
        switch (op + "/" + a.length) {
            case "decode/7": {
                long s = Long.parseUnsignedLong(a[2]);
                Id id = Id.parse(a[0]);
                List<Object> expected = List.of(a[1], s, Long.parseLong(a[3]), Integer.parseInt(a[4]),
                        Integer.parseInt(a[5]), Long.parseLong(a[6]), Long.parseLong(a[3]), Integer.parseInt(a[4]),
                        Integer.parseInt(a[5]), id, true, 0, a[0]);
                List<Object> answer = List.of(id.ns(), id.snowflake(), id.unixMs(), id.node(), id.seq(),
                        Snowflake.hash32(s), Snowflake.unixMs(s), Snowflake.node(s), Snowflake.seq(s),
                        Id.parse(bytes(a[0])), Id.isValid(a[0]), Id.compare(a[0], a[0]), Codec.decode(a[0]).toString());
                return new Object[] {expected, answer};
            }
            case "encode/3":
                return new Object[] {List.of(a[2], a[2]),
                        List.of(Codec.encode(a[0], Long.parseUnsignedLong(a[1])), Id.of(a[0], Long.parseUnsignedLong(a[1])).toString())};
            case "reject/2": {
                String refused = "refused " + a[1];
                return new Object[] {List.of(refused, refused, false),
                        List.of(refusal(() -> Id.parse(a[0])), refusal(() -> Id.parse(bytes(a[0]))), Id.isValid(a[0]))};
            }
            case "encode_reject/3":
                return new Object[] {"refused " + a[2], refusal(() -> Codec.encode(a[0], Long.parseUnsignedLong(a[1])))};
            case "min_for/2":
                return new Object[] {Long.parseUnsignedLong(a[1]), Snowflake.minFor(Long.parseLong(a[0]))};
            case "mint/5": {
                Minter minter = new Minter(Integer.parseInt(a[0]));
                return new Object[] {List.of(Long.parseUnsignedLong(a[3]), Long.parseUnsignedLong(a[4])),
                        List.of(minter.nextAt(Long.parseLong(a[1])), minter.nextAt(Long.parseLong(a[2])))};
            }
            case "slot/2": {
                int slot = Integer.parseInt(a[1]);
                return new Object[] {List.of(slot, slot), List.of(Keyspace.slot(a[0]), Keyspace.slot(bytes(a[0])))};
            }
            case "hashtag/2":
                return new Object[] {List.of(a[1], Arrays.toString(bytes(a[1]))),
                        List.of(Keyspace.hashtag(a[0]), Arrays.toString(Keyspace.hashtag(bytes(a[0]))))};
            case "key/4":
                return new Object[] {a[3], key(a[0], a[1], a[2])};
            case "key_reject/4":
                return new Object[] {"refused " + a[3], key(a[0], a[1], a[2])};
            case "xadd_id/2":
                return new Object[] {a[1], Keyspace.xaddId(a[0])};
            default:
                return new Object[] {"a line this package knows", "unknown line"};
        }
    }
}
