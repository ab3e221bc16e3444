package io.echomq.emqid.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.echomq.emqid.EmqIdException;
import io.echomq.emqid.Gate;
import io.echomq.emqid.Keyspace;
import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.Snowflake;
import io.echomq.emqid.holder.Held;
import io.echomq.emqid.holder.HolderStats;
import io.echomq.emqid.holder.LeaseHolder;
import io.echomq.emqid.testing.Valkey;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Lettuce holder against live valkey-servers: a lease on a cluster with a replica (each write
 * acknowledged by WAIT) taken, minted on and renewed over several TTLs, then released; an acquire
 * no replica acknowledged refused and handed back; the reserve's slot migrated under a held lease
 * (ASK followed with ASKING, then MOVED rerouted) without a lost lease; a lease on a one-node
 * cluster that names no host of its own, through a client whose first slot map is slow to come,
 * kept on one node.
 */
class LettuceLeaseLiveTest {
    /** Renewed every 300 ms, fenced 150 ms before the TTL. */
    private static final LeaseTerms TERMS = LeaseTerms.of(900, 150);

    @TempDir
    Path dir;

    /** Mints for {@code ms} (as fast as a renewal allows), each id on the node held, no lease lost. */
    private static void mintsFor(LeaseHolder lease, long ms, String when) throws InterruptedException {
        Held held = lease.held().orElseThrow(() -> new AssertionError(when + ": no lease held"));
        long end = System.nanoTime() + ms * 1_000_000;
        long last = 0;
        while (System.nanoTime() < end) {
            long snowflake;
            try {
                snowflake = lease.next();
            } catch (EmqIdException refused) {
                throw new AssertionError(when + ": " + refused.getMessage() + " " + lease.stats(), refused);
            }
            assertEquals(held.node(), Snowflake.node(snowflake));
            assertTrue(Long.compareUnsigned(snowflake, last) > 0, "ids increase");
            last = snowflake;
            Thread.sleep(5);
        }
        HolderStats stats = lease.stats();
        assertEquals(1, stats.taken(), when + ": " + stats);
        assertEquals(0, stats.lost(), when + ": " + stats);
    }

    /** The reserve's fields. */
    @SuppressWarnings("unchecked")
    private static List<Object> fields(Valkey server) throws Exception {
        return (List<Object>) server.ok("HKEYS", Lease.KEY);
    }

    @Test
    void aLeaseOnAClusterWithAReplicaIsTakenMintedRenewedAndReleased() throws Exception {
        List<Valkey> cluster = Valkey.cluster(dir, 1);
        Valkey primary = cluster.get(0);
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create("127.0.0.1", primary.port));
        try {
            LeaseHolder lease = LettuceLease.acquire(client, 1, TERMS);
            int node = lease.held().orElseThrow().node();
            assertTrue(lease.mint("JOB").startsWith("JOB"));
            mintsFor(lease, 4 * TERMS.ttlMs(), "renewed over four TTLs");
            assertTrue(fields(primary).contains(node + ":token"));
            assertTrue(lease.release());
            List<Object> after = fields(primary);
            assertFalse(after.contains(node + ":token"), "handed back: " + after);
            assertTrue(after.contains(node + ":mark"), "its mark kept: " + after);
            assertEquals(Gate.NODE, assertThrows(EmqIdException.class, lease::next).gate());
        } finally {
            shut(client);
            cluster.forEach(Valkey::close);
        }
    }

    @Test
    void anAcquireNoReplicaAcknowledgedIsRefusedByWaitAndHandedBack() throws Exception {
        RedisClient client = RedisClient.create();
        try (Valkey server = Valkey.start(dir)) {
            RedisURI uri = RedisURI.create("127.0.0.1", server.port);
            EmqIdException refusal = assertThrows(EmqIdException.class, () -> LettuceLease.acquire(client, uri, 1, TERMS));
            assertEquals(Gate.NODE, refusal.gate());
            assertEquals(0, refusal.acknowledged().orElseThrow());
            assertEquals(1, refusal.replicas().orElseThrow());
            assertTrue(fields(server).stream().noneMatch(f -> f.toString().endsWith(":token")), "released");
            // Without replicas asked for, the same server leases.
            try (LeaseHolder lease = LettuceLease.acquire(client, uri, 0, TERMS)) {
                mintsFor(lease, 300, "a standalone server");
            }
        } finally {
            shut(client);
        }
    }

    @Test
    void aLeaseFollowsItsSlotsMigration() throws Exception {
        try (Valkey source = Valkey.start(dir, "--cluster-enabled", "yes");
                Valkey target = Valkey.start(dir, "--cluster-enabled", "yes")) {
            source.ok("CLUSTER", "ADDSLOTSRANGE", "0", "16383");
            source.ok("CLUSTER", "MEET", "127.0.0.1", Integer.toString(target.port));
            Valkey.await(10_000, "a cluster of two", () -> source.ok("CLUSTER", "INFO").toString().contains("cluster_state:ok")
                    && target.ok("CLUSTER", "INFO").toString().contains("cluster_known_nodes:2")
                    && target.ok("CLUSTER", "INFO").toString().contains("cluster_state:ok"));
            String sourceId = (String) source.ok("CLUSTER", "MYID");
            String targetId = (String) target.ok("CLUSTER", "MYID");
            String slot = Integer.toString(Keyspace.slot(Lease.KEY));
            RedisClusterClient client = RedisClusterClient.create(RedisURI.create("127.0.0.1", source.port));
            try {
                LeaseHolder lease = LettuceLease.acquire(client, 0, TERMS);
                mintsFor(lease, 300, "before the migration");

                // The key leaves the source: the source answers ASK for it, and each renewal is
                // followed to the target (ASKING, the script, on one connection).
                target.ok("CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId);
                source.ok("CLUSTER", "SETSLOT", slot, "MIGRATING", targetId);
                source.ok("MIGRATE", "127.0.0.1", Integer.toString(target.port), "", "0", "5000", "KEYS", Lease.KEY);
                mintsFor(lease, 2 * TERMS.ttlMs(), "the key on the importing node");
                Object asked = source.call("HLEN", Lease.KEY);
                assertTrue(asked.toString().startsWith("-ASK "), "the source on the key: " + asked);

                // The slot is the target's: the source answers MOVED, and the client's map is refreshed.
                target.ok("CLUSTER", "SETSLOT", slot, "NODE", targetId);
                source.ok("CLUSTER", "SETSLOT", slot, "NODE", targetId);
                mintsFor(lease, 2 * TERMS.ttlMs(), "the slot on the target");
                assertTrue(lease.release());
                assertTrue(fields(target).stream().noneMatch(f -> f.toString().endsWith(":token")), "released on the target");
            } finally {
                shut(client);
            }
        }
    }

    @Test
    void aLeaseOnAOneNodeClusterWithoutItsHostIsKeptThoughTheClientsFirstMapIsSlow() throws Exception {
        try (Valkey node = Valkey.oneNodeWithoutItsHost(dir); Silent silent = new Silent()) {
            // Lettuce loads its first slot map when it is first asked, from every seed: a seed that
            // never answers holds it for the seeds' timeout (a cold JVM's first map is as slow), far
            // past the lease's fence. That wait is before the acquire leaves: it must not count
            // against the lease.
            Duration timeout = Duration.ofMillis(3 * TERMS.ttlMs());
            RedisClusterClient client = RedisClusterClient.create(List.of(
                    RedisURI.builder().withHost("127.0.0.1").withPort(silent.port()).withTimeout(timeout).build(),
                    RedisURI.builder().withHost("127.0.0.1").withPort(node.port).withTimeout(timeout).build()));
            try {
                LeaseHolder lease = LettuceLease.acquire(client, 0, TERMS);
                mintsFor(lease, 3 * TERMS.ttlMs(), "on the one node");
                int held = lease.held().orElseThrow().node();
                assertTrue(lease.release());
                assertTrue(fields(node).contains(held + ":mark"), "released on the node");
                assertTrue(fields(node).stream().noneMatch(f -> f.toString().endsWith(":token")), "one lease, handed back");
            } finally {
                shut(client);
            }
        }
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

    private static void shut(io.lettuce.core.AbstractRedisClient client) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
