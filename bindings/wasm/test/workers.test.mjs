// One node, one mint state, in worker threads. Each worker instantiates the
// module anew (a mint state of its own), so EMQ_NODE, one node for the
// process, must not reach the workers: through the package entries they are
// refused with code `node` until given a node of their own, and no id repeats.
// The negative control builds the API in the workers the way the entries did
// before (EMQ_NODE in every thread): the same count then finds duplicates.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('..', import.meta.url));

const WORKERS = 4;
const PER_WORKER = 50_000;

// A worker that mints PER_WORKER ids (or reports its refusal) through `load`.
// The workers of one run wait for each other (a counter in shared memory)
// before minting, so their minting overlaps however slowly they start: the
// duplicate count of the negative control does not depend on the machine's load.
function worker(load, gate) {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const api = await (${load})(workerData.dir);
      const arrived = new Int32Array(workerData.gate);
      Atomics.add(arrived, 0, 1);
      while (Atomics.load(arrived, 0) < workerData.workers) Atomics.wait(arrived, 0, Atomics.load(arrived, 0), 10);
      const ids = [];
      let refused = null;
      try {
        for (let i = 0; i < workerData.n; i++) ids.push(api.mint('JOB'));
      } catch (e) {
        refused = e.code + ': ' + e.message;
      }
      parentPort.postMessage({ ids, refused });
    })();`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { dir: DIR, n: PER_WORKER, gate, workers: WORKERS } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

async function run(load, mainIds) {
  const gate = new SharedArrayBuffer(4);
  const results = await Promise.all(Array.from({ length: WORKERS }, () => worker(load, gate)));
  const all = [...mainIds, ...results.flatMap((r) => r.ids)];
  return { results, minted: all.length, duplicates: all.length - new Set(all).size, refused: results.filter((r) => r.refused).length };
}

test('worker threads through the package entries: every worker refused, 0 duplicates', async () => {
  process.env.EMQ_NODE = '1';
  const { mint } = await import('../node.mjs');
  for (const [entry, load] of [
    ['node.cjs', "(dir) => require(dir + 'node.cjs')"],
    ['node.mjs', "(dir) => import(require('node:url').pathToFileURL(dir + 'node.mjs'))"],
  ]) {
    const main = Array.from({ length: PER_WORKER }, () => mint('JOB'));
    const r = await run(load, main);
    console.log(`wasm ${entry}, EMQ_NODE=1, main thread + ${WORKERS} workers x ${PER_WORKER}: ${r.minted} minted, ${r.refused} workers refused, ${r.duplicates} duplicates`);
    assert.equal(r.duplicates, 0);
    assert.equal(r.refused, WORKERS);
    for (const { refused } of r.results) assert.match(refused, /^node: .*setNode/);
  }
});

test('a worker given its own node mints; the count of ids is whole and unique', async () => {
  process.env.EMQ_NODE = '1';
  const { mint } = await import('../node.mjs');
  const main = Array.from({ length: 1000 }, () => mint('JOB'));
  let next = 100;
  const gate = new SharedArrayBuffer(4);
  const results = await Promise.all(
    Array.from({ length: WORKERS }, () =>
      worker(`(dir) => { const api = require(dir + 'node.cjs'); api.setNode(${next++}); return api; }`, gate),
    ),
  );
  const all = [...main, ...results.flatMap((r) => r.ids)];
  assert.equal(all.length, 1000 + WORKERS * PER_WORKER);
  assert.equal(new Set(all).size, all.length);
});

test('negative control: EMQ_NODE in every worker (the old entries) gives duplicates the count finds', async () => {
  const blind = "(dir) => require(dir + 'api.cjs').makeApi(require(dir + 'backend.cjs').wasmBackend(require(dir + 'node/emq_id_wasm.js'), { envNode: '1' }), { name: 'blind' })";
  const r = await run(blind, []);
  console.log(`wasm negative control, EMQ_NODE=1 in ${WORKERS} workers x ${PER_WORKER}: ${r.minted} minted, ${r.duplicates} duplicates`);
  assert.ok(r.duplicates > 0, 'the count found no duplicates: it cannot tell');
});
