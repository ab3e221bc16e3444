package io.echomq.emqid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The lease's parsers, terms, minter and keeper through the public API (their vectors run in conformance). */
class LeaseTest {
    @Test
    void aKeeperDecidesAndTheMinterFences() {
        LeaseTerms terms = LeaseTerms.forTtl(300);
        assertEquals(terms, LeaseTerms.of(terms.ttlMs(), terms.marginMs()));
        LeaseKeeper keeper = new LeaseKeeper(terms, 0);
        assertEquals(Phase.STARTING, keeper.phase());
        assertEquals(Next.ACQUIRE, keeper.next(0));
        Step step = keeper.settle(Outcome.COUNTED, 0, 1);
        assertEquals(Action.PUBLISH, step.action());
        assertEquals(terms.renewEveryMs(), step.afterMs());
        assertEquals(Phase.HELD, keeper.phase());
        keeper.release();
        assertEquals(Next.RELEASE, keeper.next(2));

        Acquired acquired = Lease.parseAcquire(7, -1);
        assertTrue(acquired.previousMark().isEmpty());
        try (LeasedMinter minter = LeasedMinter.start(acquired, Contract.EPOCH_MS + 5000, 100, terms)) {
            long s = minter.nextAt(Contract.EPOCH_MS + 5000, 100);
            assertEquals(7, Snowflake.node(s));
            assertEquals(Gate.NODE, assertThrows(EmqIdException.class, () -> minter.nextAt(Contract.EPOCH_MS + 5000, minter.fenceMs())).gate());
        }
    }

    @Test
    void refusalsAreValuesWhereTheCoreGivesThemAsValues() {
        assertTrue(Lease.parseAcquireError("ERR something else").isEmpty());
        assertEquals(Optional.empty(), Lease.redirect("ERR nope"));
        assertEquals(Outcome.COUNTED, LeaseKeeper.ofWrite(true, true));
        for (Outcome outcome : Outcome.values()) {
            LeaseKeeper.refusal(outcome).ifPresent(r -> assertEquals(Gate.NODE, r.gate()));
        }
        assertTrue(Lease.redirect("ASK 5 [::1]:7000").orElseThrow().ask());
    }
}
