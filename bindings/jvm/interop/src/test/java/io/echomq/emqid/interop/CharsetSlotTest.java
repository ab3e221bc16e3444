package io.echomq.emqid.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.echomq.emqid.testing.Valkey;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key's slot must not depend on the JVM it is computed in: Valkey hashes the key's bytes, and
 * a program writes them as UTF-8 whatever its platform charset. So emq-id's
 * {@code Keyspace.slot(String)} is checked against the server's {@code CLUSTER KEYSLOT} in child
 * JVMs whose platform charset ({@code -Dfile.encoding}) is GBK, Shift_JIS, Big5 and, as the
 * control, UTF-8, for keys in Chinese, Russian and Japanese, with and without a hashtag.
 *
 * <p>Jedis' and Lettuce's {@code getSlot(String)} are printed beside ours and not asserted: they
 * are not ours to fix, and the table tells a user which client places such keys where the
 * server does. (Lettuce encodes the key in the platform charset here, so it disagrees under the
 * non-Unicode ones; its connections send the key in UTF-8, so a command can go to a node that
 * does not own the key.)
 */
class CharsetSlotTest {
    /** The platform charsets the children run with; UTF-8 first, the control. */
    private static final List<String> CHARSETS = List.of("UTF-8", "GBK", "Shift_JIS", "Big5");

    /** Keys whose UTF-8 bytes differ from their bytes in each of the charsets above. */
    private static final List<String> KEYS = List.of(
            "用户{订单}:1", "ключ", "キー{タグ}", "{user1000}.following", "emq:{队列}:job:JOB0KHTOWnGLuC");

    private static Valkey server;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        server = Valkey.start(dir, "--cluster-enabled", "yes");
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void ourSlotIsTheServersUnderEveryPlatformCharset() throws Exception {
        List<Long> expected = new ArrayList<>();
        for (String key : KEYS) {
            expected.add(keyslot(key));
        }
        StringBuilder table = new StringBuilder("\n| platform charset | key | CLUSTER KEYSLOT | emq-id | Jedis | Lettuce |\n"
                + "|---|---|---|---|---|---|\n");
        List<String> wrong = new ArrayList<>();
        for (String charset : CHARSETS) {
            List<long[]> slots = childSlots(charset);
            for (int i = 0; i < KEYS.size(); i++) {
                long[] s = slots.get(i);
                long want = expected.get(i);
                table.append("| ").append(charset).append(" | ").append(KEYS.get(i)).append(" | ").append(want)
                        .append(" | ").append(s[0]).append(" | ").append(agrees(s[1], want)).append(" | ")
                        .append(agrees(s[2], want)).append(" |\n");
                if (s[0] != want) {
                    wrong.add(charset + " " + KEYS.get(i) + ": emq-id " + s[0] + ", server " + want);
                }
            }
        }
        // A report, not a judgement of the clients: printed whether or not our slots agree.
        System.out.println(table);
        assertTrue(wrong.isEmpty(), () -> "emq-id's slot differs from CLUSTER KEYSLOT: " + wrong + table);
    }

    private static String agrees(long slot, long server) {
        return slot == server ? slot + " (agrees)" : slot + " (**differs**)";
    }

    /**
     * The child's slots of {@link #KEYS} (emq-id, Jedis, Lettuce per key), after checking that its
     * platform charset is the one asked for: a JVM that ignored {@code -Dfile.encoding} would make
     * this a second run of the control.
     */
    private static List<long[]> childSlots(String charset) throws Exception {
        // The test's own java (Surefire's fork: JDK 17 or 25) and class path (Surefire names the
        // real one in surefire.test.class.path; java.class.path may be its one-entry booter jar).
        String java = ProcessHandle.current().info().command().orElseThrow(() -> new AssertionError("no path to this JVM's java"));
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "-Dfile.encoding=" + charset, "-cp", classPath, PrintSlots.class.getName()));
        for (String key : KEYS) {
            command.add(HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8)));
        }
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        child.getOutputStream().close();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the " + charset + " child did not finish");
        assertEquals(0, child.exitValue(), () -> "the " + charset + " child failed:\n" + out);
        List<String> lines = out.lines().filter(l -> !l.startsWith("WARNING")).toList();
        assertEquals(charset, lines.get(0), () -> "the child ran with another platform charset:\n" + out);
        List<long[]> slots = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            slots.add(Arrays.stream(line.split(" ")).mapToLong(Long::parseLong).toArray());
        }
        assertEquals(KEYS.size(), slots.size(), () -> "the " + charset + " child printed:\n" + out);
        return slots;
    }

    /** The server's slot of a key (sent as its UTF-8 by the RESP socket): the truth our slot is held to. */
    private static long keyslot(String key) throws java.io.IOException {
        Object reply = server.ok("CLUSTER", "KEYSLOT", key);
        if (!(reply instanceof Long slot)) {
            throw new AssertionError("CLUSTER KEYSLOT " + key + " answered " + reply);
        }
        return slot;
    }
}
