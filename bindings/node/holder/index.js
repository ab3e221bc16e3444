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
// replicas (WAIT); an unref'd timer renews it on the terms' schedule, and when
// the lease is lost or fenced takes another node, its ids after every id
// minted before. What to write next, when, and what each reply means are the
// core's (LeaseKeeper, readLeaseError, emq-lease/3): this module is the
// client's I/O around them — it sends each write and its WAIT pipelined on one
// connection, follows an ASK to the node named (ASKING in front), lets the
// client relearn the slot map after a MOVED or a fault — and keeps the leases
// (keeper.js). Neither client is a dependency: the client is the caller's.

const { EventEmitter } = require('node:events');
const emq = require('../index.js');
const { adapt, NotSent } = require('./clients.js');
const { Keeper, LeaseWireError, fault } = require('./keeper.js');

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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
   * While the reserve does not run the acquire (CLUSTERDOWN, TRYAGAIN, MOVED,
   * LOADING…) it is tried again, for up to a TTL. Rejects with EmqIdError
   * `node` when every node is leased (the core's refusal), when the reserve did
   * not run the acquire for a whole TTL (the message ends with the server's
   * reply: the core's refusal, ": ", the reply), or when the
   * acquire was not acknowledged in the terms' WAIT timeout (that lease is
   * released); with a LeaseWireError for a reply the protocol does not give,
   * and with the client's errors when Valkey cannot be reached.
   */
  static async acquire(client, options) {
    const wire = adapt(client);
    const { replicas, terms, waitMs, timeoutMs } = checkOptions(options);
    const lease = new Lease(wire, new Keeper(replicas, terms, waitMs), timeoutMs);
    try {
      for (;;) {
        const step = await lease.#round(); // throws the refusal when the keeper gives up
        if (lease.#keeper.current !== null) {
          lease.#schedule(step.afterMs);
          return lease;
        }
        await sleep(step.afterMs);
      }
    } catch (refusal) {
      wire.close(); // the holder's own connection: nothing it holds is sent later
      throw refusal;
    }
  }

  /**
   * One write: the one the keeper says is due, sent, followed to the node an
   * ASK names, settled by the keeper, and its action done. Resolves with the
   * step (`afterMs`: when the next write is due); throws the first acquire's
   * refusal when the keeper gives up.
   */
  async #round() {
    let write;
    let reading = null;
    try {
      write = this.#keeper.plan();
    } catch (refusal) {
      // A clock the contract cannot hold, refused before a node is taken: the holder's own fault.
      write = { script: 'acquire', sent: emq.monotonicMs(), lease: null };
      reading = fault(refusal);
    }
    this.#announceLost();
    const settled = await this.#write(write, reading);
    if (settled.step.action === 'give_up') await this.#giveUp(write, settled.reading);
    return settled.step;
  }

  /**
   * Sends `write` (unless its `reading` is known already) and settles what it
   * came to with the keeper, following an ASK to the node it names; the slot
   * map is relearnt after a MOVED or a fault. Resolves with the step and the
   * reading it settled. A fault is reported (`fault`) unless it is the
   * caller's: the first acquire's, or a release's.
   */
  async #write(write, reading) {
    const keeper = this.#keeper;
    const starting = keeper.starting;
    const quiet = starting || keeper.releasing;
    reading ??= await this.#exchange(write, null);
    for (;;) {
      const { step, event } = keeper.settle(write, reading, emq.monotonicMs());
      this.#announceLost();
      // The first lease is acquire()'s answer; one taken in the background is a later one.
      if (event === 'renewed' || (event === 'acquired' && !starting)) this.emit(event === 'acquired' ? 'reacquired' : event, keeper.current.held);
      if (reading.outcome === 'fault' && !quiet) this.#report(reading.fault);
      if (step.action === 'follow') {
        reading = await this.#exchange(write, emq.redirect(reading.message));
        continue;
      }
      if (step.action === 'reroute' || step.action === 'reconnect') await this.#refresh();
      return { step, reading };
    }
  }

  /**
   * Sends `write` — with ASKING in front, to the node `target` names, when it
   * follows an ASK — on a connection of the holder's own, and reads its
   * replies. A write whose deadline passed before it left (no connection in
   * time: that connection is closed) did not run; any other failure to send,
   * or no reply in time, is a fault (the connection is closed: the write is
   * never sent again, nor its reply read by another).
   */
  async #exchange(write, target) {
    write.sent = emq.monotonicMs();
    const asked = target !== null;
    try {
      const commands = write.commands(asked);
      const [ms, what] = [this.#timeoutMs, write.script];
      const replies = await (asked ? this.#wire.sendTo(target, commands, ms, what) : this.#wire.send(commands, ms, what));
      return this.#keeper.read(write, replies, asked);
    } catch (error) {
      if (error instanceof NotSent) return { outcome: 'not_run', message: error.message, fault: null };
      return fault(error);
    }
  }

  /**
   * The first acquire's refusal: the core's (every node leased, as it is; the
   * reserve not running it for a whole TTL, naming the server's reply, as the
   * Rust holder does); WAIT's (the lease taken is released first, through the
   * keeper: an ASK followed); else the fault that ended it.
   */
  async #giveUp(write, reading) {
    // Every node leased: the script's own refusal, as it is.
    const leased = emq.parseAcquireError(reading.message ?? '');
    if (leased !== null) throw leased;
    const refusal = emq.LeaseKeeper.refusal(reading.outcome);
    if (refusal !== null) {
      refusal.message = `${refusal.message}: ${reading.message}`;
      throw refusal;
    }
    if (reading.unacknowledged) {
      // The lease taken (kept as pending) is handed back through the keeper, or left to its TTL.
      await this.#releaseNow().catch(() => {});
      throw reading.unacknowledged;
    }
    await this.#refresh(); // the caller's next try finds the reserve's primary
    throw reading.fault ?? new LeaseWireError(`${write.script}: ${reading.outcome}`);
  }

  /** After a MOVED or a fault: a new connection for the next write, and the client relearns the slot map, for as long as a write may take. */
  async #refresh() {
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(resolve, this.#timeoutMs);
    });
    await Promise.race([this.#wire.refresh().catch(() => {}), late]).finally(() => clearTimeout(timer));
  }

  #report(error) {
    if (this.listenerCount('fault') > 0) this.emit('fault', error);
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

  /** One round in the background; resolves with the ms to the next. */
  async #tick() {
    try {
      return (await this.#round()).afterMs;
    } catch (error) {
      // Only the first acquire gives up: anything else here is reported, and tried again.
      this.#report(error);
      return this.#keeper.retry;
    }
  }

  /** `lost` for each lease the keeper gave up since it was last asked. */
  #announceLost() {
    for (const lease of this.#keeper.takeLost()) this.emit('lost', lease.held);
  }

  /**
   * Hands back what is held or pending, as the core's keeper says: sent (a
   * pending lease too: it may be on the primary), followed through an ASK,
   * tried again after a MOVED or a refusal that did not run: three tries at
   * most, each followed through one ASK at most. Resolves whether a held lease was still the owner's; throws why
   * the release did not run (the lease is then left to its TTL).
   */
  async #releaseNow() {
    if (this.#released !== null) return this.#released;
    const { write, wasHeld } = this.#keeper.release();
    this.#released = false;
    if (write === null) return false;
    for (;;) {
      const { step, reading } = await this.#write(write, null);
      if (step.action === 'released') {
        this.#released = wasHeld && reading.outcome === 'counted';
        return this.#released;
      }
      if (step.action === 'give_up') throw reading.fault ?? new LeaseWireError(`release: ${reading.message ?? reading.outcome}`);
      await sleep(step.afterMs); // rerouted or not run: sent again when the keeper says, stopping or not
    }
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
    try {
      return await this.#releaseNow();
    } finally {
      this.#wire.close(); // the holder's own connection, closed once the node is handed back (or left to its TTL)
    }
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
