package io.echomq.emqid.holder;

import io.echomq.emqid.Acquired;
import io.echomq.emqid.Codec;
import io.echomq.emqid.EmqIdException;
import io.echomq.emqid.Gate;
import io.echomq.emqid.Lease;
import io.echomq.emqid.LeaseKeeper;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.LeaseScript;
import io.echomq.emqid.LeasedMinter;
import io.echomq.emqid.Next;
import io.echomq.emqid.Outcome;
import io.echomq.emqid.Redirect;
import io.echomq.emqid.Step;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A node lease on Valkey ({@code emq-lease/3}, SPEC.md §5.2) held in one call: taken by
 * {@link #acquire}, renewed by a daemon thread, minted on by any thread, handed back by
 * {@link #release} (or {@link #close}) with its high water.
 *
 * <p>{@link #acquire} returns once a node's acquire is acknowledged by {@code replicas} replicas
 * ({@code WAIT} on the connection that ran it). The renewer then renews it every third of its
 * TTL, follows a failover to the new primary ({@code MOVED}: the wire finds it) and a slot
 * migration ({@code ASK}: the same write to the node named, {@code ASKING} in front, once), and
 * when the lease is lost or not renewed for a whole TTL takes another node by itself, its ids
 * after every id this holder minted before. {@link #next} and {@link #mint} mint on whichever
 * lease is held, and are refused with the {@code node} gate while none is.
 *
 * <p>What to write, when, and what each reply means are the core's decisions
 * ({@link LeaseKeeper}, {@link Lease#readLeaseError}, {@link Lease#redirect},
 * {@link Lease#parseWait}, {@link LeasedMinter}); this class only moves them through a
 * {@link Wire}. Programs use the client artifacts' one call ({@code JedisLease.acquire},
 * {@code LettuceLease.acquire}), which make the wire.
 */
public final class LeaseHolder implements AutoCloseable {
    /** What a write may wait for its replies past {@code WAIT}'s timeout (ms). */
    private static final long SLACK_MS = 1_000;

    private static final SecureRandom TOKENS = new SecureRandom();

    private final Wire wire;
    private final int replicas;
    private final LeaseTerms terms;
    /** How long (ms) a write's replies may take: a server that stops answering holds nothing. */
    private final long withinMs;
    /** The core's keeper: one thread at a time (the caller's start, the renewer, the release). */
    private final LeaseKeeper keeper;
    private final Stats stats = new Stats();
    private final CountDownLatch stop = new CountDownLatch(1);

    /** The lease minted on: what minting threads read. */
    private volatile Owned current;
    /** The keeper thread's own: the held lease, the pending one, and what the next starts after. */
    private Owned held;
    private Owned pending;
    private long notBefore;
    private int ordinals;

    private Thread renewer;
    /** {@code null} until released: then whether a held lease was handed back. */
    private Boolean released;

    private LeaseHolder(Wire wire, int replicas, LeaseTerms terms) {
        this.wire = wire;
        this.replicas = replicas;
        this.terms = terms;
        this.withinMs = terms.waitMs() + SLACK_MS;
        this.keeper = new LeaseKeeper(terms, Lease.monotonicMs());
    }

    /**
     * Takes a free node through {@code wire} and returns once {@code replicas} replicas
     * acknowledged it; a daemon thread ({@code emq-lease}) then keeps it. A write the server did
     * not run ({@code TRYAGAIN}, {@code CLUSTERDOWN}, {@code LOADING}…) or that was
     * {@code MOVED} is tried again for up to a TTL.
     *
     * <p>The wire is the holder's from now on: {@link #release} closes it, as does a refusal.
     *
     * @param wire how writes reach Valkey
     * @param replicas the replicas that must acknowledge each lease write ({@code WAIT}); 0 for
     *     a reserve without replicas (a failover may then lose a lease)
     * @param terms the lease's TTL and fence margin
     * @return the holder, its lease held
     * @throws EmqIdException gate {@code node}: every node is leased, the acquire was not
     *     acknowledged within {@link LeaseTerms#waitMs()} (that lease is released first,
     *     {@link EmqIdException#acknowledged()} says by how many), or the reserve did not run it
     *     for a whole TTL (the message ends with the server's reply); gate {@code range}:
     *     {@code replicas} is negative
     * @throws LeaseWireException a reply the protocol does not give, or the wire's checked
     *     exception; the client's own runtime exceptions (it could not reach Valkey) as they are
     */
    public static LeaseHolder acquire(Wire wire, int replicas, LeaseTerms terms) {
        Objects.requireNonNull(wire, "wire");
        if (terms == null) {
            wire.close();
            throw new NullPointerException("terms");
        }
        if (replicas < 0) {
            wire.close();
            throw refused(Gate.RANGE, "replicas must be 0 or more, not " + replicas);
        }
        LeaseHolder holder = new LeaseHolder(wire, replicas, terms);
        long after;
        try {
            after = holder.start();
        } catch (RuntimeException | Error e) {
            wire.close();
            throw e;
        }
        Thread thread = new Thread(() -> holder.keep(after), "emq-lease");
        thread.setDaemon(true);
        holder.renewer = thread;
        thread.start();
        return holder;
    }

    /** {@return the lease held now, if any} */
    public Optional<Held> held() {
        Owned lease = current;
        return lease == null ? Optional.empty() : Optional.of(lease.held);
    }

    /** {@return leases taken and lost, and the time without one} */
    public HolderStats stats() {
        return stats.snapshot();
    }

    /** {@return the terms the leases are kept on} */
    public LeaseTerms terms() {
        return terms;
    }

    /**
     * A snowflake minted on the lease held now, and which lease minted it.
     *
     * @return the snowflake and the lease's ordinal
     * @throws EmqIdException gate {@code node}: no lease is held (the holder is taking one), its
     *     fence has closed, or a burst waits for the next renewal to raise its mark
     */
    public Minted nextMinted() {
        Owned lease = current;
        if (lease == null) {
            throw refused(Gate.NODE, "no lease is held: the holder is taking one (its stats say for how long)");
        }
        return new Minted(lease.minter.next(), lease.held.ordinal());
    }

    /**
     * A snowflake minted on the lease held now.
     *
     * @return the snowflake
     * @throws EmqIdException gate {@code node}, as {@link #nextMinted()}
     */
    public long next() {
        return nextMinted().snowflake();
    }

    /**
     * An id of namespace {@code ns} minted on the lease held now. A namespace the contract
     * refuses is refused before a snowflake is spent.
     *
     * @param ns the namespace (three characters)
     * @return the id's 14 characters
     * @throws EmqIdException {@code range} for a namespace that is not three letters, or {@code node} as {@link #nextMinted()}
     */
    public String mint(String ns) {
        Codec.encode(ns, 0);
        return Codec.encode(ns, next());
    }

    /**
     * Stops minting and renewing, and hands the node back with its high water, so the next owner
     * starts after this holder's last id; then closes the wire. The release is sent again after
     * {@code MOVED} or a refusal the server did not run (three tries at most) and followed
     * through one {@code ASK}; when it did not run, the lease is left to its TTL and why is
     * thrown. Safe to call more than once (later calls answer the first's result, or
     * {@code false} when it threw); minting is refused after it.
     *
     * @return {@code true} when a held lease was still this holder's and is handed back;
     *     {@code false} when none was held, or it was already gone or another's
     * @throws LeaseWireException the release's fault; the client's own runtime exceptions as
     *     they are
     */
    public synchronized boolean release() {
        if (released != null) {
            return released;
        }
        released = false;
        stop.countDown();
        Thread thread = renewer;
        if (thread != null && thread != Thread.currentThread()) {
            // A write in flight ends within its bound (the wait and a second); the keeper is
            // this thread's afterwards. A renewer stuck past that in its client is left behind
            // (a daemon): the release goes ahead, and its late write can only fail, as the
            // release takes the lease away from its token.
            boolean interrupted = false;
            long deadline = System.nanoTime() + Duration.ofMillis(2 * withinMs).toNanos();
            while (thread.isAlive() && System.nanoTime() < deadline) {
                try {
                    thread.join(Math.max(1, Duration.ofNanos(deadline - System.nanoTime()).toMillis()));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            boolean wasHeld = held != null;
            Owned lease = held != null ? held : pending;
            held = null;
            pending = null;
            current = null;
            if (lease == null) {
                return false;
            }
            released = giveBack(lease, wasHeld);
            return released;
        } finally {
            wire.close();
        }
    }

    /**
     * {@link #release()}, for try-with-resources.
     *
     * @throws LeaseWireException as {@link #release()}
     */
    @Override
    public void close() {
        release();
    }

    // ---- The runs: the first acquire, the renewer, the release.

    /** The first acquire, tried while the core says so: the ms to the first renewal. */
    private long start() {
        while (true) {
            Turn turn = step();
            if (turn.refusal() != null) {
                throw turn.refusal();
            }
            if (held != null) {
                return turn.afterMs();
            }
            try {
                Thread.sleep(turn.afterMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                // A pending lease is left to its TTL: nothing was minted on it.
                throw new LeaseWireException("acquire: interrupted", e);
            }
        }
    }

    /** The renewer: a write each time the last says the next is due, until released. */
    private void keep(long after) {
        long wait = after;
        while (true) {
            try {
                if (stop.await(wait, TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
            try {
                wait = step().afterMs(); // no refusal once started: the core never gives up then
            } catch (RuntimeException e) {
                wait = terms.retryMs();
            }
        }
    }

    /** One write and what the core settles of it: when the next is due, or the first acquire's refusal. */
    private Turn step() {
        long now = Lease.monotonicMs();
        Owned was = held;
        if (was != null && now >= was.minter.fenceMs()) {
            stats.unleased();
        }
        Next next = keeper.next(now);
        if (next == Next.EXPIRED) {
            lose();
        }
        Write write;
        RuntimeException prepared = null;
        try {
            write = prepare(next);
        } catch (RuntimeException e) {
            // A clock the contract cannot hold, or a renewal without a lease: the holder's own fault.
            write = new Write(Lease.ACQUIRE, List.of(), 0, null);
            prepared = e;
        }
        Settled settled = exchange(write, prepared);
        Came came = settled.came();
        switch (settled.step().action()) {
            case PUBLISH:
                publish(write);
                break;
            case RENEWED:
                write.lease.minter.renewed(write.sent, write.mark);
                stats.leasedAgain(false);
                break;
            case PEND:
                pending = write.taken;
                break;
            case LOSE:
                drop(write.lease);
                break;
            case GIVE_UP:
                return new Turn(0, refusal(write, came));
            default:
                // Wait, retry, reroute, reconnect: nothing moves with the lease (exchange saw to the wire).
                if (write.taken != null && write.taken != pending) {
                    write.taken.minter.stop(); // taken, then faulted: nothing is minted on it
                }
                break;
        }
        return new Turn(settled.step().afterMs(), null);
    }

    /**
     * Sends {@code write} — unless preparing it failed ({@code prepared}: nothing sent) — and
     * settles what it came to with the core, following an {@code ASK} once.
     */
    private Settled exchange(Write write, RuntimeException prepared) {
        Came came = prepared == null ? send(write, Optional.empty()) : Came.fault(prepared, null, "");
        while (true) {
            Step step = keeper.settle(came.outcome, write.sent, Lease.monotonicMs());
            switch (step.action()) {
                case FOLLOW: {
                    // The reserve's slot is migrating and its key has left: the write runs where the key
                    // is now, and its WAIT on that connection counts the replicas of the node that ran it.
                    Optional<Redirect> to = Lease.redirect(came.text);
                    if (to.isEmpty() || came.node == null) {
                        came = Came.fault(new LeaseWireException(write.script.name() + ": " + came.text), null, came.text);
                        continue;
                    }
                    Wire.Node node = new Wire.Node(to.get().host().orElse(came.node.host()), to.get().port());
                    came = send(write, Optional.of(node));
                    continue;
                }
                case REROUTE: {
                    Optional<Redirect> to = Lease.redirect(came.text);
                    // A MOVED that names no host names the host the write went to.
                    String via = came.node == null ? "" : came.node.host();
                    Optional<Wire.Node> node = to.map(r -> new Wire.Node(r.host().orElse(via), r.port()))
                            .filter(n -> !n.host().isEmpty());
                    wire.reroute(to.map(Redirect::slot).orElse(-1), node);
                    break;
                }
                case RECONNECT:
                case GIVE_UP:
                    wire.reconnect();
                    break;
                default:
                    break;
            }
            return new Settled(step, came);
        }
    }

    // ---- The writes.

    /** The write the keeper says is due: a renewal of the held or pending lease, or an acquire. */
    private Write prepare(Next next) {
        if (next == Next.RENEW) {
            Owned lease = held != null ? held : pending;
            if (lease == null) {
                throw new LeaseWireException("the keeper renews a lease the holder does not keep");
            }
            long mark = lease.minter.nextMark(System.currentTimeMillis());
            List<String> args = List.of(lease.token, Long.toString(terms.ttlMs()), Long.toString(mark),
                    Integer.toString(lease.held.node()));
            Write write = new Write(Lease.RENEW, args, replicas, lease);
            write.mark = mark;
            return write;
        }
        // No earlier than one past this holder's last minted ms: its ids keep their order across leases.
        long nowMs = Math.max(System.currentTimeMillis(), notBefore);
        long sent = Lease.monotonicMs();
        // A clock the contract cannot hold is refused before a node is taken (a dry start).
        LeasedMinter.start(Lease.parseAcquire(0, -1), nowMs, sent, terms).close();
        byte[] random = new byte[16];
        TOKENS.nextBytes(random);
        String token = HexFormat.of().formatHex(random);
        int first = ThreadLocalRandom.current().nextInt(Lease.NODES);
        List<String> args = List.of(token, Long.toString(terms.ttlMs()), Integer.toString(first),
                Integer.toString(Lease.NODES), Long.toString(nowMs));
        Write write = new Write(Lease.ACQUIRE, args, replicas, null);
        write.token = token;
        write.nowMs = nowMs;
        return write;
    }

    /** The commands of {@code write}: {@code ASKING} first when it follows an {@code ASK}. */
    private List<List<String>> commands(Write write, boolean asking) {
        List<List<String>> commands = new ArrayList<>(3);
        if (asking) {
            commands.add(List.of("ASKING"));
        }
        List<String> eval = new ArrayList<>(4 + write.args.size());
        eval.add("EVAL");
        eval.add(write.script.text());
        eval.add("1");
        eval.add(Lease.KEY);
        eval.addAll(write.args);
        commands.add(eval);
        if (write.replicas > 0) {
            commands.add(List.of("WAIT", Integer.toString(write.replicas), Long.toString(terms.waitMs())));
        }
        return commands;
    }

    /** Sends {@code write} (to {@code to} after {@code ASKING}) and reads what it came to. */
    private Came send(Write write, Optional<Wire.Node> to) {
        boolean asked = to.isPresent();
        List<List<String>> commands = commands(write, asked);
        Wire.Sent sent;
        try {
            sent = wire.send(to, commands, withinMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Came.fault(new LeaseWireException(write.script.name() + ": interrupted", e), to.orElse(null), "");
        } catch (RuntimeException e) {
            return Came.fault(e, to.orElse(null), "");
        } catch (Exception e) {
            return Came.fault(new LeaseWireException(write.script.name() + ": " + e, e), to.orElse(null), "");
        }
        return read(write, sent, asked, commands.size());
    }

    /**
     * A write's replies, as the core reads them: an error reply by {@link Lease#readLeaseError},
     * else whether the lease is the owner's and whether {@code WAIT} acknowledged it.
     */
    private Came read(Write write, Wire.Sent sent, boolean asked, int count) {
        String name = write.script.name();
        List<Object> replies = sent.replies();
        if (replies.size() != count) {
            return Came.fault(new LeaseWireException(name + ": " + replies.size() + " replies to " + count + " commands"),
                    sent.node(), "");
        }
        int at = 0;
        if (asked) {
            Object asking = replies.get(at++);
            if (asking instanceof Wire.ErrorReply) {
                // Refused before the script (LOADING on the node named): a write that did not run there.
                String text = ((Wire.ErrorReply) asking).text();
                if (Lease.readLeaseError(text, true) == Outcome.NOT_RUN) {
                    return new Came(Outcome.NOT_RUN, text, sent.node());
                }
                return Came.fault(new LeaseWireException("ASKING " + sent.node() + ": " + text), sent.node(), text);
            }
        }
        Object reply = replies.get(at++);
        if (reply instanceof Wire.ErrorReply) {
            String text = ((Wire.ErrorReply) reply).text();
            Outcome outcome = Lease.readLeaseError(text, asked);
            if (outcome != Outcome.FAULT) {
                return new Came(outcome, text, sent.node());
            }
            return Came.fault(new LeaseWireException(name + ": " + text), sent.node(), text);
        }
        boolean owned;
        EmqIdException unacknowledged;
        try {
            if (write.lease == null) {
                write.taken = taken(write, reply);
                owned = true;
            } else {
                owned = renewal(name, reply);
                write.gone = !owned;
            }
            unacknowledged = write.replicas > 0 ? acknowledged(write, replies.get(at)) : null;
        } catch (RuntimeException e) {
            return Came.fault(e, sent.node(), "");
        }
        Came came = new Came(LeaseKeeper.ofWrite(owned, unacknowledged == null), "", sent.node());
        came.unacknowledged = unacknowledged;
        return came;
    }

    /** The lease an acquire's reply {@code {node, mark}} took, its minter started. */
    private Owned taken(Write write, Object reply) {
        List<?> pair = reply instanceof List ? (List<?>) reply : List.of();
        if (pair.size() != 2 || !(pair.get(0) instanceof Long) || !(pair.get(1) instanceof Long)) {
            throw new LeaseWireException("acquire answers {node, mark}, not " + reply);
        }
        Acquired acquired;
        try {
            acquired = Lease.parseAcquire((Long) pair.get(0), (Long) pair.get(1));
        } catch (EmqIdException e) {
            throw new LeaseWireException("acquire's reply: " + e.getMessage(), e);
        }
        // A mark near the end of the contract's time is refused here: the node is left to its TTL.
        LeasedMinter minter = LeasedMinter.start(acquired, write.nowMs, write.sent, terms);
        ordinals++;
        return new Owned(minter, write.token, new Held(acquired.node(), acquired.previousMark(), ordinals));
    }

    /** A renewal's or release's reply: {@code true} the lease is the owner's, {@code false} gone. */
    private static boolean renewal(String name, Object reply) {
        if (!(reply instanceof Long)) {
            throw new LeaseWireException(name + " answers 1 or 0, not " + reply);
        }
        try {
            Lease.parseRenewal((Long) reply);
            return true;
        } catch (EmqIdException e) {
            if (e.gate() != Gate.NODE) {
                throw new LeaseWireException(name + ": " + e.getMessage(), e);
            }
            return false;
        }
    }

    /** {@code WAIT}'s reading: {@code null} acknowledged, else {@link Lease#parseWait}'s refusal. */
    private static EmqIdException acknowledged(Write write, Object reply) {
        if (!(reply instanceof Long)) {
            throw new LeaseWireException("WAIT answers a count, not " + reply);
        }
        try {
            Lease.parseWait((Long) reply, write.replicas);
            return null;
        } catch (EmqIdException e) {
            if (e.gate() != Gate.NODE) {
                throw new LeaseWireException("WAIT: " + e.getMessage(), e);
            }
            return e;
        }
    }

    // ---- What the core's actions do to the leases.

    /** Makes the lease the write took, or the pending lease it renewed, the one minted on. */
    private void publish(Write write) {
        Owned lease = write.taken;
        if (write.lease != null) {
            lease = write.lease;
            lease.minter.renewed(write.sent, write.mark);
            pending = null;
        }
        held = lease;
        current = lease;
        stats.leasedAgain(true);
    }

    /** The held lease is gone or expired: minting on it stops, and it counts as lost. */
    private void lose() {
        Owned lease = held;
        if (lease == null) {
            return;
        }
        held = null;
        current = null;
        // Stopped, never closed: a minting thread may still hold it (it now refuses with node).
        lease.minter.stop();
        notBefore = Math.max(notBefore, lease.minter.highWater() + 1);
        stats.lost();
    }

    /** Stops minting on {@code lease}, gone: lost when it was held, dropped when pending. */
    private void drop(Owned lease) {
        if (lease == null) {
            return;
        }
        if (lease == held) {
            lose();
        } else if (lease == pending) {
            pending = null;
            lease.minter.stop();
        }
    }

    /**
     * Why the first acquire gave up: {@code WAIT}'s refusal (the taken lease released first),
     * the core's (naming the server's reply when the reserve did not run the acquire), or the
     * fault.
     */
    private RuntimeException refusal(Write write, Came came) {
        if (came.outcome == Outcome.UNACKNOWLEDGED && write.taken != null) {
            try {
                giveBack(write.taken, false);
            } catch (RuntimeException ignored) {
                // Left to its TTL: nothing was minted on it, and the refusal is the answer.
            }
            return came.unacknowledged;
        }
        Optional<EmqIdException> core = LeaseKeeper.refusal(came.outcome);
        if (core.isPresent()) {
            if (came.outcome == Outcome.LEASED) {
                return core.get();
            }
            return refused(core.get().gate(), core.get().detail() + ": " + came.text);
        }
        return came.failure("acquire");
    }

    /**
     * Stops {@code lease}'s minter and hands its node back with its high water, through the
     * core's release: {@code true} when {@code wasHeld} and it was still the owner's.
     */
    private boolean giveBack(Owned lease, boolean wasHeld) {
        lease.minter.stop();
        long highWater = lease.minter.highWater();
        keeper.release();
        while (true) {
            List<String> args = List.of(lease.token, Long.toString(highWater), Integer.toString(lease.held.node()));
            // Without WAIT: a release lost in a failover leaves the mark higher, which is safe.
            Write write = new Write(Lease.RELEASE, args, 0, lease);
            Settled settled = exchange(write, null);
            switch (settled.step().action()) {
                case RELEASED:
                    return wasHeld && settled.came().outcome == Outcome.COUNTED;
                case GIVE_UP:
                    throw settled.came().failure("release");
                default:
                    break;
            }
            // Sent again (where the reserve went, or once the server runs it) after the keeper's
            // wait: the release's own, not ended by the renewer's stop.
            try {
                Thread.sleep(settled.step().afterMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LeaseWireException("release: interrupted", e);
            }
        }
    }

    /** The core's gate with this holder's detail. */
    private static EmqIdException refused(Gate gate, String detail) {
        return new EmqIdException(gate, detail);
    }

    // ---- The holder's state.

    /** One lease: its minter, its owner token, and what it holds. */
    private static final class Owned {
        final LeasedMinter minter;
        final String token;
        final Held held;

        Owned(LeasedMinter minter, String token, Held held) {
            this.minter = minter;
            this.token = token;
            this.held = held;
        }
    }

    /** One lease write: the script and its arguments, when it was sent, and what it is for. */
    private static final class Write {
        final LeaseScript script;
        final List<String> args;
        /** {@code WAIT}'s count: 0 for none. */
        final int replicas;
        /** The lease a renewal or release is of; {@code null} for an acquire. */
        final Owned lease;
        final long sent = Lease.monotonicMs();
        long mark;
        long nowMs;
        String token;
        /** An acquire's lease, once its reply named a node. */
        Owned taken;
        /** A renewal or release that answered 0. */
        boolean gone;

        Write(LeaseScript script, List<String> args, int replicas, Owned lease) {
            this.script = script;
            this.args = args;
            this.replicas = replicas;
            this.lease = lease;
        }
    }

    /** What a write came to: the core's outcome, and what the holder needs of it. */
    private static final class Came {
        final Outcome outcome;
        /** The error reply's text, for an error reply. */
        final String text;
        /** The node the write went to (a redirect without a host names its host). */
        final Wire.Node node;
        /** {@link Lease#parseWait}'s refusal of an unacknowledged write. */
        EmqIdException unacknowledged;
        /** The holder's own fault. */
        RuntimeException fault;

        Came(Outcome outcome, String text, Wire.Node node) {
            this.outcome = outcome;
            this.text = text;
            this.node = node;
        }

        static Came fault(RuntimeException fault, Wire.Node node, String text) {
            Came came = new Came(Outcome.FAULT, text, node);
            came.fault = fault;
            return came;
        }

        /** The error of a write the core gave up on with no refusal of its own. */
        RuntimeException failure(String what) {
            if (fault != null) {
                return fault;
            }
            if (!text.isEmpty()) {
                return new LeaseWireException(what + ": " + text);
            }
            return new LeaseWireException(what + ": the write came to " + outcome.code());
        }
    }

    /**
     * The core's step and what the write came to.
     *
     * @param step the core's decision
     * @param came what the write came to
     */
    private record Settled(Step step, Came came) {}

    /**
     * When the next write is due, or why the first acquire gave up.
     *
     * @param afterMs ms until the next write
     * @param refusal the first acquire's refusal, or {@code null}
     */
    private record Turn(long afterMs, RuntimeException refusal) {}

    /** Leases taken and lost, and the time without one, read by any thread. */
    private static final class Stats {
        private int taken;
        private int lost;
        /** Monotonic ms since when the holder cannot mint; -1: it can. */
        private long unleasedSince = -1;
        private long longest;

        synchronized void unleased() {
            if (unleasedSince < 0) {
                unleasedSince = Lease.monotonicMs();
            }
        }

        synchronized void lost() {
            lost++;
            unleased();
        }

        synchronized void leasedAgain(boolean taken) {
            if (taken) {
                this.taken++;
            }
            if (unleasedSince >= 0) {
                longest = Math.max(longest, Lease.monotonicMs() - unleasedSince);
                unleasedSince = -1;
            }
        }

        synchronized HolderStats snapshot() {
            if (unleasedSince < 0) {
                return new HolderStats(taken, lost, OptionalLong.empty(), longest);
            }
            long now = Lease.monotonicMs() - unleasedSince;
            return new HolderStats(taken, lost, OptionalLong.of(now), Math.max(longest, now));
        }
    }
}
