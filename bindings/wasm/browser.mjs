// Browser and bundler entry: fetches and instantiates the .wasm next to this
// file, then exports the API. In a browser, call setNode(node) before mint():
// there is no EMQ_NODE.
import init, * as raw from './web/emq_id_wasm.js';
import { makeApi } from './api.mjs';

await init({ module_or_path: new URL('./web/emq_id_wasm_bg.wasm', import.meta.url) });
const api = makeApi(raw);

export const {
  EmqIdError, Minter, encode, decode, decodeSnowflake, hash32, unixMs, node, seq, minFor, slot,
  slotMany, hashtag, queueKey, jobKey, key, parseKey, reserve, jobPrefix, prefixBytes, xaddId, fromXaddId, setNode, mint, mintMany, mintStep, selfCheck, CONTRACT, KEYSPACE,
} = api;
export default api;
