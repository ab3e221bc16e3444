package io.echomq.emqid;

/**
 * What a holder does with a write's outcome, and when its next write is due
 * ({@link LeaseKeeper#settle}).
 *
 * @param action what to do
 * @param afterMs ms from now until the next write: a third of the TTL after a write that
 *     counted, the retry interval after one that did not, 0 for at once
 */
public record Step(Action action, long afterMs) {}
