'use strict';
// Per-call cost of the Node package beside the empty-call floor and pure-JS
// anchors, in one run: `cargo xtask bench node` (or `node bench/bench.js` over an
// addon built with `cargo build --release -p emq-id-node --features bench`,
// the only build with the floors).
// A benchmark, not a test: it prints a table and asserts nothing. The WASM
// package has its own, run in Node and in a browser (bindings/wasm/bench).

const path = require('node:path');
const native = require(path.join(__dirname, '..'));
const clusterKeySlot = require('cluster-key-slot');
const ulid = require('ulid');

const N = 1 << 20;
const ROUNDS = 7;
const ids = Array.from({ length: 64 }, (_, i) => native.encode('JOB', (BigInt(i + 1) * 0x9e3779b97f4a7c15n) & ((1n << 63n) - 1n)));
const snowflakes = ids.map((id) => native.decodeSnowflake(id));
const ulids = Array.from({ length: 64 }, (_, i) => ulid.ulid(1769526697641 + i * 1000));
const keys = Array.from({ length: 1000 }, (_, i) => `emq:{orders-${String(i).padStart(3, '0')}}:job:JOB0KHTOWnGLuC`);

// Each figure is a call's fastest round. This host has slow phases, seconds
// long, that only ever add time and can fall on one row and not the next
// (the performance page's method section says more), so a call is read
// against its floor round by round, the two timed back to back (`paired`).
let sink = 0;
function round(f) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink ^= typeof f(i & 63, i) === 'undefined' ? 0 : 1;
  return Number(process.hrtime.bigint() - t0) / N;
}

function measure(f) {
  let fastest = Infinity;
  for (let r = 0; r < ROUNDS; r++) fastest = Math.min(fastest, round(f));
  return fastest;
}

// The median over rounds of a call's time ÷ its floor's, each pair timed back
// to back, the floor first in even rounds and second in odd ones (a phase that
// begins or ends between the two then favours neither).
function paired(call, floor) {
  const ratios = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      const f = round(floor);
      ratios.push(round(call) / f);
    } else {
      const c = round(call);
      ratios.push(c / round(floor));
    }
  }
  ratios.sort((a, b) => a - b);
  return ratios[ROUNDS >> 1];
}

const addon = require(path.join(__dirname, '..', 'emq-id.linux-x64-gnu.node'));

function suite(name, pkg) {
  return [
    [`${name} hash32`, (i) => pkg.hash32(snowflakes[i])],
    [`${name} encode`, (i) => pkg.encode('JOB', snowflakes[i])],
    [`${name} decode`, (i) => pkg.decode(ids[i])],
    [`${name} decodeSnowflake`, (i) => pkg.decodeSnowflake(ids[i])],
    [`${name} slot`, (i, n) => pkg.slot(keys[n % 1000])],
  ];
}

// Same-signature floors: N-API's price for each call's arguments and result,
// with no work between (bindings/node/src/floors.rs); the raw exports beside
// them show what the binding's Rust adds, the public calls what the JS layer adds.
const FLOOR_OF = {
  hash32: 'floor bigint → number',
  encode: 'floor (string, bigint) → string',
  decode: 'floor string → scratch + bigint',
  decodeSnowflake: 'floor string → bigint',
  slot: 'floor string → number',
};
const floors = [
  ['floor bigint → number', (i) => addon.floorNumberOfBigint(snowflakes[i])],
  ['floor (string, bigint) → string', (i) => addon.floorStringOfStringBigint('JOB', snowflakes[i])],
  ['floor string → scratch + bigint', (i) => addon.floorScratchOfString(ids[i])],
  ['floor string → bigint', (i) => addon.floorBigintOfString(ids[i])],
  ['floor string → number', (i, n) => addon.floorNumberOfString(keys[n % 1000])],
];
const raw = [
  ['raw hash32', (i) => addon.hash32(snowflakes[i])],
  ['raw encode', (i) => addon.encode('JOB', snowflakes[i])],
  ['raw decode', (i) => addon.decodeInto(ids[i])],
  ['raw decodeSnowflake', (i) => addon.decodeSnowflake(ids[i])],
  ['raw slot', (i, n) => addon.slot(keys[n % 1000])],
];

const rows = [
  ['native noop (floor)', () => addon.noop()],
  ...floors,
  ...raw,
  ...suite('native', native),
  ['anchor cluster-key-slot', (i, n) => clusterKeySlot(keys[n % 1000])],
  ['anchor ulid encodeTime', (i) => ulid.encodeTime(1769526697641 + i, 10)],
  ['anchor ulid decodeTime', (i) => ulid.decodeTime(ulids[i])],
];

// Two passes, keeping each call's fastest round: the first pass also warms the JIT.
const results = new Map();
for (let pass = 0; pass < 2; pass++) {
  for (const [name, f] of rows) results.set(name, Math.min(results.get(name) ?? Infinity, measure(f)));
}

// Batches: per key / per id.
const perKey = (f, batch) => {
  let fastest = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) sink ^= f() ? 1 : 0;
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - t0) / (1000 * batch));
  }
  return fastest;
};
results.set('native slotMany, per key (1,000 keys)', perKey(() => native.slotMany(keys).length, 1000));
results.set('anchor cluster-key-slot, per key (1,000 calls)', perKey(() => { let s = 0; for (const k of keys) s ^= clusterKeySlot(k); return s + 1; }, 1000));
results.set('native mintMany, per id (1,000 ids)', perKey(() => native.mintMany('JOB', 1000).length, 1000));
results.set('native mint, per id', perKey(() => native.mint('JOB').length, 1));

// Each call with a same-signature floor, read against it in pairs.
const byName = new Map(rows);
const overFloor = new Map();
for (const [name, f] of rows) {
  const own = /^(native|raw) /.test(name) && FLOOR_OF[name.split(' ').slice(1).join(' ')];
  if (own) overFloor.set(name, paired(f, byName.get(own)));
}

// Each call with a pure-JS anchor doing the same job, read against its fastest round.
const ANCHOR_OF = {
  'native encode': 'anchor ulid encodeTime',
  'native decode': 'anchor ulid decodeTime',
  'native decodeSnowflake': 'anchor ulid decodeTime',
  'native slot': 'anchor cluster-key-slot',
  'native slotMany, per key (1,000 keys)': 'anchor cluster-key-slot, per key (1,000 calls)',
};
const anchorCells = (name, ns) => {
  const anchor = ANCHOR_OF[name];
  return anchor ? `${anchor.replace(/^anchor /, '')} | **${(results.get(anchor) / ns).toFixed(2)}×**` : '– | –';
};

const floor = results.get('native noop (floor)');
console.log(`node ${process.version}, ${N} calls a round; ns per call in the fastest of ${ROUNDS} rounds x 2 passes. ÷ same-signature floor is the median of ${ROUNDS} rounds of the call timed back to back with its floor, not the ratio of the ns column, whose rows are timed seconds apart\n`);
console.log('| call | ns | ÷ empty call | ÷ same-signature floor | anchor | anchor ÷ call |');
console.log('|---|---|---|---|---|---|');
const ownFloor = (name) => (overFloor.has(name) ? `${overFloor.get(name).toFixed(2)}×` : '');
for (const [name, ns] of results) {
  console.log(`| ${name} | ${ns.toFixed(1)} | ${(ns / floor).toFixed(2)}× | ${ownFloor(name)} | ${anchorCells(name, ns)} |`);
}
if (sink === 42) console.log('');
