package io.echomq.emqid;

/**
 * Short values crossing as {@code long}s instead of arrays: a call whose arguments are all
 * primitives costs the JVM no array access, which for a key of 20 bytes is more than the slot
 * itself. Java only moves the bytes, little-endian; the core reads them.
 */
final class Packed {
    private Packed() {}

    /** The longest key {@link #slot} packs: five longs. */
    static final int KEY_BYTES = 5 * Long.BYTES;

    /** Namespaces read recently, by a hash of their three characters: an id's namespace is one of few. */
    private static final String[] NAMESPACES = new String[256];

    /** The slot of a key of at most {@link #KEY_BYTES} bytes. */
    static int slot(byte[] key) {
        long w0 = 0;
        long w1 = 0;
        long w2 = 0;
        long w3 = 0;
        long w4 = 0;
        for (int i = 0; i < key.length; i++) {
            long shifted = (key[i] & 0xFFL) << ((i & 7) << 3);
            switch (i >>> 3) {
                case 0 -> w0 |= shifted;
                case 1 -> w1 |= shifted;
                case 2 -> w2 |= shifted;
                case 3 -> w3 |= shifted;
                default -> w4 |= shifted;
            }
        }
        return Native.slotPacked(w0, w1, w2, w3, w4, key.length);
    }

    /** The slot of a key of ASCII text of at most {@link #KEY_BYTES} characters, else -1 (not packed). */
    static int slot(CharSequence key) {
        int len = key.length();
        if (len > KEY_BYTES) {
            return -1;
        }
        long w0 = 0;
        long w1 = 0;
        long w2 = 0;
        long w3 = 0;
        long w4 = 0;
        for (int i = 0; i < len; i++) {
            char c = key.charAt(i);
            if (c >= 0x80) {
                return -1;
            }
            long shifted = (long) c << ((i & 7) << 3);
            switch (i >>> 3) {
                case 0 -> w0 |= shifted;
                case 1 -> w1 |= shifted;
                case 2 -> w2 |= shifted;
                case 3 -> w3 |= shifted;
                default -> w4 |= shifted;
            }
        }
        return Native.slotPacked(w0, w1, w2, w3, w4, len);
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

    /** The namespace of an id's text the core accepted (its first three characters), shared when seen before. */
    static String namespaceOf(CharSequence text) {
        int packed = text.charAt(0) | text.charAt(1) << 8 | text.charAt(2) << 16;
        int at = (packed ^ packed >>> 8 ^ packed >>> 16) & (NAMESPACES.length - 1);
        String seen = NAMESPACES[at];
        // A String is immutable (final fields): another thread's entry is safe to read, and a lost
        // write only costs the next reader a new String.
        if (seen != null && namespace(seen) == packed) {
            return seen;
        }
        String ns = text.subSequence(0, Native.NS_LEN).toString();
        NAMESPACES[at] = ns;
        return ns;
    }
}
