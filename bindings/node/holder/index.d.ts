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

/** Valkey answered a lease write with something the holder cannot use now (MOVED, READONLY, a reply the protocol does not give). */
export class LeaseWireError extends Error {
  /** Whether the reply moved the slot (MOVED/ASK). */
  readonly redirect: boolean;
}

/**
 * A node lease held for a Valkey client: renewed on an unref'd timer (it never keeps a process alive),
 * taken again after a loss, followed through failovers, released by `release()`. Events: `renewed`,
 * `lost` (a renewal found it gone, or none was answered for a whole TTL), `reacquired`, `fault`.
 */
export class Lease extends EventEmitter {
  /**
   * Takes a free node; resolves once `replicas` replicas acknowledged it. Rejects with EmqIdError `node` when
   * every node is leased or the acquire was not acknowledged (that lease is released), `range` for bad options,
   * and with the client's errors when Valkey cannot be reached.
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
  /** Stops minting and renewing and hands the node back; false when none was held or it was already gone. */
  release(): Promise<boolean>;

  on(event: 'renewed' | 'lost' | 'reacquired', listener: (held: Held) => void): this;
  on(event: 'fault', listener: (error: Error | EmqIdError) => void): this;
  once(event: 'renewed' | 'lost' | 'reacquired', listener: (held: Held) => void): this;
  once(event: 'fault', listener: (error: Error | EmqIdError) => void): this;
}
