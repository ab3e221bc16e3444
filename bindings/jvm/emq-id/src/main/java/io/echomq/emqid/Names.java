package io.echomq.emqid;

import java.util.ArrayList;
import java.util.List;

/**
 * The core's names for the values of an enum of this package ({@link Gate}, {@link Outcome},
 * {@link Action}, {@link Phase}, {@link Next}): each constant is its name in upper case, and the
 * constants are in the core's order, which {@link #check} proves when the package loads, so a
 * core that adds, drops or reorders one fails to load instead of answering wrongly.
 */
final class Names {
    private Names() {}

    /** A constant's name in the core: {@code NOT_RUN} is {@code not_run}. */
    static String code(Enum<?> constant) {
        return constant.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Fails unless {@code type}'s constants are exactly the core's {@code names}, in order. */
    static <E extends Enum<E>> void check(Class<E> type, List<String> names) {
        List<String> ours = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            ours.add(code(constant));
        }
        if (!ours.equals(names)) {
            throw new IllegalStateException("emq-id: " + type.getSimpleName() + " is " + ours
                    + " but the native library's core names " + names + ": the jar's classes and library differ");
        }
    }

    /** The constant at {@code index} of the core's list (the same as this enum's). */
    static <E extends Enum<E>> E at(Class<E> type, int index) {
        E[] constants = type.getEnumConstants();
        if (index < 0 || index >= constants.length) {
            throw new IllegalStateException("emq-id: the core answered " + type.getSimpleName() + " #" + index);
        }
        return constants[index];
    }

    /** The constant whose core name is {@code code}. */
    static <E extends Enum<E>> E of(Class<E> type, String code) {
        for (E constant : type.getEnumConstants()) {
            if (code(constant).equals(code)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("no " + type.getSimpleName() + " named " + code);
    }
}
