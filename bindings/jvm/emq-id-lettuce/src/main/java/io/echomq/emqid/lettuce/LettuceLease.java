package io.echomq.emqid.lettuce;

import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.holder.LeaseHolder;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.Objects;

/**
 * A node lease on Valkey ({@code emq-lease/3}) held in one call, over the Lettuce client a
 * program already has:
 *
 * <pre>{@code
 * RedisClusterClient valkey = RedisClusterClient.create(RedisURI.create("10.0.0.1", 7000));
 * try (LeaseHolder lease = LettuceLease.acquire(valkey)) {
 *     String id = lease.mint("JOB");
 * }
 * }</pre>
 *
 * <p>The holder ({@link LeaseHolder}) writes on connections of its own to the node that serves
 * the reserve's slot (the cluster client's map names it, and is refreshed after a {@code MOVED}),
 * made on the client's resources and options with auto-reconnect off: Lettuce's default sends a
 * command again after a reconnect, and a lease write that may have run must never be sent twice;
 * and no other command may come between {@code ASKING} and the script. Before its first write
 * the holder reaches the reserve's primary (the cluster client's slot map, which Lettuce loads
 * when first asked, and a connection), so that wait does not count against the lease. The client
 * stays the caller's: the holder never shuts it down, and it must outlive the holder.
 */
public final class LettuceLease {
    private LettuceLease() {}

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
     * @param client the cluster client: its map names the reserve's primary
     * @param replicas the replicas that must acknowledge each lease write; 0 for none
     * @param terms the lease's TTL and fence margin
     * @return the holder, its lease held
     * @throws io.echomq.emqid.EmqIdException gate {@code node}: every node leased, the acquire
     *     not acknowledged, or not run for a whole TTL; gate {@code range}: a negative
     *     {@code replicas}
     * @throws io.echomq.emqid.holder.LeaseWireException a reply the protocol does not give, or a
     *     node that did not answer in time; Lettuce's own exceptions when Valkey cannot be reached
     */
    public static LeaseHolder acquire(RedisClusterClient client, int replicas, LeaseTerms terms) {
        Objects.requireNonNull(client, "client");
        return LeaseHolder.acquire(LettuceWire.ofCluster(client).open(), replicas, terms);
    }

    /**
     * As {@link #acquire(RedisClusterClient, int, LeaseTerms)}, on one server (a standalone
     * Valkey, or a primary behind your own failover): {@code client} lends its resources and
     * options, {@code server} names the server (a {@link RedisClient} made without a URI has
     * none to lend).
     *
     * @param client the client whose resources and options the holder's connections use
     * @param server the server
     * @param replicas the replicas that must acknowledge each lease write; 0 for none
     * @param terms the lease's TTL and fence margin
     * @return the holder, its lease held
     * @throws io.echomq.emqid.EmqIdException as {@link #acquire(RedisClusterClient, int, LeaseTerms)}
     */
    public static LeaseHolder acquire(RedisClient client, RedisURI server, int replicas, LeaseTerms terms) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(server, "server");
        return LeaseHolder.acquire(LettuceWire.ofServer(client, server).open(), replicas, terms);
    }
}
