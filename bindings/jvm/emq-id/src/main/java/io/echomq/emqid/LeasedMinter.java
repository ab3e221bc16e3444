package io.echomq.emqid;

import java.lang.ref.Reference;

/**
 * A minter on a leased node: it starts after the node's previous mark, never mints past the mark
 * it stored, and refuses with {@code node} once its fence closes (the lease not renewed in
 * time). Thread-safe. {@link #close()} stops it, as {@link #stop()}.
 */
public final class LeasedMinter implements AutoCloseable {
    /** The core's leased minter. */
    private final long handle;
    /** Its terms. */
    private final LeaseTerms terms;

    private LeasedMinter(long handle, LeaseTerms terms) {
        this.handle = handle;
        this.terms = terms;
        Handles.own(this, handle, Native::leasedFree);
    }

    /**
     * The minter of a lease acquired with {@code nowMs} as the script's {@code now}, the acquire
     * sent at {@code sentMonoMs} ({@link Lease#monotonicMs()}).
     *
     * @param acquired the acquire's reply
     * @param nowMs the wall clock the acquire carried, unix ms
     * @param sentMonoMs when the acquire was sent, monotonic ms
     * @param terms the lease's terms
     * @return the minter
     * @throws EmqIdException {@code range}
     */
    public static LeasedMinter start(Acquired acquired, long nowMs, long sentMonoMs, LeaseTerms terms) {
        long previous = acquired.previousMark().orElse(-1);
        long handle = Native.leasedStart(acquired.node(), previous, nowMs, sentMonoMs, terms.ttlMs(), terms.marginMs());
        return new LeasedMinter(handle, terms);
    }

    /**
     * The leased node.
     *
     * @return the node
     */
    public int node() {
        return (int) state()[0];
    }

    /**
     * The lease's terms.
     *
     * @return the terms
     */
    public LeaseTerms terms() {
        return terms;
    }

    /**
     * Mints on the system clock and {@link Lease#monotonicMs()}.
     *
     * @return the snowflake
     * @throws EmqIdException {@code node} once the fence has closed
     */
    public long next() {
        try {
            return Native.leasedNext(handle);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Mints with clock readings.
     *
     * @param nowMs unix ms
     * @param monoMs monotonic ms
     * @return the snowflake
     * @throws EmqIdException {@code node} once the fence has closed
     */
    public long nextAt(long nowMs, long monoMs) {
        try {
            return Native.leasedNextAt(handle, nowMs, monoMs);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The mark to send with the renew script at {@code nowMs}.
     *
     * @param nowMs unix ms
     * @return the mark, unix ms
     */
    public long nextMark(long nowMs) {
        try {
            return Native.leasedNextMark(handle, nowMs);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Records a renewal the server accepted.
     *
     * @param sentMonoMs when it was sent, monotonic ms
     * @param mark the mark it carried
     */
    public void renewed(long sentMonoMs, long mark) {
        try {
            Native.leasedRenewed(handle, sentMonoMs, mark);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Closes the fence now and for good. */
    public void stop() {
        try {
            Native.leasedStop(handle);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The last millisecond minted in: the release script's mark.
     *
     * @return unix ms
     */
    public long highWater() {
        return state()[1];
    }

    /**
     * The monotonic ms from which minting is refused.
     *
     * @return monotonic ms
     */
    public long fenceMs() {
        return state()[2];
    }

    /** Stops the minter ({@link #stop()}). */
    @Override
    public void close() {
        stop();
    }

    private long[] state() {
        long[] out = new long[3];
        try {
            Native.leasedState(handle, out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return out;
    }
}
