// What the vector file cannot say about the WASM package alone: the node rule
// for mint(), bounded memory, its version. Types, gates, 64-bit ranges, the
// keyspace and the entries are tested on every backend at once
// (bindings/js/test/packages.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import * as emq from '../node.mjs';

const require = createRequire(import.meta.url);

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
    // The lease keeper's answers are strings the module allocates; its keepers are freed when collected.
    emq.readLeaseError(`ASK ${round} 10.0.0.${round % 256}:7001`);
    emq.redirect(`MOVED ${round} [2001:db8::${round}]:7001`);
    emq.LeaseKeeper.refusal('not_run');
    new emq.LeaseKeeper({ ttlMs: 3000 + round }, 0).settle('counted', 0, 0);
  }
  assert.ok(size() - before <= 1 << 20, `memory grew from ${before} to ${size()} bytes`);
});

test('version is the package.json version, compiled into the module', () => {
  assert.equal(emq.version, require('../package.json').version);
  assert.match(emq.version, /^\d+\.\d+\.\d+/);
});
