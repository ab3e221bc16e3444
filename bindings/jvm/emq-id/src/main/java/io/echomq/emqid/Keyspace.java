package io.echomq.emqid;

import java.util.List;
import java.util.Objects;

/**
 * Placement on a Valkey Cluster and the bus's keyspace: the hash slot of a key (CRC16 of its
 * {@code {hashtag}}, mod {@link Contract#SLOTS}), and every key of a queue, born braced
 * ({@code emq:{q}:pending}) so a queue's keys share one slot.
 *
 * <p>A key given as text is its UTF-8 bytes, whatever the platform's charset: the slot of
 * {@code "用户{订单}:1"} is the same under {@code -Dfile.encoding=GBK} as the server's.
 */
public final class Keyspace {
    private Keyspace() {}

    /**
     * The hash slot of a key.
     *
     * @param key the key's bytes
     * @return 0 to {@link Contract#SLOTS} - 1
     */
    public static int slot(byte[] key) {
        if (key.length <= Packed.KEY_BYTES) {
            return Packed.slot(key);
        }
        return Native.slot(key);
    }

    /**
     * The hash slot of a key given as text (its UTF-8).
     *
     * @param key the key
     * @return 0 to {@link Contract#SLOTS} - 1
     * @throws IllegalArgumentException for text with a lone surrogate (it has no UTF-8)
     */
    public static int slot(CharSequence key) {
        if (key instanceof String text) {
            int slot = Packed.slot(text);
            if (slot >= 0) {
                return slot;
            }
        }
        return slot(Text.utf8(key, "key"));
    }

    /**
     * The slots of many keys, in one crossing.
     *
     * @param keys the keys' bytes
     * @return their slots, in order
     */
    public static int[] slotMany(byte[]... keys) {
        int total = 0;
        for (byte[] key : keys) {
            total = Math.addExact(total, key.length);
        }
        byte[] packed = new byte[total];
        int[] ends = new int[keys.length];
        int at = 0;
        for (int i = 0; i < keys.length; i++) {
            System.arraycopy(keys[i], 0, packed, at, keys[i].length);
            at += keys[i].length;
            ends[i] = at;
        }
        return slotsOf(packed, ends);
    }

    /**
     * The slots of many keys given as text (each its UTF-8), in one crossing.
     *
     * @param keys the keys
     * @return their slots, in order
     * @throws IllegalArgumentException for text with a lone surrogate (it has no UTF-8)
     */
    public static int[] slotMany(List<? extends CharSequence> keys) {
        int n = keys.size();
        int total = 0;
        for (int i = 0; i < n; i++) {
            total = Math.addExact(total, keys.get(i).length());
        }
        // Text that is all ASCII is its own UTF-8: packed as it is read, with no array per key.
        byte[] packed = new byte[total];
        int[] ends = new int[n];
        int at = 0;
        for (int i = 0; i < n; i++) {
            CharSequence key = keys.get(i);
            int len = key.length();
            for (int j = 0; j < len; j++) {
                char c = key.charAt(j);
                if (c >= 0x80) {
                    return slotManyUtf8(keys);
                }
                packed[at + j] = (byte) c;
            }
            at += len;
            ends[i] = at;
        }
        return slotsOf(packed, ends);
    }

    private static int[] slotManyUtf8(List<? extends CharSequence> keys) {
        byte[][] bytes = new byte[keys.size()][];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = Text.utf8(keys.get(i), "key");
        }
        return slotMany(bytes);
    }

    /**
     * The slots of keys packed end to end, in one crossing: the form with no copy.
     *
     * @param packed the keys' bytes, end to end
     * @param ends where each key ends in {@code packed}; replaced by the keys' slots
     * @return {@code ends}, now holding the slots
     * @throws IllegalArgumentException for an end out of order or past the bytes
     */
    public static int[] slotsOf(byte[] packed, int[] ends) {
        int bad = Native.slotMany(Objects.requireNonNull(packed, "packed"), Objects.requireNonNull(ends, "ends"));
        if (bad >= 0) {
            throw new IllegalArgumentException("ends[" + bad + "] is out of order or past the packed keys");
        }
        return ends;
    }

    /**
     * The part of a key that is hashed: the first non-empty {@code {…}}, else the whole key.
     *
     * @param key the key's bytes
     * @return those bytes: a copy of the tag, or {@code key} itself when the whole key is hashed
     */
    public static byte[] hashtag(byte[] key) {
        long span = Native.hashtagSpan(Objects.requireNonNull(key, "key"));
        int offset = (int) (span >>> 32);
        int length = (int) span;
        return length == key.length ? key : java.util.Arrays.copyOfRange(key, offset, offset + length);
    }

    /**
     * The part of a key given as text that is hashed.
     *
     * @param key the key
     * @return that text
     * @throws IllegalArgumentException for text with a lone surrogate (it has no UTF-8)
     */
    public static String hashtag(String key) {
        byte[] bytes = Text.utf8(key, "key");
        byte[] tag = hashtag(bytes);
        return tag == bytes ? key : Text.of(tag);
    }

    /**
     * A key of a queue from its type as the bus writes it ({@code pending},
     * {@code g:vip:pending}, {@code job:<id>:lock}).
     *
     * @param queue the queue's name
     * @param type the key's type
     * @return {@code emq:{queue}:<type>}
     * @throws EmqIdException {@code queue}, then {@code kind} or the id's gate
     */
    public static String key(String queue, String type) {
        return Text.of(Native.key(Text.utf8(queue, "queue"), Text.utf8(type, "type"), null));
    }

    /**
     * A key of a queue whose type takes an id ({@code key(q, "job", id)}).
     *
     * @param queue the queue's name
     * @param type the key's type
     * @param id the id the type takes
     * @return the key
     * @throws EmqIdException {@code queue}, then {@code kind} or the id's gate
     */
    public static String key(String queue, String type, String id) {
        return Text.of(Native.key(Text.utf8(queue, "queue"), Text.utf8(type, "type"), Text.utf8OrNull(id, "id")));
    }

    /**
     * {@code emq:{queue}:<kind>} for a type without an id.
     *
     * @param queue the queue's name
     * @param kind the type
     * @return the key
     * @throws EmqIdException {@code queue} or {@code kind}
     */
    public static String queueKey(String queue, String kind) {
        return key(queue, kind);
    }

    /**
     * {@code emq:{queue}:job:<id>}.
     *
     * @param queue the queue's name
     * @param id a valid {@code JOB} id
     * @return the key
     * @throws EmqIdException {@code queue}, the id's gate, or {@code kind} for another namespace
     */
    public static String jobKey(String queue, String id) {
        return Text.of(Native.jobKey(Text.utf8(queue, "queue"), Text.utf8(id, "id")));
    }

    /**
     * Reads a queue key back: the exact inverse of {@link #key(String, String)}.
     *
     * @param key a key
     * @return its queue, family and parameter
     * @throws EmqIdException {@code queue} when it is not {@code emq:{Q}:<type>}, else the type's gate
     */
    public static ParsedKey parseKey(String key) {
        List<String> fields = Fields.read(Native.parseKey(Text.utf8(key, "key")));
        return new ParsedKey(fields.get(0), fields.get(1), java.util.Optional.ofNullable(fields.get(2)));
    }

    /**
     * The reserve's cross-queue key {@code {emq}:<name>}.
     *
     * @param name the key's name
     * @return the key
     * @throws EmqIdException {@code kind} for a bad name
     */
    public static String reserve(String name) {
        return Text.of(Native.reserve(Text.utf8(name, "name")));
    }

    /**
     * {@code emq:{queue}:}, the prefix every key of a queue starts with.
     *
     * @param queue the queue's name
     * @return the prefix
     * @throws EmqIdException {@code queue}
     */
    public static String queuePrefix(String queue) {
        return Text.of(Native.queuePrefix(Text.utf8(queue, "queue")));
    }

    /**
     * {@code emq:{queue}:job:}, the prefix job ids are appended to.
     *
     * @param queue the queue's name
     * @return the prefix
     * @throws EmqIdException {@code queue}
     */
    public static String jobPrefix(String queue) {
        return Text.of(Native.jobPrefix(Text.utf8(queue, "queue")));
    }

    /**
     * The bytes a family's keys spend before their parameter.
     *
     * @param queue the queue's name
     * @param type {@code job:}, {@code g:}, … or a fixed type
     * @return the count
     * @throws EmqIdException {@code queue} or {@code kind}
     */
    public static int prefixBytes(String queue, String type) {
        return Native.prefixBytes(Text.utf8(queue, "queue"), Text.utf8(type, "type"));
    }

    /**
     * The stream entry id {@code <unix_ms>-<tail>} of an {@code EVT} id.
     *
     * @param id an {@code EVT} id
     * @return the entry id
     * @throws EmqIdException the id's gate, or {@code kind} for another namespace
     */
    public static String xaddId(String id) {
        return Text.of(Native.xaddId(Text.utf8(id, "id")));
    }

    /**
     * The {@code EVT} id behind a stream entry id.
     *
     * @param entry the entry id
     * @return the id's text
     * @throws EmqIdException {@code charset} or {@code range}
     */
    public static String fromXaddId(String entry) {
        return Text.of(Native.fromXaddId(Text.utf8(entry, "entry"), null));
    }

    /**
     * The id of namespace {@code ns} behind a stream entry id.
     *
     * @param entry the entry id
     * @param ns three letters {@code A-Z}
     * @return the id's text
     * @throws EmqIdException {@code charset} or {@code range} (a namespace that is not three letters is {@code range})
     */
    public static String fromXaddId(String entry, String ns) {
        return Text.of(Native.fromXaddId(Text.utf8(entry, "entry"), Text.utf8(ns, "ns")));
    }
}
