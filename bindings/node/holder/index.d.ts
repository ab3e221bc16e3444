// @echomq/emq-id/holder: a node lease on Valkey held in one call (emq-lease/3).
import { EventEmitter } from 'node:events';
import { EmqIdError, LeasedMinter } from '../index';

/** The lease held: its node, the node's mark when it was taken (null: never leased), and which of the holder's leases it is (1, 2…). */
export interface Held {
  readonly node: number;
  readonly previousMark: number | null;
  readonly ordinal: number;
}

/** A snowflake and the ordinal of the lease that minted it. */
export interface Minted {
  snowflake: bigint;
  lease: number;
}

/** Leases taken (acknowledged) and lost, the ms without one now (null while minting), and the longest such time. */
export interface HolderStats {
  readonly taken: number;
  readonly lost: number;
  readonly unleasedMs: number | null;
  readonly longestUnleasedMs: number;
}

export interface LeaseOptions {
  /** Replicas that must acknowledge each lease write (WAIT); default LEASE_REPLICAS (1). 0 where no replica exists. */
  replicas?: number;
  /** The lease's TTL and fence margin, checked by the core; default LEASE_TTL_MS and its margin. */
  terms?: { ttlMs?: number; marginMs?: number };
  /** How long a lease write may go unanswered (ms), above the terms' WAIT timeout; default that timeout + 1 s. */
  timeoutMs?: number;
}

/**
 * What a holder takes: an ioredis `Redis` or `Cluster`, or a connected node-redis client or cluster
 * (`createClient`, `createCluster`). Typed structurally: neither client is a dependency.
 */
export type LeaseClient =
  | { pipeline(): unknown; call(...args: unknown[]): unknown }
  | { sendCommand(...args: any[]): Promise<unknown>; multi(): unknown };

/**
 * A fault of a lease write: a reply the protocol does not give (an error other than its own, a reply of the wrong
 * shape, a failed ASKING or WAIT, an ASK to a write that followed one), or none in time. A reply that says the
 * write did not run (TRYAGAIN, CLUSTERDOWN, LOADING, NOREPLICAS…) or went elsewhere (MOVED, READONLY, ASK) is
 * never one: the holder follows it, or writes again.
 */
export class LeaseWireError extends Error {
  /** Whether the reply was a redirect (an ASK to a write that followed one already). */
  readonly redirect: boolean;
}

/**
 * A node lease held for a Valkey client: renewed on an unref'd timer (it never keeps a process alive) on the
 * core's schedule (LeaseKeeper), taken again after a loss, followed through failovers and slot migrations (an
 * ASK is followed to the node it names, WAIT with it), released by `release()`. Events: `renewed`, `lost` (a
 * renewal found it gone, or none was answered for a whole TTL), `reacquired`, `fault` (a write's fault).
 */
export class Lease extends EventEmitter {
  /**
   * Takes a free node; resolves once `replicas` replicas acknowledged it. While the reserve does not run the
   * acquire (CLUSTERDOWN, TRYAGAIN, MOVED, LOADING, NOREPLICAS…) it is tried again, for up to a TTL. Rejects with
   * EmqIdError `node` when every node is leased (the core's refusal, as it is), when the reserve did not run the
   * acquire for a whole TTL (the message ends with the server's reply), or when the acquire was not acknowledged (that lease is released);
   * `range` for bad options; a LeaseWireError for a fault; the client's errors when Valkey cannot be reached.
   */
  static acquire(client: LeaseClient, options?: LeaseOptions): Promise<Lease>;
  /** The lease held now, or null. */
  readonly held: Held | null;
  /** The node leased now, or null. */
  readonly node: number | null;
  /** The minter of the lease held now (a later lease has another), or null. */
  readonly minter: LeasedMinter | null;
  readonly stats: HolderStats;
  /** A snowflake on the lease held now: EmqIdError `node` while none is held or its fence is closed. */
  next(): bigint;
  /** A snowflake and the ordinal of the lease that minted it. */
  nextMinted(): Minted;
  /** An id of namespace `ns` on the lease held now (as `next`). */
  mint(ns: string | Uint8Array): string;
  /**
   * Stops minting and renewing and hands the node back, as the core's LeaseKeeper settles it: an ASK followed, a
   * release moved (MOVED: the primary found again) or not run tried again, three tries at most (each followed
   * through one ASK at most), then rejected
   * (`release: <the server's reply>`, or the fault; the lease is left to its TTL). False when none was held or
   * it was already gone or another's.
   */
  release(): Promise<boolean>;

  on(event: 'renewed' | 'lost' | 'reacquired', listener: (held: Held) => void): this;
  on(event: 'fault', listener: (error: Error | EmqIdError) => void): this;
  once(event: 'renewed' | 'lost' | 'reacquired', listener: (held: Held) => void): this;
  once(event: 'fault', listener: (error: Error | EmqIdError) => void): this;
}
