'use strict';
// The Valkey clients a holder takes, each behind the same two calls: `send`
// (a lease write's commands pipelined on ONE connection to the primary of the
// reserve's slot, each reply a value or the Error of an error reply) and
// `refresh` (after a fault: let the client learn where the slot went). WAIT
// must follow its script on the same connection, or it would count another
// write's replicas; so nothing here lets a client re-route one command alone.

const emq = require('../index.js');

/** ioredis's `Redis` and `Cluster`: a pipeline goes to one node as a whole. */
function ioredis(client) {
  const cluster = client.isCluster === true;
  return {
    name: cluster ? 'ioredis Cluster' : 'ioredis Redis',
    async send(commands) {
      const pipeline = client.pipeline();
      for (const [name, ...args] of commands) pipeline.call(name, ...args);
      // A cluster pipeline whose every reply is the same redirect is re-sent whole to the
      // new node; any other mix comes back as it is (a MOVED here is a fault, tried later).
      const results = await pipeline.exec();
      return results.map(([error, value]) => error ?? value);
    },
    async refresh() {
      if (cluster) await new Promise((resolve) => client.refreshSlotsCache(() => resolve()));
    },
  };
}

/** node-redis's error replies (`ErrorReply` and its subclasses), told from its connection errors. */
function isErrorReply(e) {
  for (let proto = Object.getPrototypeOf(e); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor?.name === 'ErrorReply') return true;
  }
  return false;
}

/**
 * node-redis's `createClient` and `createCluster`. Commands issued in one
 * tick go out on the socket in order; a cluster hands out the client of the
 * slot's primary.
 */
function nodeRedis(client) {
  const cluster = typeof client.getNodeClientForKey === 'function';
  return {
    name: cluster ? 'node-redis cluster' : 'node-redis client',
    async send(commands) {
      const connection = cluster ? await client.getNodeClientForKey(emq.LEASE_KEY, false) : client;
      const settled = await Promise.allSettled(commands.map((command) => connection.sendCommand(command)));
      return settled.map((s) => {
        if (s.status === 'fulfilled') return s.value;
        if (isErrorReply(s.reason)) return s.reason;
        throw s.reason; // the connection failed: the write's fate is unknown
      });
    },
    async refresh() {
      // A keyed command through the cluster's own routing: it follows MOVED and
      // rediscovers the slots, which the connection above cannot.
      if (cluster) await client.sendCommand(emq.LEASE_KEY, false, ['EXISTS', emq.LEASE_KEY]).catch(() => {});
    },
  };
}

/** The adapter for `client`, or a TypeError naming what is supported. */
function adapt(client) {
  if (client && typeof client.pipeline === 'function' && typeof client.call === 'function') return ioredis(client);
  if (client && typeof client.sendCommand === 'function' && typeof client.multi === 'function') return nodeRedis(client);
  const error = new TypeError(
    'a lease holder takes an ioredis Redis or Cluster, or a node-redis client or cluster (createClient, createCluster)',
  );
  error.code = 'ERR_INVALID_ARG_TYPE';
  throw error;
}

module.exports = { adapt };
