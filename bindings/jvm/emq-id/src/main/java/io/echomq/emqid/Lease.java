package io.echomq.emqid;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Node leases on Valkey ({@code emq-lease/3}, SPEC.md §5.2): the scripts, the one key they all
 * declare, and what their replies mean. Run the scripts with your own client, or take a holder
 * that does ({@code io.echomq:emq-id-jedis}, {@code io.echomq:emq-id-lettuce}).
 */
public final class Lease {
    private Lease() {}

    /** The protocol's name and version. */
    public static final String PROTOCOL = Native.TEXTS.get("LEASE_PROTOCOL");
    /**
     * The reserve's one lease key, {@code KEYS[1]} of every script: a hash of each node's token,
     * the lease's end (server unix ms) and its mark, in the reserve's slot.
     */
    public static final String KEY = Native.TEXTS.get("LEASE_KEY");
    /** Nodes a lease can be taken on. */
    public static final int NODES = Contract.number("LEASE_NODES");
    /** The default TTL, ms. */
    public static final long TTL_MS = Native.NUMBERS.get("LEASE_TTL_MS");
    /** The default fence margin, ms. */
    public static final long MARGIN_MS = Native.NUMBERS.get("LEASE_MARGIN_MS");
    /** Replicas that must acknowledge a lease write ({@code WAIT}'s numreplicas) unless the deployment says otherwise. */
    public static final int REPLICAS = Contract.number("LEASE_REPLICAS");
    /** The acquire script. */
    public static final LeaseScript ACQUIRE = scriptNamed("acquire");
    /** The renew script. */
    public static final LeaseScript RENEW = scriptNamed("renew");
    /** The release script. */
    public static final LeaseScript RELEASE = scriptNamed("release");

    /**
     * The scripts, in the core's order.
     *
     * @return acquire, renew, release
     */
    public static List<LeaseScript> scripts() {
        return Native.SCRIPTS;
    }

    /**
     * A script by its name.
     *
     * @param name {@code acquire}, {@code renew} or {@code release}
     * @return the script, or empty
     */
    public static Optional<LeaseScript> script(String name) {
        return Native.SCRIPTS.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    private static LeaseScript scriptNamed(String name) {
        return script(name).orElseThrow(() -> new IllegalStateException("emq-id: the core has no " + name + " script"));
    }

    /**
     * Reads the acquire script's reply {@code [node, previous]}.
     *
     * @param node the reply's first integer
     * @param previous its second
     * @return the lease taken
     * @throws EmqIdException {@code range} for a reply the script cannot give
     */
    public static Acquired parseAcquire(long node, long previous) {
        long[] out = new long[3];
        Native.parseAcquire(node, previous, out);
        return new Acquired((int) out[0], out[1] == 1 ? OptionalLong.of(out[2]) : OptionalLong.empty());
    }

    /**
     * The {@code node} refusal when an acquire's error says every node is leased.
     *
     * @param message the error reply's text
     * @return the refusal, or empty for any other error
     */
    public static Optional<EmqIdException> parseAcquireError(String message) {
        byte[] fields = Native.parseAcquireError(Text.utf8(message, "message"));
        return fields == null ? Optional.empty() : Optional.of(new EmqIdException(fields));
    }

    /**
     * Reads the renew or release script's reply.
     *
     * @param reply the reply
     * @throws EmqIdException {@code node} for 0 (the lease is lost), {@code range} for another value
     */
    public static void parseRenewal(long reply) {
        Native.parseRenewal(reply);
    }

    /**
     * Reads {@code WAIT}'s reply after the acquire or renew script.
     *
     * @param acknowledged the replicas {@code WAIT} answered
     * @param replicas those wanted
     * @throws EmqIdException {@code node} for fewer (mint nothing on that acquire, do not record
     *     that renewal; the exception's counts say how many), {@code range} for a negative reply
     *     or a count of replicas outside 0 to 2^32 - 1
     */
    public static void parseWait(long acknowledged, long replicas) {
        Native.parseWait(acknowledged, replicas);
    }

    /**
     * This process's monotonic clock, the fence's clock.
     *
     * @return ms
     */
    public static long monotonicMs() {
        return Native.monotonicMs();
    }

    /**
     * What an error reply to a lease script (its text, after {@code -}) says of the write.
     *
     * @param text the error's text
     * @param asked the write went after {@code ASKING} (an {@code ASK} to it is a fault)
     * @return the outcome
     */
    public static Outcome readLeaseError(String text, boolean asked) {
        return Names.at(Outcome.class, Native.readLeaseError(Text.utf8(text, "text"), asked));
    }

    /**
     * The node a {@code MOVED <slot> <host>:<port>} or {@code ASK …} reply names.
     *
     * @param text the error's text
     * @return where it sends the write, or empty for any other text
     */
    public static Optional<Redirect> redirect(String text) {
        byte[] fields = Native.redirect(Text.utf8(text, "text"));
        if (fields == null) {
            return Optional.empty();
        }
        List<String> f = Fields.read(fields);
        return Optional.of(new Redirect(f.get(0).equals("1"), Integer.parseInt(f.get(1)), Optional.ofNullable(f.get(2)),
                Integer.parseInt(f.get(3))));
    }
}
