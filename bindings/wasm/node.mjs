// Node.js ESM entry: loads the .wasm synchronously; EMQ_NODE, when set, is
// the node of mint().
import { createRequire } from 'node:module';
import { makeApi } from './api.mjs';

const raw = createRequire(import.meta.url)('./node/emq_id_wasm.js');
const api = makeApi(raw, { envNode: process.env.EMQ_NODE });

export const {
  EmqIdError, Minter, encode, decode, decodeSnowflake, hash32, unixMs, node, seq, minFor, slot,
  slotMany, hashtag, queueKey, jobKey, key, setNode, mint, mintMany, mintStep, selfCheck, CONTRACT, KEYSPACE,
} = api;
export default api;
