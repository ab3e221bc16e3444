package io.echomq.emqid;

import io.lettuce.core.cluster.SlotHash;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A key's slot, per key over {@value BenchInputs#N} distinct 34-byte keys with a hashtag: emq-id's
 * single call in a loop (from a {@code String} and from {@code byte[]}), its batch calls, the
 * empty JNI call of the same signature, and the slot functions of Jedis and Lettuce, the
 * clients a JVM user has, as anchors. Each loop sums the slots so none is thrown away.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SlotBench {
    private static final int N = BenchInputs.N;

    @Benchmark
    @OperationsPerInvocation(N)
    public int slotString(BenchInputs in) {
        int sum = 0;
        for (String key : in.keys) {
            sum += Keyspace.slot(key);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int slotBytes(BenchInputs in) {
        int sum = 0;
        for (byte[] key : in.keyBytes) {
            sum += Keyspace.slot(key);
        }
        return sum;
    }

    /**
     * The floor of {@link #slotString} and {@link #slotBytes} for keys of at most 40 bytes, which
     * cross as five longs and a length: {@code slotPacked(long × 5, int)} doing nothing.
     */
    @Benchmark
    @OperationsPerInvocation(N)
    public int slotPackedFloor(BenchInputs in) {
        int sum = 0;
        for (int i = 0; i < N; i++) {
            long[] w = in.keyWords[i];
            sum += Native.floorSlotPacked(w[0], w[1], w[2], w[3], w[4], in.keyBytes[i].length);
        }
        return sum;
    }

    /** The floor of a longer key's slot: {@code slot(byte[])} doing nothing. */
    @Benchmark
    @OperationsPerInvocation(N)
    public int slotFloor(BenchInputs in) {
        int sum = 0;
        for (byte[] key : in.keyBytes) {
            sum += Native.floorBytes(key);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int jedisString(BenchInputs in) {
        int sum = 0;
        for (String key : in.keys) {
            sum += JedisClusterCRC16.getSlot(key);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int jedisBytes(BenchInputs in) {
        int sum = 0;
        for (byte[] key : in.keyBytes) {
            sum += JedisClusterCRC16.getSlot(key);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int lettuceString(BenchInputs in) {
        int sum = 0;
        for (String key : in.keys) {
            sum += SlotHash.getSlot(key);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int lettuceBytes(BenchInputs in) {
        int sum = 0;
        for (byte[] key : in.keyBytes) {
            sum += SlotHash.getSlot(key);
        }
        return sum;
    }

    /**
     * The keys already packed end to end: the form with no copy. It writes the slots over the
     * ends it is given, so each call gets a fresh copy of them (as a caller builds its ends).
     */
    @Benchmark
    @OperationsPerInvocation(N)
    public int[] slotsOf(BenchInputs in) {
        return Keyspace.slotsOf(in.packedKeys, in.ends.clone());
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int[] slotManyBytes(BenchInputs in) {
        return Keyspace.slotMany(in.keyBytes);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int[] slotManyStrings(BenchInputs in) {
        return Keyspace.slotMany(in.keyList);
    }
}
