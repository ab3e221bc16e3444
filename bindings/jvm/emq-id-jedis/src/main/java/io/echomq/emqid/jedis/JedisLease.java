package io.echomq.emqid.jedis;

import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.holder.LeaseHolder;
import java.util.Objects;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/**
 * A node lease on Valkey ({@code emq-lease/3}) held in one call, over the Jedis client a program
 * already has:
 *
 * <pre>{@code
 * try (RedisClusterClient valkey = RedisClusterClient.create(new HostAndPort("10.0.0.1", 7000));
 *      LeaseHolder lease = JedisLease.acquire(valkey)) {
 *     String id = lease.mint("JOB");
 * }
 * }</pre>
 *
 * <p>The holder ({@link LeaseHolder}) writes on one connection of the node that serves the
 * reserve's slot, borrowed from the client's pool of that node for each write: the script and
 * its {@code WAIT} pipelined, read together. The client finds the node and refreshes its slot map
 * after a {@code MOVED}; its own retries and redirect following are never used, so a write that
 * may have run is never sent twice. The client stays the caller's: the holder never closes it,
 * and it must outlive the holder.
 */
public final class JedisLease {
    private JedisLease() {}

    /**
     * Takes a free node through a cluster client, acknowledged by {@link Lease#REPLICAS}
     * replica, on the default terms.
     *
     * @param client the cluster client
     * @return the holder, its lease held
     * @throws io.echomq.emqid.EmqIdException as {@link #acquire(RedisClusterClient, int, LeaseTerms)}
     */
    public static LeaseHolder acquire(RedisClusterClient client) {
        return acquire(client, Lease.REPLICAS, LeaseTerms.DEFAULT);
    }

    /**
     * Takes a free node through a cluster client and returns once {@code replicas} replicas
     * acknowledged it; a daemon thread keeps it (see {@link LeaseHolder}).
     *
     * @param client the cluster client: it finds the reserve's primary and lends its pools
     * @param replicas the replicas that must acknowledge each lease write; 0 for none
     * @param terms the lease's TTL and fence margin
     * @return the holder, its lease held
     * @throws io.echomq.emqid.EmqIdException gate {@code node}: every node leased, the acquire
     *     not acknowledged, or not run for a whole TTL; gate {@code range}: a negative
     *     {@code replicas}
     * @throws io.echomq.emqid.holder.LeaseWireException a reply the protocol does not give;
     *     Jedis' own exceptions when Valkey cannot be reached
     */
    public static LeaseHolder acquire(RedisClusterClient client, int replicas, LeaseTerms terms) {
        Objects.requireNonNull(client, "client");
        JedisWire wire = JedisWire.ofCluster(client::getClusterNodes, client::getConnectionFromSlot,
                client::refreshClusterTopology);
        return LeaseHolder.acquire(wire, replicas, terms);
    }

    /**
     * As {@link #acquire(RedisClusterClient, int, LeaseTerms)}, through the cluster client Jedis 8
     * deprecates (the same cluster underneath).
     *
     * @param client the cluster client
     * @param replicas the replicas that must acknowledge each lease write; 0 for none
     * @param terms the lease's TTL and fence margin
     * @return the holder, its lease held
     * @throws io.echomq.emqid.EmqIdException as {@link #acquire(RedisClusterClient, int, LeaseTerms)}
     */
    @SuppressWarnings("deprecation") // JedisCluster is: programs that still use it are served
    public static LeaseHolder acquire(JedisCluster client, int replicas, LeaseTerms terms) {
        Objects.requireNonNull(client, "client");
        JedisWire wire = JedisWire.ofCluster(client::getClusterNodes, client::getConnectionFromSlot,
                client::refreshClusterTopology);
        return LeaseHolder.acquire(wire, replicas, terms);
    }

    /**
     * Takes a free node on one server (a standalone Valkey, or a primary behind your own
     * failover), acknowledged by {@link Lease#REPLICAS} replica, on the default terms.
     *
     * @param client the client of the server
     * @return the holder, its lease held
     * @throws io.echomq.emqid.EmqIdException as {@link #acquire(RedisClusterClient, int, LeaseTerms)}
     */
    public static LeaseHolder acquire(RedisClient client) {
        return acquire(client, Lease.REPLICAS, LeaseTerms.DEFAULT);
    }

    /**
     * As {@link #acquire(RedisClusterClient, int, LeaseTerms)}, on the one server of
     * {@code client}: each write on a connection of its pool.
     *
     * @param client the client of the server
     * @param replicas the replicas that must acknowledge each lease write; 0 for none
     * @param terms the lease's TTL and fence margin
     * @return the holder, its lease held
     * @throws io.echomq.emqid.EmqIdException as {@link #acquire(RedisClusterClient, int, LeaseTerms)}
     */
    public static LeaseHolder acquire(RedisClient client, int replicas, LeaseTerms terms) {
        Objects.requireNonNull(client, "client");
        JedisWire wire = JedisWire.ofServer(client.getPool());
        return LeaseHolder.acquire(wire, replicas, terms);
    }
}
