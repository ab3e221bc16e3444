// What the vector file cannot say about the WASM package: explicit 64-bit
// range checks (wasm-bindgen would wrap), error classes and codes, the node
// rule for mint(), and that both Node entries give the same API.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import * as emq from '../node.mjs';

const require = createRequire(import.meta.url);
const S1 = 274557032793636864n;

test('64-bit values are bigint only: 2^64, -1 and numbers are range, never wrapped', () => {
  for (const bad of [2n ** 64n, -1n, 5, 2 ** 60, '5', undefined]) {
    assert.throws(() => emq.hash32(bad), { code: 'range' }, String(bad));
    assert.throws(() => emq.encode('USR', bad), { code: 'range' }, String(bad));
    assert.throws(() => emq.unixMs(bad), { code: 'range' }, String(bad));
  }
  assert.equal(emq.hash32(2n ** 64n - 1n), emq.hash32(18446744073709551615n));
  assert.throws(() => emq.minFor(NaN), { code: 'range' });
  assert.throws(() => emq.mintStep(-1n, 0, 0), { code: 'range' });
  assert.throws(() => new emq.Minter(1024), { code: 'range' });
  assert.throws(() => new emq.Minter(1.5), { code: 'range' });
});

test('every gate is reachable with its code and the EmqIdError class', () => {
  const cases = [
    [() => emq.decode('USR0KHTOWnGLu'), 'length'],
    [() => emq.decode('usr0KHTOWnGLuC'), 'namespace'],
    [() => emq.decode('USR0KHTOWnGL!C'), 'charset'],
    [() => emq.decode('USRzzzzzzzzzzz'), 'range'],
    [() => emq.decode(new Uint8Array([0x55, 0x53, 0x52, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), 'charset'],
    [() => emq.decode('USR0KHTOWnGLé'), 'charset'], // 13 characters, 14 UTF-8 bytes
    [() => emq.queueKey('a{b}', 'pending'), 'queue'],
    [() => emq.queueKey('orders', 'done'), 'kind'],
    [() => emq.jobKey('orders', 'USR0KHTOWnGLuC'), 'kind'],
    [() => emq.key('orders', 'g:a:b:pending'), 'kind'],
    [() => emq.parseKey('{emq}:version'), 'queue'],
    [() => emq.reserve('a b'), 'kind'],
    [() => emq.prefixBytes('orders', 'job'), 'kind'],
    [() => emq.xaddId('ORD000xY9Wvvcd'), 'kind'],
    [() => emq.fromXaddId('1704117200000-x'), 'charset'],
    [() => emq.fromXaddId('5-0'), 'range'],
  ];
  for (const [f, code] of cases) {
    assert.throws(f, (e) => e instanceof emq.EmqIdError && e.code === code);
  }
  assert.throws(() => emq.slot(5), TypeError);
});

test('answers and their types match the native package', () => {
  assert.deepEqual(emq.decode('USR0KHTOWnGLuC'), { ns: 'USR', snowflake: S1, unixMs: 1769526697641, node: 0, seq: 0 });
  assert.equal(emq.encode('USR', S1), 'USR0KHTOWnGLuC');
  assert.equal(emq.slot('\uD800'), emq.slot(new TextEncoder().encode('\uD800')));
  assert.deepEqual([...emq.slotMany(['emq:{orders}:pending', new Uint8Array([0xff]), '', 'x{🚀}y'])], [
    emq.slot('orders'),
    emq.slot(new Uint8Array([0xff])),
    0,
    emq.slot('🚀'),
  ]);
  assert.equal(emq.hashtag('foo{{bar}}zap'), '{bar');
  // The tag is cut from the key in JS when the key fits the scratch buffer
  // as bytes; past it, or not ASCII, the export copies it out.
  for (const pad of [0, 300]) {
    const x = 'x'.repeat(pad);
    assert.equal(emq.hashtag(`${x}emq:{orders}:pending`), 'orders');
    assert.equal(emq.hashtag(`${x}a{é🚀}b`), 'é🚀');
    assert.equal(emq.hashtag(`${x}{}{q}`), `${x}{}{q}`);
    const key = Buffer.from(`${x}k{tag}`);
    const tag = emq.hashtag(key);
    assert.ok(tag.constructor === Uint8Array, 'a plain Uint8Array, as the export gives');
    assert.deepEqual([...tag], [...Buffer.from('tag')]);
    tag[0] = 0x41; // a copy: the key is untouched
    assert.equal(key.toString(), `${x}k{tag}`);
  }
  const m = new emq.Minter(4);
  assert.equal(m.nextAt(1769526697000n), m.nextAt(1769526697000) - 1n);
  assert.equal(typeof m.next(), 'bigint');
});

function node(code, env) {
  const e = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete e[k];
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: new URL('..', import.meta.url), env: e, encoding: 'utf8' });
}

test('mint() needs a node: setNode in a browser, EMQ_NODE in Node; never a silent fallback', () => {
  let r = node("import * as e from './node.mjs'; try { e.mint('JOB') } catch (x) { console.log(x.code, x.message) }", { EMQ_NODE: undefined });
  assert.match(r.stdout, /^node node: .*setNode/);
  r = node("import * as e from './node.mjs'; e.setNode(5); console.log(e.decode(e.mint('JOB')).node)", { EMQ_NODE: undefined });
  assert.equal(r.stdout.trim(), '5');
  r = node("import * as e from './node.mjs'; console.log(e.decode(e.mint('JOB')).node)", { EMQ_NODE: '12' });
  assert.equal(r.stdout.trim(), '12');
  r = node("import * as e from './node.mjs'; try { e.mint('JOB') } catch (x) { console.log(x.code) }", { EMQ_NODE: 'abc' });
  assert.equal(r.stdout.trim(), 'range');
  // setNode again, with the same node or another, never restarts the state: no id repeats.
  r = node("import * as e from './node.mjs'; e.setNode(5); const a = e.mintMany('JOB', 3000); e.setNode(6); e.setNode(5); const b = e.mintMany('JOB', 3000); console.log(new Set([...a, ...b]).size)", { EMQ_NODE: undefined });
  assert.equal(r.stdout.trim(), '6000');
});

test('slotMany refuses a number among string keys once optimised, and never crashes', () => {
  // Node 20's optimiser (V8 11.3) scheduled a string's length load in
  // slotMany's packing ahead of the typeof test guarding it: a number key,
  // once the function was compiled on string keys, killed the process with
  // SIGSEGV. Batches mostly of strings, now and then a number, bytes or
  // null, 100,000 of them (a crash came within 0.1 s), in three processes:
  // the compiler runs on a thread of its own, so the timing varies.
  const code = (seed) => `import * as e from './node.mjs';
    const pool = ['emq:{orders}:pending', 'é', '', 'a\\ud800', '🚀x', 1, new Uint8Array([1, 2]), null];
    let seed = ${seed}, refused = 0, bad = 0;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 100000; round++) {
      const keys = [];
      for (let i = Math.floor(rnd() * 6); i > 0; i--) keys.push(pool[Math.floor(rnd() * (rnd() < 0.95 ? 5 : pool.length))]);
      if (keys.some((k) => typeof k !== 'string' && !(k instanceof Uint8Array))) bad++;
      try { e.slotMany(keys); } catch (x) { if (x instanceof TypeError && x.code === 'ERR_INVALID_ARG_TYPE') refused++; }
    }
    console.log(refused, bad);`;
  for (const seed of [1, 2, 3]) {
    const r = node(code(seed), {});
    assert.equal(r.signal, null, `seed ${seed}: killed by ${r.signal}`);
    const [refused, bad] = r.stdout.trim().split(' ').map(Number);
    assert.ok(bad > 0 && refused === bad, `seed ${seed}: ${refused} refused of ${bad} batches with a number or null (${r.stderr})`);
  }
});

test('the CommonJS entry is the same API', () => {
  const cjs = require('../node.cjs');
  assert.equal(cjs.encode('USR', S1), emq.encode('USR', S1));
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(emq).filter((k) => k !== 'default').sort());
});

test('memory stays bounded under many allocations of varying sizes', () => {
  // The same module instance the package uses (Node's require cache is shared).
  const raw = require('../node/emq_id_wasm.js');
  const size = () => raw.wasmMemory().buffer.byteLength;
  const keys = Array.from({ length: 3000 }, (_, i) => `emq:{q${i}}:job:${'x'.repeat(i % 97)}`);
  emq.slotMany(keys);
  const before = size();
  for (let round = 0; round < 300; round++) {
    emq.slotMany(keys.slice(0, (round * 37) % 3000));
    emq.hashtag(new Uint8Array(round % 300));
    emq.key('orders', 'job', 'JOB0KHTOWnGLuC');
    assert.throws(() => emq.decode('x'.repeat(round % 13))); // refusals allocate their message
  }
  assert.ok(size() - before <= 1 << 20, `memory grew from ${before} to ${size()} bytes`);
});

test('the keyspace: every family as the bus writes it, keys read back, the reserve, stream entry ids', () => {
  assert.equal(emq.key('orders', 'g:vip:pending'), 'emq:{orders}:g:vip:pending');
  assert.deepEqual({ ...emq.parseKey('emq:{orders}:job:JOB0KHTOWnGLuC:lock') }, { queue: 'orders', family: 'job:<id>:lock', param: 'JOB0KHTOWnGLuC' });
  assert.deepEqual(JSON.parse(JSON.stringify(emq.parseKey('emq:{orders}:pending'))), { queue: 'orders', family: 'pending' });
  assert.equal(emq.reserve('version'), '{emq}:version');
  assert.equal(emq.queuePrefix('orders'), 'emq:{orders}:');
  assert.equal(emq.jobPrefix('orders'), 'emq:{orders}:job:');
  assert.equal(emq.prefixBytes('orders', 'job:'), 17);
  assert.equal(emq.xaddId('EVT000xY9Wvvcd'), '1704117200000-1620567');
  assert.equal(emq.fromXaddId('1704117200000-1620567'), 'EVT000xY9Wvvcd');
  assert.equal(emq.fromXaddId('1704117200000-1620567', 'ORD'), 'ORD000xY9Wvvcd');
  assert.equal(emq.KEYSPACE, 'emq-keyspace/2');
  assert.throws(() => emq.reserve(5), TypeError);
});

test('version is the package.json version, compiled into the module', () => {
  assert.equal(emq.version, require('../package.json').version);
  assert.match(emq.version, /^\d+\.\d+\.\d+/);
});
