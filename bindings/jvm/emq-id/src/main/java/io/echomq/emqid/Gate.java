package io.echomq.emqid;

/**
 * The contract's gates: why the core refused a value. Every {@link EmqIdException} names one.
 * The constants are the core's gates in the contract's order (checked when the package loads).
 */
public enum Gate {
    /** Not 14 bytes long. */
    LENGTH,
    /** The namespace is not three letters {@code A-Z}. */
    NAMESPACE,
    /** A byte outside base62 where a digit belongs. */
    CHARSET,
    /** A number outside what the contract allows (a snowflake past 2^63 - 1, a node, a time, terms). */
    RANGE,
    /** Not a queue name, or not a key of a queue. */
    QUEUE,
    /** A type of key the keyspace does not have, or an id of the wrong namespace for it. */
    KIND,
    /** A node this process cannot mint with: another process holds it, or a lease is lost or refused. */
    NODE;

    /**
     * The gate's name in every runtime: {@code "length"}, {@code "namespace"}, …
     *
     * @return the name
     */
    public String code() {
        return Names.code(this);
    }

    /**
     * The gate of a name.
     *
     * @param code a gate's name, as {@link #code()} gives it
     * @return the gate
     * @throws IllegalArgumentException for a name that is no gate
     */
    public static Gate of(String code) {
        return Names.of(Gate.class, code);
    }
}
