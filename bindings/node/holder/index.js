'use strict';
// A node lease on Valkey held in one call (emq-lease/3, SPEC.md §5.2), over
// the ioredis or node-redis client a program already has:
//
//   const { Lease } = require('@echomq/emq-id/holder');
//   const lease = await Lease.acquire(client, { replicas: 1 });
//   lease.mint('JOB');
//   await lease.release();
//
// `Lease.acquire` resolves once a node's acquire is acknowledged by `replicas`
// replicas (WAIT); an unref'd timer renews it every third of the TTL, follows
// a failover through the client's topology, and when the lease is lost or
// fenced takes another node, its ids after every id minted before. The
// scripts, keys, acknowledgement rule and arithmetic are the core's: this
// module only moves them over the client's connection and keeps the states
// (keeper.js). Neither client is a dependency: the client is the caller's.

const { EventEmitter } = require('node:events');
const emq = require('../index.js');
const { adapt } = require('./clients.js');
const { Keeper, LeaseWireError, read } = require('./keeper.js');

/** What a write may take beyond WAIT's own timeout before it counts as unanswered. */
const SLACK_MS = 1_000;

function checkOptions({ replicas = emq.LEASE_REPLICAS, terms = {}, timeoutMs } = {}) {
  // The core's own count check (a count of replicas acknowledging itself fails only on its range).
  emq.parseWait(replicas, replicas);
  const checked = emq.leaseTerms(terms.ttlMs, terms.marginMs);
  const waitMs = emq.leaseWaitMs(checked.ttlMs, checked.marginMs);
  const timeout = timeoutMs ?? waitMs + SLACK_MS;
  if (!Number.isInteger(timeout) || timeout <= waitMs) {
    throw new emq.EmqIdError('range', `timeoutMs (${timeoutMs}) must be whole ms above the terms' WAIT timeout (${waitMs} ms)`);
  }
  return { replicas, terms: checked, waitMs, timeoutMs: timeout };
}

/** Resolves as `promise` does, or rejects once `ms` pass (the reply, if it comes, is dropped). */
function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new LeaseWireError(`${what}: no reply in ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * A node lease held for an ioredis or node-redis client. Events (the first
 * lease is `acquire`'s answer): `renewed`, `lost` (a renewal found the lease
 * gone, or none was answered for a whole TTL: minting stopped, the holder
 * takes another node), `reacquired` (minting on a new node), each with the
 * lease `{ node, previousMark, ordinal }`; `fault` with the error of a write
 * that failed (the holder tries again on its own).
 */
class Lease extends EventEmitter {
  #wire;
  #keeper;
  #timer = null;
  #ticking = null;
  #stopping = false;
  #released = null;
  #timeoutMs;

  constructor(wire, keeper, timeoutMs) {
    super();
    this.#wire = wire;
    this.#keeper = keeper;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Takes a free node and resolves once `replicas` replicas acknowledged it.
   * Rejects with EmqIdError `node` when every node is leased or the acquire was
   * not acknowledged in the terms' WAIT timeout (that lease is released), and
   * with the client's errors when Valkey cannot be reached.
   */
  static async acquire(client, options) {
    const wire = adapt(client);
    const { replicas, terms, waitMs, timeoutMs } = checkOptions(options);
    const lease = new Lease(wire, new Keeper(replicas, terms, waitMs), timeoutMs);
    const { write } = lease.#keeper.plan();
    let refusal;
    try {
      refusal = lease.#keeper.settleAcquire(write, await lease.#send(write));
    } catch (fault) {
      await lease.#refresh(); // the caller's next try finds the reserve's primary
      throw fault;
    }
    if (refusal !== null) {
      await lease.#releaseNow().catch(() => {}); // an unacknowledged lease handed back, or left to its TTL
      throw refusal;
    }
    lease.#schedule(lease.#keeper.every);
    return lease;
  }

  async #send(write) {
    const commands = write.commands();
    return read(write, await within(this.#wire.send(commands), this.#timeoutMs, write.script));
  }

  /** After a fault: the client relearns the slot map, for as long as a write may take. */
  async #refresh() {
    await within(this.#wire.refresh(), this.#timeoutMs, 'refreshing the slot map').catch(() => {});
  }

  #schedule(ms) {
    if (this.#stopping) return;
    this.#timer = setTimeout(() => {
      this.#ticking = this.#tick().then((next) => {
        this.#ticking = null;
        this.#schedule(next);
      });
    }, ms);
    this.#timer.unref(); // a holder never keeps a process alive
  }

  /** `lost` for each lease the keeper gave up since it was last asked. */
  #announceLost() {
    for (const lease of this.#keeper.takeLost()) this.emit('lost', lease.held);
  }

  #announce(event) {
    const held = this.#keeper.current?.held;
    // A lease acquired in the background is always a later one: the first is acquire()'s answer.
    if (event && held) this.emit(event === 'acquired' ? 'reacquired' : event, held);
  }

  /** One renewal (or acquire) and its consequences; resolves with the ms to the next. */
  async #tick() {
    const keeper = this.#keeper;
    try {
      const { kind, write, lease, mark } = keeper.plan();
      this.#announceLost();
      if (kind === 'acquire') return this.#acquired(write, await this.#send(write));
      const { ok, again, event } = keeper.settle(kind, write, lease, mark, await this.#send(write));
      this.#announceLost();
      this.#announce(event);
      if (!again) return ok ? keeper.every : keeper.retry;
      const { write: acquire } = keeper.plan();
      return this.#acquired(acquire, await this.#send(acquire));
    } catch (fault) {
      this.#announceLost();
      if (this.listenerCount('fault') > 0) this.emit('fault', fault);
      await this.#refresh();
      return keeper.retry;
    }
  }

  #acquired(write, answer) {
    const refusal = this.#keeper.settleAcquire(write, answer);
    if (refusal !== null) return this.#keeper.retry;
    this.#announce('acquired');
    return this.#keeper.every;
  }

  async #releaseNow() {
    if (this.#released !== null) return this.#released;
    const { write, wasHeld } = this.#keeper.releasing();
    this.#released = false;
    if (write !== null) {
      const answer = await this.#send(write); // sent for a pending lease too: it may be on the primary
      this.#released = wasHeld && this.#keeper.renewal(write, answer) === true;
    }
    return this.#released;
  }

  /**
   * Stops minting and renewing, and hands the node back with its high water.
   * Resolves `false` when none was held, or it was already gone or another's.
   */
  async release() {
    this.#stopping = true;
    clearTimeout(this.#timer);
    const ticking = this.#ticking;
    if (ticking !== null) await ticking;
    return this.#releaseNow();
  }

  /** The lease held now, `{ node, previousMark, ordinal }`, or null. */
  get held() {
    return this.#keeper.current?.held ?? null;
  }
  /** The node leased now, or null. */
  get node() {
    return this.held?.node ?? null;
  }
  /** The minter of the lease held now (a later lease has another), or null. */
  get minter() {
    return this.#keeper.current?.minter ?? null;
  }
  /** `{ taken, lost, unleasedMs, longestUnleasedMs }`: unleasedMs is null while minting. */
  get stats() {
    return this.#keeper.stats.snapshot();
  }
  /** `{ snowflake, lease }`: a snowflake and the ordinal of the lease that minted it. */
  nextMinted() {
    return this.#keeper.next();
  }
  /**
   * A snowflake minted on the lease held now. EmqIdError `node` while none is
   * held, once its fence has closed, or while a burst waits for the next renewal.
   */
  next() {
    return this.#keeper.next().snowflake;
  }
  /** An id of namespace `ns` on the lease held now (as `next`). */
  mint(ns) {
    emq.encode(ns, 0n); // the namespace's gates before a snowflake is spent
    return emq.encode(ns, this.#keeper.next().snowflake);
  }
}

module.exports = { Lease, LeaseWireError };
