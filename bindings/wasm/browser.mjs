// Browser and bundler entry: fetches and instantiates the .wasm next to this
// file, then exports the API. In a browser, call setNode(node) before mint():
// there is no EMQ_NODE.
import init, * as raw from './web/emq_id_wasm.js';
import { makeApi } from './api.mjs';
import { wasmBackend } from './backend.mjs';

await init({ module_or_path: new URL('./web/emq_id_wasm_bg.wasm', import.meta.url) });
const api = makeApi(wasmBackend(raw), { name: '@echomq/emq-id-wasm' });

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
