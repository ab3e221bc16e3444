'use strict';
// The holder's state machine without I/O, state for state the Rust holder's
// (crates/emq-lease/src/keeper.rs): `plan` says the next write, `settle` reads
// its replies. A lease is held (renewed, minted on), pending (an acquire not
// acknowledged by the replicas: renewed until a renewal is, never minted on),
// or neither (the next write takes a node). Every rule is the core's
// (emq-lease/3, SPEC.md §5.2): this file only keeps the states.

const { randomBytes, randomInt } = require('node:crypto');
const emq = require('../index.js');

/** One lease write: the script by EVAL, and WAIT when `replicas` > 0. */
class Write {
  constructor(script, keys, args, replicas, waitMs) {
    this.script = script;
    this.keys = keys;
    this.args = args;
    this.replicas = replicas;
    this.waitMs = waitMs;
    this.sent = emq.monotonicMs();
  }

  /** The commands, as strings (what every client takes). */
  commands() {
    const evalCommand = ['EVAL', emq.LEASE_SCRIPTS[this.script], String(this.keys.length), ...this.keys, ...this.args.map(String)];
    return this.replicas > 0 ? [evalCommand, ['WAIT', String(this.replicas), String(this.waitMs)]] : [evalCommand];
  }
}

/**
 * Valkey answered a lease write with something the holder cannot use now
 * (MOVED, READONLY, CLUSTERDOWN, a reply the protocol does not give). The
 * holder refreshes the client's topology and tries again; only `acquire`
 * throws it (as it throws the client's own connection errors).
 */
class LeaseWireError extends Error {
  constructor(message, { redirect = false } = {}) {
    super(message);
    this.name = 'LeaseWireError';
    /** Whether the reply redirected the write (`MOVED`, or `ASK` while the reserve's slot migrates): try again through the client's slot map. */
    this.redirect = redirect;
  }
}

function int(reply, what) {
  if (typeof reply === 'number' && Number.isSafeInteger(reply)) return reply;
  if (typeof reply === 'bigint') return Number(reply);
  throw new LeaseWireError(`lease script: ${what}: ${String(reply)}`);
}

/**
 * The replies of one write (each a value or the Error of an error reply),
 * read as script.rs reads them: `{ refused }` when the script did not run or
 * every node is leased, else `{ reply, unacknowledged }` (null: acknowledged).
 */
function read(write, replies) {
  if (replies.length === 0) throw new LeaseWireError('no reply');
  const [reply, wait] = replies;
  if (reply instanceof Error) {
    const message = reply.message;
    if (message.startsWith('NOREPLICAS')) {
      // min-replicas-to-write refused the script before it ran: no write happened.
      try {
        emq.parseWait(0, Math.max(write.replicas, 1));
      } catch (notRun) {
        return { refused: notRun };
      }
    }
    const everyLeased = emq.parseAcquireError(message);
    if (everyLeased === null) {
      throw new LeaseWireError(`${write.script}: ${message}`, { redirect: /^(MOVED|ASK) /.test(message) });
    }
    return { refused: everyLeased };
  }
  let unacknowledged = null;
  if (write.replicas > 0) {
    if (replies.length < 2 || wait instanceof Error) throw new LeaseWireError(`WAIT: ${String(wait?.message ?? wait)}`);
    try {
      emq.parseWait(int(wait, 'WAIT'), write.replicas);
    } catch (e) {
      if (!(e instanceof emq.EmqIdError) || e.code !== 'node') throw new LeaseWireError(e.message);
      unacknowledged = e;
    }
  }
  return { refused: null, reply, unacknowledged };
}

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
    /** What minting reads: `{ minter, token, held }`, or null. */
    this.current = null;
    this.held = null;
    this.pending = null;
    this.answeredAt = 0;
    this.notBefore = 0;
    this.ordinals = 0;
    this.stats = new Stats();
    /** Leases lost since the holder last asked (takeLost), for its `lost` events. */
    this.lostLeases = [];
    /** Renewals every third of the TTL; after a fault, sooner. */
    this.every = Math.max(Math.floor(terms.ttlMs / 3), 1);
    this.retry = Math.min(Math.max(Math.floor(terms.ttlMs / 20), 10), 250);
    this.now = 0;
  }

  acquireWrite(now) {
    this.now = now;
    const token = randomBytes(16).toString('hex');
    const args = [token, this.terms.ttlMs, randomInt(emq.LEASE_NODES), emq.LEASE_NODES, now];
    return new Write('acquire', [emq.LEASE_KEY], args, this.replicas, this.waitMs);
  }

  /** The renew (or release) of `lease`'s node, carrying `mark`: the node is the last ARGV. */
  renewWrite(lease, mark, { release = false } = {}) {
    const { token, held } = lease;
    if (release) return new Write('release', [emq.LEASE_KEY], [token, mark, held.node], 0, this.waitMs);
    return new Write('renew', [emq.LEASE_KEY], [token, this.terms.ttlMs, mark, held.node], this.replicas, this.waitMs);
  }

  /** The next write: `{ kind: 'renew' | 'pending' | 'acquire', write, lease, mark }`. */
  plan() {
    this.expireFenced();
    const lease = this.held ?? this.pending;
    if (lease !== null) {
      const mark = lease.minter.nextMark(Date.now());
      return { kind: this.held ? 'renew' : 'pending', write: this.renewWrite(lease, mark), lease, mark };
    }
    // No earlier than one past this holder's last minted ms: its ids keep their order across leases.
    const now = Math.max(Date.now(), this.notBefore);
    // A clock the contract cannot hold is refused before a node is taken (a dry start).
    new emq.LeasedMinter(emq.parseAcquire(0, -1), now, emq.monotonicMs(), this.terms);
    return { kind: 'acquire', write: this.acquireWrite(now), lease: null, mark: 0 };
  }

  expireFenced() {
    const lease = this.held;
    if (lease === null) return;
    const now = emq.monotonicMs();
    if (now >= lease.minter.fenceMs) this.stats.unleased();
    if (now >= this.answeredAt + this.terms.ttlMs) this.lose();
  }

  /** The lease held is gone: minting stops, and the next lease starts after its last id. */
  lose() {
    const lease = this.held;
    if (lease === null) return null;
    this.held = null;
    this.current = null;
    lease.minter.stop();
    this.notBefore = Math.max(this.notBefore, lease.minter.highWater + 1);
    this.stats.lost += 1;
    this.stats.unleased();
    this.lostLeases.push(lease);
    return lease;
  }

  /** The leases lost since the last call (by a renewal answered "gone", or a whole TTL unanswered). */
  takeLost() {
    const lost = this.lostLeases;
    this.lostLeases = [];
    return lost;
  }

  publish(lease, answeredAt) {
    this.held = lease;
    this.answeredAt = answeredAt;
    this.current = lease;
    this.stats.taken += 1;
    this.stats.leasedAgain();
  }

  /** An acquire's answer: null when held, else the refusal (every node leased; or pending). */
  settleAcquire(write, answer) {
    if (answer.refused) return answer.refused;
    const pair = answer.reply;
    if (!Array.isArray(pair) || pair.length !== 2) throw new LeaseWireError(`acquire answers [node, mark]: ${String(pair)}`);
    let acquired;
    try {
      acquired = emq.parseAcquire(int(pair[0], 'node'), int(pair[1], 'mark'));
    } catch (e) {
      throw e instanceof LeaseWireError ? e : new LeaseWireError(`acquire's reply: ${e.message}`);
    }
    let minter;
    try {
      minter = new emq.LeasedMinter(acquired, this.now, write.sent, this.terms);
    } catch (refusal) {
      return refusal; // a mark near the end of the contract's time: the node is left to its TTL
    }
    this.ordinals += 1;
    const held = Object.freeze({ node: acquired.node, previousMark: acquired.previousMark, ordinal: this.ordinals });
    const lease = { minter, token: write.args[0], held };
    if (answer.unacknowledged === null) {
      this.publish(lease, write.sent);
      return null;
    }
    this.pending = lease;
    return answer.unacknowledged;
  }

  /** A renewal's outcome: null it did not run, true the lease's, false gone. */
  renewal(write, answer) {
    if (answer.refused) return null;
    try {
      emq.parseRenewal(int(answer.reply, write.script));
    } catch (e) {
      if (!(e instanceof emq.EmqIdError) || e.code !== 'node') {
        throw e instanceof LeaseWireError ? e : new LeaseWireError(`${write.script}: ${e.message}`);
      }
      return false;
    }
    return true;
  }

  /**
   * Reads a renewal's replies: `{ ok, again, event }` — `ok` a lease is held and
   * acknowledged (the next tick a third of the TTL on), `again` acquire at
   * once, `event` what the holder tells its listeners.
   */
  settle(kind, write, lease, mark, answer) {
    const outcome = this.renewal(write, answer);
    if (outcome === null) return { ok: false, again: false }; // NOREPLICAS: nothing changed; soon again
    if (kind === 'renew') {
      if (outcome) {
        this.answeredAt = write.sent; // still this holder's on the primary
        if (answer.unacknowledged === null) {
          lease.minter.renewed(write.sent, mark);
          this.stats.leasedAgain();
          return { ok: true, again: false, event: 'renewed' };
        }
        return { ok: false, again: false };
      }
      this.lose();
      return { ok: false, again: true }; // another node at once
    }
    this.pending = null;
    if (outcome) {
      if (answer.unacknowledged === null) {
        lease.minter.renewed(write.sent, mark);
        this.publish(lease, write.sent);
        return { ok: true, again: false, event: 'acquired' };
      }
      this.pending = lease;
      return { ok: false, again: false };
    }
    return { ok: false, again: true }; // lost before it counted (a failover took it): take another
  }

  /** Stops minting; the release write of what is held or pending, and whether it was held. */
  releasing() {
    const { held, pending } = this;
    this.held = this.pending = this.current = null;
    const lease = held ?? pending;
    if (lease === null) return { write: null, wasHeld: false };
    lease.minter.stop();
    return { write: this.renewWrite(lease, lease.minter.highWater, { release: true }), wasHeld: held !== null };
  }

  /** A snowflake and the ordinal of the lease that minted it; `node` while none is held. */
  next() {
    const lease = this.current;
    if (lease === null) throw new emq.EmqIdError('node', 'no lease is held: the holder is taking one (its stats say for how long)');
    return { snowflake: lease.minter.next(), lease: lease.held.ordinal };
  }
}

module.exports = { Keeper, LeaseWireError, read };
