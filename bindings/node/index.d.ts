/**
 * EchoMQ branded ids (14-byte base62 snowflakes) and Valkey Cluster key placement,
 * with exactly the answers of the emq-id Rust core. 64-bit values are `bigint`:
 * a `number` loses ids past 2^53 and is refused with code `range`.
 */

/** The contract's gate names, the `code` of every EmqIdError. */
export type Gate = 'length' | 'namespace' | 'charset' | 'range' | 'queue' | 'kind' | 'node' | 'self_check';

/** Every refusal of the contract. */
export class EmqIdError extends Error {
  readonly name: 'EmqIdError';
  readonly code: Gate;
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
export function encode(ns: string, snowflake: bigint): string;
/** Reads an id; throws `length`, `namespace`, `charset` or `range`, checked in that order. */
export function decode(text: Bytes): Decoded;
/** decode's gates, answering only the snowflake (no object to build). */
export function decodeSnowflake(text: Bytes): bigint;
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
export function queueKey(queue: string, kind: 'pending' | 'active' | string): string;
/** emq:{queue}:job:<id>; the id must be a valid JOB id (else its gate, or `kind` for another namespace). */
export function jobKey(queue: string, id: Bytes): string;
/**
 * A key of queue from its type as the bus writes it (`pending`, `g:vip:pending`, `job:<id>:lock`);
 * the emq-keyspace/1 form key(queue, 'job', id) is kept. Errors: `queue`, then `kind` or the id's gate.
 */
export function key(queue: string, kind: string, id?: Bytes): string;
/** A queue key read back: its queue, its family as a pattern (`g:<name>:pending`), its parameter. */
export interface ParsedKey {
  queue: string;
  family: string;
  param?: string;
}
/** Reads a queue key back (the exact inverse of key): `queue` when it is not emq:{Q}:<type>, else the type's error. */
export function parseKey(key: string): ParsedKey;
/** The reserve's cross-queue key {emq}:<name> (reserve('version') is the bus's version fence); `kind` for a bad name. */
export function reserve(name: string): string;
/** emq:{queue}:job:, the prefix the bus's scripts append job ids to. */
export function jobPrefix(queue: string): string;
/** The bytes a family's keys spend before their parameter (type `job:`, `g:`, … or a fixed type). */
export function prefixBytes(queue: string, type: string): number;
/** The stream entry id `<unix_ms>-<tail22>` of an EVT id; `kind` for another namespace. */
export function xaddId(id: string): string;
/** The id (namespace ns, default EVT) behind a stream entry id: `charset` or `range` when no id has it. */
export function fromXaddId(entry: string, ns?: string): string;
/**
 * Mints an id with the process-wide minter: one mint state for the whole process (worker threads
 * included), on a node the process holds on this host. Throws `node` when another live process of
 * this host holds it (the message names its pid), `range` when EMQ_NODE is invalid.
 */
export function mint(ns: string): string;
/** n ids in one native call. */
export function mintMany(ns: string, n: number): string[];
/** The contract's pure mint step: [state', snowflake]. */
export function mintStep(state: bigint, node: number, nowMs: number | bigint): [bigint, bigint];
/**
 * Makes `node` this process's node in place of EMQ_NODE, taking its host-local claim. Throws `node`
 * when another live process of this host holds it, or this process already mints with another node
 * (a process keeps its node for its lifetime); `range` outside 0..=1023.
 */
export function setNode(node: number): { node: number; source: 'env' | 'set' | 'fallback' };
/**
 * The process-wide minter's node, taken on first use: setNode's, else EMQ_NODE, else a drawn node
 * (`source` "fallback": no other live process of this host holds it, but another host may draw it,
 * so set EMQ_NODE or use a lease in production). Taking it takes the node's host-local claim (a lock
 * file in EMQ_NODE_DIR, released when the process dies). Throws `range` when EMQ_NODE is invalid,
 * `node` when another live process of this host holds the node.
 */
export function processNode(): { node: number; source: 'env' | 'set' | 'fallback' };
/** Runs the contract's own vectors; the package already did at load. */
export function selfCheck(): void;

export class Minter {
  /** A fresh minter for node 0..=1023 (else `range`). */
  constructor(node: number);
  readonly node: number;
  /** Mints with the system clock. */
  next(): bigint;
  /** Mints with a clock reading (unix ms): the contract's pure step. */
  nextAt(nowMs: number | bigint): bigint;
}

export const CONTRACT: 'branded-snowflake/1.0.0';
export const KEYSPACE: 'emq-keyspace/2';
