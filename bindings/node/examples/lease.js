'use strict';
// A node lease on Valkey with ioredis (SPEC.md §5.2): the protocol's scripts,
// keys and reply parsing come from @echomq/emq-id, the connection is the
// user's own client. Run: node examples/lease.js --cluster 127.0.0.1:7000 -n 5
// (or --server HOST:PORT for a standalone Valkey); prints the node, the ids,
// and releases the node. `cargo xtask test` runs it against a live cluster.

const { randomBytes, randomInt } = require('node:crypto');
const Redis = require('ioredis');
const emq = require('..'); // in a project: require('@echomq/emq-id')

/** Takes a free node, renews it every third of its TTL, and gives a minter on it. */
async function acquireLease(redis, terms = {}) {
  const { ttlMs, marginMs } = emq.leaseTerms(terms.ttlMs, terms.marginMs); // bad terms never hold a node
  const token = randomBytes(16).toString('hex');
  const now = Date.now();
  const sent = emq.monotonicMs();
  let reply;
  try {
    reply = await redis.eval(emq.LEASE_SCRIPTS.acquire, 1, emq.leasePrefix(), token, ttlMs, randomInt(emq.LEASE_NODES), emq.LEASE_NODES, now);
  } catch (e) {
    throw emq.parseAcquireError(e.message) ?? e; // every node leased: EmqIdError `node`
  }
  const acquired = emq.parseAcquire(reply[0], reply[1]);
  const minter = new emq.LeasedMinter(acquired, now, sent, { ttlMs, marginMs });
  const keys = [emq.leaseKey(acquired.node), emq.markKey(acquired.node)];
  const renew = setInterval(async () => {
    const sentAt = emq.monotonicMs();
    const mark = minter.nextMark(Date.now());
    try {
      emq.parseRenewal(await redis.eval(emq.LEASE_SCRIPTS.renew, 2, ...keys, token, ttlMs, mark));
      minter.renewed(sentAt, mark);
    } catch (e) {
      if (e instanceof emq.EmqIdError) {
        minter.stop(); // lost: another owner may hold the node now
        clearInterval(renew);
      } // else Valkey is unreachable: the next tick retries, and the fence closes by itself
    }
  }, Math.floor(ttlMs / 3));
  renew.unref();
  return {
    node: acquired.node,
    previousMark: acquired.previousMark,
    minter,
    mint: (ns) => emq.encode(ns, minter.next()),
    async release() {
      clearInterval(renew);
      minter.stop();
      return (await redis.eval(emq.LEASE_SCRIPTS.release, 2, ...keys, token, minter.highWater)) === 1;
    },
  };
}

async function main() {
  const arg = (name, fallback) => {
    const at = process.argv.indexOf(name);
    return at < 0 ? fallback : process.argv[at + 1];
  };
  const [where, address] = arg('--cluster') ? ['cluster', arg('--cluster')] : ['server', arg('--server', '127.0.0.1:6379')];
  const [host, port] = address.split(':');
  const redis = where === 'cluster' ? new Redis.Cluster([{ host, port: Number(port) }]) : new Redis({ host, port: Number(port) });
  try {
    const lease = await acquireLease(redis, { ttlMs: Number(arg('--ttl', emq.LEASE_TTL_MS)) });
    const ids = Array.from({ length: Number(arg('-n', '1')) }, () => lease.mint('JOB'));
    console.log(JSON.stringify({ node: lease.node, previous_mark: lease.previousMark, ids, released: await lease.release() }));
  } finally {
    redis.disconnect();
  }
}

module.exports = { acquireLease };
if (require.main === module) {
  main().catch((e) => {
    console.error(`error: ${e.message}`);
    process.exit(1);
  });
}
