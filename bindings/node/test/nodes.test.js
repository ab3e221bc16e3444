'use strict';
// One node, one mint state, across processes and threads: the process-wide
// minter holds its node on this host (a lock file in EMQ_NODE_DIR), so a
// second live process asking for it is refused; worker threads share the
// one native state. The duplicate counts are checked by a negative control.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const { Worker } = require('node:worker_threads');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const pkg = path.join(__dirname, '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emq-id-node-test-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// A process minting `count` ids with EMQ_NODE=node, one per line; it blocks
// (alive, holding its node) once nobody reads its stdout.
const CHILD = `
  const { mint } = require(process.argv[1]);
  let left = Number(process.argv[2]);
  try {
    while (left > 0) {
      const n = Math.min(left, 1000);
      let chunk = '';
      for (let i = 0; i < n; i++) chunk += mint('JOB') + '\\n';
      process.stdout.write(chunk);
      left -= n;
    }
  } catch (e) {
    process.stderr.write(e.message + '\\n');
    process.exitCode = 2;
  }`;

function minter(node, dir, count) {
  const child = spawn(process.execPath, ['-e', CHILD, pkg, String(count)], {
    env: { ...process.env, EMQ_NODE: String(node), EMQ_NODE_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const ids = [];
  const lines = readline.createInterface({ input: child.stdout });
  lines.on('line', (l) => ids.push(l));
  const done = new Promise((resolve) => child.on('close', (code) => resolve({ code, ids, stderr })));
  const first = new Promise((resolve) => lines.once('line', resolve));
  return { child, ids, done, first };
}

const duplicates = (...sets) => {
  const all = sets.flat();
  return all.length - new Set(all).size;
};

test('a second live process is refused, naming the node and its holder; SIGKILL frees the node', async () => {
  const dir = path.join(tmp, 'kill');
  const holder = minter(4, dir, 1e9);
  await holder.first; // it minted, so it holds node 4
  holder.child.stdout.pause(); // and now it blocks on a full pipe, alive

  const second = await minter(4, dir, 20000).done;
  assert.equal(second.code, 2);
  assert.equal(second.ids.length, 0);
  assert.match(second.stderr, new RegExp(`^node: node 4 \\(held by pid ${holder.child.pid}\\)`));

  holder.child.kill('SIGKILL');
  holder.child.stdout.resume();
  const first = (await holder.done).ids;
  const third = await minter(4, dir, 20000).done;
  assert.equal(third.code, 0, third.stderr);
  const dups = duplicates(first, third.ids);
  console.log(
    `node sibling processes, node 4: holder minted ${first.length}, second refused (${second.stderr.trim()}), ` +
      `after SIGKILL the next minted ${third.ids.length}, duplicates ${dups}`,
  );
  assert.equal(third.ids.length, 20000);
  assert.equal(dups, 0);
});

async function atOnce(dirA, dirB) {
  const [a, b] = await Promise.all([minter(5, dirA, 200000).done, minter(5, dirB, 200000).done]);
  return { minted: a.ids.length + b.ids.length, refused: [a, b].filter((r) => r.code !== 0).length, dups: duplicates(a.ids, b.ids) };
}

test('the same EMQ_NODE twice at once: 0 duplicates, unless the guard is blinded (negative control)', async () => {
  const shared = path.join(tmp, 'shared');
  let r = await atOnce(shared, shared);
  console.log(`node same EMQ_NODE at once, one claim directory: ${r.minted} ids, ${r.refused} refused, ${r.dups} duplicates`);
  assert.equal(r.dups, 0);
  r = await atOnce(path.join(tmp, 'blind-a'), path.join(tmp, 'blind-b'));
  console.log(`node same EMQ_NODE at once, blind guard (negative control): ${r.minted} ids, ${r.refused} refused, ${r.dups} duplicates`);
  assert.ok(r.dups > 0, 'the negative control found no duplicates: the count cannot tell');
});

test('worker threads share the one native mint state: 0 duplicates', async () => {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { mint } = require(workerData.pkg);
    parentPort.postMessage(Array.from({ length: 50000 }, () => mint('JOB')));`;
  process.env.EMQ_NODE_DIR = path.join(tmp, 'workers');
  process.env.EMQ_NODE = '6';
  const ids = await Promise.all(
    Array.from({ length: 4 }, () => new Promise((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: { pkg } });
      w.once('message', resolve);
      w.once('error', reject);
    })),
  );
  const dups = duplicates(...ids);
  console.log(`node native, EMQ_NODE=6, 4 worker threads x 50000: ${ids.flat().length} minted, ${dups} duplicates`);
  assert.equal(dups, 0);
  assert.equal(require('..').processNode().node, 6);
});

test('setNode gives the process its node; a process keeps it', () => {
  // The previous test took node 6 for this process.
  const emq = require('..');
  assert.deepEqual(emq.setNode(6), { node: 6, source: 'env' });
  assert.throws(() => emq.setNode(7), { code: 'node' });
  assert.throws(() => emq.setNode(1024), { code: 'range' });
  assert.throws(() => emq.setNode('7'), TypeError);
});
