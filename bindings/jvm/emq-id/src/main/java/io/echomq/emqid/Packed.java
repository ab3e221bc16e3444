package io.echomq.emqid;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Short values crossing as {@code long}s instead of arrays: a call whose arguments are all
 * primitives costs the JVM no array access, which for a key of 20 bytes is more than the slot
 * itself. Java only moves the bytes, little-endian; the core reads them.
 */
final class Packed {
    private Packed() {}

    /** The longest key {@link #slot} packs: five longs. */
    static final int KEY_BYTES = 5 * Long.BYTES;

    /** Eight bytes of an array at once, little-endian: the packing is a few loads, not a loop. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** {@code '?'} in every byte: Java's encoder writes it for a lone surrogate. */
    private static final long QUESTION_MARKS = 0x3F3F_3F3F_3F3F_3F3FL;

    /** Namespaces read recently, by a hash of their three characters: an id's namespace is one of few. */
    private static final String[] NAMESPACES = new String[256];

    /** Word {@code at} of a key of at most {@link #KEY_BYTES} bytes: its bytes from {@code 8 × at}, zero past its end. */
    private static long word(byte[] key, int at) {
        int from = at * Long.BYTES;
        if (from + Long.BYTES <= key.length) {
            return (long) LONGS.get(key, from);
        }
        long word = 0;
        for (int i = from; i < key.length; i++) {
            word |= (key[i] & 0xFFL) << ((i - from) << 3);
        }
        return word;
    }

    /** Whether a byte of {@code word} is zero (the classic test: no loop, no branch per byte). */
    private static boolean hasZeroByte(long word) {
        return ((word - 0x0101_0101_0101_0101L) & ~word & 0x8080_8080_8080_8080L) != 0;
    }

    /** The slot of a key of at most {@link #KEY_BYTES} bytes. */
    static int slot(byte[] key) {
        return Native.slotPacked(word(key, 0), word(key, 1), word(key, 2), word(key, 3), word(key, 4), key.length);
    }

    /**
     * The slot of a key that is ASCII text of at most {@link #KEY_BYTES} characters (its UTF-8 is
     * its characters), else -1: the caller takes the general path, which also decides any key
     * holding a {@code '?'} (Java's encoder writes one for a lone surrogate, which has no UTF-8).
     */
    static int slot(String key) {
        if (key.length() > KEY_BYTES) {
            return -1;
        }
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        if (bytes.length != key.length()) {
            return -1;
        }
        long w0 = word(bytes, 0);
        long w1 = word(bytes, 1);
        long w2 = word(bytes, 2);
        long w3 = word(bytes, 3);
        long w4 = word(bytes, 4);
        if (hasZeroByte(w0 ^ QUESTION_MARKS) || hasZeroByte(w1 ^ QUESTION_MARKS) || hasZeroByte(w2 ^ QUESTION_MARKS)
                || hasZeroByte(w3 ^ QUESTION_MARKS) || hasZeroByte(w4 ^ QUESTION_MARKS)) {
            return -1;
        }
        return Native.slotPacked(w0, w1, w2, w3, w4, bytes.length);
    }

    /** A namespace of three ASCII characters as an int, else -1 (not packed: the bytes form answers). */
    static int namespace(String ns) {
        if (ns.length() != Native.NS_LEN) {
            return -1;
        }
        int packed = 0;
        for (int i = 0; i < Native.NS_LEN; i++) {
            char c = ns.charAt(i);
            if (c >= 0x80) {
                return -1;
            }
            packed |= c << (8 * i);
        }
        return packed;
    }

    /**
     * The namespace of an id's text the core accepted, as its three ASCII letters in an int, the
     * first in the high byte: ordered as the text is, compared and hashed as a number.
     */
    static int namespaceKey(CharSequence text) {
        return text.charAt(0) << 16 | text.charAt(1) << 8 | text.charAt(2);
    }

    /** {@link #namespaceKey(CharSequence)} of an id's bytes at {@code offset}. */
    static int namespaceKey(byte[] text, int offset) {
        return (text[offset] & 0xFF) << 16 | (text[offset + 1] & 0xFF) << 8 | (text[offset + 2] & 0xFF);
    }

    /** A namespace key as {@link #namespace(String)} packs it for the core (the first letter lowest). */
    static int namespaceOfKey(int key) {
        return Integer.reverseBytes(key) >>> 8;
    }

    /** The text of a namespace key, shared with every id read before it of that namespace. */
    static String namespaceText(int key) {
        int at = (key ^ key >>> 8 ^ key >>> 16) & (NAMESPACES.length - 1);
        String seen = NAMESPACES[at];
        // A String is immutable (final fields): another thread's entry is safe to read, and a lost
        // write only costs the next reader a new String.
        if (seen != null && namespaceKey(seen) == key) {
            return seen;
        }
        String ns = new String(new byte[] {(byte) (key >>> 16), (byte) (key >>> 8), (byte) key}, StandardCharsets.ISO_8859_1);
        NAMESPACES[at] = ns;
        return ns;
    }
}
