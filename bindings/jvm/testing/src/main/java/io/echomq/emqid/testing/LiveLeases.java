package io.echomq.emqid.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.echomq.emqid.EmqIdException;
import io.echomq.emqid.Gate;
import io.echomq.emqid.Keyspace;
import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.Snowflake;
import io.echomq.emqid.holder.Held;
import io.echomq.emqid.holder.HolderStats;
import io.echomq.emqid.holder.LeaseHolder;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * The live scenarios every lease holder over a client library passes, against valkey-servers of
 * their own: a lease on a cluster with a replica (each write acknowledged by WAIT) taken, minted on
 * and renewed over several TTLs, then released; an acquire no replica acknowledged refused and
 * handed back; the reserve's slot migrated under a held lease (ASK followed with ASKING, then MOVED
 * rerouted) without a lost lease; a lease on a one-node cluster that names no host of its own kept
 * on one node.
 *
 * <p>Written once so the holders over Jedis and Lettuce are held to the same cases, assertions and
 * messages: a copy in each client's test drifts. A client's test contributes only how its client
 * is made and closed ({@link Clients}) and a {@code @TestFactory} that returns {@link #scenarios}
 * (one table, each client a closure: JUnit's annotations and temporary folders stay in the
 * modules that run them). A scenario only one client has calls a scenario or helper here with a
 * client made its own way.
 */
public final class LiveLeases {
    /** Renewed every 300 ms, fenced 150 ms before the TTL. */
    public static final LeaseTerms TERMS = LeaseTerms.of(900, 150);

    private LiveLeases() {}

    /**
     * How one client library reaches a server: a client made over it, whose holders the scenario
     * acquires and which it closes. Each scenario says whether it hands over a cluster's node (the
     * client's seed) or a server that is no cluster.
     */
    @FunctionalInterface
    public interface Clients {
        /**
         * A client over {@code server}, not yet connected if the library connects lazily.
         *
         * @param server the server, or the cluster's node to seed the client with
         * @return the client, closed by the scenario
         * @throws Exception a failure to make it, which fails the scenario
         */
        Client over(Valkey server) throws Exception;
    }

    /** One client of a library: how a holder is acquired through it, and how it is shut. */
    public static final class Client implements Closeable {
        private final Acquire acquire;
        private final Closeable shut;

        /**
         * A client.
         *
         * @param acquire the holder's acquire through this client
         * @param shut closes the client (and whatever else its making opened)
         */
        public Client(Acquire acquire, Closeable shut) {
            this.acquire = Objects.requireNonNull(acquire, "acquire");
            this.shut = Objects.requireNonNull(shut, "shut");
        }

        LeaseHolder acquire(int replicas, LeaseTerms terms) {
            return acquire.acquire(replicas, terms);
        }

        // Closeable, not AutoCloseable: a close that may throw InterruptedException is a lint
        // warning in every try-with-resources, and the build fails on warnings.
        @Override
        public void close() throws IOException {
            shut.close();
        }

        /** A holder's acquire through one client: the library's {@code acquire(client, replicas, terms)}. */
        @FunctionalInterface
        public interface Acquire {
            /**
             * A lease held through the client.
             *
             * @param replicas the replicas each write waits for
             * @param terms the lease's TTL and fence
             * @return the holder
             */
            LeaseHolder acquire(int replicas, LeaseTerms terms);
        }
    }

    /**
     * Every scenario, one dynamic test each named after it, each in a folder of its own under
     * {@code dir} (a server later on a port an earlier one used must not read that one's
     * nodes.conf).
     *
     * @param dir the test's temporary folder
     * @param cluster a client seeded with one node of a cluster
     * @param server a client of one server that is no cluster
     * @return the scenarios, for a {@code @TestFactory}
     */
    public static Stream<DynamicTest> scenarios(Path dir, Clients cluster, Clients server) {
        return Stream.of(
                dynamicTest("aLeaseOnAClusterWithAReplicaIsTakenMintedRenewedAndReleased",
                        () -> aLeaseOnAClusterWithAReplicaIsTakenMintedRenewedAndReleased(own(dir), cluster)),
                dynamicTest("anAcquireNoReplicaAcknowledgedIsRefusedByWaitAndHandedBack",
                        () -> anAcquireNoReplicaAcknowledgedIsRefusedByWaitAndHandedBack(own(dir), server)),
                dynamicTest("aLeaseFollowsItsSlotsMigration",
                        () -> aLeaseFollowsItsSlotsMigration(own(dir), cluster)),
                dynamicTest("aLeaseOnAOneNodeClusterWithoutItsHostIsKeptOnOneNode",
                        () -> aLeaseOnAOneNodeClusterWithoutItsHostIsKeptOnOneNode(own(dir), cluster)));
    }

    private static Path own(Path dir) throws Exception {
        return Files.createTempDirectory(dir, "scenario-");
    }

    /**
     * Mints for {@code ms} (as fast as a renewal allows), each id on the node held, no lease lost.
     * Public, as {@link #fields}, for a scenario only one client has.
     */
    public static void mintsFor(LeaseHolder lease, long ms, String when) throws InterruptedException {
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
    public static List<Object> fields(Valkey server) throws Exception {
        return (List<Object>) server.ok("HKEYS", Lease.KEY);
    }

    /**
     * A lease on a cluster with a replica: taken with each write acknowledged by WAIT, minted on and
     * renewed over four TTLs, released (its token gone, its mark kept), then refused.
     *
     * @param dir where the servers keep their files
     * @param cluster a client seeded with the cluster's primary
     */
    public static void aLeaseOnAClusterWithAReplicaIsTakenMintedRenewedAndReleased(Path dir, Clients cluster)
            throws Exception {
        List<Valkey> servers = Valkey.cluster(dir, 1);
        Valkey primary = servers.get(0);
        try (Client client = cluster.over(primary)) {
            LeaseHolder lease = client.acquire(1, TERMS);
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
            servers.forEach(Valkey::close);
        }
    }

    /**
     * An acquire asking for a replica of a server that has none: refused by WAIT with what was
     * acknowledged, the node handed back; the same server leases when no replica is asked for.
     *
     * @param dir where the server keeps its files
     * @param server a client of one server that is no cluster
     */
    public static void anAcquireNoReplicaAcknowledgedIsRefusedByWaitAndHandedBack(Path dir, Clients server)
            throws Exception {
        try (Valkey valkey = Valkey.start(dir); Client client = server.over(valkey)) {
            EmqIdException refusal = assertThrows(EmqIdException.class, () -> client.acquire(1, TERMS));
            assertEquals(Gate.NODE, refusal.gate());
            assertEquals(0, refusal.acknowledged().orElseThrow());
            assertEquals(1, refusal.replicas().orElseThrow());
            assertTrue(fields(valkey).stream().noneMatch(f -> f.toString().endsWith(":token")), "released");
            // Without replicas asked for, the same server leases.
            try (LeaseHolder lease = client.acquire(0, TERMS)) {
                mintsFor(lease, 300, "a standalone server");
            }
        }
    }

    /**
     * The reserve's slot migrated under a held lease: while the key is on the importing node the
     * source answers ASK and each renewal follows it, then the slot is the target's and the source
     * answers MOVED; no lease is lost, and it is released on the target.
     *
     * @param dir where the servers keep their files
     * @param cluster a client seeded with the node the slot leaves
     */
    public static void aLeaseFollowsItsSlotsMigration(Path dir, Clients cluster) throws Exception {
        try (Valkey source = Valkey.start(dir, "--cluster-enabled", "yes");
                Valkey target = Valkey.start(dir, "--cluster-enabled", "yes")) {
            source.ok("CLUSTER", "ADDSLOTSRANGE", "0", Valkey.LAST_SLOT);
            source.ok("CLUSTER", "MEET", "127.0.0.1", Integer.toString(target.port));
            Valkey.await(10_000, "a cluster of two", () -> source.ok("CLUSTER", "INFO").toString().contains("cluster_state:ok")
                    && target.ok("CLUSTER", "INFO").toString().contains("cluster_known_nodes:2")
                    && target.ok("CLUSTER", "INFO").toString().contains("cluster_state:ok"));
            String sourceId = (String) source.ok("CLUSTER", "MYID");
            String targetId = (String) target.ok("CLUSTER", "MYID");
            String slot = Integer.toString(Keyspace.slot(Lease.KEY));
            try (Client client = cluster.over(source)) {
                LeaseHolder lease = client.acquire(0, TERMS);
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
            }
        }
    }

    /**
     * A lease on a one-node cluster whose CLUSTER SLOTS names no host (as `cargo xtask chaos`'s
     * first trial makes it): kept over three TTLs on the one node, then released there.
     *
     * @param dir where the node keeps its files
     * @param cluster a client seeded with the node
     */
    public static void aLeaseOnAOneNodeClusterWithoutItsHostIsKeptOnOneNode(Path dir, Clients cluster)
            throws Exception {
        try (Valkey node = Valkey.oneNodeWithoutItsHost(dir); Client client = cluster.over(node)) {
            LeaseHolder lease = client.acquire(0, TERMS);
            mintsFor(lease, 3 * TERMS.ttlMs(), "on the one node");
            int held = lease.held().orElseThrow().node();
            assertTrue(lease.release());
            assertTrue(fields(node).contains(held + ":mark"), "released on the node");
            assertTrue(fields(node).stream().noneMatch(f -> f.toString().endsWith(":token")), "one lease, handed back");
        }
    }
}
