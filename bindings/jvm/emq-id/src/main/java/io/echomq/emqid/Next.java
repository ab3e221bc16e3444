package io.echomq.emqid;

/** The write due (the core's {@code Next}, in its order). */
public enum Next {
    /** Acquire a node. */
    ACQUIRE,
    /** Renew the held lease. */
    RENEW,
    /** No write of the held lease was answered for a whole TTL: stop minting, count it lost, acquire. */
    EXPIRED,
    /** Release the lease. */
    RELEASE;

    /**
     * The write's name in every runtime.
     *
     * @return the name
     */
    public String code() {
        return Names.code(this);
    }

    /**
     * The next of a name.
     *
     * @param code a name, as {@link #code()} gives it
     * @return the constant
     * @throws IllegalArgumentException for a name that is none
     */
    public static Next of(String code) {
        return Names.of(Next.class, code);
    }
}
