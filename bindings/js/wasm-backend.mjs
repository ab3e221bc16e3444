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
    return ascii(x, v, 0) ? x.length : -1;
  }
  /**
   * Writes a string's char codes into `into` from `at` while each is ASCII,
   * where they are its UTF-8: whether all were (if not, the caller encodes it
   * again). A plain loop: a TextEncoder call costs several times a short
   * key's copy, far more in Chromium than in Node.
   */
  function ascii(s, into, at) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) return false;
      into[at + i] = c;
    }
    return true;
  }
  /** The 14-byte id an `*Scratch` export wrote to the front of the scratch buffer. */
  function scratchId() {
    const v = scratch();
    return String.fromCharCode(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
  }

  // Bytes for the exports that take `&[u8]`: a string's UTF-8 (a lone
  // surrogate becomes U+FFFD, as Buffer.from does).
  const encoder = new TextEncoder();
  // An ASCII string is copied code by code, several times cheaper than a
  // TextEncoder call for the short names and keys the key builders take.
  const utf8 = (x) => {
    if (typeof x !== 'string') return x;
    const bytes = new Uint8Array(x.length);
    return ascii(x, bytes, 0) ? bytes : encoder.encode(x);
  };

  function decodeSnowflake(text) {
    const n = put(text);
    if (n >= 0) {
      const s = raw.decodeScratch(n);
      if (s >= 0n) return s;
    }
    return raw.decodeBytes(utf8(text)); // throws the gate, or reads what the scratch cannot hold
  }

  // hashtagScratch's answer when the scratch buffer could not be lent (u32::MAX).
  const NOT_LENT = 0xffffffff;

  // One crossing for a whole batch: the keys' UTF-8 laid back to back.
  // Past this many code units a batch is packed key by key: every engine
  // can make a string this long (V8's limit is 2^29 − 24).
  const MAX_JOINED = 1 << 28;
  function slotMany(keys) {
    // Every key's type first, in a loop that reads no length. Node 20's
    // optimiser (V8 11.3) can schedule a string's length load ahead of the
    // typeof test that guards it: a number key then crashed the process
    // (SIGSEGV) where it must throw. Past this loop every key is a string or bytes.
    let strings = true;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]; // a hole reads as undefined and is refused, as the addon refuses it
      if (typeof k === 'string') continue;
      if (!(k instanceof Uint8Array)) throw 'ERR_INVALID_ARG_TYPE: a key is a string or a Uint8Array';
      strings = false;
    }
    const lens = new Uint32Array(keys.length);
    if (strings) {
      // All strings: joined and encoded at once (one call, not one per key).
      // A string is ASCII exactly when it fits as many bytes as it has code
      // units, and then each key's UTF-8 length is its length.
      let total = 0;
      for (let i = 0; i < keys.length; i++) total += lens[i] = keys[i].length;
      if (total <= MAX_JOINED) {
        const data = new Uint8Array(total);
        const { read, written } = encoder.encodeInto(keys.join(''), data);
        if (read === total && written === total) return raw.slotPacked(data, lens);
      }
    }
    let room = 0;
    for (const k of keys) room += typeof k === 'string' ? k.length * 3 : k.length;
    const data = new Uint8Array(room);
    let at = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      let n = k.length;
      if (typeof k !== 'string') n > 0 && data.set(k, at);
      else if (!ascii(k, data, at)) n = encoder.encodeInto(k, data.subarray(at)).written;
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

  /** The module's keeper, its step unpacked from `<action> <after ms>`. */
  class LeaseKeeper {
    #inner;
    constructor(ttlMs, marginMs, sinceMonoMs) {
      this.#inner = new raw.LeaseKeeper(ttlMs, marginMs, sinceMonoMs);
    }
    next(nowMonoMs) {
      return this.#inner.next(nowMonoMs);
    }
    settle(outcome, sentMonoMs, nowMonoMs) {
      const [action, afterMs] = this.#inner.settle(outcome, sentMonoMs, nowMonoMs).split(' ');
      return { action, afterMs: Number(afterMs) };
    }
    release() {
      this.#inner.release();
    }
    get phase() {
      return this.#inner.phase;
    }
    get asked() {
      return this.#inner.asked;
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
  /** An id from the module-wide state, through the scratch buffer; else the export that throws the gate. */
  function mintAt(ns, nowMs) {
    const n = put(ns);
    return n >= 0 && raw.mintScratch(n, nowMs) === 0 ? scratchId() : raw.mint(utf8(ns), nowMs);
  }

  return {
    name: 'wasm',
    facts: raw.facts,
    version: raw.version,
    selfCheckVectors: raw.selfCheckVectors,
    // The vectors run through this module's exports at load (api.mjs): the
    // core's own check would add only its parsing to the .wasm.
    coreCheck() {},
    gateError: raw.gateError,
    encode(ns, s) {
      const n = put(ns);
      return n >= 0 && raw.encodeScratch(n, s) === 0 ? scratchId() : raw.encode(utf8(ns), s); // throws the gate
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
    hashtag(key) {
      const n = put(key);
      const at = n >= 0 ? raw.hashtagScratch(n) : NOT_LENT;
      if (at === NOT_LENT) return typeof key === 'string' ? raw.hashtagStr(key) : raw.hashtagBytes(key);
      // Cut from the key held here: an ASCII string's code units are its
      // bytes. Bytes come back as a plain Uint8Array copy, as the export
      // gave them (a Buffer's own slice would be a view of the key).
      const start = at & 0xffff;
      const end = start + (at >>> 16);
      return typeof key === 'string' ? key.slice(start, end) : new Uint8Array(key.subarray(start, end));
    },
    key: (queue, type, id) => raw.key(utf8(queue), utf8(type), id === undefined ? undefined : utf8(id)),
    jobKey: (queue, id) => raw.jobKey(utf8(queue), utf8(id)),
    parseKey(key) {
      const [queue, family, param] = raw.parseKey(utf8(key)).split('\n');
      return param === undefined ? { queue, family } : { queue, family, param };
    },
    reserve: (name) => raw.reserve(utf8(name)),
    queuePrefix: (queue) => raw.queuePrefix(utf8(queue)),
    jobPrefix: (queue) => raw.jobPrefix(utf8(queue)),
    prefixBytes: (queue, type) => raw.prefixBytes(utf8(queue), utf8(type)),
    xaddId: (id) => raw.xaddId(utf8(id)),
    fromXaddId: (entry, ns) => raw.fromXaddId(utf8(entry), ns === undefined ? undefined : utf8(ns)),
    Minter,
    mint(ns) {
      mintable();
      return mintAt(ns, Date.now());
    },
    mintMany(ns, n) {
      mintable();
      raw.checkNamespace(utf8(ns)); // refused even when n is 0
      const now = Date.now();
      const ids = new Array(n);
      for (let i = 0; i < n; i++) ids[i] = mintAt(ns, now);
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
    parseAcquire: (node, previous) => [raw.parseAcquireNode(node, previous), raw.parseAcquirePrevious(node, previous)],
    parseRenewal: raw.parseRenewal,
    parseWait: raw.parseWait,
    leaseWaitMs: raw.leaseWaitMs,
    parseAcquireError: (message) => raw.parseAcquireError(message) || null,
    LeasedMinter: raw.LeasedMinter,
    leaseRenewEveryMs: raw.leaseRenewEveryMs,
    leaseRetryMs: raw.leaseRetryMs,
    readLeaseError: raw.readLeaseError,
    leaseOutcome: raw.leaseOutcome,
    redirect(message) {
      const packed = raw.leaseRedirect(message); // `ask slot port host`, or ''
      if (packed === '') return null;
      const [ask, slot, port, host] = packed.split(' ');
      return { ask: ask === '1', slot: Number(slot), host: host === '' ? null : host, port: Number(port) };
    },
    leaseRefusal: raw.leaseRefusal,
    LeaseKeeper,
  };

  function processNode() {
    mintable();
    const packed = raw.processNode(); // node | source << 16; throws `node` before any node is given
    return { node: packed & 0xffff, source: packed >>> 16 === 1 ? 'env' : 'set' };
  }
}
