// What the vector file cannot say about the WASM package: its answers' types,
// the node rule for mint(), bounded memory, and that both Node entries give
// the same API. Gates, 64-bit ranges and the keyspace are tested on every
// backend at once (bindings/js/test/packages.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import * as emq from '../node.mjs';

const require = createRequire(import.meta.url);
const S1 = 274557032793636864n;

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

test('version is the package.json version, compiled into the module', () => {
  assert.equal(emq.version, require('../package.json').version);
  assert.match(emq.version, /^\d+\.\d+\.\d+/);
});
