// The JS face of the WebAssembly package, shared by the browser and Node
// entries: argument dispatch (string or bytes), the EmqIdError class, the
// clock (WebAssembly has none) and batching. Every contract answer comes from
// the Rust core; nothing here computes one.

export function makeApi(raw, { envNode } = {}) {
  /** Every refusal of the contract: `code` is the gate. */
  class EmqIdError extends Error {
    constructor(code, message) {
      super(`${code}: ${message}`);
      this.name = 'EmqIdError';
      this.code = code;
    }
  }

  const GATES = new Set(['length', 'namespace', 'charset', 'range', 'queue', 'kind', 'node', 'self_check']);

  // The Rust side throws "<gate>: <message>" strings; give them their class.
  function rethrow(e) {
    if (typeof e === 'string') {
      const at = e.indexOf(': ');
      const code = e.slice(0, at);
      if (GATES.has(code)) throw new EmqIdError(code, e.slice(at + 2));
    }
    throw e;
  }

  function typeError(what) {
    const t = new TypeError(what);
    t.code = 'ERR_INVALID_ARG_TYPE';
    return t;
  }

  // Bytes in: a string (its UTF-8) or a Uint8Array (Buffer included).
  function pick(x, ifString, ifBytes, what) {
    if (typeof x === 'string') return ifString(x);
    if (x instanceof Uint8Array) return ifBytes(x);
    throw typeError(what);
  }

  function guard(f) {
    return function (a, b, c) {
      try {
        return f(a, b, c);
      } catch (e) {
        return rethrow(e);
      }
    };
  }

  function str(x, what) {
    if (typeof x !== 'string') throw typeError(what);
    return x;
  }

  // wasm-bindgen passes a bigint to a u64 parameter as BigInt.asUintN(64, x),
  // silently wrapping -1 and 2^64: the range gate is checked here instead.
  function u64(s) {
    if (typeof s !== 'bigint' || s < 0n || s > 0xffffffffffffffffn) {
      throw new EmqIdError('range', '64-bit values are bigint in [0, 2^64) (a number loses precision past 2^53)');
    }
    return s;
  }

  // The scratch buffer (see SCRATCH_LEN in src/lib.rs): short ASCII strings
  // and small byte arrays are copied in directly; anything else takes the
  // wasm-bindgen string path.
  const SCRATCH_LEN = 256;
  const scratchPtr = raw.scratchPtr();
  const memory = raw.wasmMemory();
  let view = null;
  function scratch() {
    if (view === null || view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer, scratchPtr, SCRATCH_LEN);
    return view;
  }
  /** Copies an ASCII string or bytes into the scratch buffer: its length, or -1 when it does not fit. */
  function put(x) {
    const v = scratch();
    if (typeof x === 'string') {
      if (x.length > SCRATCH_LEN) return -1;
      for (let i = 0; i < x.length; i++) {
        const c = x.charCodeAt(i);
        if (c > 127) return -1;
        v[i] = c;
      }
      return x.length;
    }
    if (x.length > SCRATCH_LEN) return -1;
    v.set(x);
    return x.length;
  }

  const slowEncode = guard((ns, s) => raw.encode(ns, s));
  const slowSlot = guard((key) => pick(key, raw.slotStr, raw.slotBytes, 'a key is a string or a Uint8Array'));

  const unixMs = (s) => raw.unixMs(u64(s));
  const node = (s) => raw.node(u64(s));
  const seq = (s) => raw.seq(u64(s));
  const slowDecode = guard((text) => pick(text, raw.decodeStr, raw.decodeBytes, 'an id is a string or a Uint8Array'));
  function decodeSnowflake(text) {
    if (typeof text === 'string' || text instanceof Uint8Array) {
      const n = put(text);
      if (n >= 0) {
        const s = raw.decodeScratch(n);
        if (s >= 0n) return s;
      }
    }
    return slowDecode(text); // throws the gate, or handles what the scratch cannot hold
  }

  function decode(text) {
    const snowflake = decodeSnowflake(text);
    // The gates passed, so the first three bytes are A-Z: the same in UTF-16.
    const ns = typeof text === 'string' ? text.slice(0, 3) : String.fromCharCode(text[0], text[1], text[2]);
    return { ns, snowflake, unixMs: raw.unixMs(snowflake), node: raw.node(snowflake), seq: raw.seq(snowflake) };
  }

  const encoder = new TextEncoder();

  // One crossing for a whole batch: the keys' UTF-8 laid back to back.
  const slotMany = guard((keys) => {
    if (!Array.isArray(keys)) throw typeError('slotMany takes an array of keys');
    let room = 0;
    for (const k of keys) room += typeof k === 'string' ? k.length * 3 : k instanceof Uint8Array ? k.length : 0;
    const data = new Uint8Array(room);
    const lens = new Uint32Array(keys.length);
    let at = 0;
    keys.forEach((k, i) => {
      const n = pick(k, (s) => encoder.encodeInto(s, data.subarray(at)).written, (b) => (data.set(b, at), b.length), 'a key is a string or a Uint8Array');
      lens[i] = n;
      at += n;
    });
    return raw.slotPacked(data.subarray(0, at), lens);
  });

  class Minter {
    #inner;
    constructor(node) {
      try {
        this.#inner = new raw.Minter(node);
      } catch (e) {
        rethrow(e);
      }
    }
    get node() {
      return this.#inner.node;
    }
    /** Mints with the clock of this runtime (Date.now()). */
    next() {
      return this.nextAt(Date.now());
    }
    nextAt(nowMs) {
      try {
        return this.#inner.nextAt(nowMs);
      } catch (e) {
        return rethrow(e);
      }
    }
  }

  let envError = null;
  if (envNode !== undefined) {
    try {
      raw.setNodeText(envNode);
    } catch (e) {
      envError = e;
    }
  }

  const api = {
    EmqIdError,
    Minter,
    encode(ns, s) {
      str(ns, 'the namespace is a string');
      u64(s);
      const n = put(ns);
      if (n >= 0 && raw.encodeScratch(n, s) === 0) {
        const v = scratch();
        return String.fromCharCode(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
      }
      return slowEncode(ns, s); // throws the gate
    },
    decode,
    decodeSnowflake,
    hash32: (s) => raw.hash32(u64(s)),
    unixMs,
    node,
    seq,
    minFor: guard((ms) => raw.minFor(ms)),
    slot(key) {
      const n = typeof key === 'string' || key instanceof Uint8Array ? put(key) : -1;
      return n >= 0 ? raw.slotScratch(n) : slowSlot(key);
    },
    slotMany,
    hashtag: guard((key) => pick(key, raw.hashtagStr, raw.hashtagBytes, 'a key is a string or a Uint8Array')),
    queueKey: guard((queue, kind) => raw.key(str(queue, 'a queue is a string'), str(kind, 'a kind is a string'), undefined)),
    jobKey: guard((queue, id) => raw.jobKey(str(queue, 'a queue is a string'), str(id, 'an id is a string'))),
    key: guard((queue, kind, id) =>
      raw.key(str(queue, 'a queue is a string'), str(kind, 'a kind is a string'), id === undefined ? undefined : str(id, 'an id is a string')),
    ),
    parseKey: guard((key) => {
      const [queue, family, param] = raw.parseKey(str(key, 'a key is a string')).split('\n');
      return param === undefined ? { queue, family } : { queue, family, param };
    }),
    reserve: guard((name) => raw.reserve(str(name, 'a name is a string'))),
    jobPrefix: guard((queue) => raw.jobPrefix(str(queue, 'a queue is a string'))),
    prefixBytes: guard((queue, type) => raw.prefixBytes(str(queue, 'a queue is a string'), str(type, 'a type is a string'))),
    xaddId: guard((id) => raw.xaddId(str(id, 'an id is a string'))),
    fromXaddId: guard((entry, ns) => raw.fromXaddId(str(entry, 'an entry id is a string'), str(ns ?? 'EVT', 'a namespace is a string'))),
    /** The node of the module-wide minter behind mint(): required in a browser and in a Node worker thread. */
    setNode: guard((n) => raw.setNode(n)),
    mint: guard((ns) => {
      if (envError) rethrow(envError);
      return raw.mint(str(ns, 'the namespace is a string'), Date.now());
    }),
    mintMany: guard((ns, n) => {
      if (envError) rethrow(envError);
      str(ns, 'the namespace is a string');
      if (!Number.isInteger(n) || n < 0) throw new EmqIdError('range', 'a count is a whole number from 0');
      const now = Date.now();
      return Array.from({ length: n }, () => raw.mint(ns, now));
    }),
    mintStep: guard((state, n, nowMs) => [...raw.mintStep(state, n, nowMs)]),
    selfCheck: guard(() => raw.selfCheck()),
    CONTRACT: 'branded-snowflake/1.0.0',
    KEYSPACE: 'emq-keyspace/2',
  };

  try {
    api.selfCheck();
  } catch (e) {
    throw new Error(`@echomq/emq-id-wasm refuses to load: ${e.message}`, { cause: e });
  }
  return api;
}
