package io.echomq.emqid.holder;

import java.util.OptionalLong;

/**
 * How a {@link LeaseHolder} has fared.
 *
 * @param taken leases taken and acknowledged, the first one included
 * @param lost leases lost: answered gone, or not renewed for a whole TTL
 * @param unleasedMs how long (ms) the holder has been unable to mint, if it is now
 * @param longestUnleasedMs the longest time (ms) it was unable to mint, ended or not
 */
public record HolderStats(int taken, int lost, OptionalLong unleasedMs, long longestUnleasedMs) {}
