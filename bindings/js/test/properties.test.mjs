// Property tests (fast-check) over every API: the Node package's addon, its
// WebAssembly fallback, the WebAssembly package.
//
// 1. Any JS value into every exported function (and the Minter and
//    LeasedMinter classes and their methods) gives a value, an EmqIdError of
//    a gate the core has, or a TypeError: no other exception, no crash. The
//    pure functions also answer alike in every API.
// 2. decode/encode and slot/hashtag/slotMany agree with naive references
//    written here from SPEC.md alone, on generated ids and keys.
//
// Bounded: RUNS runs per property (FC_RUNS overrides it); FC_SEED replays a
// failure. Counts are printed as diagnostics. Run by `node --test test/` in
// bindings/js after both packages are built, with fast-check installed
// (`npm ci` there).
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { loadApis } from './apis.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';

const RUNS = Number(process.env.FC_RUNS ?? 2000);
const SEED = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const params = { numRuns: RUNS, includeErrorInReport: true, ...(SEED === undefined ? {} : { seed: SEED }) };

// setNode, mint and processNode take a node on this host: here, in a
// directory of this run's own, never the host's.
const claims = mkdtempSync(join(tmpdir(), 'emq-id-js-properties-'));
process.env.EMQ_NODE_DIR = claims;
process.env.EMQ_NODE = '9';
after(() => rmSync(claims, { recursive: true, force: true }));

const apis = loadApis();
const API_NAMES = Object.keys(apis);
const reference = apis.native;

// ---------------------------------------------------------------- references

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MAX_SNOWFLAKE = 2n ** 63n - 1n;
const EPOCH_MS = 1704067200000n;
const utf8 = (x) => (typeof x === 'string' ? new TextEncoder().encode(x) : x);

/** SPEC.md §3 byte by byte: the first failing gate of length, namespace, charset, range; else the fields. */
function refDecode(bytes) {
  if (bytes.length !== 14) return { gate: 'length' };
  for (let i = 0; i < 3; i++) if (bytes[i] < 0x41 || bytes[i] > 0x5a) return { gate: 'namespace' };
  let v = 0n;
  for (let i = 3; i < 14; i++) {
    const d = ALPHABET.indexOf(String.fromCharCode(bytes[i]));
    if (d < 0 || bytes[i] > 0x7f) return { gate: 'charset' };
    v = v * 62n + BigInt(d); // a bigint: no wrap to check for
  }
  if (v > MAX_SNOWFLAKE) return { gate: 'range' };
  return {
    ns: String.fromCharCode(bytes[0], bytes[1], bytes[2]),
    snowflake: v,
    unixMs: Number((v >> 22n) + EPOCH_MS),
    node: Number((v >> 12n) & 1023n),
    seq: Number(v & 4095n),
  };
}

function refEncode(ns, s) {
  let digits = '';
  for (let i = 0; i < 11; i++, s /= 62n) digits = ALPHABET[Number(s % 62n)] + digits;
  return ns + digits;
}

/** SPEC.md §6: [start, end) of the bytes strictly between the first '{' and the first '}' after it, if not empty; else the whole key. */
function refHashtag(bytes) {
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return [open + 1, close];
  }
  return [0, bytes.length];
}

/** CRC16-XMODEM of the hashtag, bit by bit, mod 16384. */
function refSlot(bytes) {
  const [from, to] = refHashtag(bytes);
  let crc = 0;
  for (let i = from; i < to; i++) {
    crc ^= bytes[i] << 8;
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

// ---------------------------------------------------------------- generators

// UTF-16 code units, any of them: lone surrogates, NUL, braces.
const codeUnits = (max) =>
  fc
    .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.constantFrom(0x7b, 0x7d, 0)), { maxLength: max })
    .map((units) => String.fromCharCode(...units));
const snowflake = fc.oneof(
  fc.bigInt({ min: 0n, max: MAX_SNOWFLAKE }),
  fc.constantFrom(0n, 1n, MAX_SNOWFLAKE, MAX_SNOWFLAKE - 1n, 274557032793636864n),
);
const upper = fc.integer({ min: 0x41, max: 0x5a }).map((c) => String.fromCharCode(c));
const namespace = fc.tuple(upper, upper, upper).map((t) => t.join(''));
const validId = fc.tuple(namespace, snowflake).map(([ns, s]) => refEncode(ns, s));
// A valid id with one code unit changed: every gate, and the edges of each.
const nearId = fc
  .tuple(validId, fc.nat(13), fc.oneof(fc.constantFrom(...'/:@[`{!~\0\x7f\xff\u00e9\ud800'), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))))
  .map(([id, at, c]) => id.slice(0, at) + c + id.slice(at + 1));
// Payloads above 2^63 - 1, those worth 2^64 and more (a wrapping accumulator's trap) included.
const bigPayload = fc
  .tuple(namespace, fc.bigInt({ min: MAX_SNOWFLAKE + 1n, max: 62n ** 11n - 1n }))
  .map(([ns, v]) => refEncode(ns, v));
const idLike = fc.oneof(
  validId,
  nearId,
  bigPayload,
  fc.string({ unit: fc.constantFrom(...ALPHABET, 'é', '!'), minLength: 12, maxLength: 16 }),
  codeUnits(16),
);
const idInput = fc.oneof(idLike, idLike.map((s) => utf8(s)), fc.uint8Array({ minLength: 12, maxLength: 16 }), fc.uint8Array({ maxLength: 20 }));

const keyString = fc.oneof(
  codeUnits(24),
  fc.string({ unit: fc.constantFrom('{', '}', 'a', 'b', ':', '\0', 'é', '\ud800', '\udc00'), maxLength: 16 }),
  fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([a, b, c]) => `${a}{${b}}${c}`),
);
const keyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 24 }),
  fc.array(fc.constantFrom(0x7b, 0x7d, 0x61, 0x00, 0xff, 0x80), { maxLength: 16 }).map((a) => Uint8Array.from(a)),
);
const keyInput = fc.oneof(keyString, keyBytes);

// Any JS value: fast-check's anything (nested, with every option), plus the
// edges a binding converts: bigints around 2^63 and 2^64, huge and odd
// numbers, strings with lone surrogates, typed arrays of every kind and
// offset, and values no function should take.
const edgeValues = fc.constantFrom(
  -1n, 0n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 64n, -(2n ** 64n), 2n ** 200n,
  NaN, Infinity, -Infinity, -0, 0.5, 1.5, -1, 1023, 1024, 4095, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64,
  Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e300, -1e300, 1769526697641,
  '', '\ud800', '\udc00x', 'USR0KHTOWnGLuC', 'JOB0KHTOWnGLuC', 'EVT000xY9Wvvcd', 'JOB', 'USR', 'orders', 'pending', 'job',
  'g:vip:pending', '{fills}', '1704117200000-1620567', 'version', 'ERR EMQLEASE every node is leased',
  Symbol('s'), () => 'USR0KHTOWnGLuC', class {}, Object.create(null), new Proxy({}, {}), Promise.resolve(1),
  new WeakMap(), globalThis, Math, /USR/, new Error('e'), new String('USR0KHTOWnGLuC'), Object(1n),
  new ArrayBuffer(14), new DataView(new ArrayBuffer(4)), new Uint8Array(new ArrayBuffer(17), 3, 14),
  new Uint8Array(new SharedArrayBuffer(4)), new Uint8ClampedArray(14), new Uint16Array(7), new Int8Array(14),
  new Float64Array(2), new BigUint64Array(2), Buffer.from('USR0KHTOWnGLuC'), [], [''], [new Uint8Array(0)], [1, 'a'],
  { node: 3, previousMark: null }, { node: 3, previousMark: 1769526697641 }, { ttlMs: 30000, marginMs: 5000 },
  { ttlMs: '30000' }, { node: 1024, previousMark: -1 },
);
const typedArrays = fc.oneof(
  fc.uint8Array({ maxLength: 20 }),
  fc.uint8Array({ maxLength: 20 }).map((u) => Buffer.from(u)),
  fc.tuple(fc.uint8Array({ maxLength: 20 }), fc.nat(4)).map(([u, at]) => u.subarray(Math.min(at, u.length))),
  fc.int8Array({ maxLength: 8 }),
  fc.uint16Array({ maxLength: 8 }),
  fc.float64Array({ maxLength: 4 }),
  fc.bigUint64Array({ maxLength: 4 }),
);
// Values each function takes, so that the properties reach past the type
// checks: the answers of every API are compared on real work too.
const T_MIN = 1704067200000;
const instant = fc.oneof(fc.integer({ min: T_MIN - 1000, max: T_MIN + 2 ** 41 + 1000 }), fc.constantFrom(1769526697641, 1769526697641n));
const plausible = fc.oneof(
  fc.constantFrom('orders', 'pending', 'active', 'job', 'g:vip:pending', 'job:JOB0KHTOWnGLuC:lock', 'EVT', 'JOB', 'USR', 'version',
    'emq:{orders}:pending', 'emq:{orders}:job:JOB0KHTOWnGLuC:lock', '{emq}:version', '1704117200000-1620567', 'EVT000xY9Wvvcd'),
  validId,
  fc.tuple(fc.constantFrom('JOB', 'EVT'), snowflake).map(([ns, v]) => refEncode(ns, v)),
  validId.map(utf8),
  snowflake,
  fc.integer({ min: 0, max: 1100 }),
  instant,
  fc.integer({ min: -2, max: 100000 }),
  fc.record({ node: fc.integer({ min: 0, max: 1100 }), previousMark: fc.oneof(fc.constant(null), instant) }),
  fc.record({ ttlMs: fc.integer({ min: 0, max: 100000 }), marginMs: fc.integer({ min: 0, max: 70000 }) }, { requiredKeys: [] }),
  fc.array(keyInput, { maxLength: 6 }),
);
const anything = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withDate: true,
  withTypedArray: true,
  withSparseArray: true,
  withNullPrototype: true,
  withObjectString: true,
  values: [fc.constant(Symbol('nested')), codeUnits(8), fc.bigInt()],
});
const anyValue = fc.oneof(
  { arbitrary: plausible, weight: 4 },
  { arbitrary: anything, weight: 3 },
  { arbitrary: edgeValues, weight: 3 },
  { arbitrary: fc.bigInt(), weight: 1 },
  { arbitrary: fc.oneof(fc.double(), fc.integer(), fc.nat()), weight: 1 },
  { arbitrary: codeUnits(16), weight: 1 },
  { arbitrary: typedArrays, weight: 1 },
  { arbitrary: idInput, weight: 1 },
  { arbitrary: keyInput, weight: 1 },
  { arbitrary: fc.array(fc.oneof(keyInput, fc.anything()), { maxLength: 6 }), weight: 1 },
);
const anyArgs = fc.array(anyValue, { maxLength: 6 });

// Arguments of the right shape for each function, each replaced by any value
// one time in five: the answers for real work, and for one wrong argument
// among right ones (which refusal wins), compared across the APIs.
const nsArg = fc.oneof(namespace, namespace.map(utf8), fc.constantFrom('usr', 'US', 'USRX', '', 'ÉVT'));
const snowflakeArg = fc.oneof(snowflake, fc.constantFrom(-1n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 64n));
const queueArg = fc.oneof(
  fc.constantFrom('orders', 'a', 'q-1.x:y_z', '', 'a{b}', 'x'.repeat(128), 'x'.repeat(129), 'ordérs'),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', '.', ':', '-', '{', '}', ' '), maxLength: 10 }),
);
const typeArg = fc.constantFrom('pending', 'active', 'job', 'g:vip:pending', 'g:a:b:pending', 'job:JOB0KHTOWnGLuC:lock', 'done', '', 'job:', 'g:', 'g::pending');
const jobIdArg = fc.oneof(fc.tuple(fc.constant('JOB'), snowflake).map(([ns, v]) => refEncode(ns, v)), idLike);
const evtIdArg = fc.oneof(fc.tuple(fc.constant('EVT'), snowflake).map(([ns, v]) => refEncode(ns, v)), idLike);
const entryArg = fc.oneof(
  fc.tuple(fc.integer({ min: T_MIN - 10, max: T_MIN + 2 ** 41 + 10 }), fc.integer({ min: 0, max: 2 ** 22 + 1 })).map(([t, n]) => `${t}-${n}`),
  fc.constantFrom('1704117200000-1620567', '5-0', '-', '01-1', '1-01', '', '1704117200000-', '-1-1'),
);
const nodeArg = fc.oneof(fc.integer({ min: 0, max: 1023 }), fc.constantFrom(1024, -1, 1.5, 2 ** 32));
const monoArg = fc.integer({ min: 0, max: 100000 });
const acquiredArg = fc.record({ node: nodeArg, previousMark: fc.oneof(fc.constant(null), instant, fc.constant(-1)) });
const termsArg = fc.record({ ttlMs: fc.integer({ min: 0, max: 100000 }), marginMs: fc.integer({ min: 0, max: 70000 }) }, { requiredKeys: [] });
// Error replies as clients give them: the protocol's, redirects at the edges of their slots and ports, any text.
const errorReply = fc.oneof(
  fc.constantFrom('ERR EMQLEASE every node is leased', 'TRYAGAIN x', 'CLUSTERDOWN The cluster is down', 'NOREPLICAS x', 'READONLY x', 'ERR x', ''),
  fc
    .tuple(fc.constantFrom('ASK', 'MOVED', 'ask'), fc.integer({ min: -1, max: 16385 }), fc.constantFrom('10.0.0.2', '', '?', '[::1]', '::1'), fc.integer({ min: -1, max: 65536 }))
    .map(([code, slot, host, port]) => `${code} ${slot} ${host}:${port}`),
  codeUnits(24),
);
const outcomeArg = fc.constantFrom('counted', 'unacknowledged', 'gone', 'leased', 'ask', 'moved', 'not_run', 'fault', 'held', '');
const SIGNATURES = {
  Minter: [nodeArg, instant, instant],
  LeasedMinter: [acquiredArg, instant, monoArg, termsArg, instant, monoArg],
  encode: [nsArg, snowflakeArg],
  decode: [idInput],
  decodeSnowflake: [idInput],
  isValid: [idInput],
  compare: [idInput, idInput],
  hash32: [snowflakeArg],
  unixMs: [snowflakeArg],
  node: [snowflakeArg],
  seq: [snowflakeArg],
  minFor: [instant],
  slot: [keyInput],
  slotMany: [fc.array(keyInput, { maxLength: 8 })],
  hashtag: [keyInput],
  queueKey: [queueArg, typeArg],
  jobKey: [queueArg, jobIdArg],
  key: [queueArg, typeArg, fc.oneof(fc.constant(undefined), jobIdArg)],
  parseKey: [fc.oneof(fc.tuple(queueArg, typeArg).map(([q, t]) => `emq:{${q}}:${t}`), keyString)],
  reserve: [queueArg],
  queuePrefix: [queueArg],
  jobPrefix: [queueArg],
  prefixBytes: [queueArg, typeArg],
  xaddId: [evtIdArg],
  fromXaddId: [entryArg, fc.oneof(fc.constant(undefined), nsArg)],
  mint: [nsArg],
  mintMany: [nsArg, fc.integer({ min: 0, max: 50 })],
  mintStep: [snowflakeArg, nodeArg, instant],
  setNode: [nodeArg],
  leaseTerms: [fc.integer({ min: 0, max: 100000 }), fc.integer({ min: 0, max: 70000 })],
  parseAcquire: [fc.integer({ min: -1, max: 1100 }), fc.oneof(fc.constant(-1), instant, fc.integer({ min: -5, max: 5 }))],
  parseRenewal: [fc.integer({ min: -2, max: 3 })],
  parseWait: [fc.integer({ min: -2, max: 4 }), fc.integer({ min: -1, max: 4 })],
  leaseWaitMs: [fc.integer({ min: 0, max: 100000 }), fc.integer({ min: 0, max: 70000 })],
  parseAcquireError: [fc.constantFrom('ERR EMQLEASE every node is leased', 'EMQLEASE every node is leased', 'NOSCRIPT No matching script', '', 'ERR ')],
  readLeaseError: [errorReply, fc.boolean()],
  redirect: [errorReply],
  leaseOutcome: [fc.boolean(), fc.boolean()],
  leaseRenewEveryMs: [fc.integer({ min: 0, max: 100000 }), fc.integer({ min: 0, max: 70000 })],
  leaseRetryMs: [fc.integer({ min: 0, max: 100000 }), fc.integer({ min: 0, max: 70000 })],
  LeaseKeeper: [termsArg, monoArg, monoArg, outcomeArg, monoArg, monoArg, fc.boolean()],
};
const argsFor = (name) =>
  SIGNATURES[name] === undefined
    ? anyArgs
    : fc.oneof(anyArgs, fc.tuple(...SIGNATURES[name].map((a) => fc.oneof({ arbitrary: a, weight: 4 }, { arbitrary: anyValue, weight: 1 }))));

// ---------------------------------------------------------------- outcomes

const isTyped = (v) => ArrayBuffer.isView(v) && !(v instanceof DataView);

/** What a call did: a value (normalized for comparison), an EmqIdError's code, a TypeError's code, or anything else. */
function outcome(api, run) {
  try {
    return { value: normalize(api, run()) };
  } catch (e) {
    if (e instanceof api.EmqIdError) return { EmqIdError: e.code };
    if (e instanceof TypeError) return { TypeError: e.code ?? null, message: e.message };
    return { threw: e };
  }
}

function normalize(api, v) {
  if (isTyped(v)) return { [v.constructor.name]: [...v].map(String) };
  if (v instanceof api.EmqIdError) return { error: v.code, message: v.message };
  if (Array.isArray(v)) return v.map((x) => normalize(api, x));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(api, x)]));
  if (typeof v === 'bigint') return `${v}n`;
  return v;
}

// A whole-number count a batch call would honour: clamped so that a
// generated 2^31 does not ask one process for two billion ids. Counts the
// API refuses (negative, fractional, 2^32 and up, not a number) pass as they are.
function bounded(name, args) {
  if (name === 'mintMany' && Number.isInteger(args[1]) && args[1] > 4096 && args[1] < 2 ** 32 - 1) {
    return [args[0], args[1] % 4096, ...args.slice(2)];
  }
  return args;
}

// Functions whose answer depends on this process's state or clock: they must
// only keep to the three outcomes, not answer alike in every API.
const IMPURE = new Set(['mint', 'mintMany', 'setNode', 'processNode', 'monotonicMs', 'backend', 'backendInfo', 'selfCheck']);

function callers(api, name) {
  const f = api[name];
  if (name === 'Minter') {
    // A fresh minter per call, stepped with the given clock readings, so the APIs compare.
    return (args) => {
      const m = new api.Minter(args[0]);
      return [m.node, m.nextAt(args[1]), m.nextAt(args[2])];
    };
  }
  if (name === 'LeasedMinter') {
    return (args) => {
      const m = new api.LeasedMinter(args[0], args[1], args[2], args[3]);
      const got = [m.node, m.highWater, m.fenceMs];
      got.push(m.nextAt(args[4], args[5]));
      got.push(m.nextMark(args[4]));
      m.renewed(args[5], args[1]);
      m.stop();
      return got;
    };
  }
  if (name === 'LeaseKeeper') {
    // A keeper from the given start, asked once (released first when the last argument is true) and
    // settled once; and the refusal of that outcome.
    return (args) => {
      const k = new api.LeaseKeeper(args[0], args[1] ?? 0);
      const got = [k.phase, k.next(args[2])];
      if (args[6] === true) {
        k.release();
        got.push(k.phase, k.next(args[2]));
      }
      got.push(k.settle(args[3], args[4], args[5]), k.phase, k.asked, api.LeaseKeeper.refusal(args[3]));
      return got;
    };
  }
  if (name === 'EmqIdError') {
    // Its arguments are any values (a cyclic object among them): answer only what it made.
    return (args) => {
      const e = new api.EmqIdError(...args);
      return [e instanceof Error, e.name];
    };
  }
  return (args) => f(...args);
}

// Inputs that once broke a property, run first every time: [args] each.
const EXAMPLES = {
  // A hole in the keys: the addon refuses it as a key that is not a string
  // or a Uint8Array; the WebAssembly backend's forEach skipped it (slot 0).
  slotMany: [[[[,]]], [[['a', , 'b']]], [[new Array(2)]]],
};

const FUNCTIONS = Object.keys(reference).filter((k) => typeof reference[k] === 'function');

test('the APIs export the same functions, and this test calls every one', () => {
  for (const api of Object.values(apis)) {
    assert.deepEqual(Object.keys(api).filter((k) => typeof api[k] === 'function'), FUNCTIONS);
  }
  assert.ok(FUNCTIONS.length >= 30, FUNCTIONS.join(' '));
});

for (const name of FUNCTIONS) {
  test(`any JS value into ${name}: a value, an EmqIdError or a TypeError, in every API${IMPURE.has(name) ? '' : ', and the same in every API'}`, (t) => {
    const tally = { value: 0, EmqIdError: 0, TypeError: 0 };
    const codes = new Set();
    const uncoded = new Set();
    fc.assert(
      fc.property(argsFor(name), (raw) => {
        const args = bounded(name, raw);
        const got = API_NAMES.map((api) => outcome(apis[api], () => callers(apis[api], name)(args)));
        got.forEach((o, i) => {
          if ('threw' in o) assert.fail(`${API_NAMES[i]}: ${name} threw ${o.threw?.constructor?.name}: ${o.threw?.message ?? String(o.threw)}`);
          if ('EmqIdError' in o) {
            assert.ok(apis[API_NAMES[i]].GATES.includes(o.EmqIdError) || o.EmqIdError === 'self_check' || name === 'EmqIdError', `${API_NAMES[i]}: code ${o.EmqIdError}`);
            codes.add(o.EmqIdError);
          }
          if ('TypeError' in o && o.TypeError !== 'ERR_INVALID_ARG_TYPE') uncoded.add(o.message);
        });
        for (const o of got) tally[Object.keys(o)[0]]++;
        if (IMPURE.has(name) || name === 'EmqIdError') return;
        // Alike in every API: the same value, or the same error code. An
        // engine's own TypeError (no code) may word its message differently.
        const comparable = got.map(({ message, ...rest }) => ('TypeError' in rest ? rest : { ...rest, message }));
        for (let i = 1; i < got.length; i++) assert.deepEqual(comparable[i], comparable[0], `${API_NAMES[i]} and ${API_NAMES[0]} differ on ${name}`);
      }),
      { ...params, examples: EXAMPLES[name] ?? [] },
    );
    t.diagnostic(
      `${name}: ${RUNS} inputs x ${API_NAMES.length} APIs: ${tally.value} values, ${tally.EmqIdError} EmqIdError (${[...codes].sort().join(', ') || '-'}), ${tally.TypeError} TypeError` +
        (uncoded.size ? `; without the API's code: ${[...uncoded].slice(0, 3).join(' | ')}` : ''),
    );
  });
}

test('decode, decodeSnowflake, isValid and encode agree with the naive reference, and round-trip', (t) => {
  let accepted = 0;
  const gates = {};
  fc.assert(
    fc.property(idInput, (input) => {
      const want = refDecode(utf8(input));
      for (const [name, api] of Object.entries(apis)) {
        const got = outcome(api, () => api.decode(input));
        const snowflake = outcome(api, () => api.decodeSnowflake(input));
        if (want.gate) {
          assert.deepEqual(got, { EmqIdError: want.gate }, `${name}: decode(${JSON.stringify(String(input))})`);
          assert.deepEqual(snowflake, { EmqIdError: want.gate }, `${name}: decodeSnowflake`);
          assert.equal(api.isValid(input), false, name);
          continue;
        }
        assert.deepEqual(got, { value: normalize(api, want) }, `${name}: decode(${JSON.stringify(String(input))})`);
        assert.deepEqual(snowflake, { value: `${want.snowflake}n` }, `${name}: decodeSnowflake`);
        assert.equal(api.isValid(input), true, name);
        const text = typeof input === 'string' ? input : new TextDecoder().decode(input);
        assert.equal(api.encode(want.ns, want.snowflake), text, `${name}: encode(decode(x)) is x`);
        assert.equal(api.compare(input, text), 0, name);
      }
      if (want.gate) gates[want.gate] = (gates[want.gate] ?? 0) + 1;
      else accepted++;
    }),
    params,
  );
  t.diagnostic(`decode: ${RUNS} inputs x ${API_NAMES.length} APIs: ${accepted} accepted, refused ${JSON.stringify(gates)}`);
  assert.ok(accepted > 0 && Object.keys(gates).length === 4, 'every gate and acceptance are generated');
});

test('encode agrees with the naive reference on any namespace and snowflake', (t) => {
  let encoded = 0;
  const ns = fc.oneof(namespace, namespace.map(utf8), fc.string({ maxLength: 4 }), codeUnits(4), fc.uint8Array({ maxLength: 4 }));
  const s = fc.oneof(snowflake, fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.constantFrom(2n ** 63n, 2n ** 64n - 1n, 2n ** 64n, -1n));
  fc.assert(
    fc.property(ns, s, (n, v) => {
      const b = utf8(n);
      const ok = b.length === 3 && [...b].every((c) => c >= 0x41 && c <= 0x5a) && v >= 0n && v <= MAX_SNOWFLAKE;
      const want = ok ? { value: refEncode(String.fromCharCode(...b), v) } : { EmqIdError: 'range' };
      for (const [name, api] of Object.entries(apis)) assert.deepEqual(outcome(api, () => api.encode(n, v)), want, name);
      if (ok) encoded++;
    }),
    params,
  );
  t.diagnostic(`encode: ${RUNS} inputs x ${API_NAMES.length} APIs: ${encoded} encoded, ${RUNS - encoded} refused (range)`);
});

test('slot, hashtag and slotMany agree with the naive reference (CRC16-XMODEM bit by bit)', (t) => {
  let tagged = 0;
  let keys = 0;
  fc.assert(
    fc.property(keyInput, fc.array(keyInput, { maxLength: 8 }), (key, batch) => {
      const bytes = utf8(key);
      const [from, to] = refHashtag(bytes);
      const tag = bytes.subarray(from, to);
      if (to - from !== bytes.length) tagged++;
      for (const [name, api] of Object.entries(apis)) {
        assert.equal(api.slot(key), refSlot(bytes), `${name}: slot(${JSON.stringify(String(key))})`);
        const got = api.hashtag(key);
        if (typeof key === 'string') assert.equal(got, new TextDecoder().decode(tag), `${name}: hashtag`);
        else assert.deepEqual([...got], [...tag], `${name}: hashtag`);
        const many = api.slotMany(batch);
        assert.ok(many instanceof Uint16Array, name);
        assert.deepEqual([...many], batch.map((k) => refSlot(utf8(k))), `${name}: slotMany`);
      }
      keys += 1 + batch.length;
    }),
    params,
  );
  t.diagnostic(`slot: ${RUNS} keys (${tagged} with a non-empty tag) and ${keys - RUNS} keys in batches, x ${API_NAMES.length} APIs`);
});

// The Node addon's slotMany packs a batch of ASCII strings into one crossing
// and takes any other batch key by key: batches of ASCII keys, long ones
// among them, and the same with one other key (bytes, or not ASCII) put in.
const asciiKey = fc.oneof(
  fc.string({ unit: fc.constantFrom('{', '}', 'a', 'b', ':', '\0', '\x7f'), maxLength: 40 }),
  fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 6 })).map(([a, b]) => `emq:{${a}}:${b}`),
  fc.nat(3000).map((n) => `{${'k'.repeat(n)}}x`),
);

test('slotMany agrees with the reference on batches of ASCII keys, and with one other key among them', (t) => {
  let packable = 0;
  fc.assert(
    fc.property(fc.array(asciiKey, { maxLength: 64 }), fc.option(fc.tuple(fc.nat(), keyInput)), (ascii, other) => {
      const batch = [...ascii];
      if (other !== null) batch.splice(other[0] % (batch.length + 1), 0, other[1]);
      if (batch.every((k) => typeof k === 'string' && /^[\0-\x7f]*$/.test(k))) packable++;
      const want = batch.map((k) => refSlot(utf8(k)));
      for (const [name, api] of Object.entries(apis)) {
        assert.deepEqual([...api.slotMany(batch)], want, `${name}: slotMany`);
      }
    }),
    params,
  );
  t.diagnostic(`slotMany: ${RUNS} batches (${packable} all ASCII strings), x ${API_NAMES.length} APIs`);
});
