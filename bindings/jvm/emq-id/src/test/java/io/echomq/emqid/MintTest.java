package io.echomq.emqid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Minting from many threads: one state, no duplicate, each thread's ids rising. */
class MintTest {
    private static final int THREADS = 8;
    private static final int EACH = 50_000;

    /** Runs {@code mint} on 8 threads at once, {@link #EACH} times each; every id, by thread. */
    private static long[][] onThreads(java.util.function.LongSupplier mint) throws InterruptedException {
        long[][] minted = new long[THREADS][EACH];
        CountDownLatch start = new CountDownLatch(1);
        Thread[] threads = new Thread[THREADS];
        Set<Throwable> failures = ConcurrentHashMap.newKeySet();
        for (int t = 0; t < THREADS; t++) {
            int me = t;
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < EACH; i++) {
                        minted[me][i] = mint.getAsLong();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            threads[t].start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        assertTrue(failures.isEmpty(), failures.toString());
        return minted;
    }

    private static void assertUniqueAndRising(long[][] minted) {
        Set<Long> seen = new HashSet<>();
        for (long[] mine : minted) {
            for (int i = 0; i < mine.length; i++) {
                assertTrue(seen.add(mine[i]), "duplicate " + mine[i]);
                if (i > 0) {
                    assertTrue(mine[i] > mine[i - 1], "not rising at " + i);
                }
            }
        }
        assertEquals(THREADS * EACH, seen.size());
    }

    @Test
    void eightThreadsOnTheProcessStateMintNoDuplicate() throws InterruptedException {
        ProcessNode node = Mint.processNode();
        long[][] minted = onThreads(() -> Id.parse(Mint.mint("JOB")).snowflake());
        assertUniqueAndRising(minted);
        for (long[] mine : minted) {
            assertEquals(node.node(), Snowflake.node(mine[0]));
        }
    }

    @Test
    void eightThreadsOnOneMinterMintNoDuplicate() throws InterruptedException {
        Minter minter = new Minter(11);
        assertUniqueAndRising(onThreads(minter::next));
    }

    @Test
    void theStepIsTheMintersOnAClockReading() {
        Minter minter = new Minter(4);
        long now = Contract.EPOCH_MS + 1000;
        MintStep first = Mint.step(0, 4, now);
        assertEquals(minter.nextAt(now), first.snowflake());
        assertEquals(minter.nextAt(now), Mint.step(first.state(), 4, now).snowflake());
        assertEquals(4, Snowflake.node(first.snowflake()));
    }
}
