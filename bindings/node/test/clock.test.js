'use strict';
// The process-wide minter under a wall clock that jumps back by seconds and
// forward again: two worker threads mint while the clock steps;
// every id is unique and each thread's ids only increase. The clock is the
// real one, moved by libfaketime (LD_PRELOAD) in a child process whose
// offset file this test rewrites; the child measures each step it saw, so a
// run where the clock did not move fails instead of passing vacuously.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// Debian's libfaketime, its multithreaded build, as Node is: where `cargo xtask
// test` (which installs it) says, else where the package put it.
function faketime() {
  if (process.env.EMQ_FAKETIME_LIB) return process.env.EMQ_FAKETIME_LIB;
  const listed = spawnSync('dpkg', ['-L', 'libfaketime'], { encoding: 'utf8' });
  const lib = (listed.stdout || '').split('\n').find((l) => l.endsWith('/libfaketimeMT.so.1'));
  assert.ok(lib, 'libfaketime is not installed: apt-get install libfaketime (cargo xtask test does), or set EMQ_FAKETIME_LIB');
  return lib;
}

// The clock's offsets from the real time, in seconds, one phase each: back
// 3 s, forward again, back 5 s, back a minute more, forward to 2 s behind,
// then the real time.
const OFFSETS = [0, -3, 0, -5, -65, -2, 0];
const PHASE_MS = 250;

const pkg = path.join(__dirname, '..');

// The child: two workers mint through the package's process-wide `mint`
// until told to stop; the main thread moves the clock through OFFSETS and
// records the offset each phase really had. Prints one JSON line.
const CHILD = `
  const { Worker } = require('node:worker_threads');
  const fs = require('node:fs');
  const [pkg, clockFile, offsets, phaseMs, nodes] = process.argv.slice(1);
  const WORKER = \`
    const { workerData } = require('node:worker_threads');
    const { parentPort } = require('node:worker_threads');
    const api = require(workerData.pkg);
    if (workerData.node !== null) api.setNode(workerData.node);
    const stop = new Int32Array(workerData.stop);
    const ids = [];
    while (Atomics.load(stop, 0) === 0) {
      for (let i = 0; i < 256; i++) ids.push(api.mint('JOB'));
    }
    parentPort.postMessage(ids);
  \`;
  const stop = new SharedArrayBuffer(4);
  const perWorker = JSON.parse(nodes);
  const results = perWorker.map((node) => new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { pkg, stop, node } });
    w.once('message', resolve);
    w.once('error', reject);
  }));
  const seen = [];
  const skew = () => Date.now() - (performance.timeOrigin + performance.now());
  (async () => {
    for (const offset of JSON.parse(offsets)) {
      // Written aside, then renamed over: a reading never sees a half-written file.
      fs.writeFileSync(clockFile + '.next', (offset < 0 ? '' : '+') + offset + '\\n');
      fs.renameSync(clockFile + '.next', clockFile);
      await new Promise((r) => setTimeout(r, Number(phaseMs)));
      seen.push(Math.round(skew() / 1000));
    }
    Atomics.store(new Int32Array(stop), 0, 1);
    const ids = await Promise.all(results);
    process.stdout.write(JSON.stringify({ seen, ids }) + '\\n');
  })().catch((e) => { console.error(e); process.exit(2); });
`;

function mintThroughJumps(backend, nodes) {
  const FAKETIME = faketime();
  assert.ok(fs.existsSync(FAKETIME), `libfaketime is missing at ${FAKETIME}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emq-id-clock-'));
  try {
    const clockFile = path.join(dir, 'offset');
    fs.writeFileSync(clockFile, '+0\n');
    const out = spawnSync(
      process.execPath,
      ['-e', CHILD, pkg, clockFile, JSON.stringify(OFFSETS), String(PHASE_MS), JSON.stringify(nodes)],
      {
        env: {
          ...process.env,
          EMQ_ID_BACKEND: backend,
          EMQ_NODE: '7',
          EMQ_NODE_DIR: path.join(dir, 'nodes'),
          LD_PRELOAD: FAKETIME,
          FAKETIME_TIMESTAMP_FILE: clockFile,
          FAKETIME_NO_CACHE: '1',
          // Timers and performance.now() keep the real monotonic clock; only the wall clock jumps.
          DONT_FAKE_MONOTONIC: '1',
        },
        encoding: 'utf8',
        maxBuffer: 1 << 30,
        timeout: 60_000,
      },
    );
    assert.equal(out.status, 0, `the minting child failed: ${out.stderr}`);
    return JSON.parse(out.stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// With a minter per thread on nodes of their own, ids of two threads cannot be
// equal; what the wasm run proves is each thread's order through the jumps.
function check(backend, { seen, ids }, nodeOf, minters) {
  assert.deepEqual(seen, OFFSETS, 'the child must have seen the wall clock at each offset (is libfaketime working?)');
  for (const [w, list] of ids.entries()) {
    assert.ok(list.length > 1000, `worker ${w} minted only ${list.length} ids`);
    for (let i = 1; i < list.length; i++) {
      if (!(list[i - 1] < list[i])) assert.fail(`worker ${w}: ${list[i]} follows ${list[i - 1]}`);
    }
    const { node } = require(pkg).decode(list[0]);
    assert.equal(node, nodeOf(w));
  }
  const all = ids.flat();
  assert.equal(all.length - new Set(all).size, 0, 'duplicate ids');
  console.log(
    `node (${backend}): ${all.length} ids from 2 worker threads through ${minters}, ` +
      `the wall clock stepping ${OFFSETS.join(', ')} s: 0 duplicates, each thread's ids increasing`,
  );
}

test('native: two worker threads share the process minter (EMQ_NODE) through clock jumps', () => {
  check('native', mintThroughJumps('native', [null, null]), () => 7, 'the one process-wide minter');
});

test('wasm: two worker threads, each its own minter and node, through clock jumps', () => {
  check('wasm', mintThroughJumps('wasm', [8, 9]), (w) => 8 + w, 'a minter each');
});
