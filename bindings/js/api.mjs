// The JavaScript surface of emq-id: one source for both npm packages
// (@echomq/emq-id over the native addon or the WebAssembly build,
// @echomq/emq-id-wasm over the WebAssembly build). `cargo xtask js` copies it
// into each package (as ESM and CommonJS); `cargo xtask js --check` fails when
// a copy differs. Here live the host-type checks, the error class, the Minter
// wrapper, the exports and the load-time self-check through this very API.
// Every contract answer, limit and gate name comes from the Rust core through
// the backend; nothing here computes one.

const U64_MAX = 0xffffffffffffffffn;
const EMPTY = new Uint8Array(0);
// A JS array holds fewer than 2^32 elements: the most ids one mintMany returns.
const MAX_ARRAY = 2 ** 32 - 1;
// The most replicas a WAIT can ask for (the core takes a u32).
const MAX_REPLICAS = 2 ** 32 - 1;

/**
 * The API over one backend: an object of the core's raw functions, already
 * bound to one build (native.js in @echomq/emq-id, wasm-backend.mjs in both
 * packages). `name` is the package's, for the message of a refusal to load;
 * `from` says where the build came from (backendInfo()).
 */
export function makeApi(backend, { name, from = name }) {
  const facts = readFacts(backend.facts());
  const GATES = Object.freeze(facts.gates);
  const gates = new Set(GATES);

  /** Every refusal of the contract: `code` is the gate's name (or `self_check`). */
  class EmqIdError extends Error {
    constructor(code, message) {
      super(`${code}: ${message}`);
      this.name = 'EmqIdError';
      this.code = code;
    }
  }

  function typeError(what) {
    const t = new TypeError(what);
    t.code = 'ERR_INVALID_ARG_TYPE';
    return t;
  }

  // The one error helper: a backend's refusal (an Error with a gate `code`, or
  // a "<gate>: <detail>" string from WebAssembly) becomes an EmqIdError.
  function rethrow(e) {
    const [code, detail] = typeof e === 'string' ? splitRefusal(e) : [e?.code, e?.message];
    if (gates.has(code) || code === 'self_check') throw new EmqIdError(code, detail);
    if (code === 'ERR_INVALID_ARG_TYPE') throw typeError(detail);
    throw e;
  }

  function call(f, a, b, c) {
    try {
      return f(a, b, c);
    } catch (e) {
      return rethrow(e);
    }
  }

  // Host-type rules, the same for every backend (SPEC.md §9):
  // bytes in are a string (its UTF-8) or a Uint8Array; 64-bit values are
  // bigint; clock readings are a number or a bigint; nodes and counts are
  // whole numbers. A value of the wrong JS type is a TypeError; a value of
  // the right type outside the contract's range is EmqIdError `range`.
  function bytes(x, what) {
    if (typeof x === 'string') return x;
    // An empty view (a detached buffer's among them) is the empty bytes: no backend reads it.
    if (x instanceof Uint8Array) return x.length === 0 ? EMPTY : x;
    throw typeError(`${what} is a string or a Uint8Array`);
  }
  function u64(x) {
    if (typeof x === 'bigint' && x >= 0n && x <= U64_MAX) return x;
    throw new EmqIdError('range', '64-bit values are bigint in [0, 2^64) (a number loses precision past 2^53)');
  }
  function millis(x) {
    if (typeof x === 'number' || typeof x === 'bigint') return x;
    throw typeError('a time in unix ms is a number or a bigint');
  }
  function whole(x, what, max) {
    if (typeof x !== 'number') throw typeError(`${what} is a number`);
    if (!Number.isInteger(x) || x < 0 || x > max) throw new EmqIdError('range', `${what} is a whole number in 0..=${max}`);
    return x;
  }
  // The core decides the node's range; this only keeps the value a whole
  // number the backends can take.
  function nodeArg(x) {
    if (typeof x !== 'number') throw typeError('a node is a number');
    if (!Number.isInteger(x) || x < 0 || x > MAX_ARRAY) throw new EmqIdError('range', `a node is a whole number in 0..=${facts.numbers.MAX_NODE}`);
    return x;
  }

  class Minter {
    #inner;
    /** A fresh minter for one node: ids from one Minter never repeat and never decrease. */
    constructor(node) {
      this.#inner = call((n) => new backend.Minter(n), nodeArg(node));
    }
    /** The node this minter stamps. */
    get node() {
      return this.#inner.node;
    }
    /** Mints with the clock of this runtime. */
    next() {
      return call(() => this.#inner.next());
    }
    /** Mints with a clock reading in unix ms: the contract's pure step on this minter's state. */
    nextAt(nowMs) {
      return call((t) => this.#inner.nextAt(t), millis(nowMs));
    }
  }

  // Node leases on Valkey (emq-lease/3, SPEC.md §5.2): the scripts and reply
  // parsing of the core, for the Valkey client the user has (the one lease
  // key, LEASE_KEY, is among the core's texts below).
  const LEASE_SCRIPTS = Object.freeze(
    Object.fromEntries(
      backend
        .leaseScripts()
        .split('\0')
        .map((s) => [s.slice(0, s.indexOf('\n')), s.slice(s.indexOf('\n') + 1)]),
    ),
  );
  function ms(x, what) {
    if (typeof x !== 'number') throw typeError(`${what} is a number`);
    if (!Number.isInteger(x)) throw new EmqIdError('range', `${what} is whole milliseconds`);
    return x;
  }
  const monotonicMs = () => Math.floor(performance.now());

  // The lease keeper's decisions (emq_id::keeper): what a write's reply means
  // and what the holder does next; names (outcomes, actions, phases, writes)
  // are the core's. A holder is its client's I/O around these.
  const OUTCOMES = new Set(facts.outcomes);
  function text(x, what) {
    if (typeof x !== 'string') throw typeError(`${what} is a string`);
    return x;
  }
  function flag(x, what) {
    if (typeof x !== 'boolean') throw typeError(`${what} is a boolean`);
    return x;
  }
  function outcomeArg(x) {
    if (!OUTCOMES.has(text(x, 'an outcome'))) throw new EmqIdError('range', `an outcome is one of ${[...OUTCOMES].join(', ')}`);
    return x;
  }
  // Lease terms as the backends take them: (ttl, margin), where a margin of -1
  // asks for the core's default for the TTL (no margin given).
  const termsOf = (ttlMs = facts.numbers.LEASE_TTL_MS, marginMs = undefined) => [
    ms(ttlMs, 'a TTL'),
    marginMs === undefined ? -1 : ms(marginMs, 'a margin'),
  ];
  /** The terms object of LeasedMinter and LeaseKeeper, `{ ttlMs, marginMs }`. */
  function termsArgs(terms) {
    if (typeof terms !== 'object' || terms === null) throw typeError('terms are { ttlMs, marginMs }');
    return termsOf(terms.ttlMs, terms.marginMs);
  }
  /** A lease function of the terms, as leaseTerms takes them. */
  const ofTerms = (f) => (ttlMs, marginMs) => call(f, ...termsOf(ttlMs, marginMs));
  const leaseMargin = ofTerms(backend.leaseMargin);

  class LeaseKeeper {
    #inner;
    /** A holder's keeper of leases on `terms`, before its first acquire, begun at monotonic `sinceMonoMs`. */
    constructor(terms = {}, sinceMonoMs = monotonicMs()) {
      const args = [...termsArgs(terms), ms(sinceMonoMs, 'a monotonic time')];
      this.#inner = call(() => new backend.LeaseKeeper(...args));
    }
    /** The write due at monotonic `nowMonoMs`: 'acquire', 'renew', 'expired' (the held lease is lost) or 'release'. */
    next(nowMonoMs) {
      return call((t) => this.#inner.next(t), ms(nowMonoMs, 'a monotonic time'));
    }
    /** What to do with a write sent at `sentMonoMs` that came to `outcome`: `{ action, afterMs }`. */
    settle(outcome, sentMonoMs, nowMonoMs) {
      const args = [outcomeArg(outcome), ms(sentMonoMs, 'a monotonic time'), ms(nowMonoMs, 'a monotonic time')];
      return call(() => this.#inner.settle(...args));
    }
    /**
     * Begins handing the held or pending lease back: next() answers 'release', and settle() follows
     * it through an ASK, sends it again after a MOVED or a refusal that did not run (a few sends at
     * most), and ends it with 'released' (it ran) or 'give_up' (the lease is left to its TTL).
     */
    release() {
      this.#inner.release();
    }
    /** 'starting', 'unleased', 'pending', 'held' or 'releasing'. */
    get phase() {
      return this.#inner.phase;
    }
    /** Whether the write about to be sent follows an ASK (ASKING in front; errors read with `asked`). */
    get asked() {
      return this.#inner.asked;
    }
    /** The first acquire's refusal when it gives up on `outcome` (EmqIdError `node`), or null when the refusal is another's. */
    static refusal(outcome) {
      const name = outcomeArg(outcome);
      try {
        call(backend.leaseRefusal, name);
      } catch (e) {
        if (e instanceof EmqIdError) return e;
        throw e;
      }
      return null;
    }
  }

  class LeasedMinter {
    #inner;
    /**
     * The minter of a lease just acquired: `acquired` is parseAcquire's answer, `nowMs` the
     * `now` given to the acquire script, `sentMonoMs` when the acquire was sent (monotonicMs()).
     */
    constructor(acquired, nowMs, sentMonoMs, terms = {}) {
      if (typeof acquired !== 'object' || acquired === null) throw typeError('acquired is parseAcquire\'s answer');
      const previous = acquired.previousMark ?? -1;
      const args = [nodeArg(acquired.node), ms(previous, 'a mark'), ms(nowMs, 'a time'), ms(sentMonoMs, 'a monotonic time'), ...termsArgs(terms)];
      this.#inner = call(() => new backend.LeasedMinter(...args));
    }
    /** The leased node. */
    get node() {
      return this.#inner.node;
    }
    /** Mints with a wall-clock reading and a monotonic one; `node` once the fence has closed. */
    nextAt(nowMs, monoMs) {
      return call((t, m) => this.#inner.nextAt(t, m), ms(nowMs, 'a time'), ms(monoMs, 'a monotonic time'));
    }
    /** Mints with Date.now() and monotonicMs(). */
    next() {
      return this.nextAt(Date.now(), monotonicMs());
    }
    /** The mark to send with the renew script now. */
    nextMark(nowMs) {
      return call((t) => this.#inner.nextMark(t), ms(nowMs, 'a time'));
    }
    /** Records a renewal the server accepted: sent at monotonic `sentMonoMs`, carrying `mark`. */
    renewed(sentMonoMs, mark) {
      call((a, b) => this.#inner.renewed(a, b), ms(sentMonoMs, 'a monotonic time'), ms(mark, 'a mark'));
    }
    /** Closes the fence now (a renewal answered lost, or before release). */
    stop() {
      this.#inner.stop();
    }
    /** The last millisecond minted in: what the release script stores. */
    get highWater() {
      return this.#inner.highWater();
    }
    /** The monotonic ms from which minting is refused. */
    get fenceMs() {
      return this.#inner.fenceMs();
    }
  }

  const api = {
    EmqIdError,
    Minter,
    LeasedMinter,
    encode: (ns, snowflake) => call(backend.encode, bytes(ns, 'a namespace'), u64(snowflake)),
    decode: (text) => call(backend.decode, bytes(text, 'an id')),
    decodeSnowflake: (text) => call(backend.decodeSnowflake, bytes(text, 'an id')),
    isValid: (text) => (typeof text === 'string' || text instanceof Uint8Array) && backend.isValid(bytes(text, 'an id')),
    compare: (a, b) => call(backend.compare, bytes(a, 'an id'), bytes(b, 'an id')),
    hash32: (snowflake) => backend.hash32(u64(snowflake)),
    unixMs: (snowflake) => backend.unixMs(u64(snowflake)),
    node: (snowflake) => backend.node(u64(snowflake)),
    seq: (snowflake) => backend.seq(u64(snowflake)),
    minFor: (unixMs) => call(backend.minFor, millis(unixMs)),
    slot: (key) => call(backend.slot, bytes(key, 'a key')),
    slotMany(keys) {
      if (!Array.isArray(keys)) throw typeError('slotMany takes an array of keys');
      return call(backend.slotMany, keys);
    },
    hashtag: (key) => call(backend.hashtag, bytes(key, 'a key')),
    queueKey: (queue, type) => call(backend.key, bytes(queue, 'a queue'), bytes(type, 'a type'), undefined),
    jobKey: (queue, id) => call(backend.jobKey, bytes(queue, 'a queue'), bytes(id, 'an id')),
    key: (queue, type, id) =>
      call(backend.key, bytes(queue, 'a queue'), bytes(type, 'a type'), id === undefined ? undefined : bytes(id, 'an id')),
    parseKey: (key) => call(backend.parseKey, bytes(key, 'a key')),
    reserve: (name) => call(backend.reserve, bytes(name, 'a name')),
    queuePrefix: (queue) => call(backend.queuePrefix, bytes(queue, 'a queue')),
    jobPrefix: (queue) => call(backend.jobPrefix, bytes(queue, 'a queue')),
    prefixBytes: (queue, type) => call(backend.prefixBytes, bytes(queue, 'a queue'), bytes(type, 'a type')),
    xaddId: (id) => call(backend.xaddId, bytes(id, 'an id')),
    fromXaddId: (entry, ns) =>
      call(backend.fromXaddId, bytes(entry, 'an entry id'), ns === undefined ? undefined : bytes(ns, 'a namespace')),
    mint: (ns) => call(backend.mint, bytes(ns, 'a namespace')),
    mintMany: (ns, n) => call(backend.mintMany, bytes(ns, 'a namespace'), whole(n, 'a count', MAX_ARRAY - 1)),
    mintStep: (state, node, nowMs) => call(backend.mintStep, u64(state), nodeArg(node), millis(nowMs)),
    setNode: (node) => call(backend.setNode, nodeArg(node)),
    processNode: () => call(backend.processNode),
    /** Runs the contract's self-check vectors through this API; throws EmqIdError `self_check`. */
    selfCheck() {
      call(backend.coreCheck);
      const failed = checkHost(api, backend.selfCheckVectors());
      if (failed) throw new EmqIdError('self_check', failed);
    },
    LEASE_SCRIPTS,
    /** The terms, checked by the core: call it before taking a node, so bad terms never hold one. */
    leaseTerms(ttlMs = facts.numbers.LEASE_TTL_MS, marginMs) {
      return { ttlMs, marginMs: leaseMargin(ttlMs, marginMs) };
    },
    parseAcquire(node, previous) {
      const [n, p] = call(backend.parseAcquire, ms(node, 'a node'), ms(previous, 'a mark'));
      return { node: n, previousMark: p < 0 ? null : p };
    },
    parseRenewal: (reply) => call(backend.parseRenewal, ms(reply, 'a reply')),
    /**
     * Reads WAIT's reply after a lease write: throws `node` when fewer than `replicas` replicas
     * acknowledged it (the error's `acknowledged` and `replicas` say how many), `range` for a negative reply.
     */
    parseWait(acknowledged, replicas) {
      const [got, wanted] = [ms(acknowledged, 'a reply'), whole(replicas, 'a count of replicas', MAX_REPLICAS)];
      try {
        call(backend.parseWait, got, wanted);
      } catch (e) {
        if (e instanceof EmqIdError && e.code === 'node') Object.assign(e, { acknowledged: got, replicas: wanted });
        throw e;
      }
    },
    /** The WAIT timeout of the terms, checked as leaseTerms checks them. */
    leaseWaitMs: ofTerms(backend.leaseWaitMs),
    /** How often a held lease is renewed under the terms (a third of the TTL). */
    leaseRenewEveryMs: ofTerms(backend.leaseRenewEveryMs),
    /** How soon a write that did not count is tried again under the terms. */
    leaseRetryMs: ofTerms(backend.leaseRetryMs),
    parseAcquireError(message) {
      const detail = backend.parseAcquireError(String(message ?? ''));
      return detail == null ? null : new EmqIdError('node', detail);
    },
    LeaseKeeper,
    /** What a lease script's error reply (the text after `-`) means; `asked`: the write followed an ASK. */
    readLeaseError: (message, asked = false) => backend.readLeaseError(text(message, 'an error reply'), flag(asked, 'asked')),
    /** What a write whose script answered without an error came to: held (the script's answer) and acknowledged (WAIT's). */
    leaseOutcome: (held, acknowledged) => backend.leaseOutcome(flag(held, 'held'), flag(acknowledged, 'acknowledged')),
    /** The node a MOVED or ASK reply names, `{ ask, slot, host, port }` (host null: the redirected connection's), or null. */
    redirect: (message) => backend.redirect(text(message, 'an error reply')),
    monotonicMs,
    /** Which build answers: 'native' (the addon) or 'wasm'. */
    backend: () => backend.name,
    /** Which build answers and where it came from (the addon's package, or why WebAssembly). */
    backendInfo: () => ({ backend: backend.name, from }),
    /** The package's version: its package.json's, compiled into the build that answers. */
    version: backend.version(),
    GATES,
    ...facts.numbers,
    ...facts.texts,
  };

  try {
    api.selfCheck();
  } catch (e) {
    throw new Error(`${name} refuses to load: ${e.message}`, { cause: e });
  }
  return Object.freeze(api);
}

function splitRefusal(text) {
  const at = text.indexOf(': ');
  return at < 0 ? [undefined, text] : [text.slice(0, at), text.slice(at + 2)];
}

/** The backend's facts text: `gate <name>`, `number <NAME> <value>`, `text <NAME> <value>`, `outcome <name>` lines. */
function readFacts(text) {
  const facts = { gates: [], numbers: {}, texts: {}, outcomes: [] };
  for (const line of text.split('\n')) {
    const [kind, key, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (kind === 'gate') facts.gates.push(key);
    else if (kind === 'number') facts.numbers[key] = BigInt(value) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : BigInt(value);
    else if (kind === 'text') facts.texts[key] = value;
    else if (kind === 'outcome') facts.outcomes.push(key);
  }
  return facts;
}

/**
 * Runs every line of the core's self-check vectors (SPEC.md §8) through the
 * public API — its string, bigint and error conversions included — and
 * answers the first line it disagrees with (and what it got), or null.
 */
export function checkHost(api, vectors) {
  for (const line of vectors.split('\n')) {
    if (line === '') continue;
    let got;
    try {
      got = answer(api, line);
    } catch (e) {
      got = e instanceof api.EmqIdError ? `error ${e.code}` : `exception ${e}`;
    }
    if (got !== expected(line)) return `at "${line}": got "${got}"`;
  }
  return null;
}

// What a line expects, in the form `answer` gives: the words after the inputs.
function expected(line) {
  const w = line.split(' ');
  const inputs = { decode: 1, encode: 2, reject: 1, encode_reject: 2, min_for: 1, mint: 3, slot: 1, hashtag: 1, key: 3, key_reject: 3, xadd_id: 1 }[w[0]];
  if (inputs === undefined) return `a check named ${w[0]}`; // answer() throws for it: a mismatch
  const answers = w.slice(1 + inputs);
  return w[0].endsWith('reject') ? `error ${answers[0]}` : answers.join(' ');
}

function answer(api, line) {
  const [op, a, b, c] = line.split(' ');
  const id = (x) => (x === '-' ? undefined : x);
  switch (op) {
    case 'decode': {
      const d = api.decode(a);
      return [d.ns, d.snowflake, d.unixMs, d.node, d.seq, api.hash32(d.snowflake)].join(' ');
    }
    case 'encode':
      return api.encode(a, BigInt(b));
    case 'reject':
      return `accepted ${api.decode(a).snowflake}`;
    case 'encode_reject':
      return `accepted ${api.encode(a, BigInt(b))}`;
    case 'min_for':
      return String(api.minFor(Number(a)));
    case 'mint': {
      const m = new api.Minter(Number(a));
      return `${m.nextAt(Number(b))} ${m.nextAt(Number(c))}`;
    }
    case 'slot':
      return String(api.slot(a));
    case 'hashtag':
      return api.hashtag(a);
    case 'key':
    case 'key_reject':
      return api.key(a, b, id(c));
    case 'xadd_id':
      return api.xaddId(a);
    default:
      throw new Error(`no such check: ${op} (a vector file newer than this build)`);
  }
}
