// Node.js ESM entry: loads the .wasm synchronously. EMQ_NODE, when set, is
// the node of mint() on the main thread only: each worker thread instantiates
// a module (a mint state) of its own, and EMQ_NODE names one node for the
// process, so a worker must be given its own with setNode (SPEC.md §5).
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { makeApi } from './api.mjs';

const raw = createRequire(import.meta.url)('./node/emq_id_wasm.js');
const api = makeApi(raw, { envNode: isMainThread ? process.env.EMQ_NODE : undefined });

export const {
  EmqIdError, Minter, encode, decode, decodeSnowflake, hash32, unixMs, node, seq, minFor, slot,
  slotMany, hashtag, queueKey, jobKey, key, parseKey, reserve, jobPrefix, prefixBytes, xaddId, fromXaddId, setNode, mint, mintMany, mintStep, selfCheck, CONTRACT, KEYSPACE,
} = api;
export default api;
