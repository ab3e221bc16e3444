package io.echomq.emqid;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * The native objects Java objects own ({@link Minter}, {@link LeasedMinter},
 * {@link LeaseKeeper}): each owner holds a handle and registers it here, and the handle is freed
 * once, after the owner is unreachable. Owners keep themselves reachable through every call that
 * passes their handle ({@code Reference.reachabilityFence}), so a handle is never freed mid-call.
 */
final class Handles {
    private Handles() {}

    private static final Cleaner CLEANER = Cleaner.create();

    /** Frees {@code handle} with {@code free} once {@code owner} is unreachable. */
    static void own(Object owner, long handle, LongConsumer free) {
        CLEANER.register(owner, () -> free.accept(handle));
    }
}
