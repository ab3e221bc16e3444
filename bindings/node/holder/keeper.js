'use strict';
// The holder's leases around the core's LeaseKeeper, without I/O: `plan` says
// the next write (the keeper decides which), `read` makes a write's replies an
// outcome (the core reads error replies), `settle` does what the keeper says
// to the leases. A lease is held (renewed, minted on), pending (an acquire not
// acknowledged by the replicas: renewed until a renewal is, never minted on),
// or neither (the next write takes a node). Every rule, schedule and reading
// is the core's (emq-lease/3, SPEC.md §5.2): this file only keeps the leases.

const { randomBytes, randomInt } = require('node:crypto');
const emq = require('../index.js');

/**
 * A fault of a lease write: Valkey answered with something the protocol does
 * not give (an error reply other than its own, a reply of the wrong shape, a
 * failed ASKING or WAIT; an ASKING refused as LOADING… is a write that did
 * not run), or not in time. The holder reconnects and writes
 * again; only `acquire` throws it (as it throws the client's own connection
 * errors). A reply that says the write did not run (TRYAGAIN, CLUSTERDOWN…)
 * or went elsewhere (MOVED, ASK) is never one: the holder follows or retries it.
 */
class LeaseWireError extends Error {
  constructor(message, { redirect = false } = {}) {
    super(message);
    this.name = 'LeaseWireError';
    /** Whether the reply was a redirect (an ASK to a write that followed one already). */
    this.redirect = redirect;
  }
}

/** One lease write: the script by EVAL, and WAIT when `replicas` > 0; renewals carry their lease and mark. */
class Write {
  constructor(script, args, replicas, waitMs, lease = null, mark = 0) {
    Object.assign(this, { script, args, replicas, waitMs, lease, mark });
    /** When it was last sent (monotonic ms): a followed write is sent again. */
    this.sent = 0;
  }

  /** The commands, as strings (what every client takes); ASKING in front when it follows an ASK. */
  commands(asking) {
    const script = ['EVAL', emq.LEASE_SCRIPTS[this.script], '1', emq.LEASE_KEY, ...this.args.map(String)];
    const commands = this.replicas > 0 ? [script, ['WAIT', String(this.replicas), String(this.waitMs)]] : [script];
    return asking ? [['ASKING'], ...commands] : commands;
  }
}

function int(reply, what) {
  if (typeof reply === 'number' && Number.isSafeInteger(reply)) return reply;
  if (typeof reply === 'bigint') return Number(reply);
  throw new LeaseWireError(`${what}: ${String(reply)}`);
}

/** A write that came to a fault: `error` says why (the client's error, a LeaseWireError, a start refusal). */
const fault = (error) => ({ outcome: 'fault', fault: error });

/** Leases taken and lost, and the time without one. */
class Stats {
  constructor() {
    this.taken = 0;
    this.lost = 0;
    this.unleasedSince = null;
    this.longest = 0;
  }
  unleased() {
    this.unleasedSince ??= emq.monotonicMs();
  }
  leasedAgain() {
    if (this.unleasedSince !== null) {
      this.longest = Math.max(this.longest, emq.monotonicMs() - this.unleasedSince);
      this.unleasedSince = null;
    }
  }
  snapshot() {
    const now = this.unleasedSince === null ? null : emq.monotonicMs() - this.unleasedSince;
    return Object.freeze({ taken: this.taken, lost: this.lost, unleasedMs: now, longestUnleasedMs: Math.max(this.longest, now ?? 0) });
  }
}

class Keeper {
  constructor(replicas, terms, waitMs) {
    this.replicas = replicas;
    this.terms = terms;
    this.waitMs = waitMs;
    /** The core's decisions: which write is due, what each came to. */
    this.decider = new emq.LeaseKeeper(terms, emq.monotonicMs());
    /** How soon a write is tried again outside the keeper's steps (a fault of the holder's own). */
    this.retry = emq.leaseRetryMs(terms.ttlMs, terms.marginMs);
    /** The lease minted on, `{ minter, token, held }`, or null; and one taken but not yet acknowledged. */
    this.current = null;
    this.pending = null;
    this.notBefore = 0;
    this.ordinals = 0;
    this.stats = new Stats();
    /** Leases lost since the holder last asked (takeLost), for its `lost` events. */
    this.lostLeases = [];
  }

  /** Whether the first acquire is still under way (the caller waits for it). */
  get starting() {
    return this.decider.phase === 'starting';
  }

  /** Whether the lease is being handed back (release() began; its errors are the caller's). */
  get releasing() {
    return this.decider.phase === 'releasing';
  }

  /**
   * The write due now. An acquire's clock is checked first (a dry start of a
   * minter): one the contract cannot hold throws before a node is taken.
   */
  plan() {
    const now = emq.monotonicMs();
    if (this.current !== null && now >= this.current.minter.fenceMs) this.stats.unleased();
    const next = this.decider.next(now);
    if (next === 'expired') this.lose();
    if (next === 'renew') {
      const lease = this.current ?? this.pending;
      const mark = lease.minter.nextMark(Date.now());
      const args = [lease.token, this.terms.ttlMs, mark, lease.held.node];
      return new Write('renew', args, this.replicas, this.waitMs, lease, mark);
    }
    // No earlier than one past this holder's last minted ms: its ids keep their order across leases.
    const start = Math.max(Date.now(), this.notBefore);
    new emq.LeasedMinter(emq.parseAcquire(0, -1), start, now, this.terms);
    const token = randomBytes(16).toString('hex');
    return new Write('acquire', [token, this.terms.ttlMs, randomInt(emq.LEASE_NODES), emq.LEASE_NODES, start], this.replicas, this.waitMs);
  }

  /**
   * Begins handing back what is held or pending: minting stops, the core's
   * keeper is releasing (it settles the release: follows, resends or ends
   * it). Answers the release write (with the high water; no WAIT) and
   * whether the lease was held; `write` is null when none is.
   */
  release() {
    const lease = this.current ?? this.pending;
    const wasHeld = this.current !== null;
    this.current = this.pending = null;
    if (lease === null) return { write: null, wasHeld };
    lease.minter.stop();
    this.decider.release();
    return { write: new Write('release', [lease.token, lease.minter.highWater, lease.held.node], 0, this.waitMs, lease), wasHeld };
  }

  /**
   * What a write's replies (each a value or the Error of an error reply) came
   * to: `{ outcome, message }` for an error reply (`message` its text), else
   * `{ outcome, taken, unacknowledged }` (an acquire's new lease; WAIT's
   * refusal, or null), or a fault. `asked`: the replies follow an ASKING.
   */
  read(write, replies, asked) {
    let rest = replies;
    if (asked) {
      if (rest[0] instanceof Error) {
        // An ASKING the node refused before the script (LOADING…) is a write that did not run there; any other refusal is a fault.
        const { message } = rest[0];
        if (emq.readLeaseError(message, true) === 'not_run') return { outcome: 'not_run', message, fault: null };
        return fault(new LeaseWireError(`ASKING: ${message}`));
      }
      rest = rest.slice(1);
    }
    const [reply, wait] = rest;
    if (rest.length === 0) return fault(new LeaseWireError(`${write.script}: no reply`));
    if (reply instanceof Error) {
      const { message } = reply;
      const outcome = emq.readLeaseError(message, asked);
      const error = outcome === 'fault' ? new LeaseWireError(`${write.script}: ${message}`, { redirect: emq.redirect(message) !== null }) : null;
      return { outcome, message, fault: error };
    }
    let unacknowledged = null;
    try {
      if (write.replicas > 0) {
        if (rest.length < 2 || wait instanceof Error) throw new LeaseWireError(`WAIT: ${String(wait?.message ?? wait)}`);
        unacknowledged = this.#wait(int(wait, 'WAIT'), write.replicas);
      }
      if (write.script !== 'acquire') {
        const held = this.#renewal(int(reply, write.script));
        return { outcome: emq.leaseOutcome(held, unacknowledged === null), unacknowledged };
      }
      const taken = this.#taken(write, reply);
      return { outcome: emq.leaseOutcome(true, unacknowledged === null), taken, unacknowledged };
    } catch (error) {
      return fault(error);
    }
  }

  /** WAIT's refusal (`node`, with its counts) when fewer replicas acknowledged the write, else null. */
  #wait(acknowledged, replicas) {
    try {
      emq.parseWait(acknowledged, replicas);
      return null;
    } catch (e) {
      if (e instanceof emq.EmqIdError && e.code === 'node') return e;
      throw new LeaseWireError(`WAIT: ${e.message}`);
    }
  }

  /** A renewal's or release's answer: true the lease's, false gone. */
  #renewal(reply) {
    try {
      emq.parseRenewal(reply);
      return true;
    } catch (e) {
      if (e instanceof emq.EmqIdError && e.code === 'node') return false;
      throw new LeaseWireError(`renewal: ${e.message}`);
    }
  }

  /** The lease an acquire answered: its minter started (a start refusal is thrown: the holder's own fault). */
  #taken(write, pair) {
    if (!Array.isArray(pair) || pair.length !== 2) throw new LeaseWireError(`acquire answers [node, mark]: ${String(pair)}`);
    let acquired;
    try {
      acquired = emq.parseAcquire(int(pair[0], 'node'), int(pair[1], 'mark'));
    } catch (e) {
      throw e instanceof LeaseWireError ? e : new LeaseWireError(`acquire's reply: ${e.message}`);
    }
    // A mark the contract cannot start after (near the end of its time) is refused here: the node is left to its TTL.
    const minter = new emq.LeasedMinter(acquired, write.args[4], write.sent, this.terms);
    this.ordinals += 1;
    const held = Object.freeze({ node: acquired.node, previousMark: acquired.previousMark, ordinal: this.ordinals });
    return { minter, token: write.args[0], held };
  }

  /**
   * Settles a write that came to `reading` (the core decides), and does to the
   * leases what the action says. Answers the step and the event for the
   * holder's listeners (`renewed`, `acquired`), if any.
   */
  settle(write, reading, now) {
    const step = this.decider.settle(reading.outcome, write.sent, now);
    switch (step.action) {
      case 'publish': {
        const lease = write.lease ?? reading.taken;
        if (write.lease !== null) lease.minter.renewed(write.sent, write.mark); // a pending lease, acknowledged now
        this.pending = null;
        this.current = lease;
        this.stats.taken += 1;
        this.stats.leasedAgain();
        return { step, event: 'acquired' };
      }
      case 'renewed':
        write.lease.minter.renewed(write.sent, write.mark);
        this.stats.leasedAgain();
        return { step, event: 'renewed' };
      case 'pend':
      case 'give_up':
        // Taken, not acknowledged: renewed until a renewal is (or, the first acquire giving up, released).
        if (reading.taken) this.pending = reading.taken;
        return { step, event: null };
      case 'lose':
        if (write.lease === this.current) this.lose();
        else this.drop();
        return { step, event: null };
      default:
        return { step, event: null };
    }
  }

  /** The lease held is gone: minting stops, and the next lease starts after its last id. */
  lose() {
    const lease = this.current;
    if (lease === null) return;
    this.current = null;
    lease.minter.stop();
    this.notBefore = Math.max(this.notBefore, lease.minter.highWater + 1);
    this.stats.lost += 1;
    this.stats.unleased();
    this.lostLeases.push(lease);
  }

  /** The pending lease is gone before it counted (a failover took it): nothing was minted on it. */
  drop() {
    this.pending?.minter.stop();
    this.pending = null;
  }

  /** The leases lost since the last call (a renewal answered "gone", or a whole TTL unanswered). */
  takeLost() {
    const lost = this.lostLeases;
    this.lostLeases = [];
    return lost;
  }

  /** A snowflake and the ordinal of the lease that minted it; `node` while none is held. */
  next() {
    const lease = this.current;
    if (lease === null) throw new emq.EmqIdError('node', 'no lease is held: the holder is taking one (its stats say for how long)');
    return { snowflake: lease.minter.next(), lease: lease.held.ordinal };
  }
}

module.exports = { Keeper, LeaseWireError, fault };
