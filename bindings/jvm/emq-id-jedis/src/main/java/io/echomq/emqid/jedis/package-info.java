/**
 * Node leases on Valkey ({@code emq-lease/3}) held in one call over Jedis:
 * {@link io.echomq.emqid.jedis.JedisLease#acquire(redis.clients.jedis.RedisClusterClient)} and its
 * overloads answer the core artifact's {@link io.echomq.emqid.holder.LeaseHolder}.
 */
package io.echomq.emqid.jedis;
