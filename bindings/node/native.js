'use strict';
// The native backend of @echomq/emq-id: the addon's functions in the shape
// the shared API (api.cjs, from bindings/js/api.mjs) takes. Only decode is
// more than a pass-through: it reads the fields the addon wrote to a scratch
// array, because creating an object property by property through N-API costs
// several times the whole decode.

function nativeBackend(addon) {
  const scratch = new Float64Array(4);
  addon.setScratch(scratch);
  return {
    name: 'native',
    facts: addon.facts,
    selfCheckVectors: addon.selfCheckVectors,
    coreCheck: addon.selfCheck,
    gateError: addon.gateError,
    encode: addon.encode,
    decode(text) {
      const snowflake = addon.decodeInto(text);
      const ns = scratch[3];
      return {
        ns: String.fromCharCode(ns >>> 16, (ns >>> 8) & 255, ns & 255),
        snowflake,
        unixMs: scratch[0],
        node: scratch[1],
        seq: scratch[2],
      };
    },
    decodeSnowflake: addon.decodeSnowflake,
    isValid: addon.isValid,
    compare: addon.compare,
    hash32: addon.hash32,
    unixMs: addon.unixMs,
    node: addon.node,
    seq: addon.seq,
    minFor: addon.minFor,
    slot: addon.slot,
    slotMany: addon.slotMany,
    hashtag: addon.hashtag,
    key: addon.key,
    jobKey: addon.jobKey,
    parseKey: addon.parseKey,
    reserve: addon.reserve,
    jobPrefix: addon.jobPrefix,
    prefixBytes: addon.prefixBytes,
    xaddId: addon.xaddId,
    fromXaddId: addon.fromXaddId,
    Minter: addon.Minter,
    mint: addon.mint,
    mintMany: addon.mintMany,
    mintStep: addon.mintStep,
    setNode: addon.setNode,
    processNode: addon.processNode,
    leaseScripts: addon.leaseScripts,
    leaseMargin: addon.leaseMargin,
    leasePrefix: addon.leasePrefix,
    leaseKey: addon.leaseKey,
    markKey: addon.markKey,
    parseAcquire: (node, previous) => [...addon.parseAcquire(node, previous)],
    parseRenewal: addon.parseRenewal,
    parseAcquireError: addon.parseAcquireError,
    LeasedMinter: addon.LeasedMinter,
  };
}

module.exports = { nativeBackend };
