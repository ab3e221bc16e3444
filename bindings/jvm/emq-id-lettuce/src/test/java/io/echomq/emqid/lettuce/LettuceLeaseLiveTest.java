package io.echomq.emqid.lettuce;

import io.echomq.emqid.testing.LiveLeases;
import io.echomq.emqid.testing.LiveLeases.Client;
import io.echomq.emqid.testing.Valkey;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Lettuce holder against live valkey-servers, in the scenarios every holder passes
 * ({@link LiveLeases}, which says what each one proves), and one only Lettuce has: the one-node
 * cluster that names no host of its own, through a client whose first slot map is slow to come.
 */
class LettuceLeaseLiveTest {
    @TempDir
    Path dir;

    /** A cluster client seeded with {@code seed}. */
    private static Client cluster(Valkey seed) {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create("127.0.0.1", seed.port));
        return new Client((replicas, terms) -> LettuceLease.acquire(client, replicas, terms), () -> shut(client));
    }

    /** A client of one server. */
    private static Client server(Valkey server) {
        RedisClient client = RedisClient.create();
        RedisURI uri = RedisURI.create("127.0.0.1", server.port);
        return new Client((replicas, terms) -> LettuceLease.acquire(client, uri, replicas, terms), () -> shut(client));
    }

    /**
     * A cluster client seeded first with a port that never answers, then with {@code seed}.
     * Lettuce loads its first slot map when it is first asked, from every seed: a seed that never
     * answers holds it for the seeds' timeout (a cold JVM's first map is as slow), far past the
     * lease's fence. That wait is before the acquire leaves: it must not count against the lease.
     */
    private static Client behindASilentSeed(Valkey seed) throws IOException {
        Silent silent = new Silent();
        Duration timeout = Duration.ofMillis(3 * LiveLeases.TERMS.ttlMs());
        RedisClusterClient client = RedisClusterClient.create(List.of(
                RedisURI.builder().withHost("127.0.0.1").withPort(silent.port()).withTimeout(timeout).build(),
                RedisURI.builder().withHost("127.0.0.1").withPort(seed.port).withTimeout(timeout).build()));
        return new Client((replicas, terms) -> LettuceLease.acquire(client, replicas, terms), () -> {
            shut(client);
            silent.close();
        });
    }

    @TestFactory
    Stream<DynamicTest> scenarios() {
        return LiveLeases.scenarios(dir, LettuceLeaseLiveTest::cluster, LettuceLeaseLiveTest::server);
    }

    @Test
    void aLeaseOnAOneNodeClusterWithoutItsHostIsKeptThoughTheClientsFirstMapIsSlow() throws Exception {
        LiveLeases.aLeaseOnAOneNodeClusterWithoutItsHostIsKeptOnOneNode(dir, LettuceLeaseLiveTest::behindASilentSeed);
    }

    /** A loopback port that accepts connections and never answers on them. */
    private static final class Silent implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> accepted = new ArrayList<>();

        Silent() throws IOException {
            Thread thread = new Thread(() -> {
                try {
                    while (true) {
                        Socket connection = socket.accept();
                        synchronized (accepted) {
                            accepted.add(connection);
                        }
                    }
                } catch (IOException closed) {
                    // Closed: the test is over.
                }
            }, "silent-seed");
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (accepted) {
                for (Socket connection : accepted) {
                    connection.close();
                }
            }
        }
    }

    private static void shut(AbstractRedisClient client) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
