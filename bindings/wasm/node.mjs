// Node.js ESM entry: loads the .wasm synchronously. EMQ_NODE, when set, is
// the node of mint() on the main thread only: each worker thread instantiates
// a module (a mint state) of its own, and EMQ_NODE names one node for the
// process, so a worker must be given its own with setNode (SPEC.md §5.1).
// api.mjs and backend.mjs are copies of bindings/js/ (`cargo xtask js`).
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { makeApi } from './api.mjs';
import { wasmBackend } from './backend.mjs';

const raw = createRequire(import.meta.url)('./node/emq_id_wasm.js');
const api = makeApi(wasmBackend(raw, { envNode: isMainThread ? process.env.EMQ_NODE : undefined }), { name: '@echomq/emq-id-wasm' });

export const {
  GATES, EmqIdError, encode, decode, decodeSnowflake, isValid, compare, hash32, unixMs, node, seq, minFor,
  slot, slotMany, hashtag, queueKey, jobKey, key, parseKey, reserve, queuePrefix, jobPrefix, prefixBytes,
  xaddId, fromXaddId, mint, mintMany, mintStep, setNode, processNode, selfCheck, backend, backendInfo,
  version, Minter, CONTRACT, KEYSPACE, VERSION_KEY, BUS_VERSION, ID_LEN, NS_LEN, PAYLOAD_LEN, EPOCH_MS,
  MAX_NODE, MAX_SEQ, MAX_TS, MAX_SNOWFLAKE, SLOTS, MAX_QUEUE_LEN, MAX_NAME_LEN, MAX_KEY_LEN, MAX_ENTRY_ID_LEN,
  LEASE_SCRIPTS, LEASE_PROTOCOL, LEASE_NODES, LEASE_TTL_MS, LEASE_MARGIN_MS, LEASE_REPLICAS, leaseTerms,
  leaseWaitMs, leasePrefix, leaseKey, markKey, parseAcquire, parseRenewal, parseWait, parseAcquireError,
  monotonicMs, LeasedMinter,
} = api;
export default api;
