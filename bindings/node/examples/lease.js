'use strict';
// A node lease on Valkey in one call (SPEC.md §5.2), over the client a program
// already has: ioredis or node-redis. Run:
//   node examples/lease.js --cluster 127.0.0.1:7000 [--client node-redis] [--replicas 0] [-n 5]
// (or --server HOST:PORT for a standalone Valkey); prints the node, the ids, and
// whether the node was released, as one JSON line. `cargo xtask test` runs it
// against a live cluster with both clients.

const Redis = require('ioredis');
const { createClient, createCluster } = require('redis');
const { Lease } = require('../holder'); // in a project: require('@echomq/emq-id/holder')

function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
}

async function connect(kind, where, url) {
  if (kind === 'ioredis') return where === 'cluster' ? new Redis.Cluster([url]) : new Redis(url);
  const client = where === 'cluster' ? createCluster({ rootNodes: [{ url }] }) : createClient({ url });
  return client.connect();
}

async function main() {
  const [where, address] = arg('--cluster') ? ['cluster', arg('--cluster')] : ['server', arg('--server', '127.0.0.1:6379')];
  const kind = arg('--client', 'ioredis');
  const client = await connect(kind, where, `redis://${address}`);
  try {
    const lease = await Lease.acquire(client, { replicas: Number(arg('--replicas', '1')) });
    const ids = Array.from({ length: Number(arg('-n', '1')) }, () => lease.mint('JOB'));
    console.log(JSON.stringify({ node: lease.node, previous_mark: lease.held.previousMark, ids, released: await lease.release() }));
  } finally {
    if (kind === 'ioredis') client.disconnect();
    else await client.close();
  }
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
