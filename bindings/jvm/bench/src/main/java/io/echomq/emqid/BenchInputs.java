package io.echomq.emqid;

import com.github.f4b6a3.tsid.Tsid;
import com.github.f4b6a3.tsid.TsidCreator;
import com.github.f4b6a3.ulid.Ulid;
import com.github.f4b6a3.ulid.UlidCreator;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The inputs every benchmark goes over: {@value #N} distinct items of each kind, in each form a
 * call or its anchor takes, so a per-item figure is a loop over a batch (as a caller's loop is,
 * with its branches and caches) rather than one input repeated, which the branch predictor
 * learns. Built once per fork; the benchmarks only read them.
 */
@State(Scope.Benchmark)
public class BenchInputs {
    /** Items per batch, as in the other runtimes' tables. */
    public static final int N = 64;
    /** The namespace of the ids. */
    static final String NS = "JOB";

    // Ids: emq-id's text, its bytes packed end to end, the same text as the two longs
    // decodePacked takes (the floor's arguments), and the snowflakes under them.
    String[] ids;
    List<String> idList;
    byte[] packedIds;
    long[] lows;
    long[] highs;
    long[] snowflakes;
    byte[] nsBytes;
    /** The namespace as the int {@code encodePacked} takes: its three bytes, little-endian. */
    int nsPacked;
    /** A place for the floor of encode to be handed, as encode is handed its output. */
    byte[] encodeOut;
    /** A place for the floor of the batches to be handed. */
    long[] batchOut;

    // The anchors' ids: TSID (64 bits, 13 characters) and ULID (128 bits, 26 characters).
    Tsid[] tsids;
    String[] tsidTexts;
    Ulid[] ulids;
    String[] ulidTexts;

    // Keys: `emq:{orders-NN}:job:JOB…` (34 bytes, a 9-byte hashtag, the keys emq-id makes),
    // as strings, as UTF-8 bytes, and packed end to end with their ends.
    String[] keys;
    List<String> keyList;
    byte[][] keyBytes;
    byte[] packedKeys;
    int[] ends;
    /** Each key as the five little-endian longs {@code slotPacked} takes (the floor's arguments). */
    long[][] keyWords;

    /** A minter of its own node (no claim: the benchmark mints ahead of the clock). */
    Minter minter;

    @Setup
    public void setUp() {
        minter = new Minter(1);
        // The inputs' own minter: the benchmark's stays on the wall clock.
        Minter past = new Minter(2);
        snowflakes = new long[N];
        ids = new String[N];
        lows = new long[N];
        highs = new long[N];
        packedIds = new byte[N * 14];
        // Snowflakes spread over a past year of milliseconds, so their digits differ everywhere.
        long start = 1_735_689_600_000L; // 2025-01-01, after the contract's epoch
        for (int i = 0; i < N; i++) {
            snowflakes[i] = past.nextAt(start + i * 492_876_863L);
            ids[i] = Codec.encode(NS, snowflakes[i]);
            byte[] text = ids[i].getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, packedIds, i * 14, 14);
            for (int b = 0; b < 8; b++) {
                lows[i] |= (long) (text[b] & 0xff) << (8 * b);
            }
            for (int b = 8; b < 14; b++) {
                highs[i] |= (long) (text[b] & 0xff) << (8 * (b - 8));
            }
        }
        idList = List.of(ids);
        nsBytes = NS.getBytes(StandardCharsets.US_ASCII);
        nsPacked = (nsBytes[0] & 0xff) | (nsBytes[1] & 0xff) << 8 | (nsBytes[2] & 0xff) << 16;
        encodeOut = new byte[14];
        batchOut = new long[N];

        tsids = new Tsid[N];
        tsidTexts = new String[N];
        ulids = new Ulid[N];
        ulidTexts = new String[N];
        for (int i = 0; i < N; i++) {
            tsids[i] = TsidCreator.getTsid();
            tsidTexts[i] = tsids[i].toString();
            ulids[i] = UlidCreator.getUlid();
            ulidTexts[i] = ulids[i].toString();
        }

        keys = new String[N];
        keyBytes = new byte[N][];
        ends = new int[N];
        int at = 0;
        for (int i = 0; i < N; i++) {
            keys[i] = "emq:{orders-" + String.format("%02d", i % 97) + "}:job:" + ids[i];
            keyBytes[i] = keys[i].getBytes(StandardCharsets.UTF_8);
            at += keyBytes[i].length;
            ends[i] = at;
        }
        keyList = List.of(keys);
        keyWords = new long[N][5];
        for (int i = 0; i < N; i++) {
            for (int b = 0; b < keyBytes[i].length; b++) {
                keyWords[i][b / 8] |= (long) (keyBytes[i][b] & 0xff) << (8 * (b % 8));
            }
        }
        packedKeys = new byte[at];
        for (int i = 0; i < N; i++) {
            System.arraycopy(keyBytes[i], 0, packedKeys, i == 0 ? 0 : ends[i - 1], keyBytes[i].length);
        }
        check();
    }

    /** Every call answers as its anchors do on these inputs, so the rows compare like with like. */
    private void check() {
        int[] many = Keyspace.slotsOf(packedKeys, ends.clone());
        for (int i = 0; i < N; i++) {
            int jedis = redis.clients.jedis.util.JedisClusterCRC16.getSlot(keyBytes[i]);
            int lettuce = io.lettuce.core.cluster.SlotHash.getSlot(keyBytes[i]);
            if (Keyspace.slot(keys[i]) != jedis || Keyspace.slot(keyBytes[i]) != lettuce || many[i] != jedis) {
                throw new IllegalStateException("the slots of " + keys[i] + " differ");
            }
            if (Id.parse(ids[i]).snowflake() != snowflakes[i] || Native.floorLongLong(lows[i], highs[i]) != 0) {
                throw new IllegalStateException("the benchmark's inputs are wrong at " + i);
            }
        }
        if (!Arrays.equals(Codec.decodeManyPacked(packedIds), snowflakes)) {
            throw new IllegalStateException("decodeManyPacked differs from the snowflakes");
        }
    }
}
