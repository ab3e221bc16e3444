package io.echomq.emqid.holder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.echomq.emqid.EmqIdException;
import io.echomq.emqid.Gate;
import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.Snowflake;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The holder's loop over a scripted wire: the core's decisions are real (the keeper, the reading
 * of replies, the minter), the server's replies scripted — MOVED, ASK, TRYAGAIN, CLUSTERDOWN, a
 * short WAIT, a lost renewal, a dropped connection, the release.
 */
class LeaseHolderTest {
    /** Renewals every 200 ms, the first acquire patient for 600 ms. */
    private static final LeaseTerms TERMS = LeaseTerms.forTtl(600);

    private static void await(BooleanSupplier condition, long ms, String what) throws InterruptedException {
        long end = System.nanoTime() + ms * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + ms + " ms: " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aLeaseIsTakenAcknowledgedMintedOnRenewedAndReleasedWithItsHighWater() throws Exception {
        FakeWire wire = new FakeWire((call, i) -> FakeWire.ran(call, 7));
        LeaseHolder lease = LeaseHolder.acquire(wire, 1, TERMS);
        FakeWire.Call acquire = wire.calls().get(0);
        assertEquals("acquire", acquire.script());
        assertEquals(List.of("EVAL", Lease.ACQUIRE.text(), "1", Lease.KEY), acquire.eval().subList(0, 4));
        assertEquals(List.of("WAIT", "1", Long.toString(TERMS.waitMs())), acquire.commands().get(1));
        assertEquals(Long.toString(Lease.NODES), acquire.argv().get(3));
        assertEquals(7, lease.held().orElseThrow().node());
        assertEquals(1, lease.held().orElseThrow().ordinal());
        long snowflake = lease.next();
        assertEquals(7, Snowflake.node(snowflake));
        String id = lease.mint("USR");
        assertTrue(id.startsWith("USR") && id.length() == 14, id);
        assertThrows(EmqIdException.class, () -> lease.mint("us"));

        await(() -> wire.calls().stream().filter(c -> c.script().equals("renew")).count() >= 2, 2_000, "two renewals");
        FakeWire.Call renew = wire.calls().stream().filter(c -> c.script().equals("renew")).findFirst().orElseThrow();
        String token = acquire.argv().get(0);
        assertEquals(List.of(token, Long.toString(TERMS.ttlMs())), renew.argv().subList(0, 2));
        assertEquals("7", renew.argv().get(3));
        assertTrue(renew.waits());

        long last = Snowflake.unixMs(lease.next());
        assertTrue(lease.release());
        assertTrue(lease.release(), "a second release answers the first's result");
        FakeWire.Call release = wire.calls().get(wire.calls().size() - 1);
        assertEquals("release", release.script());
        assertFalse(release.waits(), "a release is not waited on");
        assertEquals(token, release.argv().get(0));
        assertTrue(Long.parseLong(release.argv().get(1)) >= last, "the high water covers the last id");
        assertEquals("7", release.argv().get(2));
        assertTrue(wire.closed);
        assertEquals(Gate.NODE, assertThrows(EmqIdException.class, lease::next).gate());
        HolderStats stats = lease.stats();
        assertEquals(1, stats.taken());
        assertEquals(0, stats.lost());
    }

    @Test
    void movedReroutesToTheNodeNamedAndTheAcquireRunsThere() {
        FakeWire wire = new FakeWire((call, i) -> i == 0
                ? FakeWire.refused(call, "MOVED 9051 10.0.0.2:7001")
                : FakeWire.ran(call, 3));
        LeaseHolder lease = LeaseHolder.acquire(wire, 1, TERMS);
        List<String> events = wire.events();
        assertEquals("send 10.0.0.1:7000 acquire", events.get(0));
        assertEquals("reroute 9051 10.0.0.2:7001", events.get(1));
        assertEquals("send 10.0.0.2:7001 acquire", events.get(2));
        assertEquals(3, lease.held().orElseThrow().node());
        lease.release();
    }

    @Test
    void askIsFollowedOnceWithAskingToTheNodeNamedOrTheHostTheWriteWentTo() {
        FakeWire wire = new FakeWire((call, i) -> i == 0
                ? FakeWire.refused(call, "ASK 9051 :7002")
                : FakeWire.ran(call, 5));
        LeaseHolder lease = LeaseHolder.acquire(wire, 1, TERMS);
        FakeWire.Call followed = wire.calls().get(1);
        assertEquals(Optional.of(new Wire.Node("10.0.0.1", 7002)), followed.to());
        assertEquals(List.of("ASKING"), followed.commands().get(0));
        assertEquals("EVAL", followed.commands().get(1).get(0));
        assertEquals("WAIT", followed.commands().get(2).get(0));
        assertEquals(wire.calls().get(0).argv(), followed.argv(), "the same write, sent again");
        assertEquals(5, lease.held().orElseThrow().node());
        lease.release();
    }

    @Test
    void anAskAfterAskingIsAFaultNotFollowedAgain() {
        FakeWire wire = new FakeWire((call, i) -> FakeWire.refused(call, "ASK 9051 10.0.0.3:7003"));
        LeaseWireException fault = assertThrows(LeaseWireException.class, () -> LeaseHolder.acquire(wire, 1, TERMS));
        assertTrue(fault.getMessage().contains("ASK 9051"), fault.getMessage());
        assertEquals(2, wire.calls().size(), "followed once");
        assertTrue(wire.closed, "a refused acquire closes its wire");
    }

    @Test
    void tryAgainIsRetriedUntilTheWriteRuns() {
        FakeWire wire = new FakeWire((call, i) -> i < 2
                ? FakeWire.refused(call, "TRYAGAIN Multiple keys request during rehashing of slot")
                : FakeWire.ran(call, 11));
        LeaseHolder lease = LeaseHolder.acquire(wire, 1, TERMS);
        assertEquals(3, wire.calls().size());
        assertEquals(11, lease.held().orElseThrow().node());
        assertFalse(wire.events().contains("reconnect"), "not run: the same connection");
        lease.release();
    }

    @Test
    void aReserveThatDoesNotRunTheAcquireForATtlIsRefusedByTheNodeGateNamingTheReply() {
        FakeWire wire = new FakeWire((call, i) -> FakeWire.refused(call, "CLUSTERDOWN The cluster is down"));
        long start = System.nanoTime();
        EmqIdException refusal = assertThrows(EmqIdException.class, () -> LeaseHolder.acquire(wire, 1, TERMS));
        long took = (System.nanoTime() - start) / 1_000_000;
        assertEquals(Gate.NODE, refusal.gate());
        assertTrue(refusal.getMessage().endsWith(": CLUSTERDOWN The cluster is down"), refusal.getMessage());
        assertTrue(took >= TERMS.ttlMs(), "refused after " + took + " ms");
        assertTrue(wire.calls().size() >= 2);
    }

    @Test
    void everyNodeLeasedIsRefusedAtOnce() {
        FakeWire wire = new FakeWire((call, i) -> FakeWire.refused(call, "ERR EMQLEASE every node is leased"));
        EmqIdException refusal = assertThrows(EmqIdException.class, () -> LeaseHolder.acquire(wire, 1, TERMS));
        assertEquals(Gate.NODE, refusal.gate());
        assertEquals(1, wire.calls().size());
    }

    @Test
    void anAcquireNoReplicaAcknowledgedIsReleasedAndRefusedByWait() {
        FakeWire wire = new FakeWire((call, i) -> {
            if (call.script().equals("acquire")) {
                return List.of(List.of(4L, 1_700_000_000_000L), 0L); // WAIT: no replica
            }
            return FakeWire.ran(call, 4);
        });
        EmqIdException refusal = assertThrows(EmqIdException.class, () -> LeaseHolder.acquire(wire, 1, TERMS));
        assertEquals(Gate.NODE, refusal.gate());
        assertEquals(0, refusal.acknowledged().orElseThrow());
        assertEquals(1, refusal.replicas().orElseThrow());
        FakeWire.Call release = wire.calls().get(1);
        assertEquals("release", release.script());
        assertEquals(wire.calls().get(0).argv().get(0), release.argv().get(0), "the taken lease's token");
        assertEquals("4", release.argv().get(2));
    }

    @Test
    void aLostRenewalStopsMintingAndAnotherNodeIsTakenAfterEveryEarlierId() throws Exception {
        AtomicInteger acquires = new AtomicInteger();
        AtomicInteger renewals = new AtomicInteger();
        FakeWire wire = new FakeWire((call, i) -> {
            switch (call.script()) {
                case "acquire":
                    return FakeWire.ran(call, acquires.incrementAndGet() == 1 ? 7 : 9);
                case "renew":
                    // The first renewal finds the lease gone (another took it after a failover).
                    return renewals.incrementAndGet() == 1 ? List.of(0L, 1L) : FakeWire.ran(call, 0);
                default:
                    return FakeWire.ran(call, 0);
            }
        });
        LeaseHolder lease = LeaseHolder.acquire(wire, 1, TERMS);
        long before = lease.next();
        await(() -> lease.held().map(h -> h.ordinal() == 2).orElse(false), 2_000, "a second lease");
        Held second = lease.held().orElseThrow();
        assertEquals(9, second.node());
        Minted minted = lease.nextMinted();
        assertEquals(2, minted.lease());
        assertTrue(Snowflake.unixMs(minted.snowflake()) > Snowflake.unixMs(before), "after every earlier id");
        HolderStats stats = lease.stats();
        assertEquals(2, stats.taken());
        assertEquals(1, stats.lost());
        assertTrue(stats.unleasedMs().isEmpty());
        // The second acquire starts no earlier than one past the first lease's high water.
        FakeWire.Call reacquire = wire.calls().stream().filter(c -> c.script().equals("acquire")).skip(1)
                .findFirst().orElseThrow();
        assertTrue(Long.parseLong(reacquire.argv().get(4)) > Snowflake.unixMs(before));
        assertTrue(lease.release());
    }

    @Test
    void aDroppedConnectionIsAFaultTheRenewerReconnectsAndWritesAgain() throws Exception {
        AtomicInteger renewals = new AtomicInteger();
        FakeWire wire = new FakeWire((call, i) -> {
            if (call.script().equals("renew") && renewals.incrementAndGet() == 1) {
                throw new IOException("connection reset");
            }
            return FakeWire.ran(call, 2);
        });
        LeaseHolder lease = LeaseHolder.acquire(wire, 1, TERMS);
        await(() -> renewals.get() >= 2, 2_000, "a renewal after the fault");
        assertTrue(wire.events().contains("reconnect"));
        assertEquals(0, lease.stats().lost());
        assertEquals(2, Snowflake.node(lease.next()));
        assertTrue(lease.release());
    }

    @Test
    void aShortWaitOnARenewalKeepsTheLeaseAndTriesAgainSoon() throws Exception {
        AtomicInteger renewals = new AtomicInteger();
        FakeWire wire = new FakeWire((call, i) -> {
            if (call.script().equals("renew") && renewals.incrementAndGet() == 1) {
                return List.of(1L, 0L); // ran, but no replica acknowledged
            }
            return FakeWire.ran(call, 6);
        });
        LeaseHolder lease = LeaseHolder.acquire(wire, 1, TERMS);
        await(() -> renewals.get() >= 2, 2_000, "the renewal tried again");
        assertEquals(6, lease.held().orElseThrow().node());
        assertEquals(0, lease.stats().lost());
        assertTrue(lease.release());
    }

    @Test
    void aReleaseMovedIsSentWhereTheReserveWent() {
        FakeWire wire = new FakeWire((call, i) -> FakeWire.ran(call, 8));
        LeaseHolder lease = LeaseHolder.acquire(wire, 0, TERMS);
        assertFalse(wire.calls().get(0).waits(), "no replicas: no WAIT");
        AtomicInteger releases = new AtomicInteger();
        wire.answer((call, i) -> call.script().equals("release") && releases.incrementAndGet() == 1
                ? FakeWire.refused(call, "MOVED 9051 10.0.0.4:7004")
                : FakeWire.ran(call, 8));
        assertTrue(lease.release());
        List<String> events = wire.events();
        assertTrue(events.contains("reroute 9051 10.0.0.4:7004"), events.toString());
        assertTrue(events.contains("send 10.0.0.4:7004 release"), events.toString());
    }

    @Test
    void aReleaseThatNeverRunsGivesUpAndSaysWhy() {
        FakeWire wire = new FakeWire((call, i) -> FakeWire.ran(call, 8));
        LeaseHolder lease = LeaseHolder.acquire(wire, 0, TERMS);
        wire.answer((call, i) -> call.script().equals("release")
                ? FakeWire.refused(call, "ERR something the protocol does not give")
                : FakeWire.ran(call, 8));
        LeaseWireException fault = assertThrows(LeaseWireException.class, lease::release);
        assertTrue(fault.getMessage().contains("something the protocol does not give"), fault.getMessage());
        assertFalse(lease.release(), "released once: later calls answer false");
    }

    @Test
    void negativeReplicasAreRefusedByRange() {
        FakeWire wire = new FakeWire((call, i) -> FakeWire.ran(call, 1));
        assertEquals(Gate.RANGE, assertThrows(EmqIdException.class, () -> LeaseHolder.acquire(wire, -1, TERMS)).gate());
        assertTrue(wire.calls().isEmpty());
    }
}
