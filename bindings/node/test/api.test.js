'use strict';
// What the vector file cannot say: JS types, error classes and codes, bigint-only
// 64-bit values, strings as UTF-8. (Every value is checked by the conformance run.)

const test = require('node:test');
const assert = require('node:assert/strict');
const emq = require('..');

const S1 = 274557032793636864n;

test('values have their documented JS types', () => {
  const d = emq.decode('USR0KHTOWnGLuC');
  assert.deepEqual(d, { ns: 'USR', snowflake: S1, unixMs: 1769526697641, node: 0, seq: 0 });
  assert.equal(typeof emq.encode('USR', S1), 'string');
  assert.equal(typeof emq.hash32(S1), 'number');
  assert.equal(typeof emq.minFor(1769526697641), 'bigint');
  assert.equal(typeof emq.decodeSnowflake('USR0KHTOWnGLuC'), 'bigint');
  assert.equal(typeof new emq.Minter(1).next(), 'bigint');
  assert.ok(emq.slotMany(['a', 'b']) instanceof Uint16Array);
  assert.ok(emq.hashtag(Buffer.from('{a}')) instanceof Uint8Array);
  assert.equal(emq.hashtag('{a}'), 'a');
});

test('every gate is reachable with its code and the EmqIdError class', () => {
  const cases = [
    [() => emq.decode('USR0KHTOWnGLu'), 'length'],
    [() => emq.decode('usr0KHTOWnGLuC'), 'namespace'],
    [() => emq.decode('USR0KHTOWnGL!C'), 'charset'],
    [() => emq.decode('USRzzzzzzzzzzz'), 'range'],
    [() => emq.decode(Buffer.from([0x55, 0x53, 0x52, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), 'charset'],
    [() => emq.encode('USR', 1n << 63n), 'range'],
    [() => emq.encode('usr', 0n), 'range'],
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
    [() => new emq.Minter(1024), 'range'],
    [() => emq.minFor(1704067200000 + 2 ** 41), 'range'],
  ];
  for (const [f, code] of cases) {
    assert.throws(f, (e) => e instanceof emq.EmqIdError && e instanceof Error && e.code === code && e.message.startsWith(code));
  }
});

test('64-bit values are bigint only: numbers, negatives and 2^64 are range, never wrapped', () => {
  for (const bad of [5, 2 ** 60, -1n, 2n ** 64n, 2n ** 64n + 5n, '5']) {
    assert.throws(() => emq.hash32(bad), { code: 'range' }, String(bad));
    assert.throws(() => emq.encode('USR', bad), { code: 'range' }, String(bad));
  }
  assert.equal(emq.hash32(2n ** 64n - 1n), emq.hash32(18446744073709551615n));
  assert.throws(() => emq.minFor(NaN), { code: 'range' });
  assert.throws(() => emq.minFor(Infinity), { code: 'range' });
});

test('wrong JS types are TypeErrors, and no input crashes the process', () => {
  for (const bad of [undefined, null, 5, {}, [], () => 1, Symbol('x'), new Uint16Array(2)]) {
    assert.throws(() => emq.slot(bad), TypeError);
    assert.throws(() => emq.decode(bad), TypeError);
  }
  assert.throws(() => emq.slotMany('not an array'));
});

test('strings are keys as UTF-8 bytes, lone surrogates as U+FFFD (what Buffer.from sends)', () => {
  for (const key of ['emq:{q}:pending', 'naïve{café}', '🚀', 'x{🚀}y', '\uD800', 'a\uDC00b{\uD83D}']) {
    assert.equal(emq.slot(key), emq.slot(Buffer.from(key)), key);
  }
  assert.equal(emq.slot('\uD800'), emq.slot(Buffer.from([0xef, 0xbf, 0xbd])));
  const long = 'k'.repeat(5000) + '{tag}';
  assert.equal(emq.slot(long), emq.slot('tag'));
  assert.equal(emq.slot(''), 0);
});

test('a queue\'s keys share its slot; slotMany agrees with slot', () => {
  const keys = [emq.queueKey('orders', 'pending'), emq.queueKey('orders', 'active'), emq.jobKey('orders', 'JOB0KHTOWnGLuC')];
  assert.deepEqual([...emq.slotMany(keys)], keys.map(() => emq.slot('orders')));
  assert.equal(emq.key('orders', 'job', 'JOB0KHTOWnGLuC'), keys[2]);
});

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

test('the keyspace: every family as the bus writes it, keys read back, the reserve, stream entry ids', () => {
  assert.equal(emq.key('orders', 'g:vip:pending'), 'emq:{orders}:g:vip:pending');
  assert.deepEqual({ ...emq.parseKey('emq:{orders}:job:JOB0KHTOWnGLuC:lock') }, { queue: 'orders', family: 'job:<id>:lock', param: 'JOB0KHTOWnGLuC' });
  assert.deepEqual(JSON.parse(JSON.stringify(emq.parseKey('emq:{orders}:pending'))), { queue: 'orders', family: 'pending' });
  assert.equal(emq.reserve('version'), '{emq}:version');
  assert.equal(emq.jobPrefix('orders'), 'emq:{orders}:job:');
  assert.equal(emq.prefixBytes('orders', 'job:'), 17);
  assert.equal(emq.xaddId('EVT000xY9Wvvcd'), '1704117200000-1620567');
  assert.equal(emq.fromXaddId('1704117200000-1620567'), 'EVT000xY9Wvvcd');
  assert.equal(emq.fromXaddId('1704117200000-1620567', 'ORD'), 'ORD000xY9Wvvcd');
  assert.equal(emq.KEYSPACE, 'emq-keyspace/2');
  assert.throws(() => emq.reserve(5), TypeError);
});
