package io.echomq.emqid.holder;

/**
 * Valkey answered a lease write with something the protocol does not give (an error reply that
 * is none of the protocol's, a reply of the wrong shape, an {@code ASK} after {@code ASKING}), or
 * the {@link Wire} failed with a checked exception (its cause). Only the first acquire and the
 * release throw it; the renewer reconnects and writes again. A redirect or a cluster that is not
 * ready is never one: the acquire follows or retries it, and after a TTL is refused with the
 * {@code node} gate.
 */
public final class LeaseWireException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A wire fault.
     *
     * @param message what the write came to
     */
    public LeaseWireException(String message) {
        super(message);
    }

    /**
     * A wire fault and the exception it came from.
     *
     * @param message what the write came to
     * @param cause the wire's exception
     */
    public LeaseWireException(String message, Throwable cause) {
        super(message, cause);
    }
}
