package io.echomq.emqid;

import java.lang.ref.Reference;

/**
 * A minter for one node: snowflakes in rising order, shared by threads (the core's lock-free
 * minter). Two minters of one node mint the same ids: give each its own node, or use
 * {@link Mint#mint(String)}, whose node is claimed on this host.
 */
public final class Minter {
    /** The core's minter. */
    private final long handle;
    /** Its node. */
    private final int node;

    /**
     * A fresh minter.
     *
     * @param node 0 to {@link Contract#MAX_NODE}
     * @throws EmqIdException {@code range}
     */
    public Minter(int node) {
        this.handle = Native.minterNew(node);
        this.node = node;
        Handles.own(this, handle, Native::minterFree);
    }

    /**
     * Its node.
     *
     * @return the node
     */
    public int node() {
        return node;
    }

    /**
     * Mints a snowflake on the system clock.
     *
     * @return the snowflake
     * @throws EmqIdException {@code range} past the last time a snowflake holds
     */
    public long next() {
        try {
            return Native.minterNext(handle);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Mints with a clock reading: the contract's step (a clock behind the last mint keeps the
     * last millisecond and counts on).
     *
     * @param nowMs unix ms
     * @return the snowflake
     * @throws EmqIdException {@code range}
     */
    public long nextAt(long nowMs) {
        try {
            return Native.minterNextAt(handle, nowMs);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Mints {@code n} snowflakes on one clock reading, in one crossing.
     *
     * @param n how many (0 or more)
     * @return the snowflakes, rising
     * @throws EmqIdException {@code range}
     */
    public long[] nextMany(int n) {
        long[] out = new long[n];
        try {
            Native.minterNextMany(handle, out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return out;
    }

    @Override
    public String toString() {
        return "Minter[node=" + node + "]";
    }
}
