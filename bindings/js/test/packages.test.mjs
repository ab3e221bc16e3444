// Both npm packages are one API: the same exports, the same answers and the
// same errors for the same inputs — host-type errors included — whichever
// build answers (the Node package's addon, its WebAssembly fallback, the
// WebAssembly package). Also: every gate of the core maps to its JS code,
// and a build whose answers drift from the self-check vectors refuses to load.
// Run by `cargo xtask test` after both packages are built.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { loadApis, nodePkg, require, wasmPkg } from './apis.mjs';

const apis = loadApis();

test('each API says which build answers', () => {
  assert.deepEqual(Object.values(apis).map((a) => a.backend()), ['native', 'wasm', 'wasm']);
});

test('the same exports in every package and entry (CommonJS, ESM)', async () => {
  const keys = (m) => Object.keys(m).filter((k) => k !== 'default').sort();
  const want = keys(apis.native);
  for (const [name, api] of Object.entries(apis)) assert.deepEqual(keys(api), want, name);
  assert.deepEqual(keys(await import(nodePkg + 'index.mjs')), want, 'index.mjs');
  assert.deepEqual(keys(await import(wasmPkg + 'node.mjs')), want, 'node.mjs');
});

const ascii = (s) => new TextEncoder().encode(s);
const ID = 'USR0KHTOWnGLuC';
const JOB = 'JOB0KHTOWnGLuC';

// [call, arguments]: answers, gates and host-type errors alike.
const CASES = [
  ['decode', [ID]], ['decode', [ascii(ID)]], ['decode', [5]], ['decode', [undefined]], ['decode', ['USR0KHTOWnGLé']],
  ['decodeSnowflake', [ascii('usr0KHTOWnGLuC')]], ['decodeSnowflake', [{}]],
  ['encode', ['USR', 1n]], ['encode', [ascii('USR'), 1n]], ['encode', ['USR', 5]], ['encode', ['USR', '5']],
  ['encode', ['USR', -1n]], ['encode', ['USR', 2n ** 64n]], ['encode', [5, 1n]], ['encode', ['usr', 1n]],
  ['isValid', [ID]], ['isValid', [ascii(ID)]], ['isValid', [5]], ['isValid', [null]], ['isValid', ['x']],
  ['compare', [ID, 'USR0NgWEfAEJfs']], ['compare', [ID, ID]], ['compare', ['a', ID]], ['compare', [ID, 5]],
  ['hash32', [1n]], ['hash32', [-1n]], ['hash32', [1]], ['unixMs', [2n ** 64n - 1n]], ['node', ['1']], ['seq', [4095n]],
  ['minFor', [1769526697641]], ['minFor', [1769526697641n]], ['minFor', ['5']], ['minFor', [NaN]], ['minFor', [-1e300]],
  ['slot', ['emq:{orders}:pending']], ['slot', [ascii('\xff')]], ['slot', ['\uD800']], ['slot', [5]], ['slot', [new Uint16Array(2)]],
  ['slotMany', [['a', ascii('b'), '']]], ['slotMany', ['a']], ['slotMany', [[1]]], ['slotMany', [[]]],
  ['hashtag', ['foo{{bar}}zap']], ['hashtag', [ascii('{a}')]], ['hashtag', [5]],
  ['queueKey', ['orders', 'pending']], ['queueKey', [ascii('orders'), ascii('active')]], ['queueKey', ['a{b}', 'pending']],
  ['queueKey', ['orders', 'done']], ['queueKey', ['orders', 5]],
  ['jobKey', ['orders', JOB]], ['jobKey', ['orders', ascii(JOB)]], ['jobKey', ['orders', ID]], ['jobKey', ['orders', 5]],
  ['key', ['orders', 'job', ascii(JOB)]], ['key', ['orders', 'g:vip:pending']], ['key', ['orders', 'g:a:b:pending']],
  ['key', ['orders', 'job', null]],
  ['parseKey', ['emq:{orders}:job:JOB0KHTOWnGLuC:lock']], ['parseKey', [ascii('emq:{orders}:pending')]], ['parseKey', ['{emq}:version']],
  ['reserve', ['version']], ['reserve', [ascii('version')]], ['reserve', ['a b']], ['reserve', [5]],
  ['queuePrefix', ['orders']], ['queuePrefix', ['']],
  ['jobPrefix', ['orders']], ['jobPrefix', ['']], ['prefixBytes', ['orders', 'job:']], ['prefixBytes', ['orders', 'job']],
  ['xaddId', ['EVT000xY9Wvvcd']], ['xaddId', [ascii('EVT000xY9Wvvcd')]], ['xaddId', ['ORD000xY9Wvvcd']], ['xaddId', [5]],
  ['fromXaddId', ['1704117200000-1620567']], ['fromXaddId', ['1704117200000-1620567', ascii('ORD')]],
  ['fromXaddId', ['5-0']], ['fromXaddId', ['1704117200000-x']], ['fromXaddId', ['1-0', 5]],
  ['mintMany', ['job', 0]], ['mintMany', ['JOB', '5']], ['mintMany', ['JOB', -1]], ['mintMany', ['JOB', 1.5]],
  ['mintMany', ['JOB', 2 ** 32]], ['mintMany', [5, 1]],
  ['mintStep', [0n, 9, 1769526697641]], ['mintStep', [0n, 9, 1769526697641n]], ['mintStep', [-1n, 0, 0]],
  ['mintStep', [0n, 1024, 0]], ['mintStep', [0n, 1.5, 0]], ['mintStep', [0n, '9', 0]], ['mintStep', [0n, 9, 'now']],
  ['mintStep', [0n, 9, Infinity]], ['setNode', ['5']], ['setNode', [-1]], ['setNode', [2048]],
  ['Minter', [1.5]], ['Minter', ['1']], ['Minter', [1024]], ['Minter', [-1]], ['Minter', [undefined]],
  // Node leases (emq-lease/3).
  ['parseAcquire', [7, -1]], ['parseAcquire', [7, 1769526697641]], ['parseAcquire', [1024, -1]], ['parseAcquire', [7, -2]],
  ['parseAcquire', ['7', -1]], ['parseAcquire', [7, 1.5]], ['parseRenewal', [1]], ['parseRenewal', [0]], ['parseRenewal', [2]],
  ['parseAcquireError', ['ERR EMQLEASE every node is leased']], ['parseAcquireError', ['NOSCRIPT No matching script']],
  ['parseAcquireError', [undefined]], ['leaseTerms', []], ['leaseTerms', [3000]], ['leaseTerms', [30000, 20001]],
  ['leaseTerms', [2, 1]], ['leaseTerms', ['30000']],
  ['parseWait', [1, 1]], ['parseWait', [2, 1]], ['parseWait', [0, 0]], ['parseWait', [0, 1]], ['parseWait', [1, 2]],
  ['parseWait', [-1, 1]], ['parseWait', [1, -1]], ['parseWait', [1, 2 ** 32]], ['parseWait', [1, 1.5]], ['parseWait', ['1', 1]],
  ['parseWait', [1]], ['leaseWaitMs', []], ['leaseWaitMs', [3000]], ['leaseWaitMs', [3000, 500]], ['leaseWaitMs', [3, 1]],
  ['leaseWaitMs', [10, 10]], ['leaseWaitMs', ['30000']], ['leaseWaitMs', [30000, -1]],
  ['LeasedMinter', [{ node: 3, previousMark: 1769526732641 }, 1769526697641, 0, { ttlMs: 30000, marginMs: 5000 }]],
  ['LeasedMinter', [{ node: 3, previousMark: null }, 1769526697641, 0]], ['LeasedMinter', [{ node: 1024, previousMark: null }, 1, 0]],
  ['LeasedMinter', [{ node: 3, previousMark: null }, 1769526697641, 0, { ttlMs: 10, marginMs: 10 }]], ['LeasedMinter', [null, 1, 0]],
  ['LeasedMinter', [{ node: 3, previousMark: null }, 1769526697641, 0, 5]],
  // The lease keeper.
  ['readLeaseError', ['ASK 9051 10.0.0.2:7001']], ['readLeaseError', ['ASK 9051 10.0.0.2:7001', true]],
  ['readLeaseError', ['CLUSTERDOWN The cluster is down', false]], ['readLeaseError', ['ERR EMQLEASE every node is leased']],
  ['readLeaseError', ['']], ['readLeaseError', [5]], ['readLeaseError', ['MOVED 1 a:1', 'yes']],
  ['redirect', ['MOVED 9051 [2001:db8::1]:7001']], ['redirect', ['ASK 9051 ?:7001']], ['redirect', ['ASK 16384 a:1']],
  ['redirect', ['TRYAGAIN x']], ['redirect', [null]], ['leaseOutcome', [true, true]], ['leaseOutcome', [true, false]],
  ['leaseOutcome', [false, true]], ['leaseOutcome', [1, true]], ['leaseRenewEveryMs', []], ['leaseRenewEveryMs', [3, 1]],
  ['leaseRenewEveryMs', [2, 1]], ['leaseRenewEveryMs', ['3000']], ['leaseRetryMs', []], ['leaseRetryMs', [2000, 333]],
  ['leaseRetryMs', [3, 1]], ['leaseRetryMs', [3000, 2001]], ['leaseRetryMs', [3000, 1.5]],
  ['LeaseKeeper', [{ ttlMs: 3000, marginMs: 500 }, 0]], ['LeaseKeeper', [{}, 0]], ['LeaseKeeper', [{ ttlMs: 2 }, 0]],
  ['LeaseKeeper', [{ ttlMs: 3000 }, -1]], ['LeaseKeeper', [{ ttlMs: 3000 }, '0']], ['LeaseKeeper', [null, 0]],
];

/**
 * A keeper's first steps: a write that did not run, one that counted, a renewal, the lease expired; then a
 * release moved, followed through an ASK, and run.
 */
function keeperRun(k) {
  const held = [k.phase, k.next(0), k.settle('not_run', 0, 0), k.settle('counted', 150, 160), k.phase, k.next(1160), k.next(9000), k.phase];
  k.release();
  const released = [k.phase, k.next(9001), k.settle('moved', 9001, 9002), k.settle('ask', 9002, 9003), k.settle('counted', 9003, 9004), k.phase];
  return [...held, ...released];
}

function outcome(api, [call, args]) {
  try {
    const v =
      call === 'Minter'
        ? new api.Minter(...args).nextAt(1769526697641)
        : call === 'LeasedMinter'
          ? new api.LeasedMinter(...args).nextAt(1769526697641, 0)
          : call === 'LeaseKeeper'
            ? keeperRun(new api.LeaseKeeper(...args))
            : api[call](...args);
    if (v instanceof Uint8Array || v instanceof Uint16Array) return { value: [...v], type: v.constructor.name };
    if (v instanceof Error) return { value: { error: v.code, message: v.message } };
    return { value: v };
  } catch (e) {
    if (e instanceof api.EmqIdError) return { EmqIdError: e.code };
    if (e instanceof TypeError) return { TypeError: e.code };
    return { threw: String(e) };
  }
}

test('the same answers and the same errors for the same inputs, in every package', () => {
  for (const c of CASES) {
    const want = outcome(apis.native, c);
    assert.ok(!('threw' in want), `${c[0]}: ${want.threw}`);
    for (const [name, api] of Object.entries(apis)) assert.deepEqual(outcome(api, c), want, `${name}: ${c[0]}(${c[1].map(String)})`);
  }
});

const S1 = 274557032793636864n;

test('values have their documented JS types, in every package', () => {
  for (const [name, emq] of Object.entries(apis)) {
    assert.deepEqual(emq.decode('USR0KHTOWnGLuC'), { ns: 'USR', snowflake: S1, unixMs: 1769526697641, node: 0, seq: 0 }, name);
    assert.equal(emq.encode('USR', S1), 'USR0KHTOWnGLuC', name);
    assert.equal(typeof emq.hash32(S1), 'number', name);
    assert.equal(typeof emq.minFor(1769526697641), 'bigint', name);
    assert.equal(typeof emq.decodeSnowflake('USR0KHTOWnGLuC'), 'bigint', name);
    const m = new emq.Minter(4);
    assert.equal(m.nextAt(1769526697000n), m.nextAt(1769526697000) - 1n, name);
    assert.equal(typeof m.next(), 'bigint', name);
    assert.ok(emq.slotMany(['a', 'b']) instanceof Uint16Array, name);
    assert.ok(emq.hashtag(Buffer.from('{a}')) instanceof Uint8Array, name);
    assert.equal(emq.hashtag('{a}'), 'a', name);
    assert.equal(emq.hashtag('foo{{bar}}zap'), '{bar', name);
    // The tag is cut from the key in JS when the key fits the WebAssembly
    // scratch buffer as bytes; past it, or not ASCII, the export copies it out.
    for (const pad of [0, 300]) {
      const x = 'x'.repeat(pad);
      assert.equal(emq.hashtag(`${x}emq:{orders}:pending`), 'orders', name);
      assert.equal(emq.hashtag(`${x}a{é🚀}b`), 'é🚀', name);
      assert.equal(emq.hashtag(`${x}{}{q}`), `${x}{}{q}`, name);
      const key = Buffer.from(`${x}k{tag}`);
      const tag = emq.hashtag(key);
      assert.ok(tag.constructor === Uint8Array, `${name}: a plain Uint8Array`);
      assert.deepEqual([...tag], [...Buffer.from('tag')], name);
      tag[0] = 0x41; // a copy: the key is untouched
      assert.equal(key.toString(), `${x}k{tag}`, name);
    }
  }
});

test('wrong JS types are TypeErrors, and no input crashes the process, in every package', () => {
  for (const [name, emq] of Object.entries(apis)) {
    for (const bad of [undefined, null, 5, {}, [], () => 1, Symbol('x'), new Uint16Array(2)]) {
      assert.throws(() => emq.slot(bad), TypeError, name);
      assert.throws(() => emq.decode(bad), TypeError, name);
    }
    assert.throws(() => emq.slotMany('not an array'), TypeError, name);
  }
});

test('strings are keys as UTF-8 bytes, lone surrogates as U+FFFD (what Buffer.from sends), in every package', () => {
  for (const [name, emq] of Object.entries(apis)) {
    for (const key of ['emq:{q}:pending', 'naïve{café}', '🚀', 'x{🚀}y', '\uD800', 'a\uDC00b{\uD83D}']) {
      assert.equal(emq.slot(key), emq.slot(Buffer.from(key)), `${name}: ${key}`);
    }
    assert.equal(emq.slot('\uD800'), emq.slot(Buffer.from([0xef, 0xbf, 0xbd])), name);
    assert.equal(emq.slot('k'.repeat(5000) + '{tag}'), emq.slot('tag'), name);
    assert.equal(emq.slot(''), 0, name);
    const keys = [emq.queueKey('orders', 'pending'), emq.queueKey('orders', 'active'), emq.jobKey('orders', 'JOB0KHTOWnGLuC'), new Uint8Array([0xff]), '', 'x{🚀}y'];
    const slots = [emq.slot('orders'), emq.slot('orders'), emq.slot('orders'), emq.slot(new Uint8Array([0xff])), 0, emq.slot('🚀')];
    assert.deepEqual([...emq.slotMany(keys)], slots, `${name}: slotMany agrees with slot`);
    assert.equal(emq.key('orders', 'job', 'JOB0KHTOWnGLuC'), keys[2], name);
  }
});

test('every gate is reachable through a public call, with its code and the EmqIdError class, in every package', () => {
  const cases = [
    [(emq) => emq.decode('USR0KHTOWnGLu'), 'length'],
    [(emq) => emq.decode('usr0KHTOWnGLuC'), 'namespace'],
    [(emq) => emq.decode('USR0KHTOWnGL!C'), 'charset'],
    [(emq) => emq.decode('USRzzzzzzzzzzz'), 'range'],
    [(emq) => emq.decode(new Uint8Array([0x55, 0x53, 0x52, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), 'charset'],
    [(emq) => emq.decode(Buffer.from([0x55, 0x53, 0x52, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), 'charset'],
    [(emq) => emq.decode('USR0KHTOWnGLé'), 'charset'], // 13 characters, 14 UTF-8 bytes
    [(emq) => emq.encode('USR', 1n << 63n), 'range'],
    [(emq) => emq.encode('usr', 0n), 'range'],
    [(emq) => emq.queueKey('a{b}', 'pending'), 'queue'],
    [(emq) => emq.queueKey('orders', 'done'), 'kind'],
    [(emq) => emq.jobKey('orders', 'USR0KHTOWnGLuC'), 'kind'],
    [(emq) => emq.key('orders', 'g:a:b:pending'), 'kind'],
    [(emq) => emq.parseKey('{emq}:version'), 'queue'],
    [(emq) => emq.reserve('a b'), 'kind'],
    [(emq) => emq.prefixBytes('orders', 'job'), 'kind'],
    [(emq) => emq.xaddId('ORD000xY9Wvvcd'), 'kind'],
    [(emq) => emq.fromXaddId('1704117200000-x'), 'charset'],
    [(emq) => emq.fromXaddId('5-0'), 'range'],
    [(emq) => new emq.Minter(1024), 'range'],
    [(emq) => emq.minFor(1704067200000 + 2 ** 41), 'range'],
  ];
  for (const [name, emq] of Object.entries(apis)) {
    for (const [i, [f, code]] of cases.entries()) {
      const is = (e) => e instanceof emq.EmqIdError && e instanceof Error && e.code === code && e.message.startsWith(code);
      assert.throws(() => f(emq), is, `${name}: case ${i}`);
    }
  }
});

test('64-bit values are bigint only: numbers, negatives and 2^64 are range, never wrapped, in every package', () => {
  for (const [name, emq] of Object.entries(apis)) {
    for (const bad of [5, 2 ** 60, -1n, 2n ** 64n, 2n ** 64n + 5n, '5', undefined]) {
      assert.throws(() => emq.hash32(bad), { code: 'range' }, `${name}: ${String(bad)}`);
      assert.throws(() => emq.encode('USR', bad), { code: 'range' }, `${name}: ${String(bad)}`);
      assert.throws(() => emq.unixMs(bad), { code: 'range' }, `${name}: ${String(bad)}`);
    }
    assert.equal(emq.hash32(2n ** 64n - 1n), emq.hash32(18446744073709551615n), name);
    for (const f of [() => emq.minFor(NaN), () => emq.minFor(Infinity), () => emq.mintStep(-1n, 0, 0), () => new emq.Minter(1.5)]) {
      assert.throws(f, { code: 'range' }, name);
    }
  }
});

test('the keyspace: every family as the bus writes it, keys read back, the reserve, stream entry ids, in every package', () => {
  for (const [name, emq] of Object.entries(apis)) {
    assert.equal(emq.key('orders', 'g:vip:pending'), 'emq:{orders}:g:vip:pending', name);
    assert.deepEqual({ ...emq.parseKey('emq:{orders}:job:JOB0KHTOWnGLuC:lock') }, { queue: 'orders', family: 'job:<id>:lock', param: 'JOB0KHTOWnGLuC' }, name);
    assert.deepEqual(JSON.parse(JSON.stringify(emq.parseKey('emq:{orders}:pending'))), { queue: 'orders', family: 'pending' }, name);
    assert.equal(emq.reserve('version'), '{emq}:version', name);
    assert.equal(emq.queuePrefix('orders'), 'emq:{orders}:', name);
    assert.equal(emq.jobPrefix('orders'), 'emq:{orders}:job:', name);
    assert.equal(emq.prefixBytes('orders', 'job:'), 17, name);
    assert.equal(emq.xaddId('EVT000xY9Wvvcd'), '1704117200000-1620567', name);
    assert.equal(emq.fromXaddId('1704117200000-1620567'), 'EVT000xY9Wvvcd', name);
    assert.equal(emq.fromXaddId('1704117200000-1620567', 'ORD'), 'ORD000xY9Wvvcd', name);
    assert.equal(emq.KEYSPACE, 'emq-keyspace/2', name);
    assert.throws(() => emq.reserve(5), TypeError, name);
    assert.throws(() => emq.slot(5), TypeError, name);
  }
});

// Keys for slotMany's packing, which copies ASCII strings code by code and
// hands any other string to TextEncoder from where the key starts: every side
// of that line, next to each other in one batch.
const PACKED_KEYS = [
  'emq:{orders}:pending', '', 'a', '\0\x7f', // ASCII, its edges
  '\x80', 'é', '{é}', '\u07ff\u0800', '\uffff', 'emq:{orders}:job:é', // the BMP past ASCII, after an ASCII run
  '🚀', 'x{🚀}y', '\ud83d\ude80\ud83d\ude80', // astral (surrogate pairs)
  '\ud800', '\udc00', 'a\ud800', '\udfffb', '{\ud800}', '\ude80\ud83d', 'x\ud83d', // lone surrogates: U+FFFD each
  'x'.repeat(300), `${'é'.repeat(150)}{🚀}`, // past the 256-byte scratch buffer, where slot() takes its other path
  ascii('emq:{orders}:x'), new Uint8Array([0xff, 0x7b, 0x80, 0x7d]), new Uint8Array(0), // bytes between strings
];

test('slotMany answers slot of each key, whatever the keys beside it (ASCII, BMP, astral, lone surrogates, empty)', () => {
  const utf8 = (k) => (typeof k === 'string' ? new TextEncoder().encode(k) : k);
  for (const [name, api] of Object.entries(apis)) {
    const want = PACKED_KEYS.map((k) => api.slot(k));
    // The UTF-8 a string stands for (a lone surrogate is U+FFFD's), in every API.
    assert.deepEqual(want, PACKED_KEYS.map((k) => api.slot(utf8(k))), `${name}: slot of a string is slot of its UTF-8`);
    assert.deepEqual([...api.slotMany(PACKED_KEYS)], want, `${name}: one batch`);
    assert.deepEqual([...api.slotMany([...PACKED_KEYS].reverse())], [...want].reverse(), `${name}: reversed`);
    PACKED_KEYS.forEach((k, i) => assert.deepEqual([...api.slotMany([k])], [want[i]], `${name}: ${JSON.stringify(String(k))} alone`));
    // Each key between a non-ASCII one and an ASCII one, at every offset.
    const [e, a] = [api.slot('é'), api.slot('a')];
    PACKED_KEYS.forEach((k, i) => assert.deepEqual([...api.slotMany(['é', k, 'a'])], [e, want[i], a], `${name}: key ${i} between two`));
  }
});

// Node 20's optimiser (V8 11.3) could read a string's length ahead of the
// typeof test guarding it: once a slotMany that packs keys had been compiled
// on string keys, a number key crashed the process (SIGSEGV) where it must
// throw. Each child process runs every API over 100,000 batches of up to five
// keys, each one a packable string nineteen times in twenty, else a key
// packed another way (not ASCII, bytes) or one refused (a number, null); three
// children, since the compiler runs on a thread of its own and timing varies.
test('slotMany refuses a number among string keys once optimised, in every API, and never crashes', () => {
  const child = (seed) => `import { loadApis } from ${JSON.stringify(new URL('./apis.mjs', import.meta.url).href)};
    const packable = ['emq:{orders}:pending', 'a{b}c', ''];
    const other = ['é', 'a\ud800', new Uint8Array([1, 2]), 1, null];
    const counts = [];
    for (const api of Object.values(loadApis())) {
      let x = ${seed}, refused = 0, bad = 0;
      const next = (n) => (x = (x * 1103515245 + 12345) & 0x7fffffff) % n;
      for (let round = 0; round < 100000; round++) {
        const keys = Array.from({ length: next(6) }, () => (next(20) ? packable[next(3)] : other[next(5)]));
        bad += keys.some((k) => k === 1 || k === null) ? 1 : 0;
        try { api.slotMany(keys); } catch (e) { refused += e instanceof TypeError && e.code === 'ERR_INVALID_ARG_TYPE' ? 1 : 0; }
      }
      counts.push([refused, bad]);
    }
    console.log(JSON.stringify(counts));`;
  for (const seed of [1, 2, 3]) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child(seed)], { encoding: 'utf8' });
    assert.equal(r.signal, null, `seed ${seed}: killed by ${r.signal}`);
    JSON.parse(r.stdout).forEach(([refused, bad], i) => {
      assert.ok(bad > 0 && refused === bad, `seed ${seed}, ${Object.keys(apis)[i]}: ${refused} refused of ${bad} batches with a number or null (${r.stderr})`);
    });
  }
});

// What each gate of the core must be in JS. A gate the core adds fails here
// until it has a row: walking the core's list, not this table, decides.
const JS_CODE = { length: 'length', namespace: 'namespace', charset: 'charset', range: 'range', queue: 'queue', kind: 'kind', node: 'node' };

const { makeApi } = require(wasmPkg + 'api.cjs');
const backends = {
  native: () => require(nodePkg + 'native.js').nativeBackend(require(nodePkg + 'emq-id.linux-x64-gnu.node')),
  wasm: () => require(wasmPkg + 'backend.cjs').wasmBackend(require(wasmPkg + 'node/emq_id_wasm.js')),
};

test('every gate of the core reaches JS through the one error helper, with its code', () => {
  for (const [name, make] of Object.entries(backends)) {
    const b = make();
    // reserve() is not among the self-check's calls: here it throws the probe's error.
    const api = makeApi({ ...b, reserve: (gate) => b.gateError(new TextDecoder().decode(gate instanceof Uint8Array ? gate : ascii(gate))) }, { name });
    assert.ok(api.GATES.length >= 7, name);
    for (const gate of api.GATES) {
      assert.ok(gate in JS_CODE, `${name}: the core's gate ${gate} has no JS code in this test's table`);
      assert.throws(() => api.reserve(gate), (e) => e instanceof api.EmqIdError && e.code === JS_CODE[gate] && e.message.startsWith(`${gate}: `), `${name}: ${gate}`);
    }
    assert.deepEqual(Object.keys(JS_CODE).sort(), [...api.GATES].sort(), `${name}: the table names a gate the core does not have`);
  }
});

test('a lease write counts once acknowledged: parseWait, leaseWaitMs and LEASE_REPLICAS (on every backend)', () => {
  for (const [name, api] of Object.entries(apis)) {
    assert.equal(api.LEASE_REPLICAS, 1, name);
    assert.equal(api.LEASE_PROTOCOL, 'emq-lease/3', name);
    // The one lease key, a text of the core's, in the reserve's slot (the version key's).
    assert.equal(api.LEASE_KEY, '{emq}:leases', name);
    assert.equal(api.slot(api.LEASE_KEY), api.slot(api.VERSION_KEY), name);
    for (const gone of ['leasePrefix', 'leaseKey', 'markKey']) assert.equal(api[gone], undefined, `${name}: ${gone}`);
    assert.equal(api.parseWait(1, api.LEASE_REPLICAS), undefined, name);
    assert.equal(api.parseWait(0, 0), undefined, name);
    assert.throws(
      () => api.parseWait(1, 3),
      (e) => e instanceof api.EmqIdError && e.code === 'node' && e.acknowledged === 1 && e.replicas === 3 &&
        e.message.startsWith('node: acknowledged by 1 of 3 replicas: '),
      name,
    );
    assert.throws(() => api.parseWait(0, 1), (e) => e.message.startsWith('node: acknowledged by 0 of 1 replica: '), name);
    // Word for word the core's message, whichever backend answers.
    const message = (a) => {
      try {
        a.parseWait(1, 2);
      } catch (e) {
        return e.message;
      }
      return 'no refusal';
    };
    assert.equal(message(api), message(apis.native), name);
    assert.throws(() => api.parseWait(-1, 1), (e) => e.code === 'range' && e.acknowledged === undefined, name);
    assert.equal(api.leaseWaitMs(), 2500, name);
    assert.equal(api.leaseWaitMs(3000, 500), 250, name);
    assert.equal(api.leaseWaitMs(3, 1), 1, name);
    assert.equal(api.leaseWaitMs(3000), api.leaseWaitMs(3000, api.leaseTerms(3000).marginMs), name);
    assert.throws(() => api.leaseWaitMs(10, 10), { code: 'range' }, name);
  }
});

test('a leased minter: the hand-over, the mark and the fence (on every backend)', () => {
  const T = 1769526697641;
  for (const [name, api] of Object.entries(apis)) {
    assert.deepEqual(Object.keys(api.LEASE_SCRIPTS), ['acquire', 'renew', 'release'], name);
    // The previous owner's clock ran 5 s ahead: its mark is in our future, and we start after it.
    const m = new api.LeasedMinter({ node: 3, previousMark: T + 35000 }, T, 0, { ttlMs: 30000, marginMs: 5000 });
    assert.equal(api.unixMs(m.nextAt(T, 0)), T + 35001, name);
    assert.equal(m.node, 3);
    // The fence is on the monotonic clock: 25 s after the acquire was sent, whatever the wall clock says.
    assert.ok(m.nextAt(T, 24999));
    assert.throws(() => m.nextAt(T + 60000, 25000), { code: 'node' }, name);
    const mark = m.nextMark(T + 20000);
    m.renewed(20000, mark);
    assert.ok(m.nextAt(T + 20000, 44999));
    assert.throws(() => m.nextAt(T + 20000, 45000), { code: 'node' }, name);
    assert.equal(m.fenceMs, 45000);
    m.stop();
    assert.throws(() => m.nextAt(T + 20000, 21000), { code: 'node' }, name);
    // A burst stops at the mark it stored (start + TTL): 4 ms of ids for a 3 ms TTL.
    const b = new api.LeasedMinter({ node: 4, previousMark: null }, T, 0, { ttlMs: 3, marginMs: 1 });
    let n = 0;
    try {
      for (;;) (b.nextAt(T, 0), n++);
    } catch (e) {
      assert.equal(e.code, 'node', name);
    }
    assert.equal(n, 4 * 4096, name);
    assert.equal(b.highWater, T + 3, name);
  }
});

test('a build whose answers drift from the self-check vectors refuses to load, naming the line', () => {
  for (const [name, make] of Object.entries(backends)) {
    const b = make();
    const drifts = [
      ['slot', { slot: (k) => b.slot(k) + (String(k) === '{fills}' ? 1 : 0) }, /at "slot \{fills\} 4165": got "4166"/],
      ['decode', { decode: (t) => ({ ...b.decode(t), seq: 7 }) }, /at "decode USR0KHTOWnGLuC USR .*": got "USR 274557032793636864 1769526697641 0 7 234878118"/],
      ['error mapping', { decode: (t) => (String(t) === 'USR0KHTOWnGLu' ? b.decode('USR0KHTOWnGL!C') : b.decode(t)) }, /at "reject USR0KHTOWnGLu length": got "error charset"/],
      ['vectors', { selfCheckVectors: () => b.selfCheckVectors().replace('hashtag foo{{bar}}zap {bar', 'hashtag foo{{bar}}zap bar') }, /got "\{bar"/],
      ['unknown check', { selfCheckVectors: () => b.selfCheckVectors() + 'ulid 01H 5\n' }, /at "ulid 01H 5"/],
    ];
    for (const [what, patch, message] of drifts) {
      assert.throws(() => makeApi({ ...b, ...patch }, { name: 'the test package' }), (e) => {
        assert.match(e.message, /^the test package refuses to load: self_check: /, `${name}, ${what}`);
        assert.match(e.message, message, `${name}, ${what}`);
        return true;
      });
    }
    assert.equal(makeApi(b, { name }).backend(), name, 'the unpatched backend loads');
  }
});

test('the lease keeper: error replies, redirects, the schedule and the refusals, from the core (on every backend)', () => {
  for (const [name, api] of Object.entries(apis)) {
    // What an error reply means; a write sent after ASKING is never redirected again.
    const read = (text, asked) => api.readLeaseError(text, asked);
    assert.equal(read('ERR EMQLEASE every node is leased'), 'leased', name);
    assert.equal(read('ASK 9051 10.0.0.2:7001'), 'ask', name);
    assert.equal(read('ASK 9051 10.0.0.2:7001', true), 'fault', name);
    assert.equal(read('MOVED 9051 10.0.0.2:7001', true), 'moved', name);
    assert.equal(read("READONLY You can't write against a read only replica."), 'moved', name);
    for (const code of ['TRYAGAIN', 'CLUSTERDOWN', 'LOADING', 'MASTERDOWN', 'BUSY', 'NOREPLICAS', 'OOM', 'MISCONF']) assert.equal(read(`${code} x`), 'not_run', `${name}: ${code}`);
    assert.equal(read('ERR Error running script'), 'fault', name);
    assert.deepEqual([api.leaseOutcome(true, true), api.leaseOutcome(true, false), api.leaseOutcome(false, false)], ['counted', 'unacknowledged', 'gone'], name);
    // Where a redirect sends the write; no host named: the redirected connection's.
    assert.deepEqual(api.redirect('ASK 9051 10.0.0.2:7001'), { ask: true, slot: 9051, host: '10.0.0.2', port: 7001 }, name);
    assert.deepEqual(api.redirect('MOVED 0 [2001:db8::1]:6379'), { ask: false, slot: 0, host: '2001:db8::1', port: 6379 }, name);
    assert.deepEqual(api.redirect('MOVED 16383 :7001'), { ask: false, slot: 16383, host: null, port: 7001 }, name);
    for (const text of ['MOVED 16384 a:1', 'ASK 1 a:65536', 'ASK 1', 'CLUSTERDOWN The cluster is down', '']) assert.equal(api.redirect(text), null, `${name}: ${text}`);
    // The terms' schedule.
    assert.deepEqual([api.leaseRenewEveryMs(), api.leaseRetryMs()], [10000, 250], name);
    assert.deepEqual([api.leaseRenewEveryMs(2000, 333), api.leaseRetryMs(2000, 333)], [666, 100], name);
    assert.deepEqual([api.leaseRenewEveryMs(3, 1), api.leaseRetryMs(3, 1)], [1, 10], name);
    assert.throws(() => api.leaseRetryMs(10, 10), { code: 'range' }, name);
    // A keeper: the cluster not up yet, then a lease held and renewed, then a whole TTL unanswered.
    const k = new api.LeaseKeeper({ ttlMs: 3000, marginMs: 500 }, 0);
    assert.equal(k.phase, 'starting', name);
    assert.equal(k.next(0), 'acquire', name);
    assert.deepEqual(k.settle('not_run', 0, 0), { action: 'retry', afterMs: 150 }, name);
    assert.deepEqual(k.settle('counted', 150, 160), { action: 'publish', afterMs: 1000 }, name);
    assert.equal(k.phase, 'held', name);
    assert.equal(k.next(1160), 'renew', name);
    assert.deepEqual(k.settle('ask', 1160, 1165), { action: 'follow', afterMs: 0 }, name);
    assert.equal(k.asked, true, name);
    assert.deepEqual(k.settle('ask', 1165, 1170), { action: 'reconnect', afterMs: 150 }, `${name}: an ASK is followed once`);
    assert.equal(k.asked, false, name);
    assert.equal(k.next(3149), 'renew', name);
    assert.equal(k.next(3150), 'expired', name);
    assert.equal(k.phase, 'unleased', name);
    // A release through the keeper: followed through an ASK, sent again after MOVED or a refusal that did not
    // run (after retry_ms), three sends at most; ended by `released` (it ran, 1 or 0) or `give_up`.
    const r = new api.LeaseKeeper({ ttlMs: 3000, marginMs: 500 }, 0);
    r.settle('counted', 0, 0);
    r.release();
    assert.equal(r.phase, 'releasing', name);
    assert.equal(r.next(5000), 'release', `${name}: a release is due whatever the clock`);
    assert.deepEqual(r.settle('ask', 5000, 5001), { action: 'follow', afterMs: 0 }, name);
    assert.equal(r.asked, true, name);
    assert.deepEqual(r.settle('gone', 5001, 5002), { action: 'released', afterMs: 0 }, name);
    assert.equal(r.phase, 'unleased', name);
    r.release();
    assert.deepEqual(r.settle('moved', 6000, 6001), { action: 'reroute', afterMs: 0 }, name);
    assert.deepEqual(r.settle('not_run', 6001, 6002), { action: 'retry', afterMs: 150 }, name);
    assert.deepEqual(r.settle('not_run', 6152, 6153), { action: 'give_up', afterMs: 0 }, `${name}: three sends at most`);
    assert.equal(r.phase, 'unleased', name);
    r.release();
    assert.deepEqual(r.settle('fault', 7000, 7001), { action: 'give_up', afterMs: 0 }, `${name}: a release's fault`);
    r.release();
    assert.deepEqual(r.settle('counted', 7100, 7101), { action: 'released', afterMs: 0 }, `${name}: tries count per release`);
    // Patience while starting: a TTL from the first try, then the core's refusal.
    const s = new api.LeaseKeeper({ ttlMs: 600 }, 1000);
    assert.deepEqual(s.settle('moved', 1000, 1599), { action: 'reroute', afterMs: 30 }, name);
    assert.deepEqual(s.settle('not_run', 1599, 1600), { action: 'give_up', afterMs: 0 }, name);
    const refusal = api.LeaseKeeper.refusal('not_run');
    assert.ok(refusal instanceof api.EmqIdError && refusal.code === 'node' && refusal.message.startsWith('node: '), name);
    assert.equal(api.LeaseKeeper.refusal('leased')?.code, 'node', name);
    assert.equal(api.LeaseKeeper.refusal('leased')?.message, api.parseAcquireError('EMQLEASE every node is leased').message, name);
    for (const o of ['counted', 'unacknowledged', 'gone', 'ask', 'fault']) assert.equal(api.LeaseKeeper.refusal(o), null, `${name}: ${o}`);
    // The gates: bad terms and times are range; an outcome the core does not have, range; wrong types, TypeErrors.
    assert.throws(() => new api.LeaseKeeper({ ttlMs: 3000, marginMs: 2001 }, 0), { code: 'range' }, name);
    assert.throws(() => new api.LeaseKeeper({ ttlMs: 2 }), { code: 'range' }, name);
    assert.throws(() => k.next(-1), { code: 'range' }, name);
    assert.throws(() => k.settle('done', 0, 0), { code: 'range' }, name);
    assert.throws(() => api.LeaseKeeper.refusal('Counted'), { code: 'range' }, name);
    assert.throws(() => k.settle(1, 0, 0), TypeError, name);
    assert.throws(() => k.next('0'), TypeError, name);
    assert.throws(() => new api.LeaseKeeper(5, 0), TypeError, name);
    assert.throws(() => api.readLeaseError('MOVED 1 a:1', 1), TypeError, name);
    assert.throws(() => api.redirect(undefined), TypeError, name);
  }
});
