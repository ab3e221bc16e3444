'use strict';
// A holder of `cargo xtask chaos`'s fleet, in Node (xtask/src/runtimes/valkey/chaos/holder.rs says
// the contract): holds a lease with @echomq/emq-id/holder over ioredis or node-redis and mints two ids
// a millisecond into FILE until its stdin closes, then releases and prints its stats as one JSON line.
//
//   node chaos_holder.js --client ioredis|node-redis --seeds HOST:PORT[,...] --replicas N --ttl MS --margin MS --out FILE
//
// Each record is 24 bytes, little-endian: the snowflake, the unix ms it was minted at, the ordinal
// of the lease that minted it, 4 bytes of padding.

const fs = require('node:fs');
const Redis = require('ioredis');
const { createClient, createCluster } = require('redis');
const emq = require('..'); // in a project: require('@echomq/emq-id')
const { Lease } = require('../holder'); // in a project: require('@echomq/emq-id/holder')

const RECORD = 24;
const PER_TICK = 2;
// A node that does not answer within a second is treated as down: the holder looks elsewhere.
const TIMEOUTS = { connectTimeout: 300, commandTimeout: 1_000 };

function arg(name) {
  const at = process.argv.indexOf(name);
  if (at < 0 || at + 1 >= process.argv.length) throw new Error(`chaos_holder needs ${name}`);
  return process.argv[at + 1];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the seed runs in cluster mode, and whether its slot map names every host. */
async function probe({ host, port }) {
  const redis = new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: 0, ...TIMEOUTS });
  try {
    await redis.connect();
    const enabled = /cluster_enabled:1/.test(await redis.info('cluster'));
    const hosts = enabled ? (await redis.call('CLUSTER', 'SLOTS')).every((range) => range[2][0] !== '') : true;
    return { enabled, hosts };
  } finally {
    redis.disconnect();
  }
}

/** The client of `kind` for the first seed that answers: a cluster client in cluster mode. */
async function connect(kind, seeds) {
  for (const seed of seeds) {
    let found;
    try {
      found = await probe(seed);
    } catch {
      continue;
    }
    if (kind === 'ioredis') {
      // ioredis's Cluster skips a node its slot map names without a host (a one-node cluster
      // that has met no other): there, the node is the whole cluster, and a Redis reaches it.
      if (found.enabled && found.hosts) return new Redis.Cluster(seeds, { redisOptions: TIMEOUTS, enableOfflineQueue: false });
      return new Redis({ ...seed, ...TIMEOUTS, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    }
    const socket = { connectTimeout: TIMEOUTS.connectTimeout, reconnectStrategy: () => 100 };
    const url = ({ host, port }) => `redis://${host}:${port}`;
    const client = found.enabled
      ? createCluster({ rootNodes: seeds.map((s) => ({ url: url(s) })), defaults: { socket, disableOfflineQueue: true } })
      : createClient({ url: url(seed), socket, disableOfflineQueue: true });
    client.on('error', () => {}); // a failover's dropped connections: the holder sees them as faults
    await client.connect();
    return client;
  }
  throw new Error('no seed answered');
}

async function main() {
  const kind = arg('--client');
  const seeds = arg('--seeds')
    .split(',')
    .filter(Boolean)
    .map((s) => ({ host: s.slice(0, s.lastIndexOf(':')), port: Number(s.slice(s.lastIndexOf(':') + 1)) }));
  const terms = { ttlMs: Number(arg('--ttl')), marginMs: Number(arg('--margin')) };
  const replicas = Number(arg('--replicas'));
  const out = fs.openSync(arg('--out'), 'w');
  let closed = false;
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => {
    closed = true;
  });
  process.stdin.resume();
  const retry = emq.leaseRetryMs(terms.ttlMs, terms.marginMs);

  // Joining the fleet: the first acquire is refused while no node is free, no replica
  // acknowledges it, or the reserve does not run it for a TTL; a holder keeps asking.
  let client = null;
  let lease = null;
  while (lease === null) {
    try {
      client ??= await connect(kind, seeds);
      lease = await Lease.acquire(client, { replicas, terms });
    } catch (refusal) {
      if (closed) throw new Error(`no lease before the end: ${refusal.message}`);
      await sleep(retry);
    }
  }
  const buffer = Buffer.alloc(RECORD * PER_TICK * 64);
  let used = 0;
  let flushed = Date.now();
  while (!closed) {
    for (let i = 0; i < PER_TICK; i++) {
      let minted;
      try {
        minted = lease.nextMinted();
      } catch (e) {
        if (e instanceof emq.EmqIdError) break;
        throw e;
      }
      buffer.writeBigUInt64LE(minted.snowflake, used);
      buffer.writeBigUInt64LE(BigInt(Date.now()), used + 8);
      buffer.writeUInt32LE(minted.lease, used + 16);
      buffer.writeUInt32LE(0, used + 20);
      used += RECORD;
    }
    if (used + RECORD * PER_TICK > buffer.length || Date.now() - flushed >= 20) {
      fs.writeSync(out, buffer, 0, used);
      used = 0;
      flushed = Date.now();
    }
    await sleep(1);
  }
  fs.writeSync(out, buffer, 0, used);
  fs.closeSync(out);
  const stats = lease.stats;
  await lease.release().catch((e) => console.error(`chaos_holder: release: ${e.message}`));
  console.log(JSON.stringify({ taken: stats.taken, lost: stats.lost, longest_unleased_ms: stats.longestUnleasedMs }));
  if (kind === 'ioredis') client.disconnect();
  else await client.close().catch(() => {});
}

main().catch((e) => {
  console.error(`chaos_holder: ${e.message}`);
  process.exit(1);
});
