// The WebAssembly backend: the wasm-bindgen module's functions in the shape
// the shared API (api.mjs) takes. One source, copied by `cargo xtask js` into
// @echomq/emq-id-wasm and into @echomq/emq-id (its fallback where no native
// addon fits). Here live what WebAssembly needs and the addon does not: a
// clock (WebAssembly has none), the module-wide node of mint(), and a scratch
// buffer in the module's memory that short inputs are copied into, so the
// common calls cross the boundary with no allocation and no TextEncoder.

export function wasmBackend(raw, { envNode } = {}) {
  // The scratch buffer (SCRATCH_LEN in bindings/wasm/src/lib.rs).
  const scratchLen = raw.scratchLen();
  const scratchPtr = raw.scratchPtr();
  const memory = raw.wasmMemory();
  let view = null;
  function scratch() {
    if (view === null || view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer, scratchPtr, scratchLen);
    return view;
  }
  /** Copies an ASCII string or bytes into the scratch buffer: its length, or -1 when it does not fit. */
  function put(x) {
    const v = scratch();
    if (x.length > scratchLen) return -1;
    if (typeof x !== 'string') {
      v.set(x);
      return x.length;
    }
    for (let i = 0; i < x.length; i++) {
      const c = x.charCodeAt(i);
      if (c > 127) return -1;
      v[i] = c;
    }
    return x.length;
  }

  // Bytes for the exports that take `&[u8]`: a string's UTF-8 (a lone
  // surrogate becomes U+FFFD, as Buffer.from does).
  const encoder = new TextEncoder();
  const utf8 = (x) => (typeof x === 'string' ? encoder.encode(x) : x);

  function decodeSnowflake(text) {
    const n = put(text);
    if (n >= 0) {
      const s = raw.decodeScratch(n);
      if (s >= 0n) return s;
    }
    return raw.decodeBytes(utf8(text)); // throws the gate, or reads what the scratch cannot hold
  }

  // One crossing for a whole batch: the keys' UTF-8 laid back to back.
  function slotMany(keys) {
    let room = 0;
    for (const k of keys) room += typeof k === 'string' ? k.length * 3 : k instanceof Uint8Array ? k.length : 0;
    const data = new Uint8Array(room);
    const lens = new Uint32Array(keys.length);
    let at = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]; // a hole reads as undefined and is refused, as the addon refuses it
      let n;
      if (typeof k === 'string') n = encoder.encodeInto(k, data.subarray(at)).written;
      else if (k instanceof Uint8Array) (k.length > 0 && data.set(k, at), (n = k.length));
      else throw 'ERR_INVALID_ARG_TYPE: a key is a string or a Uint8Array';
      lens[i] = n;
      at += n;
    }
    return raw.slotPacked(data.subarray(0, at), lens);
  }

  class Minter {
    #inner;
    constructor(node) {
      this.#inner = new raw.Minter(node);
    }
    get node() {
      return this.#inner.node;
    }
    next() {
      return this.#inner.nextAt(Date.now());
    }
    nextAt(nowMs) {
      return this.#inner.nextAt(nowMs);
    }
  }

  // EMQ_NODE, when the host gives one, is read by the core's own parser; an
  // invalid value is kept and thrown by every mint, never replaced by a draw.
  let envError = null;
  if (envNode !== undefined) {
    try {
      raw.setNodeText(envNode);
    } catch (e) {
      envError = e;
    }
  }
  function mintable() {
    if (envError !== null) throw envError;
  }

  return {
    name: 'wasm',
    facts: raw.facts,
    selfCheckVectors: raw.selfCheckVectors,
    // The vectors run through this module's exports at load (api.mjs): the
    // core's own check would add only its parsing to the .wasm.
    coreCheck() {},
    gateError: raw.gateError,
    encode(ns, s) {
      const n = put(ns);
      if (n >= 0 && raw.encodeScratch(n, s) === 0) {
        const v = scratch();
        return String.fromCharCode(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
      }
      return raw.encode(utf8(ns), s); // throws the gate
    },
    decode(text) {
      const snowflake = decodeSnowflake(text);
      // The gates passed, so the first three bytes are A-Z: the same in UTF-16.
      const ns = typeof text === 'string' ? text.slice(0, 3) : String.fromCharCode(text[0], text[1], text[2]);
      return { ns, snowflake, unixMs: raw.unixMs(snowflake), node: raw.node(snowflake), seq: raw.seq(snowflake) };
    },
    decodeSnowflake,
    isValid: (text) => raw.isValid(utf8(text)),
    compare: (a, b) => raw.compare(utf8(a), utf8(b)),
    hash32: raw.hash32,
    unixMs: raw.unixMs,
    node: raw.node,
    seq: raw.seq,
    minFor: raw.minFor,
    slot(key) {
      const n = put(key);
      return n >= 0 ? raw.slotScratch(n) : raw.slotBytes(utf8(key));
    },
    slotMany,
    hashtag: (key) => (typeof key === 'string' ? raw.hashtagStr(key) : raw.hashtagBytes(key)),
    key: (queue, type, id) => raw.key(utf8(queue), utf8(type), id === undefined ? undefined : utf8(id)),
    jobKey: (queue, id) => raw.jobKey(utf8(queue), utf8(id)),
    parseKey(key) {
      const [queue, family, param] = raw.parseKey(utf8(key)).split('\n');
      return param === undefined ? { queue, family } : { queue, family, param };
    },
    reserve: (name) => raw.reserve(utf8(name)),
    jobPrefix: (queue) => raw.jobPrefix(utf8(queue)),
    prefixBytes: (queue, type) => raw.prefixBytes(utf8(queue), utf8(type)),
    xaddId: (id) => raw.xaddId(utf8(id)),
    fromXaddId: (entry, ns) => raw.fromXaddId(utf8(entry), ns === undefined ? undefined : utf8(ns)),
    Minter,
    mint(ns) {
      mintable();
      return raw.mint(utf8(ns), Date.now());
    },
    mintMany(ns, n) {
      mintable();
      const bytes = utf8(ns);
      raw.checkNamespace(bytes); // refused even when n is 0
      const now = Date.now();
      const ids = new Array(n);
      for (let i = 0; i < n; i++) ids[i] = raw.mint(bytes, now);
      return ids;
    },
    mintStep: (state, node, nowMs) => [...raw.mintStep(state, node, nowMs)],
    setNode(node) {
      raw.setNode(node);
      envError = null;
      return processNode();
    },
    processNode,
    leaseScripts: raw.leaseScripts,
    leaseMargin: raw.leaseMargin,
    leasePrefix: raw.leasePrefix,
    leaseKey: raw.leaseKey,
    markKey: raw.markKey,
    parseAcquire: (node, previous) => [raw.parseAcquireNode(node, previous), raw.parseAcquirePrevious(node, previous)],
    parseRenewal: raw.parseRenewal,
    parseAcquireError: (message) => raw.parseAcquireError(message) || null,
    LeasedMinter: raw.LeasedMinter,
  };

  function processNode() {
    mintable();
    const packed = raw.processNode(); // node | source << 16; throws `node` before any node is given
    return { node: packed & 0xffff, source: packed >>> 16 === 1 ? 'env' : 'set' };
  }
}
