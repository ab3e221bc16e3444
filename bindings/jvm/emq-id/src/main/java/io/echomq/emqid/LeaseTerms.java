package io.echomq.emqid;

/**
 * A lease's TTL and its fence's margin, in ms, as the core accepts them (a TTL from 3 ms to a
 * day; a margin from 1 ms to two thirds of the TTL), and the timing that follows from them.
 */
public final class LeaseTerms {
    /** The TTL, ms. */
    private final long ttlMs;
    /** The fence's margin, ms. */
    private final long marginMs;

    /** The core's default terms. */
    public static final LeaseTerms DEFAULT =
            new LeaseTerms(Native.NUMBERS.get("LEASE_TTL_MS"), Native.NUMBERS.get("LEASE_MARGIN_MS"));

    private LeaseTerms(long ttlMs, long marginMs) {
        this.ttlMs = ttlMs;
        this.marginMs = marginMs;
    }

    /**
     * Terms the core accepts.
     *
     * @param ttlMs the lease's TTL
     * @param marginMs how long before the TTL runs out minting stops
     * @return the terms
     * @throws EmqIdException {@code range}
     */
    public static LeaseTerms of(long ttlMs, long marginMs) {
        Native.termsCheck(ttlMs, marginMs);
        return new LeaseTerms(ttlMs, marginMs);
    }

    /**
     * A TTL with the default margin, kept to a sixth of a short TTL.
     *
     * @param ttlMs the lease's TTL
     * @return the terms
     * @throws EmqIdException {@code range}
     */
    public static LeaseTerms forTtl(long ttlMs) {
        return new LeaseTerms(ttlMs, Native.termsForTtl(ttlMs));
    }

    /**
     * The TTL.
     *
     * @return ms
     */
    public long ttlMs() {
        return ttlMs;
    }

    /**
     * The fence's margin.
     *
     * @return ms
     */
    public long marginMs() {
        return marginMs;
    }

    /**
     * The timeout of the {@code WAIT} sent after a lease write under these terms.
     *
     * @return ms
     */
    public long waitMs() {
        return timing()[0];
    }

    /**
     * How often a held lease is renewed.
     *
     * @return ms
     */
    public long renewEveryMs() {
        return timing()[1];
    }

    /**
     * How soon a write that did not count is tried again.
     *
     * @return ms
     */
    public long retryMs() {
        return timing()[2];
    }

    private long[] timing() {
        long[] out = new long[3];
        Native.termsTiming(ttlMs, marginMs, out);
        return out;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LeaseTerms t && t.ttlMs == ttlMs && t.marginMs == marginMs;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(ttlMs) * 31 + Long.hashCode(marginMs);
    }

    @Override
    public String toString() {
        return "LeaseTerms[ttlMs=" + ttlMs + ", marginMs=" + marginMs + "]";
    }
}
