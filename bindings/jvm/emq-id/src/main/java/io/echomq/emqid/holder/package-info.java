/**
 * A node lease on Valkey ({@code emq-lease/3}) held in one call, over any Valkey client: the
 * holder's loop ({@link io.echomq.emqid.holder.LeaseHolder}) around the core's keeper, over a
 * small {@link io.echomq.emqid.holder.Wire} that moves one lease write to one node.
 *
 * <p>What to write, when, and what each reply means are the core's
 * ({@link io.echomq.emqid.LeaseKeeper}, {@link io.echomq.emqid.Lease#readLeaseError},
 * {@link io.echomq.emqid.Lease#redirect}, {@link io.echomq.emqid.Lease#parseWait},
 * {@link io.echomq.emqid.LeasedMinter}); this package only moves them. It depends on no client
 * library: {@code io.echomq:emq-id-jedis} and {@code io.echomq:emq-id-lettuce} carry the wires.
 */
package io.echomq.emqid.holder;
