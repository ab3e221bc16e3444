package io.echomq.emqid;

import com.github.f4b6a3.tsid.Tsid;
import com.github.f4b6a3.ulid.Ulid;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The text codec, per id over {@value BenchInputs#N} distinct ids: emq-id's single call in a loop,
 * its batch call, the empty JNI call of the same signature (the floor: what crossing alone
 * costs), and TSID's and ULID's codecs (tsid-creator, ulid-creator) as anchors. Forks, warm-up
 * and measurement are set by `cargo xtask bench jvm` on JMH's command line.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBench {
    private static final int N = BenchInputs.N;

    @Benchmark
    @OperationsPerInvocation(N)
    public void parse(BenchInputs in, Blackhole bh) {
        for (String id : in.ids) {
            bh.consume(Id.parse(id));
        }
    }

    /** The floor of {@link #parse}: {@code decodePacked(long, long)} doing nothing. */
    @Benchmark
    @OperationsPerInvocation(N)
    public long parseFloor(BenchInputs in) {
        long sum = 0;
        for (int i = 0; i < N; i++) {
            sum += Native.floorLongLong(in.lows[i], in.highs[i]);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public void tsidFrom(BenchInputs in, Blackhole bh) {
        for (String text : in.tsidTexts) {
            bh.consume(Tsid.from(text));
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public void ulidFrom(BenchInputs in, Blackhole bh) {
        for (String text : in.ulidTexts) {
            bh.consume(Ulid.from(text));
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long[] decodeManyPacked(BenchInputs in) {
        return Codec.decodeManyPacked(in.packedIds);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public Id[] decodeMany(BenchInputs in) {
        return Codec.decodeMany(in.idList);
    }

    /** The floor of the batches: {@code decodeMany(byte[], long[])} doing nothing, per item. */
    @Benchmark
    @OperationsPerInvocation(N)
    public int batchFloor(BenchInputs in) {
        return Native.floorBatch(in.packedIds, in.batchOut);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public void encode(BenchInputs in, Blackhole bh) {
        for (long snowflake : in.snowflakes) {
            bh.consume(Codec.encode(BenchInputs.NS, snowflake));
        }
    }

    /**
     * The floor of {@link #encode}, whose namespace crosses as an int:
     * {@code encodePacked(int, long, byte[])} doing nothing.
     */
    @Benchmark
    @OperationsPerInvocation(N)
    public void encodePackedFloor(BenchInputs in) {
        for (long snowflake : in.snowflakes) {
            Native.floorEncodePacked(in.nsPacked, snowflake, in.encodeOut);
        }
    }

    /** The floor of an encode with the namespace as bytes: {@code encode(byte[], long, byte[])} doing nothing. */
    @Benchmark
    @OperationsPerInvocation(N)
    public void encodeFloor(BenchInputs in) {
        for (long snowflake : in.snowflakes) {
            Native.floorEncode(in.nsBytes, snowflake, in.encodeOut);
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public void tsidToString(BenchInputs in, Blackhole bh) {
        for (Tsid tsid : in.tsids) {
            bh.consume(tsid.toString());
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public void ulidToString(BenchInputs in, Blackhole bh) {
        for (Ulid ulid : in.ulids) {
            bh.consume(ulid.toString());
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public byte[] encodeManyPacked(BenchInputs in) {
        return Codec.encodeManyPacked(BenchInputs.NS, in.snowflakes);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public String[] encodeMany(BenchInputs in) {
        return Codec.encodeMany(BenchInputs.NS, in.snowflakes);
    }
}
