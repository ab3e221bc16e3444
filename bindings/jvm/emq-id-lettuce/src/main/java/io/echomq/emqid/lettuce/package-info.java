/**
 * Node leases on Valkey ({@code emq-lease/3}) held in one call over Lettuce:
 * {@link io.echomq.emqid.lettuce.LettuceLease#acquire(io.lettuce.core.cluster.RedisClusterClient)}
 * and its overloads answer the core artifact's {@link io.echomq.emqid.holder.LeaseHolder}.
 */
package io.echomq.emqid.lettuce;
