package io.echomq.emqid;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The id as a value and its text both ways, single and in batches (the vectors are the conformance run's). */
class CodecTest {
    private static final String TEXT = "JOB0KHTOWnGLuC";

    @Test
    void anIdIsAValue() {
        Id id = Id.parse(TEXT);
        assertEquals("JOB", id.ns());
        assertEquals(TEXT, id.toString());
        assertEquals(id, Id.parse(TEXT.getBytes(StandardCharsets.US_ASCII)));
        assertEquals(id.hashCode(), Id.parse(TEXT).hashCode());
        assertEquals(id, Id.of("JOB", id.snowflake()));
        assertArrayEquals(TEXT.getBytes(StandardCharsets.US_ASCII), id.toBytes());
        assertEquals(Instant.ofEpochMilli(id.unixMs()), id.instant());
        assertEquals(Snowflake.hash32(id.snowflake()), id.hash32());
        assertTrue(id.hash32() >= 0 && id.hash32() <= 0xFFFF_FFFFL);
        assertNotEquals(id, Id.of("USR", id.snowflake()));
    }

    @Test
    void idsOrderAsTheCoreComparesTheirTexts() {
        Minter minter = new Minter(3);
        List<Id> ids = new ArrayList<>();
        for (String ns : List.of("USR", "JOB", "EVT")) {
            for (long s : minter.nextMany(50)) {
                ids.add(Id.of(ns, s));
            }
        }
        for (Id a : ids.subList(0, 40)) {
            for (Id b : ids) {
                assertEquals(Id.compare(a.toString(), b.toString()), Integer.signum(a.compareTo(b)), a + " " + b);
            }
        }
    }

    @Test
    void batchesAnswerAsSingleCalls() {
        long[] snowflakes = new Minter(9).nextMany(1000);
        String[] texts = Codec.encodeMany("EVT", snowflakes);
        for (int i = 0; i < texts.length; i++) {
            assertEquals(Codec.encode("EVT", snowflakes[i]), texts[i]);
        }
        Id[] ids = Codec.decodeMany(texts);
        for (int i = 0; i < texts.length; i++) {
            assertEquals(Id.parse(texts[i]), ids[i]);
        }
        assertArrayEquals(snowflakes, Codec.decodeManyPacked(Codec.encodeManyPacked("EVT", snowflakes)));
        assertEquals(0, Codec.decodeMany().length);
        assertEquals(0, Codec.encodeMany("EVT", new long[0]).length);
    }

    @Test
    void isValidNeverThrows() {
        assertTrue(Id.isValid(TEXT));
        assertTrue(Id.isValid(TEXT.getBytes(StandardCharsets.US_ASCII)));
        for (String bad : List.of("", "JOB", "JOB0KHTOWnGLuCX", "JOB0KHTOWnGLü", "ÄÖÜ0KHTOWnGLuC", "JOBzzzzzzzzzzz")) {
            assertFalse(Id.isValid(bad), bad);
        }
        assertFalse(Id.isValid((byte[]) null));
    }

    @Test
    void aLongIsReadAsItsBitsWhereTheCoreTakesAnUnsignedValue() {
        assertEquals(Snowflake.node(Long.MAX_VALUE), Contract.MAX_NODE);
        assertEquals(Snowflake.seq(Long.MAX_VALUE), Contract.MAX_SEQ);
        assertEquals(0, Snowflake.minFor(0));
        assertEquals(Snowflake.minFor(Contract.EPOCH_MS), Snowflake.minFor(Instant.ofEpochMilli(Contract.EPOCH_MS)));
        assertEquals(0, Snowflake.minFor(Instant.MIN));
        assertEquals(Gate.RANGE,
                org.junit.jupiter.api.Assertions.assertThrows(EmqIdException.class, () -> Snowflake.minFor(Instant.MAX)).gate());
    }

    @Test
    void slotsOfTextAreTheSlotsOfItsUtf8() {
        for (String key : List.of("foo", "{user1000}.following", "用户{订单}:1", "ключ", "キー{タグ}", "")) {
            assertEquals(Keyspace.slot(key.getBytes(StandardCharsets.UTF_8)), Keyspace.slot(key), key);
            assertEquals(new String(Keyspace.hashtag(key.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8),
                    Keyspace.hashtag(key), key);
        }
        List<String> keys = List.of("a", "{b}c", "", "用户{订单}:1");
        int[] many = Keyspace.slotMany(keys);
        for (int i = 0; i < keys.size(); i++) {
            assertEquals(Keyspace.slot(keys.get(i)), many[i]);
        }
        byte[] big = new byte[100_000];
        Arrays.fill(big, (byte) 'x');
        assertEquals(Keyspace.slot(new String(big, StandardCharsets.US_ASCII)), Keyspace.slot(big));
    }

    @Test
    void aPackedKeyIsTheKeyAtEveryLength() {
        StringBuilder key = new StringBuilder();
        for (int len = 0; len <= 2 * Packed.KEY_BYTES; len++) {
            String text = key.toString();
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            int unpacked = Native.slot(bytes);
            assertEquals(unpacked, Keyspace.slot(bytes), "bytes of length " + len);
            assertEquals(unpacked, Keyspace.slot(text), "text of length " + len);
            assertEquals(unpacked, Keyspace.slot(new StringBuilder(text)), "a CharSequence of length " + len);
            key.append((char) ('!' + (len * 7) % 90)); // every printable ASCII byte, '?' among them
        }
        long snowflake = new Minter(2).next();
        for (String ns : List.of("JOB", "ZZZ", "AAA")) {
            assertEquals(ns, Codec.decode(Codec.encode(ns, snowflake)).ns());
        }
    }
}
