package io.echomq.emqid;

import com.github.f4b6a3.tsid.TsidCreator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The calls that take one {@code long} across: {@code Snowflake.hash32} and {@code Minter.next}
 * (its handle), per call over {@value BenchInputs#N} calls, beside the empty JNI call of that
 * signature; minting beside {@code TsidCreator.getTsid()}, the TSID a JVM user would mint
 * instead; and a batch mint, per id.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SnowflakeBench {
    private static final int N = BenchInputs.N;

    @Benchmark
    @OperationsPerInvocation(N)
    public long hash32(BenchInputs in) {
        long sum = 0;
        for (long snowflake : in.snowflakes) {
            sum += Snowflake.hash32(snowflake);
        }
        return sum;
    }

    /** The floor of {@link #hash32} and {@link #minterNext}: a native taking and answering a long. */
    @Benchmark
    @OperationsPerInvocation(N)
    public long longFloor(BenchInputs in) {
        long sum = 0;
        for (long snowflake : in.snowflakes) {
            sum += Native.floorLong(snowflake);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long minterNext(BenchInputs in) {
        long sum = 0;
        for (int i = 0; i < N; i++) {
            sum += in.minter.next();
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public void tsidCreate(Blackhole bh) {
        for (int i = 0; i < N; i++) {
            bh.consume(TsidCreator.getTsid());
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long[] minterNextMany(BenchInputs in) {
        return in.minter.nextMany(N);
    }
}
