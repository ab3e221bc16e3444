package io.echomq.emqid;

import java.lang.ref.Reference;
import java.util.Optional;

/**
 * A holder's lease as far as deciding goes (the core's keeper): which write is due, and what
 * each write's outcome means. Times are monotonic ms ({@link Lease#monotonicMs()}). Not the lease
 * itself: the holder keeps the token and the minter. Its methods are synchronized: one holder's
 * threads may share it.
 */
public final class LeaseKeeper {
    /** The core's keeper. */
    private final long handle;
    /** Its terms. */
    private final LeaseTerms terms;

    /**
     * A keeper before its first acquire.
     *
     * @param terms the lease's terms
     * @param sinceMonoMs when it begins, monotonic ms
     */
    public LeaseKeeper(LeaseTerms terms, long sinceMonoMs) {
        this.handle = Native.keeperNew(terms.ttlMs(), terms.marginMs(), sinceMonoMs);
        this.terms = terms;
        Handles.own(this, handle, Native::keeperFree);
    }

    /**
     * The write due at {@code nowMonoMs}.
     *
     * @param nowMonoMs monotonic ms
     * @return {@code EXPIRED} when no write of the held lease was answered for a whole TTL (stop
     *     minting on it, count it lost, then acquire); {@code RELEASE} after {@link #release()}
     */
    public synchronized Next next(long nowMonoMs) {
        try {
            return Names.at(Next.class, Native.keeperNext(handle, nowMonoMs));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * What a write sent at {@code sentMonoMs} that came to {@code outcome} means, read at
     * {@code nowMonoMs}.
     *
     * @param outcome what the write came to
     * @param sentMonoMs when it was sent
     * @param nowMonoMs now
     * @return the action and when the next write is due
     */
    public synchronized Step settle(Outcome outcome, long sentMonoMs, long nowMonoMs) {
        long[] out = new long[2];
        try {
            Native.keeperSettle(handle, outcome.ordinal(), sentMonoMs, nowMonoMs, out);
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Step(Names.at(Action.class, (int) out[0]), out[1]);
    }

    /**
     * Begins handing the held or pending lease back: {@link #next} answers {@code RELEASE}, and
     * {@link #settle} follows an {@code ASK}, reroutes after {@code MOVED}, retries a refusal that
     * did not run (three tries at most), and ends with {@code RELEASED} or {@code GIVE_UP} (left
     * to its TTL).
     */
    public synchronized void release() {
        try {
            Native.keeperRelease(handle);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Where the holder is with its lease.
     *
     * @return the phase
     */
    public synchronized Phase phase() {
        try {
            return Names.at(Phase.class, Native.keeperPhase(handle));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Whether the write about to be sent follows an {@code ASK} (send {@code ASKING} first).
     *
     * @return whether it does
     */
    public synchronized boolean asked() {
        try {
            return Native.keeperAsked(handle);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The lease's terms.
     *
     * @return the terms
     */
    public LeaseTerms terms() {
        return terms;
    }

    /**
     * The first acquire's refusal when the keeper gives up on {@code outcome} (gate
     * {@code node}): every node leased, or the reserve not running the acquire for a whole TTL.
     *
     * @param outcome the outcome given up on
     * @return the refusal, or empty when the refusal is another's ({@link Lease#parseWait}'s, or
     *     the holder's own fault)
     */
    public static Optional<EmqIdException> refusal(Outcome outcome) {
        byte[] fields = Native.keeperRefusal(outcome.ordinal());
        return fields == null ? Optional.empty() : Optional.of(new EmqIdException(fields));
    }

    /**
     * The outcome of a write whose script answered without an error.
     *
     * @param held the acquire answered a node, the renewal 1
     * @param acknowledged {@link Lease#parseWait} passed, or no {@code WAIT} was sent
     * @return {@code COUNTED}, {@code UNACKNOWLEDGED} or {@code GONE}
     */
    public static Outcome ofWrite(boolean held, boolean acknowledged) {
        return Names.at(Outcome.class, Native.outcomeOfWrite(held, acknowledged));
    }
}
