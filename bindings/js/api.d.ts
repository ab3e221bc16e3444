/**
 * EchoMQ branded ids (14-byte base62 snowflakes) and Valkey Cluster key placement,
 * with exactly the answers of the emq-id Rust core. One description for both npm
 * packages (@echomq/emq-id and @echomq/emq-id-wasm): `cargo xtask js` copies it
 * from bindings/js/api.d.ts.
 *
 * Host types, the same in both packages: bytes in are a `string` (its UTF-8; a lone
 * surrogate becomes U+FFFD, as Buffer.from does) or a `Uint8Array`; 64-bit values are
 * `bigint` (a `number` loses ids past 2^53 and is refused with code `range`); clock
 * readings are a `number` (floored) or a `bigint`; nodes and counts are whole
 * `number`s. A value of the wrong JS type throws a `TypeError` (code
 * `ERR_INVALID_ARG_TYPE`); a value outside the contract throws an `EmqIdError`.
 */

/** The contract's gate names, the `code` of every EmqIdError (`self_check` only at load). */
export type Gate = 'length' | 'namespace' | 'charset' | 'range' | 'queue' | 'kind' | 'node' | 'self_check';

/** The core's gates in the contract's order (the list every runtime maps). */
export const GATES: readonly Gate[];

/** Every refusal of the contract. */
export class EmqIdError extends Error {
  readonly name: 'EmqIdError';
  readonly code: Gate;
  /** For `parseWait`'s `node` refusal: the replicas that acknowledged the lease write, and the replicas wanted. */
  readonly acknowledged?: number;
  readonly replicas?: number;
}

/** Bytes in: a string is its UTF-8 (a lone surrogate becomes U+FFFD, as Buffer.from does). */
export type Bytes = string | Uint8Array;

export interface Decoded {
  ns: string;
  snowflake: bigint;
  /** Unix ms of minting (always below 2^53, so a number: `new Date(unixMs)`). */
  unixMs: number;
  node: number;
  seq: number;
}

/** The 14-byte id of a namespace (three letters A-Z) and a snowflake below 2^63. Throws `range`. */
export function encode(ns: Bytes, snowflake: bigint): string;
/** Reads an id; throws `length`, `namespace`, `charset` or `range`, checked in that order. */
export function decode(text: Bytes): Decoded;
/** decode's gates, answering only the snowflake (no object to build). */
export function decodeSnowflake(text: Bytes): bigint;
/** Whether decode would accept the value; any other JS value is simply not an id (never throws). */
export function isValid(text: unknown): boolean;
/** The order of two ids (namespace, then snowflake: their byte order): -1, 0 or 1. Throws an invalid id's gate. */
export function compare(a: Bytes, b: Bytes): -1 | 0 | 1;
/** The contract's 32-bit placement hash. */
export function hash32(snowflake: bigint): number;
export function unixMs(snowflake: bigint): number;
export function node(snowflake: bigint): number;
export function seq(snowflake: bigint): number;
/** The smallest snowflake minted at or after unixMs; 0 before 2024; throws `range` past 2093. */
export function minFor(unixMs: number | bigint): bigint;
/** The Valkey Cluster hash slot (0-16383) of a key's bytes. */
export function slot(key: Bytes): number;
/** Slots of many keys in one native call: use it on hot paths. */
export function slotMany(keys: Bytes[]): Uint16Array;
/** The part of the key the cluster hashes: a string for a string key, bytes for bytes. */
export function hashtag(key: string): string;
export function hashtag(key: Uint8Array): Uint8Array;
/** emq:{queue}:<type> for a type without an id (`pending`, `g:vip:pending`, …). Throws `queue`, then `kind`. */
export function queueKey(queue: Bytes, type: 'pending' | 'active' | string): string;
/** emq:{queue}:job:<id>; the id must be a valid JOB id (else its gate, or `kind` for another namespace). */
export function jobKey(queue: Bytes, id: Bytes): string;
/**
 * A key of queue from its type as the bus writes it (`pending`, `g:vip:pending`, `job:<id>:lock`);
 * the emq-keyspace/1 form key(queue, 'job', id) is kept. Errors: `queue`, then `kind` or the id's gate.
 */
export function key(queue: Bytes, type: Bytes, id?: Bytes): string;
/** A queue key read back: its queue, its family as a pattern (`g:<name>:pending`), its parameter. */
export interface ParsedKey {
  queue: string;
  family: string;
  param?: string;
}
/** Reads a queue key back (the exact inverse of key): `queue` when it is not emq:{Q}:<type>, else the type's error. */
export function parseKey(key: Bytes): ParsedKey;
/** The reserve's cross-queue key {emq}:<name> (reserve('version') is the bus's version fence); `kind` for a bad name. */
export function reserve(name: Bytes): string;
/** emq:{queue}:, the prefix every key of a queue starts with (the bus's scripts append a type to it). */
export function queuePrefix(queue: Bytes): string;
/** emq:{queue}:job:, the prefix the bus's scripts append job ids to. */
export function jobPrefix(queue: Bytes): string;
/** The bytes a family's keys spend before their parameter (type `job:`, `g:`, … or a fixed type). */
export function prefixBytes(queue: Bytes, type: Bytes): number;
/** The stream entry id `<unix_ms>-<tail22>` of an EVT id; `kind` for another namespace. */
export function xaddId(id: Bytes): string;
/** The id (namespace ns, default EVT) behind a stream entry id: `charset` or `range` when no id has it. */
export function fromXaddId(entry: Bytes, ns?: Bytes): string;
/**
 * Mints an id with the process-wide minter (native backend: one mint state for the whole process,
 * worker threads included, on a node the process holds on this host) or the module-wide one (wasm
 * backend: one per module instance, so each browser tab, web worker and Node worker thread needs
 * setNode; EMQ_NODE is the Node main thread's). Throws `node` when no node may be used (held by
 * another live process of this host, or none given to a wasm module), `range` when EMQ_NODE is invalid.
 */
export function mint(ns: Bytes): string;
/** n ids (0 ≤ n < 2^32 − 1) with one clock reading, in one call. */
export function mintMany(ns: Bytes, n: number): string[];
/** The contract's pure mint step: [state', snowflake]. */
export function mintStep(state: bigint, node: number, nowMs: number | bigint): [bigint, bigint];
/**
 * Gives mint() its node in place of EMQ_NODE. Native backend: the process's node for its lifetime,
 * taking its host-local claim; throws `node` when another live process of this host holds it or this
 * process already mints with another node. Wasm backend: the module's node (required in a browser and
 * in a Node worker thread); it may change, and the module's one mint state carries over so no id
 * repeats. Throws `range` outside 0..=MAX_NODE.
 */
export function setNode(node: number): { node: number; source: 'env' | 'set' | 'fallback' };
/**
 * The node of mint(), taken on first use: setNode's, else EMQ_NODE, else (native backend only) a
 * drawn node (`source` "fallback": no other live process of this host holds it, but another host may
 * draw it, so set EMQ_NODE or use a lease in production; the wasm backend throws `node` instead). Taking it takes the node's host-local claim (a lock
 * file in EMQ_NODE_DIR, released when the process dies). Throws `range` when EMQ_NODE is invalid,
 * `node` when another live process of this host holds the node.
 */
export function processNode(): { node: number; source: 'env' | 'set' | 'fallback' };
/**
 * Runs the contract's self-check vectors through this API (the package already did at load, and
 * refused to load on a mismatch); throws EmqIdError `self_check` naming the line.
 */
export function selfCheck(): void;
/** Which build answers: the native addon, or WebAssembly (the wasm package; the fallback of the Node one). */
export function backend(): 'native' | 'wasm';
/**
 * Which build answers and where it came from: the addon's package (`@echomq/emq-id-linux-x64-gnu`),
 * the addon file of a source tree, or why WebAssembly answers (`no native package for darwin-arm64`,
 * `… is not installed`, `EMQ_ID_BACKEND=wasm`); the WASM package names itself.
 */
export function backendInfo(): { backend: 'native' | 'wasm'; from: string };

/** The package's version: its package.json's, compiled into the build that answers (`'0.1.0'`). */
export const version: string;

export class Minter {
  /** A fresh minter for node 0..=MAX_NODE (else `range`). */
  constructor(node: number);
  readonly node: number;
  /** Mints with the system clock. */
  next(): bigint;
  /** Mints with a clock reading (unix ms): the contract's pure step. */
  nextAt(nowMs: number | bigint): bigint;
}

// The contract's facts, from the core (emq_id::NUMBERS and emq_id::TEXTS).
export const CONTRACT: 'branded-snowflake/1.0.0';
export const KEYSPACE: 'emq-keyspace/2';
/** The reserve's version fence key, and what the bus stores there. */
export const VERSION_KEY: '{emq}:version';
export const BUS_VERSION: string;
export const ID_LEN: number;
export const NS_LEN: number;
export const PAYLOAD_LEN: number;
/** The snowflake's epoch, unix ms. */
export const EPOCH_MS: number;
export const MAX_NODE: number;
export const MAX_SEQ: number;
/** The greatest timestamp field (41 bits), ms after EPOCH_MS. */
export const MAX_TS: number;
/** 2^63 − 1. */
export const MAX_SNOWFLAKE: bigint;
export const SLOTS: number;
export const MAX_QUEUE_LEN: number;
export const MAX_NAME_LEN: number;
export const MAX_KEY_LEN: number;
export const MAX_ENTRY_ID_LEN: number;

// ---- Node leases on Valkey (emq-lease/3, SPEC.md §5.2): run these scripts with your own client.
/**
 * The protocol's Lua scripts, byte for byte the core's:
 * - `acquire`: KEYS `[LEASE_KEY]`, ARGV `[token, ttlMs, firstNode, LEASE_NODES, nowMs]` → `[node, previousMark | -1]`
 *   or the error `EMQLEASE every node is leased`;
 * - `renew`: KEYS `[LEASE_KEY]`, ARGV `[token, ttlMs, minter.nextMark(now), n]` → `1`, or `0` (lost);
 * - `release`: KEYS `[LEASE_KEY]`, ARGV `[token, minter.highWater, n]` → `1` or `0`.
 */
export const LEASE_SCRIPTS: Readonly<{ acquire: string; renew: string; release: string }>;
export const LEASE_PROTOCOL: 'emq-lease/3';
/**
 * The reserve's one lease key, KEYS[1] of every script: a hash of each node's `<n>:token`,
 * `<n>:until` (the lease's end, server unix ms) and `<n>:mark`. Its slot is the reserve's.
 */
export const LEASE_KEY: '{emq}:leases';
/** Nodes a lease can be taken on (MAX_NODE + 1), the default TTL and the fence's default margin, ms. */
export const LEASE_NODES: number;
export const LEASE_TTL_MS: number;
export const LEASE_MARGIN_MS: number;
/** How many replicas must acknowledge a lease write (WAIT's numreplicas) unless the deployment says otherwise. */
export const LEASE_REPLICAS: number;
/**
 * Lease terms checked by the core (TTL 3 ms to a day; margin at least 1 ms and at most two thirds of
 * the TTL; without a margin, the default for the TTL): call it before the acquire script, so bad
 * terms never hold a node. Throws `range`.
 */
export function leaseTerms(ttlMs?: number, marginMs?: number): { ttlMs: number; marginMs: number };
/**
 * The timeout (ms) of the `WAIT` sent after a lease write under these terms (checked as `leaseTerms`
 * checks them; without a margin, the default for the TTL). Throws `range`.
 */
export function leaseWaitMs(ttlMs?: number, marginMs?: number): number;
export interface Acquired {
  node: number;
  /** The node's mark before this acquire (unix ms), or null for a node never leased. */
  previousMark: number | null;
}
/** Reads the acquire script's reply `[node, previous]`; `range` for a reply the script cannot give. */
export function parseAcquire(node: number, previous: number): Acquired;
/** Reads the renew or release script's reply: returns on 1, throws `node` on 0 (the lease is lost). */
export function parseRenewal(reply: number): void;
/**
 * Reads the reply of `WAIT replicas timeout` sent after the acquire or renew script on the same
 * connection: returns when at least `replicas` replicas acknowledged the write; throws `node` for fewer
 * (mint nothing on that acquire, do not record that renewal), with `acknowledged` and `replicas` set on
 * the error; throws `range` for a negative reply.
 */
export function parseWait(acknowledged: number, replicas: number): void;
/** The `node` refusal when an acquire's error message is "every node is leased"; null for any other error. */
export function parseAcquireError(message: unknown): EmqIdError | null;
/** Milliseconds on a monotonic clock (performance.now()): the fence's clock. */
export function monotonicMs(): number;
/**
 * A minter on a leased node: starts after the node's previous mark (the hand-over rule), never mints
 * past the mark it stored, and throws `node` once its fence closes (the lease not renewed in time).
 */
export class LeasedMinter {
  constructor(acquired: Acquired, nowMs: number, sentMonoMs: number, terms?: { ttlMs?: number; marginMs?: number });
  readonly node: number;
  nextAt(nowMs: number, monoMs: number): bigint;
  /** Mints with Date.now() and monotonicMs(). */
  next(): bigint;
  /** The mark to send with the renew script at nowMs. */
  nextMark(nowMs: number): number;
  /** Records a renewal the server accepted (sent at monotonic sentMonoMs, carrying mark). */
  renewed(sentMonoMs: number, mark: number): void;
  /** Closes the fence now. */
  stop(): void;
  /** The last millisecond minted in: the release script's mark. */
  readonly highWater: number;
  /** The monotonic ms from which minting is refused. */
  readonly fenceMs: number;
}

// ---- The lease keeper (SPEC.md §5.2): what a holder writes next, when, and what each write came to.
// A holder is its Valkey client's I/O around these; every name is the core's.
/** What one lease write came to. */
export type LeaseOutcome = 'counted' | 'unacknowledged' | 'gone' | 'leased' | 'ask' | 'moved' | 'not_run' | 'fault';
/** What a holder does with a write's outcome (LeaseKeeper.settle). */
export type LeaseAction = 'publish' | 'renewed' | 'pend' | 'wait' | 'lose' | 'follow' | 'reroute' | 'retry' | 'reconnect' | 'give_up' | 'released';
/** Where a holder is with its lease. */
export type LeasePhase = 'starting' | 'unleased' | 'pending' | 'held' | 'releasing';
/** The write a keeper asks for (LeaseKeeper.next). */
export type LeaseNext = 'acquire' | 'renew' | 'expired' | 'release';
/** The node a MOVED or ASK reply names; `host` null: the host the redirected connection was opened to. */
export interface LeaseRedirect {
  ask: boolean;
  slot: number;
  host: string | null;
  port: number;
}
/**
 * What a lease script's error reply (the text after `-`, as clients give it) means: every node `leased`,
 * `ask`, `moved` (MOVED, READONLY), `not_run` (TRYAGAIN, CLUSTERDOWN, LOADING, MASTERDOWN, BUSY, NOREPLICAS, OOM, MISCONF)
 * or a `fault`. `asked`: the write was sent after ASKING (an ASK then is a fault: followed once only).
 */
export function readLeaseError(message: string, asked?: boolean): LeaseOutcome;
/**
 * What a write whose script answered without an error came to: `held` is the script's answer (an acquire
 * that answered a node; a renewal's 1), `acknowledged` WAIT's (parseWait returned; true when no WAIT was wanted).
 */
export function leaseOutcome(held: boolean, acknowledged: boolean): LeaseOutcome;
/** The node a MOVED or ASK reply names, or null for any other text (or a slot or port out of range). */
export function redirect(message: string): LeaseRedirect | null;
/** How often a held lease is renewed under these terms (a third of the TTL), checked as leaseTerms checks them. */
export function leaseRenewEveryMs(ttlMs?: number, marginMs?: number): number;
/** How soon a write that did not count is tried again under these terms (a twentieth of the TTL, 10 to 250 ms). */
export function leaseRetryMs(ttlMs?: number, marginMs?: number): number;
/**
 * A holder's lease as far as deciding goes (the core's Keeper): its phase, when its last answered write was
 * sent, since when the first acquire has tried. Times are monotonic ms (monotonicMs()). Not the lease itself:
 * the holder keeps the token and the minter.
 */
export class LeaseKeeper {
  /** Before the first acquire, begun at `sinceMonoMs` (default: now). Throws `range` for bad terms. */
  constructor(terms?: { ttlMs?: number; marginMs?: number }, sinceMonoMs?: number);
  /**
   * The write due now: `expired` when the held lease went a whole TTL without an answered write (it is lost);
   * `release` once release() began.
   */
  next(nowMonoMs: number): LeaseNext;
  /** What to do with a write sent at `sentMonoMs` that came to `outcome`, and in how many ms to write next. */
  settle(outcome: LeaseOutcome, sentMonoMs: number, nowMonoMs: number): { action: LeaseAction; afterMs: number };
  /**
   * Begins handing the held or pending lease back (phase `releasing`): next() answers `release`; settle() says
   * `follow` (an ASK), `reroute` (MOVED: find the primary again) or `retry` (not run: after `afterMs`), at most
   * three sends in all, and ends with `released` (the release ran; the script's 1 or 0 says whether it was
   * still the owner's) or `give_up` (it did not: the lease is left to its TTL, and the holder says why).
   */
  release(): void;
  readonly phase: LeasePhase;
  /** Whether the write about to be sent follows an ASK (ASKING in front; its errors read with `asked`). */
  readonly asked: boolean;
  /**
   * The first acquire's refusal when it gives up on `outcome`: EmqIdError `node` for every node leased, and
   * for a write that did not run for a whole TTL (add the server's reply: it names the state); null when the
   * refusal is another's (WAIT's parseWait, or the holder's own fault).
   */
  static refusal(outcome: LeaseOutcome): EmqIdError | null;
}
