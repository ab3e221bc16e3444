package io.echomq.emqid;

import java.time.Instant;

/**
 * A snowflake's fields (41 bits of time, 10 of node, 12 of sequence), its placement hash, and
 * the smallest snowflake of a time. A {@code long} holds a snowflake as its bits: a snowflake is
 * below 2^63, so it is never negative.
 */
public final class Snowflake {
    private Snowflake() {}

    /**
     * When a snowflake was minted.
     *
     * @param snowflake a snowflake
     * @return unix ms
     */
    public static long unixMs(long snowflake) {
        return Native.unixMs(snowflake);
    }

    /**
     * The node that minted a snowflake.
     *
     * @param snowflake a snowflake
     * @return 0 to {@link Contract#MAX_NODE}
     */
    public static int node(long snowflake) {
        return Native.node(snowflake);
    }

    /**
     * A snowflake's sequence number within its millisecond.
     *
     * @param snowflake a snowflake
     * @return 0 to {@link Contract#MAX_SEQ}
     */
    public static int seq(long snowflake) {
        return Native.seq(snowflake);
    }

    /**
     * The contract's 32-bit placement hash.
     *
     * @param snowflake a snowflake
     * @return 0 to 2^32 - 1
     */
    public static long hash32(long snowflake) {
        return Native.hash32(snowflake);
    }

    /**
     * The smallest snowflake minted at or after a time: a range scan's lower bound.
     *
     * @param unixMs unix ms (0 before the epoch)
     * @return the snowflake
     * @throws EmqIdException {@code range} past the last time a snowflake holds
     */
    public static long minFor(long unixMs) {
        return Native.minFor(unixMs);
    }

    /**
     * The smallest snowflake minted at or after an instant (to the millisecond, rounded down).
     *
     * @param t the instant
     * @return the snowflake
     * @throws EmqIdException {@code range} past the last time a snowflake holds
     */
    public static long minFor(Instant t) {
        long ms;
        try {
            ms = t.toEpochMilli();
        } catch (ArithmeticException tooFar) {
            ms = t.isBefore(Instant.EPOCH) ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return Native.minFor(ms);
    }
}
