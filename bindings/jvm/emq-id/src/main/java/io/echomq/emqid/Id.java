package io.echomq.emqid;

import java.time.Instant;

/**
 * A branded id: a namespace of three letters and a snowflake, written as 14 characters
 * ({@code JOB0KHTOWnGLuC}). Immutable; ordered, compared and hashed as its text's bytes, which
 * is the order of (namespace, snowflake).
 *
 * <pre>{@code
 * Id id = Id.parse("JOB0KHTOWnGLuC");
 * id.ns();        // "JOB"
 * id.unixMs();    // when it was minted
 * id.toString();  // "JOB0KHTOWnGLuC"
 * }</pre>
 */
public final class Id implements Comparable<Id> {
    /**
     * The namespace's three ASCII letters, the first in the high byte ({@link Packed#namespaceKey}):
     * ordered as the text is, compared and hashed as a number, so reading an id makes no String.
     */
    private final int ns;
    /** The snowflake, 0 to 2^63 - 1. */
    private final long snowflake;
    /** The namespace as text, made on first use (a race makes it twice, never wrong: a String is immutable). */
    private String nsText;

    Id(int ns, long snowflake) {
        this.ns = ns;
        this.snowflake = snowflake;
    }

    /**
     * Reads an id from its text.
     *
     * @param text the 14 characters
     * @return the id
     * @throws EmqIdException {@code length}, {@code namespace}, {@code charset} or {@code range}, checked in that order
     */
    public static Id parse(CharSequence text) {
        return Codec.decode(text);
    }

    /**
     * Reads an id from its bytes.
     *
     * @param text the 14 bytes
     * @return the id
     * @throws EmqIdException {@code length}, {@code namespace}, {@code charset} or {@code range}, checked in that order
     */
    public static Id parse(byte[] text) {
        return Codec.decode(text);
    }

    /**
     * The id of a namespace and a snowflake.
     *
     * @param ns three letters {@code A-Z}
     * @param snowflake 0 to 2^63 - 1
     * @return the id
     * @throws EmqIdException {@code range}: a namespace that is not three letters, or a snowflake past 2^63 - 1
     */
    public static Id of(String ns, long snowflake) {
        Codec.encode(ns, snowflake);
        return new Id(Packed.namespaceKey(ns), snowflake);
    }

    /**
     * Whether {@link #parse(CharSequence)} would accept the text; never throws.
     *
     * @param text any text, or null
     * @return whether it is an id
     */
    public static boolean isValid(CharSequence text) {
        if (text == null) {
            return false;
        }
        long packed = Codec.decodePacked(text);
        if (packed != Codec.NOT_PACKED) {
            return packed >= 0;
        }
        try {
            return Native.isValid(Text.utf8(text, "text"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Whether {@link #parse(byte[])} would accept the bytes; never throws.
     *
     * @param text any bytes, or null
     * @return whether they are an id
     */
    public static boolean isValid(byte[] text) {
        return text != null && Native.isValid(text);
    }

    /**
     * The order of two ids' texts (namespace, then snowflake).
     *
     * @param a an id's text
     * @param b an id's text
     * @return -1, 0 or 1
     * @throws EmqIdException the first invalid id's gate
     */
    public static int compare(CharSequence a, CharSequence b) {
        return Native.compare(Text.utf8(a, "a"), Text.utf8(b, "b"));
    }

    /**
     * The namespace.
     *
     * @return three letters
     */
    public String ns() {
        String text = nsText;
        if (text == null) {
            text = Packed.namespaceText(ns);
            nsText = text;
        }
        return text;
    }

    /**
     * The snowflake.
     *
     * @return 0 to 2^63 - 1
     */
    public long snowflake() {
        return snowflake;
    }

    /**
     * When it was minted.
     *
     * @return unix ms
     */
    public long unixMs() {
        return Snowflake.unixMs(snowflake);
    }

    /**
     * When it was minted.
     *
     * @return the instant, to the millisecond
     */
    public Instant instant() {
        return Instant.ofEpochMilli(unixMs());
    }

    /**
     * The node that minted it.
     *
     * @return 0 to {@link Contract#MAX_NODE}
     */
    public int node() {
        return Snowflake.node(snowflake);
    }

    /**
     * Its sequence number within its millisecond.
     *
     * @return 0 to {@link Contract#MAX_SEQ}
     */
    public int seq() {
        return Snowflake.seq(snowflake);
    }

    /**
     * The contract's 32-bit placement hash of its snowflake.
     *
     * @return 0 to 2^32 - 1
     */
    public long hash32() {
        return Snowflake.hash32(snowflake);
    }

    /**
     * Its text as bytes.
     *
     * @return 14 ASCII bytes
     */
    public byte[] toBytes() {
        return Codec.encodeBytes(ns, snowflake);
    }

    /**
     * Its text.
     *
     * @return the 14 characters
     */
    @Override
    public String toString() {
        byte[] text = Codec.encodeBytes(ns, snowflake);
        return Text.ofAscii(text, 0, text.length);
    }

    /** Ordered as the texts' bytes: by namespace, then by snowflake. */
    @Override
    public int compareTo(Id other) {
        int byNs = Integer.compare(ns, other.ns);
        return byNs != 0 ? byNs : Long.compare(snowflake, other.snowflake);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Id id && id.snowflake == snowflake && id.ns == ns;
    }

    @Override
    public int hashCode() {
        return 31 * ns + Long.hashCode(snowflake);
    }
}
