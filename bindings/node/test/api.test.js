'use strict';
// What the vector file cannot say about the Node package alone: its Minter and
// mintMany, slotMany's packing paths, the addon's internals, its version. Types,
// gates, 64-bit ranges, UTF-8 keys and the keyspace are tested on every backend
// at once (bindings/js/test/packages.test.mjs).

const test = require('node:test');
const assert = require('node:assert/strict');
const emq = require('..');
const fs = require('node:fs');
const path = require('node:path');

test('Minter: increasing, nextAt is the pure step, mintMany', () => {
  const m = new emq.Minter(9);
  assert.equal(m.node, 9);
  const a = m.nextAt(1769526697641);
  const b = m.nextAt(1769526697000n); // the clock goes back
  assert.equal(b, a + 1n);
  assert.deepEqual(emq.mintStep(0n, 9, 1769526697641), [(1769526697641n - 1704067200000n) << 12n, a]);
  const ids = emq.mintMany('JOB', 5000);
  assert.equal(ids.length, 5000);
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, 5000);
});

// slotMany packs a batch of ASCII strings in JS and crosses once (native.js,
// the addon's slotPacked); any other batch goes to the addon's slotMany key by
// key. Both must answer as slot does, key by key, and refuse alike.
const ASCII = Array.from({ length: 1000 }, (_, i) => `emq:{orders-${i}}:job:JOB0KHTOWnGLuC`);
const BATCHES = {
  'no keys': [],
  'empty keys': ['', '', ''],
  'empty keys among others': ['', 'emq:{q}:pending', '', 'a', ''],
  '1,000 ASCII keys': ASCII,
  'every ASCII code unit': [Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).join(''), '\0', '\x7f', '{\x7f}'],
  'long keys (past the first packing array)': ['k'.repeat(5000) + '{tag}', 'x'.repeat(70000), `{${'y'.repeat(300)}}`, 'z'],
  'a batch past the kept packing arrays (1 MiB)': Array.from({ length: 300 }, (_, i) => `${i}{${'z'.repeat(4000)}}`),
  'ASCII keys again, after those': ASCII.slice(0, 10),
  'one non-ASCII key first': ['é', ...ASCII.slice(0, 50)],
  'one non-ASCII key among ASCII ones': [...ASCII.slice(0, 50), 'x{🚀}y', ...ASCII.slice(50, 100)],
  'one non-ASCII key last': [...ASCII.slice(0, 50), 'ÿ'],
  'lone surrogates (U+FFFD, as Buffer.from sends them)': ['a', '\uD800', 'b{\uDC00}', 'a\uDC00b{\uD83D}'],
  'Uint8Array keys': [Buffer.from('{a}'), new Uint8Array([0xff, 0x7b, 0x80, 0x7d]), new Uint8Array(0)],
  'Uint8Array and ASCII keys': ['emq:{orders}:pending', Buffer.from('orders'), 'b', new Uint8Array(new ArrayBuffer(9), 2, 5)],
};

test('slotMany answers as slot key by key, for every kind of batch', () => {
  assert.equal(emq.backend(), 'native');
  for (const [what, keys] of Object.entries(BATCHES)) {
    const slots = emq.slotMany(keys);
    assert.ok(slots instanceof Uint16Array, what);
    assert.deepEqual([...slots], keys.map((k) => emq.slot(k)), what);
  }
  assert.equal(emq.slotMany(['x{🚀}y'])[0], emq.slot('🚀'));
  // More than one string can hold, joined: key by key.
  const big = `{a}${'x'.repeat(2 ** 20)}`;
  const many = new Array(Math.ceil(require('node:buffer').constants.MAX_STRING_LENGTH / big.length) + 1).fill(big);
  assert.deepEqual(new Set(emq.slotMany(many)), new Set([emq.slot('a')]));
  assert.equal(emq.slotMany(['k'.repeat(5000) + '{tag}', 'é'])[0], emq.slot('tag'));
});

test('slotMany refuses what it always refused, with the same TypeError, whatever else the batch holds', () => {
  const key = { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: 'a key is a string or a Uint8Array' };
  const bad = [5, 5n, null, undefined, {}, [], ['a'], Symbol('k'), () => 'a', new String('a'), new Uint16Array(2), new DataView(new ArrayBuffer(2))];
  for (const [i, b] of bad.entries()) {
    for (const keys of [[b], ['a', b], [...ASCII.slice(0, 20), b, 'é'], [b, Buffer.from('a')], ['', b, '']]) {
      assert.throws(() => emq.slotMany(keys), key, `bad key ${i} in a batch of ${keys.length}`);
    }
  }
  for (const holey of [[, 'a'], ['a', , 'b'], new Array(3), ['a', 'b', ,]]) {
    assert.throws(() => emq.slotMany(holey), key, `${holey.length} with a hole`);
  }
  const array = { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: 'slotMany takes an array of keys' };
  for (const notArray of ['ab', { length: 1, 0: 'a' }, new Uint8Array(2), undefined, null]) {
    assert.throws(() => emq.slotMany(notArray), array);
  }
  // Array.isArray says yes to a proxy of an array; the addon never took one, nor does it now.
  assert.throws(() => emq.slotMany(new Proxy(['a', 'b'], {})), array);
});

test('slotMany reads each key once, as the addon did, on every path', () => {
  for (const [values, want] of [
    [['yy', 'x'], 'yy'], // ASCII: packed
    [['é', 'x'], 'é'], // not ASCII: key by key
    [[Buffer.from('yy'), 'x'], Buffer.from('yy')], // bytes: key by key
  ]) {
    let reads = 0;
    const keys = ['a', 'b', 'c'];
    Object.defineProperty(keys, 1, { get: () => values[reads++ % 2] });
    assert.deepEqual([...emq.slotMany(keys)], [emq.slot('a'), emq.slot(want), emq.slot('c')]);
    assert.equal(reads, 1);
  }
  let reads = 0;
  const keys = ['a', 'b'];
  Object.defineProperty(keys, 1, { get: () => (reads++ ? 'b' : 5) });
  assert.throws(() => emq.slotMany(keys), TypeError);
  assert.equal(reads, 1);
});

// The package's own addon, as the package loads it.
const packagedAddon = () => require(path.join(__dirname, '..', fs.readdirSync(path.join(__dirname, '..')).find((f) => f.endsWith('.node'))));

test('the addon\'s internal slotPacked refuses a layout it cannot read, and never crashes', () => {
  const addon = packagedAddon();
  const memory = new ArrayBuffer(16);
  const bytes = new Uint8Array(memory, 0, 7);
  bytes.set(Buffer.from('{a}b{c}'));
  const lens = Uint32Array.of(3, 4);
  const want = [emq.slot('a'), emq.slot('c')];
  for (const out of [new Uint16Array(2), new Uint16Array(memory, 8, 2)]) {
    assert.equal(addon.slotPacked(bytes, lens, out), undefined);
    assert.deepEqual([...out], want);
  }
  addon.slotPacked(new Uint8Array(0), new Uint32Array(0), new Uint16Array(0)); // nothing to write
  const out = new Uint16Array(2);
  const refusals = [
    [[bytes, Uint32Array.of(3, 5), out], 'range', 'the key lengths run past the packed data'],
    [[bytes, Uint32Array.of(2 ** 32 - 1, 0), out], 'range', 'the key lengths run past the packed data'],
    [[bytes, Uint32Array.of(3), out], 'range', 'fewer key lengths than slots'],
    [[bytes, lens, new Uint16Array(memory, 6, 2)], 'range', 'the slots would overwrite the keys'],
    [[bytes, lens, new Uint16Array(lens.buffer, 2, 2)], 'range', 'the slots would overwrite the keys'],
    [['{a}b{c}', lens, out], 'ERR_INVALID_ARG_TYPE'],
    [[bytes, [3, 4], out], 'ERR_INVALID_ARG_TYPE'],
    [[bytes, lens, [0, 0]], 'ERR_INVALID_ARG_TYPE'],
    [[bytes, Int32Array.of(3, 4), out], 'ERR_INVALID_ARG_TYPE'],
    [[], 'ERR_INVALID_ARG_TYPE'],
  ];
  for (const [i, [args, code, message = 'slotPacked takes a Uint8Array, a Uint32Array and a Uint16Array']] of refusals.entries()) {
    assert.throws(() => addon.slotPacked(...args), { code, message }, `case ${i}`);
  }
});

test('the packaged addon carries no benchmark floors (they need the bench feature)', () => {
  const benchOnly = Object.keys(packagedAddon()).filter((name) => name === 'noop' || name.startsWith('floor'));
  assert.deepEqual(benchOnly, []);
});

test('version is the package.json version, compiled into the addon', () => {
  assert.equal(emq.version, require('../package.json').version);
  assert.match(emq.version, /^\d+\.\d+\.\d+/);
});
