// ESM entry: the same module as index.js.
import api from './index.js';

export const {
  EmqIdError, Minter, encode, decode, decodeSnowflake, hash32, unixMs, node, seq, minFor,
  slot, slotMany, hashtag, queueKey, jobKey, key, parseKey, reserve, jobPrefix, prefixBytes, xaddId,
  fromXaddId, mint, mintMany, mintStep, setNode,
  processNode, selfCheck, CONTRACT, KEYSPACE,
} = api;
export default api;
