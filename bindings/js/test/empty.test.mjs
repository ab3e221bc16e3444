// Empty inputs in every API (the Node package's addon, its WebAssembly
// fallback, the WebAssembly package): the empty string, every kind of empty
// Uint8Array (an N-API buffer of length 0 may have a NULL data pointer, and a
// detached one has), an empty batch, a count of 0. Each answers what the
// contract says of the empty bytes, and the same in every API.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { loadApis } from './apis.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// mint and mintMany take a node on this host: here, in a directory of this run's own.
const claims = mkdtempSync(join(tmpdir(), 'emq-id-js-empty-'));
process.env.EMQ_NODE_DIR = claims;
process.env.EMQ_NODE = '8';
after(() => rmSync(claims, { recursive: true, force: true }));

const apis = loadApis();

const ID = 'USR0KHTOWnGLuC';

// Every way to hold no bytes. Each is made fresh per call: a detached view
// stays detached, and a call must not be able to fill one for the next.
const EMPTY_BYTES = {
  'new Uint8Array(0)': () => new Uint8Array(0),
  'new Uint8Array(new ArrayBuffer(0))': () => new Uint8Array(new ArrayBuffer(0)),
  'Buffer.alloc(0)': () => Buffer.alloc(0),
  'an empty view at the end of a buffer': () => new Uint8Array(new ArrayBuffer(16), 16, 0),
  'an empty subarray': () => new TextEncoder().encode(ID).subarray(14),
  'an empty view of a SharedArrayBuffer': () => new Uint8Array(new SharedArrayBuffer(8), 8),
  'an empty view of a resizable ArrayBuffer': () => new Uint8Array(new ArrayBuffer(0, { maxByteLength: 16 })),
};
// A view whose buffer was transferred away: its length reads 0, and N-API
// gives a NULL data pointer for it.
const detached = () => {
  const view = new Uint8Array(8);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
};

/** What a call did, comparable across APIs: a value, or an error's class and code. */
function outcome(api, call) {
  try {
    const v = call(api);
    if (ArrayBuffer.isView(v)) return { [v.constructor.name]: [...v] };
    if (typeof v === 'bigint') return `${v}n`;
    return v;
  } catch (e) {
    if (e instanceof api.EmqIdError) return { EmqIdError: e.code };
    if (e instanceof TypeError) return { TypeError: e.code ?? e.message };
    return { threw: String(e) };
  }
}

// [call, expected]: what the contract says of the empty bytes (`e` is the empty input).
const CASES = [
  ['slot(e)', (a, e) => a.slot(e), 0],
  ['slotMany([e])', (a, e) => a.slotMany([e]), { Uint16Array: [0] }],
  ['slotMany([e, "a", e])', (a, e) => a.slotMany([e, 'a', e]), { Uint16Array: [0, 15495, 0] }],
  ['decode(e)', (a, e) => a.decode(e), { EmqIdError: 'length' }],
  ['decodeSnowflake(e)', (a, e) => a.decodeSnowflake(e), { EmqIdError: 'length' }],
  ['isValid(e)', (a, e) => a.isValid(e), false],
  ['compare(e, ID)', (a, e) => a.compare(e, ID), { EmqIdError: 'length' }],
  ['compare(ID, e)', (a, e) => a.compare(ID, e), { EmqIdError: 'length' }],
  ['encode(e, 0n)', (a, e) => a.encode(e, 0n), { EmqIdError: 'range' }],
  ['queueKey(e, "pending")', (a, e) => a.queueKey(e, 'pending'), { EmqIdError: 'queue' }],
  ['queueKey("orders", e)', (a, e) => a.queueKey('orders', e), { EmqIdError: 'kind' }],
  ['key("orders", "job", e)', (a, e) => a.key('orders', 'job', e), { EmqIdError: 'length' }],
  ['jobKey("orders", e)', (a, e) => a.jobKey('orders', e), { EmqIdError: 'length' }],
  ['parseKey(e)', (a, e) => a.parseKey(e), { EmqIdError: 'queue' }],
  ['reserve(e)', (a, e) => a.reserve(e), { EmqIdError: 'kind' }],
  ['queuePrefix(e)', (a, e) => a.queuePrefix(e), { EmqIdError: 'queue' }],
  ['jobPrefix(e)', (a, e) => a.jobPrefix(e), { EmqIdError: 'queue' }],
  ['prefixBytes(e, e)', (a, e) => a.prefixBytes(e, e), { EmqIdError: 'queue' }],
  ['xaddId(e)', (a, e) => a.xaddId(e), { EmqIdError: 'length' }],
  ['fromXaddId(e)', (a, e) => a.fromXaddId(e), { EmqIdError: 'charset' }],
  ['fromXaddId(entry, e)', (a, e) => a.fromXaddId('1704117200000-1620567', e), { EmqIdError: 'range' }],
  ['mint(e)', (a, e) => a.mint(e), { EmqIdError: 'range' }],
  ['mintMany(e, 0)', (a, e) => a.mintMany(e, 0), { EmqIdError: 'range' }],
];

test('the calls the issue names: slotMany([]), mintMany(ns, 0), slot and hashtag of nothing, decode of nothing', () => {
  for (const [name, api] of Object.entries(apis)) {
    const slots = api.slotMany([]);
    assert.ok(slots instanceof Uint16Array && slots.length === 0, `${name}: slotMany([])`);
    const ids = api.mintMany('JOB', 0);
    assert.ok(Array.isArray(ids) && ids.length === 0, `${name}: mintMany('JOB', 0)`);
    assert.equal(api.slot(''), 0, `${name}: slot('')`);
    assert.equal(api.slot(new Uint8Array(0)), 0, `${name}: slot(new Uint8Array(0))`);
    assert.equal(api.hashtag(''), '', `${name}: hashtag('')`);
    const tag = api.hashtag(new Uint8Array(0));
    assert.ok(tag instanceof Uint8Array && tag.length === 0, `${name}: hashtag(new Uint8Array(0))`);
    assert.throws(() => api.decode(new Uint8Array(0)), (e) => e instanceof api.EmqIdError && e.code === 'length', `${name}: decode`);
    assert.throws(() => api.decode(''), (e) => e instanceof api.EmqIdError && e.code === 'length', `${name}: decode('')`);
    assert.equal(api.parseAcquireError(''), null, `${name}: parseAcquireError('')`);
  }
});

test('the empty string and every kind of empty Uint8Array: the contract\'s answer, in every API', (t) => {
  const inputs = { "''": () => '', ...EMPTY_BYTES };
  let checks = 0;
  for (const [name, api] of Object.entries(apis)) {
    for (const [what, make] of Object.entries(inputs)) {
      for (const [call, run, want] of CASES) {
        assert.deepEqual(outcome(api, (a) => run(a, make())), want, `${name}: ${call} with e = ${what}`);
        checks++;
      }
      const tag = outcome(api, (a) => a.hashtag(make()));
      assert.deepEqual(tag, what === "''" ? '' : { Uint8Array: [] }, `${name}: hashtag of ${what}`);
      checks++;
    }
  }
  t.diagnostic(`empty inputs: ${checks} checks over ${Object.keys(apis).length} APIs, ${Object.keys(inputs).length} empty inputs`);
});

test('a batch of many empty keys, and empty keys among others', () => {
  for (const [name, api] of Object.entries(apis)) {
    const keys = Array.from({ length: 1000 }, (_, i) => (i % 2 ? '' : new Uint8Array(0)));
    assert.deepEqual([...api.slotMany(keys)], new Array(1000).fill(0), name);
    const mixed = ['', 'emq:{orders}:pending', new Uint8Array(0), 'orders', Buffer.alloc(0)];
    assert.deepEqual([...api.slotMany(mixed)], [0, api.slot('orders'), 0, api.slot('orders'), 0], name);
  }
});

test('an empty batch leaves a minter as it was', () => {
  for (const [name, api] of Object.entries(apis)) {
    assert.deepEqual(api.mintMany('JOB', 0), [], name);
    const m = new api.Minter(5);
    assert.equal(m.nextAt(1769526697641), 274557032793636864n | (5n << 12n), name);
  }
});

// A detached view is an empty Uint8Array to JS (its length reads 0): every
// API must answer for it what it answers for new Uint8Array(0).
test('a view of a detached buffer is the empty bytes, in every API', () => {
  const failures = [];
  for (const [name, api] of Object.entries(apis)) {
    for (const [call, run, want] of [...CASES, ['hashtag(e)', (a, e) => a.hashtag(e), { Uint8Array: [] }]]) {
      const got = outcome(api, (a) => run(a, detached()));
      if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${name}: ${call} = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
  }
  assert.deepEqual(failures, []);
});
