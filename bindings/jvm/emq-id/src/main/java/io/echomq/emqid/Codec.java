package io.echomq.emqid;

import java.util.List;
import java.util.Objects;

/**
 * The id's text both ways, one at a time and in batches. A batch crosses into the native library
 * once, whatever its size: use the batch forms on hot paths.
 */
public final class Codec {
    private Codec() {}

    /** {@link #decodePacked(CharSequence)}'s answer for text it does not pack. */
    static final long NOT_PACKED = Long.MIN_VALUE;

    /**
     * The 14-character id of a namespace and a snowflake.
     *
     * @param ns three letters {@code A-Z}
     * @param snowflake 0 to 2^63 - 1
     * @return the id's text
     * @throws EmqIdException {@code range}: a namespace that is not three letters, or a snowflake past 2^63 - 1
     */
    public static String encode(String ns, long snowflake) {
        byte[] text = encodeBytes(ns, snowflake);
        return Text.ofAscii(text, 0, text.length);
    }

    /** The id's bytes of a namespace key ({@link Packed#namespaceKey}) the core accepted before. */
    static byte[] encodeBytes(int nsKey, long snowflake) {
        byte[] text = new byte[Native.ID_LEN];
        Native.encodePacked(Packed.namespaceOfKey(nsKey), snowflake, text);
        return text;
    }

    static byte[] encodeBytes(String ns, long snowflake) {
        byte[] text = new byte[Native.ID_LEN];
        int packed = Packed.namespace(ns);
        if (packed >= 0) {
            Native.encodePacked(packed, snowflake, text);
        } else {
            Native.encode(Text.utf8(ns, "ns"), snowflake, text); // the core refuses it, in its words
        }
        return text;
    }

    /**
     * Reads an id.
     *
     * @param text the 14 characters
     * @return the id
     * @throws EmqIdException {@code length}, {@code namespace}, {@code charset} or {@code range}, checked in that order
     */
    public static Id decode(CharSequence text) {
        long snowflake = decodePacked(text);
        if (snowflake >= 0) {
            return new Id(Packed.namespaceKey(text), snowflake);
        }
        // Not packable, or refused: the bytes form answers, or throws the core's refusal.
        return decode(Text.utf8(text, "text"));
    }

    /**
     * Reads an id from its bytes.
     *
     * @param text the 14 bytes
     * @return the id
     * @throws EmqIdException {@code length}, {@code namespace}, {@code charset} or {@code range}, checked in that order
     */
    public static Id decode(byte[] text) {
        long snowflake = Native.decode(Objects.requireNonNull(text, "text"));
        return new Id(Packed.namespaceKey(text, 0), snowflake);
    }

    /**
     * Text of an id's length, all ASCII, packed little-endian into two longs and decoded with
     * no array crossing: the snowflake, -1 when the core refuses it, {@link #NOT_PACKED} for text
     * of another length or with a character past ASCII (which the bytes form reads).
     */
    static long decodePacked(CharSequence text) {
        int len = Native.ID_LEN;
        if (text.length() != len) {
            return NOT_PACKED;
        }
        // Two straight loops and one test of every character at the end: no branch per character.
        long low = 0;
        long high = 0;
        int seen = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            char c = text.charAt(i);
            seen |= c;
            low |= (long) c << (i << 3);
        }
        for (int i = Long.BYTES; i < len; i++) {
            char c = text.charAt(i);
            seen |= c;
            high |= (long) c << ((i - Long.BYTES) << 3);
        }
        return seen < 0x80 ? Native.decodePacked(low, high) : NOT_PACKED;
    }

    /**
     * The ids of many snowflakes under one namespace, in one crossing.
     *
     * @param ns three letters {@code A-Z}
     * @param snowflakes each 0 to 2^63 - 1
     * @return their texts, in order
     * @throws EmqIdException {@code range}: the namespace, or the first refused snowflake (naming its index)
     */
    public static String[] encodeMany(String ns, long[] snowflakes) {
        byte[] packed = encodeManyPacked(ns, snowflakes);
        String[] texts = new String[snowflakes.length];
        int len = Native.ID_LEN;
        for (int i = 0; i < texts.length; i++) {
            texts[i] = Text.ofAscii(packed, i * len, len);
        }
        return texts;
    }

    /**
     * The ids of many snowflakes under one namespace, end to end as bytes, in one crossing.
     *
     * @param ns three letters {@code A-Z}
     * @param snowflakes each 0 to 2^63 - 1
     * @return {@code snowflakes.length} × {@link Contract#ID_LEN} bytes
     * @throws EmqIdException {@code range}: the namespace, or the first refused snowflake (naming its index)
     */
    public static byte[] encodeManyPacked(String ns, long[] snowflakes) {
        byte[] nsBytes = Text.utf8(ns, "ns");
        byte[] out = new byte[Math.multiplyExact(snowflakes.length, Native.ID_LEN)];
        int refused = Native.encodeMany(nsBytes, snowflakes, out);
        if (refused == -2) {
            encode(ns, 0); // throws the namespace's refusal
        }
        if (refused >= 0) {
            throw Batch.at(refused, () -> encode(ns, snowflakes[refused]));
        }
        return out;
    }

    /**
     * Reads many ids in one crossing.
     *
     * @param texts ids' texts
     * @return the ids, in order
     * @throws EmqIdException the first refused text's gate (naming its index)
     */
    public static Id[] decodeMany(CharSequence... texts) {
        return decodeMany(List.of(texts));
    }

    /**
     * Reads many ids in one crossing.
     *
     * @param texts ids' texts
     * @return the ids, in order
     * @throws EmqIdException the first refused text's gate (naming its index)
     */
    public static Id[] decodeMany(List<? extends CharSequence> texts) {
        int n = texts.size();
        int len = Native.ID_LEN;
        byte[] packed = new byte[Math.multiplyExact(n, len)];
        for (int i = 0; i < n; i++) {
            CharSequence text = texts.get(i);
            if (!Batch.packAscii(text, packed, i * len, len)) {
                throw Batch.at(i, () -> decode(text));
            }
        }
        long[] snowflakes = new long[n];
        int refused = Native.decodeMany(packed, snowflakes);
        if (refused >= 0) {
            throw Batch.at(refused, () -> decode(texts.get(refused)));
        }
        Id[] ids = new Id[n];
        for (int i = 0; i < n; i++) {
            ids[i] = new Id(Packed.namespaceKey(packed, i * len), snowflakes[i]);
        }
        return ids;
    }

    /**
     * Reads many ids packed end to end, {@link Contract#ID_LEN} bytes each, in one crossing.
     *
     * @param packed the ids' bytes, a whole number of ids
     * @return their snowflakes, in order (each id's namespace checked)
     * @throws EmqIdException the first refused id's gate (naming its index); {@code length} for a partial id
     */
    public static long[] decodeManyPacked(byte[] packed) {
        int len = Native.ID_LEN;
        if (packed.length % len != 0) {
            decode(java.util.Arrays.copyOfRange(packed, packed.length - packed.length % len, packed.length));
        }
        long[] snowflakes = new long[packed.length / len];
        int refused = Native.decodeMany(packed, snowflakes);
        if (refused >= 0) {
            throw Batch.at(refused, () -> decode(java.util.Arrays.copyOfRange(packed, refused * len, (refused + 1) * len)));
        }
        return snowflakes;
    }
}
