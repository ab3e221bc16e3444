'use strict';
// The one-call holder (@echomq/emq-id/holder) without a server: the options
// it refuses, the wire it writes, and what it does with each answer the
// protocol allows, against scripted stand-ins for an ioredis and a
// node-redis client (a live cluster cannot be made to answer WAIT 0, "gone"
// or ASK on cue). holder-live.test.js meets a real Valkey; the live tests,
// failovers and migrations included, run the holder over real ioredis and
// node-redis clients in `cargo xtask chaos`.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const emq = require('..');
const { Lease, LeaseWireError } = require('../holder');

const SCRIPT_NAMES = new Map(Object.entries(emq.LEASE_SCRIPTS).map(([name, text]) => [text, name]));
const TERMS = { ttlMs: 300, marginMs: 50 };
/** The terms' renewal period: a sleep this long (and a little) sees a renewal. */
const EVERY = emq.leaseRenewEveryMs(TERMS.ttlMs, TERMS.marginMs);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Answers lease writes as scripted; `rounds` logs each round trip's commands
 * by name. `nodes` are the servers other addresses answer from (`host:port`),
 * for a write an ASK sends there; `dialed` logs the addresses connected to.
 */
class Server {
  constructor({ acks = 1, acquire = [7, -1], renew = 1, nodes = {} } = {}) {
    Object.assign(this, { acks, acquire, renew, nodes, rounds: [], dialed: [] });
  }
  /** The server at `host:port`, as a client's connection to it sees it. */
  dial(host, port) {
    const address = `${host}:${port}`;
    this.dialed.push(address);
    assert.ok(this.nodes[address], `no scripted server at ${address}`);
    return this.nodes[address];
  }
  answer([name, ...args]) {
    if (name === 'WAIT') return this.acks;
    if (name === 'ASKING') return 'OK';
    const script = SCRIPT_NAMES.get(args[0]);
    const reply = script === 'acquire' ? this.acquire : this.renew;
    return typeof reply === 'function' ? reply(args) : reply;
  }
  log(commands) {
    this.rounds.push(commands.map(([name, ...args]) => (name === 'EVAL' ? SCRIPT_NAMES.get(args[0]) : name)));
  }
  /** The scripts sent, by name, in order. */
  scripts() {
    return this.rounds.flat().filter((n) => n !== 'WAIT');
  }
}

/**
 * An ioredis stand-in: a pipeline of `call`s, `exec` answers `[error, value]`
 * pairs. A duplicate to the same node answers through the client's own
 * `pipeline` (a test may swap it); its options are kept in `duplicated`.
 */
function ioredisLike(server, duplicated = []) {
  const client = {
    isCluster: false,
    options: { host: '10.0.0.1', port: 7000 },
    duplicate(options) {
      duplicated.push(options);
      const { host, port } = options;
      const same = host === undefined && port === undefined;
      const connection = same ? { options: client.options, pipeline: () => client.pipeline() } : ioredisLike(server.dial(host, port));
      connection.status = 'wait';
      return Object.assign(connection, {
        connect: async () => {
          connection.status = 'ready';
        },
        disconnect() {
          connection.status = 'end';
        },
        on() {},
      });
    },
    call() {},
    pipeline() {
      const commands = [];
      const pipeline = {
        call: (...command) => commands.push(command) && pipeline,
        exec: async () => {
          server.log(commands);
          return commands.map((c) => {
            const reply = server.answer(c);
            return reply instanceof Error ? [reply, null] : [null, reply];
          });
        },
      };
      return pipeline;
    },
  };
  return client;
}

/** A node-redis stand-in: `sendCommand` per command; error replies are ErrorReply. */
class ErrorReply extends Error {}
function nodeRedisLike(server, duplicated = []) {
  let round = null;
  const client = {
    options: { socket: { host: '10.0.0.1', port: 7000 } },
    duplicate(options) {
      duplicated.push(options);
      const { host, port } = options.socket;
      const same = host === client.options.socket.host && port === client.options.socket.port;
      const connection = { ...(same ? client : nodeRedisLike(server.dial(host, port))), options, isReady: false };
      Object.assign(connection, {
        destroy() {
          connection.isReady = false;
        },
        on: () => connection,
        connect: async () => {
          connection.isReady = true;
          return connection;
        },
      });
      return connection;
    },
    multi() {},
    async sendCommand(command) {
      if (round === null) {
        round = [];
        queueMicrotask(() => {
          server.log(round);
          round = null;
        });
      }
      round.push(command);
      const reply = server.answer(command);
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  return client;
}

for (const [clientName, makeClient] of [
  ['ioredis', ioredisLike],
  ['node-redis', nodeRedisLike],
]) {
  test(`${clientName}: an acknowledged acquire is held and minted on, then released with its high water`, async () => {
    const server = new Server();
    const lease = await Lease.acquire(makeClient(server), { terms: TERMS });
    assert.deepEqual(lease.held, { node: 7, previousMark: null, ordinal: 1 });
    assert.equal(lease.node, 7);
    const id = lease.mint('JOB');
    assert.equal(emq.node(emq.decodeSnowflake(id)), 7);
    assert.equal(emq.node(lease.next()), 7);
    assert.deepEqual(server.rounds[0], ['acquire', 'WAIT']);
    let released;
    server.renew = (args) => {
      released = args;
      return 1;
    };
    assert.equal(await lease.release(), true);
    assert.deepEqual(server.scripts().slice(-1), ['release']);
    assert.equal(server.rounds.at(-1).length, 1, 'a release waits for no replica');
    // [script, numkeys, LEASE_KEY, token, high water, node]
    assert.deepEqual([released[1], released[2], released[5]], ['1', emq.LEASE_KEY, '7']);
    const mark = Number(released[4]);
    assert.ok(mark >= emq.unixMs(emq.decodeSnowflake(id)), `released with mark ${mark}, before its id`);
    assert.throws(() => lease.mint('JOB'), (e) => e instanceof emq.EmqIdError && e.code === 'node');
    assert.equal(await lease.release(), true, 'a second release answers as the first');
  });

  test(`${clientName}: every script declares the one lease key; renew and release name the node last`, async () => {
    const server = new Server();
    const sent = [];
    const logged = (reply) => (args) => {
      sent.push(args);
      return reply;
    };
    server.acquire = logged([7, -1]);
    server.renew = logged(1);
    const lease = await Lease.acquire(makeClient(server), { terms: TERMS });
    await sleep(EVERY + 50);
    await lease.release();
    // Each is [script, numkeys, ...KEYS, ...ARGV], as strings.
    const [acquire, renew, release] = ['acquire', 'renew', 'release'].map((name) => sent.find((a) => SCRIPT_NAMES.get(a[0]) === name));
    assert.ok(acquire && renew && release, JSON.stringify(server.scripts()));
    for (const write of [acquire, renew, release]) assert.deepEqual(write.slice(1, 3), ['1', emq.LEASE_KEY]);
    const token = acquire[3];
    assert.equal(acquire.length, 3 + 5);
    assert.deepEqual([acquire[4], acquire[6]], [String(TERMS.ttlMs), String(emq.LEASE_NODES)]);
    assert.equal(renew.length, 3 + 4);
    assert.deepEqual([renew[3], renew[4], renew[6]], [token, String(TERMS.ttlMs), '7']);
    assert.ok(Number.isSafeInteger(Number(renew[5])), `renew's mark: ${renew[5]}`);
    assert.equal(release.length, 3 + 3);
    assert.deepEqual([release[3], release[5]], [token, '7']);
    assert.ok(Number.isSafeInteger(Number(release[4])), `release's high water: ${release[4]}`);
  });

  test(`${clientName}: an unacknowledged acquire mints nothing and is released`, async () => {
    const server = new Server({ acks: 0 });
    await assert.rejects(Lease.acquire(makeClient(server), { terms: TERMS }), (e) => {
      assert.ok(e instanceof emq.EmqIdError && e.code === 'node', e.message);
      assert.equal(e.acknowledged, 0);
      assert.equal(e.replicas, 1);
      return true;
    });
    assert.deepEqual(server.scripts(), ['acquire', 'release']);
    // Its release goes through the keeper: an ASK is followed.
    const target = new Server();
    const asked = new Server({ acks: 0, renew: new ErrorReply('ASK 9051 10.0.0.2:7001'), nodes: { '10.0.0.2:7001': target } });
    await assert.rejects(Lease.acquire(makeClient(asked), { terms: TERMS }), (e) => e instanceof emq.EmqIdError && e.acknowledged === 0);
    assert.deepEqual(asked.scripts(), ['acquire', 'release']);
    assert.deepEqual(target.rounds, [['ASKING', 'release']]);
  });

  test(`${clientName}: a release moved or not run is sent again as the keeper says, three sends at most, then refused naming the reply`, async () => {
    const releases = (replies) => (args) => (SCRIPT_NAMES.get(args[0]) === 'release' ? replies.shift() : 1);
    const server = new Server();
    const lease = await Lease.acquire(makeClient(server), { terms: TERMS });
    server.renew = releases([new ErrorReply('MOVED 9051 10.0.0.1:7000'), new ErrorReply('TRYAGAIN Multiple keys request during rehashing of slot'), 1]);
    assert.equal(await lease.release(), true);
    assert.deepEqual(server.scripts().filter((n) => n === 'release'), ['release', 'release', 'release']);
    assert.deepEqual(server.dialed, [], 'sent again on the reserve\'s connection');
    // Still another's: handed back, not held.
    const gone = new Server();
    const taken = await Lease.acquire(makeClient(gone), { terms: TERMS });
    gone.renew = releases([new ErrorReply('LOADING Valkey is loading the dataset in memory'), 0]);
    assert.equal(await taken.release(), false);
    // Never run: the third refusal is the caller's, and the lease is left to its TTL.
    const down = new Server();
    const kept = await Lease.acquire(makeClient(down), { terms: TERMS });
    down.renew = releases(Array.from({ length: 5 }, () => new ErrorReply('CLUSTERDOWN The cluster is down')));
    await assert.rejects(kept.release(), (e) => e instanceof LeaseWireError && e.message === 'release: CLUSTERDOWN The cluster is down');
    assert.deepEqual(down.scripts().filter((n) => n === 'release'), ['release', 'release', 'release']);
    assert.throws(() => kept.next(), (e) => e instanceof emq.EmqIdError && e.code === 'node', 'minting stopped all the same');
  });

  test(`${clientName}: every node leased is refused with node at once, and takes nothing`, async () => {
    const full = new Server({ acquire: new ErrorReply('EMQLEASE every node is leased') });
    await assert.rejects(Lease.acquire(makeClient(full), { terms: TERMS }), (e) => {
      assert.ok(e instanceof emq.EmqIdError && e.code === 'node', e.message);
      // The core's refusal as it is (as the Rust holder gives it): the reply is not appended.
      assert.equal(e.message, emq.parseAcquireError('EMQLEASE every node is leased').message);
      return true;
    });
    assert.deepEqual(full.scripts(), ['acquire']);
  });

  test(`${clientName}: an acquire the reserve did not run is tried again for a TTL, then refused with node naming the reply`, async () => {
    for (const reply of ['NOREPLICAS Not enough good replicas to write.', 'MOVED 1234 10.0.0.2:7001', 'TRYAGAIN Multiple keys request during rehashing of slot']) {
      const server = new Server({ acquire: new ErrorReply(reply) });
      const began = emq.monotonicMs();
      await assert.rejects(Lease.acquire(makeClient(server), { terms: TERMS }), (e) => {
        assert.ok(e instanceof emq.EmqIdError && e.code === 'node', `${reply}: ${e.message}`);
        assert.ok(e.message.endsWith(`: ${reply}`), e.message);
        return true;
      });
      assert.ok(emq.monotonicMs() - began >= TERMS.ttlMs, `${reply}: refused before a TTL`);
      const tries = server.scripts();
      assert.ok(tries.length >= 5 && tries.every((n) => n === 'acquire'), `${reply}: ${tries}`);
      assert.deepEqual(server.dialed, [], `${reply}: the write went nowhere else`);
    }
  });

  test(`${clientName}: an acquire the reserve runs after a few refusals is held`, async () => {
    let refused = 0;
    const server = new Server({ acquire: () => (refused++ < 3 ? new ErrorReply('CLUSTERDOWN The cluster is down') : [7, -1]) });
    const lease = await Lease.acquire(makeClient(server), { terms: TERMS });
    assert.equal(lease.node, 7);
    assert.deepEqual(server.scripts(), ['acquire', 'acquire', 'acquire', 'acquire']);
    await lease.release();
  });

  test(`${clientName}: an ASK is followed on one connection to the node named: ASKING, the script and its WAIT`, async () => {
    const target = new Server({ acquire: [9, -1] });
    const server = new Server({ acquire: new ErrorReply('ASK 9051 10.0.0.2:7001'), nodes: { '10.0.0.2:7001': target } });
    const lease = await Lease.acquire(makeClient(server), { terms: TERMS });
    assert.equal(lease.node, 9);
    assert.deepEqual(server.rounds, [['acquire', 'WAIT']]);
    assert.deepEqual(target.rounds, [['ASKING', 'acquire', 'WAIT']], 'WAIT runs where the write ran');
    assert.deepEqual(server.dialed, ['10.0.0.2:7001']);
    // A renewal and a release are followed too; a node that names no host is the one the write went to.
    server.renew = new ErrorReply('ASK 9051 :7001');
    server.nodes['10.0.0.1:7001'] = target;
    await sleep(EVERY + 30);
    assert.deepEqual(target.rounds[1], ['ASKING', 'renew', 'WAIT']);
    assert.equal(server.dialed[1], '10.0.0.1:7001');
    assert.equal(await lease.release(), true);
    assert.deepEqual(target.rounds.at(-1), ['ASKING', 'release']);
  });

  test(`${clientName}: a wrong reply, and an ASK to a write that followed one, are LeaseWireErrors`, async () => {
    const odd = new Server({ acquire: 'OK' });
    await assert.rejects(Lease.acquire(makeClient(odd), { terms: TERMS }), (e) => e instanceof LeaseWireError && !e.redirect);
    const target = new Server({ acquire: new ErrorReply('ASK 9051 10.0.0.3:7001') });
    const twice = new Server({ acquire: new ErrorReply('ASK 9051 10.0.0.2:7001'), nodes: { '10.0.0.2:7001': target } });
    await assert.rejects(Lease.acquire(makeClient(twice), { terms: TERMS }), (e) => e instanceof LeaseWireError && e.redirect);
    assert.deepEqual(twice.dialed, ['10.0.0.2:7001'], 'followed once only');
    const failed = new Server({ acquire: new ErrorReply('ASK 9051 10.0.0.2:7001'), nodes: { '10.0.0.2:7001': new Server() } });
    failed.nodes['10.0.0.2:7001'].answer = ([name]) => (name === 'ASKING' ? new ErrorReply('ERR ASKING refused') : 1);
    await assert.rejects(Lease.acquire(makeClient(failed), { terms: TERMS }), (e) => e instanceof LeaseWireError && /^ASKING: /.test(e.message));
  });
  test(`${clientName}: an ASKING the node refuses as LOADING did not run: the write is tried again, not a fault`, async () => {
    const target = new Server({ acquire: [9, -1] });
    let loading = 2;
    const answer = target.answer.bind(target);
    target.answer = (command) => (command[0] === 'ASKING' && loading-- > 0 ? new ErrorReply('LOADING Valkey is loading the dataset in memory') : answer(command));
    const server = new Server({ acquire: new ErrorReply('ASK 9051 10.0.0.2:7001'), nodes: { '10.0.0.2:7001': target } });
    const lease = await Lease.acquire(makeClient(server), { terms: TERMS });
    assert.equal(lease.node, 9);
    assert.equal(target.rounds.length, 3, JSON.stringify(target.rounds));
    await lease.release();
  });

  test(`${clientName}: every write goes on a connection of the holder's own, with no key prefix, offline queue, reconnect or re-send`, async () => {
    const server = new Server();
    const duplicated = [];
    const lease = await Lease.acquire(makeClient(server, duplicated), { terms: TERMS });
    await sleep(EVERY + 30);
    await lease.release();
    assert.equal(duplicated.length, 1, 'one connection, kept while it is open');
    const [options] = duplicated;
    if (clientName === 'ioredis') {
      assert.deepEqual(
        [options.keyPrefix, options.autoResendUnfulfilledCommands, options.enableOfflineQueue, options.maxRetriesPerRequest, options.retryStrategy, options.lazyConnect],
        ['', false, false, 0, null, true],
      );
    } else {
      assert.deepEqual([options.disableOfflineQueue, options.keyPrefix, options.socket.reconnectStrategy], [true, undefined, false]);
    }
  });

  test(`${clientName}: a write whose connection does not open in time was never sent: not run, tried again`, async () => {
    const server = new Server();
    const client = makeClient(server);
    const duplicate = client.duplicate.bind(client);
    const hung = [];
    client.duplicate = (options) => {
      const connection = duplicate(options);
      if (hung.length === 0) {
        hung.push(connection);
        connection.connect = () => new Promise(() => {}); // never opens
      }
      return connection;
    };
    const faults = [];
    const lease = await Lease.acquire(client, { terms: TERMS, timeoutMs: 200 });
    lease.on('fault', (e) => faults.push(e));
    assert.equal(lease.node, 7);
    assert.deepEqual(server.scripts(), ['acquire'], 'the write that never left was not sent late');
    assert.equal(faults.length, 0);
    await lease.release();
  });

}

test('renewals every third of the TTL, each acknowledged, keep the lease and say so', async () => {
  const server = new Server();
  const lease = await Lease.acquire(ioredisLike(server), { terms: TERMS });
  const events = [];
  lease.on('renewed', (held) => events.push(held.ordinal));
  await sleep(TERMS.ttlMs * 2);
  assert.ok(events.length >= 3, `renewed ${events.length} times in two TTLs`);
  assert.ok(events.every((ordinal) => ordinal === 1));
  assert.ok(server.rounds.slice(1).every((r) => r.join() === 'renew,WAIT'));
  lease.next(); // minting on: the fence moved with each renewal
  await lease.release();
});

test('unacknowledged renewals leave the fence where it was: minting stops, the lease is kept', async () => {
  const server = new Server();
  const lease = await Lease.acquire(ioredisLike(server), { terms: TERMS });
  server.acks = 0;
  await sleep(TERMS.ttlMs);
  assert.throws(() => lease.next(), (e) => e.code === 'node', 'fenced without an acknowledged renewal');
  assert.equal(lease.held?.node, 7, 'renewals that reached the primary keep the lease');
  server.acks = 1;
  await sleep(TERMS.ttlMs / 2);
  lease.next();
  await lease.release();
});

test('a lost lease is taken again, its ids after every id minted on the first, with events', async () => {
  const server = new Server();
  const lease = await Lease.acquire(ioredisLike(server), { terms: TERMS });
  const events = [];
  for (const e of ['lost', 'reacquired']) lease.on(e, (held) => events.push([e, held.node, held.ordinal]));
  const before = [];
  for (let i = 0; i < 1000; i++) before.push(lease.next());
  server.acquire = [9, Number(emq.unixMs(before.at(-1)))];
  server.renew = 0;
  await sleep(EVERY + 50);
  server.renew = 1;
  assert.deepEqual(events, [['lost', 7, 1], ['reacquired', 9, 2]]);
  const after = lease.nextMinted();
  assert.equal(after.lease, 2);
  assert.equal(emq.node(after.snowflake), 9);
  assert.ok(after.snowflake > before.at(-1) && emq.unixMs(after.snowflake) > emq.unixMs(before.at(-1)));
  assert.deepEqual({ ...lease.stats, unleasedMs: null }, { taken: 2, lost: 1, unleasedMs: null, longestUnleasedMs: lease.stats.longestUnleasedMs });
  await lease.release();
});

test('a lease no renewal reached for a whole TTL is lost, said so, and replaced', async () => {
  const server = new Server();
  const client = ioredisLike(server);
  const lease = await Lease.acquire(client, { terms: TERMS, timeoutMs: 100 });
  const events = [];
  for (const e of ['lost', 'reacquired']) lease.on(e, (held) => events.push([e, held.ordinal]));
  lease.on('fault', () => {});
  const exec = client.pipeline;
  client.pipeline = () => ({ call() { return this; }, exec: () => Promise.reject(new Error('connection lost')) });
  await sleep(TERMS.ttlMs + 100);
  assert.throws(() => lease.next(), (e) => e.code === 'node', 'fenced, then lost');
  server.acquire = [9, -1];
  client.pipeline = exec;
  await sleep(TERMS.ttlMs / 2);
  assert.deepEqual(events, [['lost', 1], ['reacquired', 2]]);
  assert.equal(emq.node(lease.next()), 9);
  await lease.release();
});

test('faults are reported, and the holder tries again; a reply that moved the write is not a fault', async () => {
  const server = new Server();
  const lease = await Lease.acquire(ioredisLike(server), { terms: TERMS });
  const faults = [];
  lease.on('fault', (e) => faults.push(e));
  server.renew = new ErrorReply('READONLY You can\'t write against a read only replica.');
  await sleep(EVERY + 30);
  assert.deepEqual(faults, [], 'READONLY: the reserve moved, the holder looks again');
  server.renew = 'OK';
  await sleep(40);
  server.renew = 1;
  assert.ok(faults.length >= 1 && faults[0] instanceof LeaseWireError, String(faults[0]));
  await sleep(100);
  lease.next();
  assert.equal(lease.node, 7);
  await lease.release();
});

test('options and clients are checked before anything is sent', async () => {
  const server = new Server();
  const client = ioredisLike(server);
  const range = (e) => e instanceof emq.EmqIdError && e.code === 'range';
  await assert.rejects(Lease.acquire(client, { replicas: -1 }), range);
  await assert.rejects(Lease.acquire(client, { replicas: 1.5 }), range);
  await assert.rejects(Lease.acquire(client, { replicas: '1' }), TypeError);
  await assert.rejects(Lease.acquire(client, { terms: { ttlMs: 1 } }), range);
  await assert.rejects(Lease.acquire(client, { terms: { ttlMs: 300, marginMs: 250 } }), range);
  await assert.rejects(Lease.acquire(client, { terms: TERMS, timeoutMs: 10 }), range);
  await assert.rejects(Lease.acquire({ get() {} }), TypeError);
  await assert.rejects(Lease.acquire(null), TypeError);
  assert.equal(server.rounds.length, 0);
});

test('replicas 0 sends no WAIT', async () => {
  const server = new Server();
  const lease = await Lease.acquire(nodeRedisLike(server), { replicas: 0, terms: TERMS });
  await sleep(EVERY + 30);
  await lease.release();
  assert.ok(server.rounds.every((r) => !r.includes('WAIT')), JSON.stringify(server.rounds));
});

test('a lease never keeps its process alive', () => {
  const child = `
    const { Lease } = require(${JSON.stringify(path.join(__dirname, '../holder'))});
    const client = { isCluster: false, options: {}, call() {}, duplicate: () => ({ ...client, status: 'wait',
      connect() { this.status = 'ready'; return Promise.resolve(); }, disconnect() {}, on() {} }), pipeline() {
      const c = []; const p = { call: (...a) => c.push(a) && p,
        exec: async () => c.map(([n, , , , , , ...x]) => [null, n === 'WAIT' ? 1 : [3, -1]]) };
      return p; } };
    Lease.acquire(client, { terms: { ttlMs: 60000 } }).then((l) => console.log('held', l.node));`;
  const run = spawnSync(process.execPath, ['-e', child], { timeout: 10_000, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'held 3');
});
