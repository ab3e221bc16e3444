package io.echomq.emqid;

/** Where a holder is with its lease (the core's {@code Phase}, in its order). */
public enum Phase {
    /** Before the first acquire counted. */
    STARTING,
    /** Between leases. */
    UNLEASED,
    /** Acquired, not yet acknowledged. */
    PENDING,
    /** Held: minting. */
    HELD,
    /** Handing the lease back. */
    RELEASING;

    /**
     * The phase's name in every runtime.
     *
     * @return the name
     */
    public String code() {
        return Names.code(this);
    }

    /**
     * The phase of a name.
     *
     * @param code a name, as {@link #code()} gives it
     * @return the constant
     * @throws IllegalArgumentException for a name that is none
     */
    public static Phase of(String code) {
        return Names.of(Phase.class, code);
    }
}
