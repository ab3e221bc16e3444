'use strict';
// The native backend of @echomq/emq-id: the addon's functions in the shape
// the shared API (api.cjs, from bindings/js/api.mjs) takes. Only decode and
// slotMany are more than a pass-through: decode reads the fields the addon
// wrote to a scratch array, because creating an object property by property
// through N-API costs several times the whole decode; slotMany packs a batch
// of ASCII strings into two arrays, because reading each key through N-API
// costs several times its slot.

const { MAX_STRING_LENGTH } = require('node:buffer').constants;
const { isProxy } = require('node:util').types;

// The most bytes a packing array kept between slotMany calls may hold: a
// larger batch is packed into arrays of its own.
const KEEP = 1 << 20;

/** `array` when it holds `n` elements, else a larger array of its type. */
function room(array, n) {
  return array.length >= n ? array : new array.constructor(Math.max(n, 2 * array.length));
}

function nativeBackend(addon) {
  const scratch = new Float64Array(4);
  addon.setScratch(scratch);

  const encoder = new TextEncoder();
  let packed = new Uint8Array(1 << 14);
  let lens = new Uint32Array(1 << 10);
  // One crossing for a batch of ASCII strings: the keys joined and encoded
  // at once into `packed`, their lengths (for ASCII, their UTF-8 lengths) in
  // `lens`. Any other batch (a key that is bytes, not ASCII, or not a key at
  // all) goes to the addon's own slotMany, key by key, and so does a proxy,
  // which the addon refuses: the same answers and the same refusals as ever.
  function slotMany(keys) {
    if (isProxy(keys)) return addon.slotMany(keys);
    const n = keys.length;
    // Each key read once (a getter runs once, as when the addon reads them),
    // and its type tested in a loop that reads no length: Node 20's optimiser
    // can read a length ahead of the typeof test guarding it, and crash on a
    // number key (see slotMany in bindings/js/wasm-backend.mjs).
    const copy = new Array(n);
    let strings = true;
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      if (typeof k !== 'string') strings = false;
      copy[i] = k;
    }
    if (!strings) return addon.slotMany(copy);
    const sizes = room(lens, n);
    if (sizes.byteLength <= KEEP) lens = sizes;
    let total = 0;
    for (let i = 0; i < n; i++) total += sizes[i] = copy[i].length;
    if (total > MAX_STRING_LENGTH) return addon.slotMany(copy); // more than one string can hold
    const joined = copy.join('');
    const bytes = room(packed, total);
    if (bytes.byteLength <= KEEP) packed = bytes;
    // ASCII is one byte of UTF-8 per UTF-16 unit, anything else more: the
    // whole string encoded into as many bytes as units is ASCII.
    const { read, written } = encoder.encodeInto(joined, bytes);
    if (joined.length !== total || read !== total || written !== total) return addon.slotMany(copy);
    const slots = new Uint16Array(n);
    addon.slotPacked(bytes, sizes, slots);
    return slots;
  }

  // The first mint through the process-wide minter takes its node. When that
  // node was drawn (no EMQ_NODE, no setNode), say so once, as Node's own
  // warnings do, then put the addon's functions in place: later mints cost
  // nothing more. The WebAssembly build never draws a node (it refuses instead).
  function noticeDrawn() {
    backend.mint = addon.mint;
    backend.mintMany = addon.mintMany;
    const { node, source } = addon.processNode();
    if (source !== 'fallback') return;
    process.emitWarning(
      `EMQ_NODE is not set: this process mints with node ${node}, drawn among the nodes no live process ` +
        'of this host holds; another host can draw it too, and then ids collide. Give each process a node ' +
        'of its own (EMQ_NODE, setNode) or take one with a lease',
      { code: 'EMQ_ID_DRAWN_NODE' },
    );
  }

  const backend = {
    name: 'native',
    facts: addon.facts,
    version: addon.version,
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
    slotMany,
    hashtag: addon.hashtag,
    key: addon.key,
    jobKey: addon.jobKey,
    parseKey: addon.parseKey,
    reserve: addon.reserve,
    queuePrefix: addon.queuePrefix,
    jobPrefix: addon.jobPrefix,
    prefixBytes: addon.prefixBytes,
    xaddId: addon.xaddId,
    fromXaddId: addon.fromXaddId,
    Minter: addon.Minter,
    mint(ns) {
      const id = addon.mint(ns);
      noticeDrawn();
      return id;
    },
    mintMany(ns, n) {
      const ids = addon.mintMany(ns, n);
      noticeDrawn();
      return ids;
    },
    mintStep: addon.mintStep,
    setNode: addon.setNode,
    processNode: addon.processNode,
    leaseScripts: addon.leaseScripts,
    leaseMargin: addon.leaseMargin,
    parseAcquire: (node, previous) => [...addon.parseAcquire(node, previous)],
    parseRenewal: addon.parseRenewal,
    parseWait: addon.parseWait,
    leaseWaitMs: addon.leaseWaitMs,
    parseAcquireError: addon.parseAcquireError,
    LeasedMinter: addon.LeasedMinter,
    leaseRenewEveryMs: addon.leaseRenewEveryMs,
    leaseRetryMs: addon.leaseRetryMs,
    readLeaseError: addon.readLeaseError,
    leaseOutcome: addon.leaseOutcome,
    redirect: addon.leaseRedirect,
    leaseRefusal: addon.leaseRefusal,
    LeaseKeeper: addon.LeaseKeeper,
  };
  return backend;
}

module.exports = { nativeBackend };
