'use strict';
// The Valkey clients a holder takes, each behind the same three calls:
// `send` (a lease write's commands pipelined on ONE connection to the primary
// of the reserve's slot, each reply a value or the Error of an error reply),
// `sendTo` (the same, with ASKING in front, on one connection to the node an
// ASK names, which follows no redirect of its own) and `refresh` (after a
// MOVED or a fault: let the client relearn where the slot is). WAIT must
// follow its script on the same connection, or it would count another write's
// replicas; so nothing here lets a client re-route one command alone. Nor
// does any write go through a cluster client's own routing, which follows
// redirects and retries by itself: the keeper sees every ASK, MOVED, TRYAGAIN
// and CLUSTERDOWN.

const emq = require('../index.js');

/** The reserve's slot, where every lease write goes. */
const RESERVE_SLOT = emq.slot(emq.LEASE_KEY);

/** Where a redirect sends a write: its host, or (none named) the host the redirected write went to. */
const address = ({ host, port }, last) => ({ host: host ?? last, port });

/** A connection's `host:port`, as ioredis keys its nodes (and its slot map names them). */
const keyOf = (redis) => `${redis.options?.host}:${redis.options?.port}`;

/**
 * ioredis's `Redis` and `Cluster`. A Cluster's own pipeline follows MOVED,
 * ASK, TRYAGAIN and CLUSTERDOWN by itself when every reply is the same one
 * (always so without WAIT: replicas 0, every release), which would hide them
 * from the keeper; so every write goes to a plain connection of the
 * cluster's pool, the reserve's primary's (as the node-redis cluster does),
 * which follows nothing.
 */
function ioredis(client) {
  const cluster = client.isCluster === true;
  let last = null; // the host the last write was sent to
  let readying = null;
  async function exec(connection, commands) {
    const pipeline = connection.pipeline();
    for (const [name, ...args] of commands) pipeline.call(name, ...args);
    const results = await pipeline.exec();
    return results.map(([error, value]) => error ?? value);
  }
  /** Resolves once the cluster client has its slot map (it connects a lazy one); rejects once it has ended. */
  function ready() {
    if (client.status === 'ready') return Promise.resolve();
    if (client.status === 'end') return Promise.reject(new Error('the ioredis Cluster has ended'));
    readying ??= new Promise((resolve, reject) => {
      const settle = (error) => {
        client.off('ready', onReady);
        client.off('end', onEnd);
        readying = null;
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => settle(null);
      const onEnd = () => settle(new Error('the ioredis Cluster has ended'));
      client.on('ready', onReady);
      client.on('end', onEnd);
      if (client.status === 'wait') client.connect().catch(() => {});
    });
    return readying;
  }
  /**
   * The cluster's connection to the reserve's primary; while its slot map has
   * no node for the slot, any primary it knows: that node's reply says where
   * the slot is (MOVED) or that no node serves it (CLUSTERDOWN).
   */
  async function owner() {
    await ready();
    const key = client.slots?.[RESERVE_SLOT]?.[0];
    const all = client.nodes('all');
    const connection = all.find((r) => keyOf(r) === key) ?? client.nodes('master')[0] ?? all[0];
    if (!connection) throw new Error('the ioredis Cluster knows no node');
    return connection;
  }
  /** A connection of the cluster's pool to `to` (never redirected: a plain Redis), or one of our own like it. */
  function node(to) {
    const mapped = cluster && typeof client.natMapper === 'function' ? client.natMapper(to) : to;
    const pool = cluster ? client.nodes('all') : [client];
    const known = pool.find((r) => keyOf(r) === `${mapped.host}:${mapped.port}`);
    if (known) return { connection: known, owned: false };
    const like = cluster ? (client.nodes('master')[0] ?? pool[0]) : client;
    if (!like) throw new Error(`no connection to take the options of, for ${mapped.host}:${mapped.port}`);
    const options = { host: mapped.host, port: Number(mapped.port), lazyConnect: true, retryStrategy: null, enableOfflineQueue: true };
    return { connection: like.duplicate(options), owned: true };
  }
  return {
    name: cluster ? 'ioredis Cluster' : 'ioredis Redis',
    async send(commands) {
      const connection = cluster ? await owner() : client;
      last = connection.options?.host ?? null;
      return exec(connection, commands);
    },
    async sendTo(redirect, commands) {
      const { connection, owned } = node(address(redirect, last));
      if (!owned) return exec(connection, commands);
      connection.on('error', () => {}); // its failure is the write's: a fault
      try {
        await connection.connect();
        return await exec(connection, commands);
      } finally {
        connection.disconnect();
      }
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
 * slot's primary, and of any node (its node clients follow no redirect).
 */
function nodeRedis(client) {
  const cluster = typeof client.getNodeClientForKey === 'function';
  let last = null; // the host the last write was sent to
  async function exec(connection, commands) {
    const settled = await Promise.allSettled(commands.map((command) => connection.sendCommand(command)));
    return settled.map((s) => {
      if (s.status === 'fulfilled') return s.value;
      if (isErrorReply(s.reason)) return s.reason;
      throw s.reason; // the connection failed: the write's fate is unknown
    });
  }
  /**
   * The cluster's client of the reserve's primary; while its slot map has no
   * node for the slot, any node it knows: that node's reply says where the
   * slot is (MOVED) or that no node serves it (CLUSTERDOWN).
   */
  async function reserveClient() {
    const known = client.slots?.[RESERVE_SLOT]?.master ?? client.masters?.[0];
    return known ? client.nodeClient(known) : client.getNodeClientForKey(emq.LEASE_KEY, false);
  }
  /** The client of the node at `to`: the cluster's (or this client, when it is that node), else one of our own. */
  async function node(to) {
    const key = `${to.host}:${to.port}`;
    if (cluster) {
      const known = client.nodeByAddress?.get(key);
      // A node the slot map does not name yet (one with no slot of its own): a client made as the cluster makes its own.
      const connection = await client.nodeClient(known ?? { host: to.host, port: to.port, address: key, readonly: false });
      return { connection, owned: known === undefined };
    }
    const socket = client.options?.socket ?? {};
    if (socket.host === to.host && Number(socket.port) === to.port) return { connection: client, owned: false };
    const connection = client.duplicate({ url: undefined, socket: { ...socket, host: to.host, port: to.port } });
    connection.on('error', () => {}); // its failure is the write's: a fault
    try {
      await connection.connect();
    } catch (e) {
      connection.destroy();
      throw e;
    }
    return { connection, owned: true };
  }
  return {
    name: cluster ? 'node-redis cluster' : 'node-redis client',
    async send(commands) {
      const connection = cluster ? await reserveClient() : client;
      last = connection.options?.socket?.host ?? null;
      return exec(connection, commands);
    },
    async sendTo(redirect, commands) {
      const { connection, owned } = await node(address(redirect, last));
      try {
        return await exec(connection, commands);
      } finally {
        if (owned) connection.destroy();
      }
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
