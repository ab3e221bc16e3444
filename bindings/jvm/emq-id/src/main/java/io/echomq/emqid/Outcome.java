package io.echomq.emqid;

/** What one lease write came to (the core's {@code Outcome}, in its order). */
public enum Outcome {
    /** The script held and enough replicas acknowledged it. */
    COUNTED,
    /** The script held, too few replicas acknowledged it. */
    UNACKNOWLEDGED,
    /** The lease was not the holder's any more (a renewal answered 0). */
    GONE,
    /** Every node is leased. */
    LEASED,
    /** {@code ASK}: the reserve's slot is migrating. */
    ASK,
    /** {@code MOVED} or {@code READONLY}: the slot lives elsewhere. */
    MOVED,
    /** A refusal that did not run the script ({@code TRYAGAIN}, {@code CLUSTERDOWN}, …). */
    NOT_RUN,
    /** Anything else: the connection, a reply of the wrong shape. */
    FAULT;

    /**
     * The outcome's name in every runtime ({@code "not_run"}).
     *
     * @return the name
     */
    public String code() {
        return Names.code(this);
    }

    /**
     * The outcome of a name.
     *
     * @param code a name, as {@link #code()} gives it
     * @return the constant
     * @throws IllegalArgumentException for a name that is none
     */
    public static Outcome of(String code) {
        return Names.of(Outcome.class, code);
    }
}
