// ESM entry: the same module as index.js (one instance, one backend). The
// cross-package test checks that these names are exactly the API's keys.
import api from './index.js';

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
