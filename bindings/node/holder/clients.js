'use strict';
// The Valkey clients a holder takes, each behind the same calls: `send` (a
// lease write's commands pipelined on ONE connection to the primary of the
// reserve's slot, each reply a value or the Error of an error reply; NotSent
// when the write's deadline passed before it left), `sendTo` (the same, with
// ASKING in front, on one connection to the node an ASK names, which follows
// no redirect of its own), `refresh` (after a MOVED or a fault: the holder's
// connection is closed, and the client relearns where the slot is) and
// `close`. WAIT must follow its script on the same connection, or it would
// count another write's replicas; so nothing here lets a client re-route one
// command alone. No write goes through the client's own connections: the
// holder opens its own (a duplicate with no key prefix, no offline queue, no
// reconnect, no re-send), so the lease key is LEASE_KEY exactly, a write that
// may have run is never sent again by the client, and the keeper sees every
// ASK, MOVED, TRYAGAIN and CLUSTERDOWN.

const emq = require('../index.js');
const { LeaseWireError } = require('./keeper.js');

/** The reserve's slot, where every lease write goes. */
const RESERVE_SLOT = emq.slot(emq.LEASE_KEY);

/** Where a redirect sends a write: its host, or (none named) the host the redirected write went to. */
const address = ({ host, port }, last) => ({ host: host ?? last, port });

/** A connection's `host:port`, as ioredis keys its nodes (and its slot map names them). */
const keyOf = (redis) => `${redis.options?.host}:${redis.options?.port}`;

/**
 * A write that never left: its connection was not open before the write's
 * deadline (the connection is closed, so it never will be sent). The keeper
 * reads it as `not_run`.
 */
class NotSent extends Error {}

/** Resolves as `promise` does, or rejects with `late()` once `ms` pass (the reply, if it comes, is dropped). */
function within(promise, ms, late) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, ms));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One lease write on the wire's own connection: `open` (to the node, once
 * connected) within `ms`, else NotSent; then `exec` within what is left, else
 * a LeaseWireError. A connection that failed or went unanswered is closed
 * (`drop`): nothing it holds is ever sent later, and no reply is read by
 * another write.
 */
async function deliver(open, exec, drop, ms, what) {
  const deadline = emq.monotonicMs() + ms;
  let connection;
  try {
    connection = await within(open(), ms, () => new NotSent(`${what}: not sent, no connection in ${ms} ms`));
  } catch (e) {
    drop();
    throw e;
  }
  try {
    return await within(exec(connection), deadline - emq.monotonicMs(), () => new LeaseWireError(`${what}: no reply in ${ms} ms`));
  } catch (e) {
    drop();
    throw e;
  }
}

/** `deliver` on the wire's own connection (`reserve()`): one that fails is dropped, another closed. */
function deliverOwn(reserve, sentTo, current, drop, close, exec, commands, ms, what) {
  let entry = null;
  const open = async () => {
    entry = await reserve();
    sentTo(entry);
    return entry.open();
  };
  const failed = () => (entry !== null && current() === entry ? drop() : close(entry));
  return deliver(open, (connection) => exec(connection, commands), failed, ms, what);
}

/**
 * The options of every ioredis connection a holder opens (a duplicate of the
 * client's, or of a cluster's node connection): keys as written (no
 * `keyPrefix`: the lease key is `LEASE_KEY` exactly), no command held while
 * offline, none sent again after a reconnect (there is none: a connection
 * that fails is closed, and a write that may have run is never re-sent by the
 * client), and every reply the server gives (no ready check holding LOADING back).
 */
const IOREDIS_OWN = Object.freeze({
  keyPrefix: '',
  autoResendUnfulfilledCommands: false,
  enableOfflineQueue: false,
  enableReadyCheck: false,
  lazyConnect: true,
  maxRetriesPerRequest: 0,
  retryStrategy: null,
  reconnectOnError: null,
  readOnly: false,
});

/**
 * ioredis's `Redis` and `Cluster`. Every write goes on a connection of the
 * holder's own (IOREDIS_OWN), never the client's: a Cluster's own pipeline
 * follows MOVED, ASK, TRYAGAIN and CLUSTERDOWN by itself (hiding them from
 * the keeper), any client's `keyPrefix` would move the lease key, its offline
 * queue or reconnect could send a write late or twice, and the caller's own
 * blocking commands would delay a renewal. For a Cluster it is a duplicate of
 * the reserve's primary's node connection, and follows nothing.
 */
function ioredis(client) {
  const cluster = client.isCluster === true;
  let last = null; // the host the last write was sent to
  let readying = null;
  let own = null; // { key, connection, open }: the connection every write goes on, while it is open
  async function exec(connection, commands) {
    const pipeline = connection.pipeline();
    for (const [name, ...args] of commands) pipeline.call(name, ...args);
    const results = await pipeline.exec();
    return results.map(([error, value]) => error ?? value);
  }
  /** A connection of our own to `base`'s node (or `to`), connected once `open()` resolves. */
  function duplicate(base, to = {}) {
    const connection = base.duplicate({ ...IOREDIS_OWN, ...to });
    connection.on('error', () => {}); // its failure is the write's: a fault
    const entry = { key: keyOf(connection), connection, opened: false, opening: null };
    entry.open = () => (entry.opening ??= Promise.resolve(connection.connect()).then(() => ((entry.opened = true), connection)));
    return entry;
  }
  function close(entry) {
    if (entry !== null) entry.connection.disconnect();
  }
  function drop() {
    close(own);
    own = null;
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
  /** The holder's connection to the reserve's primary: kept while it is open and the primary is the same node. */
  async function reserve() {
    const base = cluster ? await owner() : client;
    if (own !== null && ((own.opened && own.connection.status !== 'ready') || (cluster && own.key !== keyOf(base)))) drop();
    own ??= duplicate(base);
    return own;
  }
  return {
    name: cluster ? 'ioredis Cluster' : 'ioredis Redis',
    send(commands, ms, what) {
      return deliverOwn(reserve, (entry) => (last = entry.connection.options?.host ?? null), () => own, drop, close, exec, commands, ms, what);
    },
    async sendTo(redirect, commands, ms, what) {
      const to = address(redirect, last);
      const mapped = cluster && typeof client.natMapper === 'function' ? client.natMapper(to) : to;
      const like = cluster ? (client.nodes('master')[0] ?? client.nodes('all')[0]) : client;
      if (!like) throw new Error(`no connection to take the options of, for ${mapped.host}:${mapped.port}`);
      const entry = duplicate(like, { host: mapped.host, port: Number(mapped.port) });
      try {
        return await deliver(entry.open, (connection) => exec(connection, commands), () => close(entry), ms, what);
      } finally {
        close(entry);
      }
    },
    async refresh() {
      drop();
      if (cluster) await new Promise((resolve) => client.refreshSlotsCache(() => resolve()));
    },
    close: drop,
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
 * tick go out on the socket in order. As with ioredis, every write goes on a
 * client of the holder's own: a duplicate of the client (a cluster's: of the
 * reserve's primary's node client) with no offline queue, no key prefix and
 * no reconnect (a connection that fails is closed; a new one is made for the
 * next write), which follows no redirect.
 */
function nodeRedis(client) {
  const cluster = typeof client.getNodeClientForKey === 'function';
  let last = null; // the host the last write was sent to
  let own = null; // { key, connection, open }
  async function exec(connection, commands) {
    const settled = await Promise.allSettled(commands.map((command) => connection.sendCommand(command)));
    return settled.map((s) => {
      if (s.status === 'fulfilled') return s.value;
      if (isErrorReply(s.reason)) return s.reason;
      throw s.reason; // the connection failed: the write's fate is unknown
    });
  }
  const socketOf = (c) => c.options?.socket ?? {};
  const keyOf = (c) => `${socketOf(c).host}:${socketOf(c).port}`;
  /** A client of our own like `base` (at `to`, when given), connected once `open()` resolves. */
  function duplicate(base, to = null) {
    const socket = { ...socketOf(base), reconnectStrategy: false, ...(to ?? {}) };
    const overrides = { disableOfflineQueue: true, keyPrefix: undefined, socket };
    if (to !== null) overrides.url = undefined; // a URL's host would win over the socket's
    const connection = base.duplicate(overrides);
    connection.on('error', () => {}); // its failure is the write's: a fault
    const entry = { key: to === null ? keyOf(base) : `${to.host}:${to.port}`, connection, opened: false, opening: null };
    entry.open = () => (entry.opening ??= Promise.resolve(connection.connect()).then(() => ((entry.opened = true), connection)));
    return entry;
  }
  function close(entry) {
    if (entry === null) return;
    try {
      entry.connection.destroy();
    } catch {
      // never connected
    }
  }
  function drop() {
    close(own);
    own = null;
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
  /** The holder's client of the reserve's primary: kept while it is open and the primary is the same node. */
  async function reserve() {
    const base = cluster ? await reserveClient() : client;
    if (own !== null && ((own.opened && !own.connection.isReady) || own.key !== keyOf(base))) drop();
    own ??= duplicate(base);
    return own;
  }
  return {
    name: cluster ? 'node-redis cluster' : 'node-redis client',
    send(commands, ms, what) {
      return deliverOwn(reserve, (entry) => (last = socketOf(entry.connection).host ?? null), () => own, drop, close, exec, commands, ms, what);
    },
    async sendTo(redirect, commands, ms, what) {
      const to = address(redirect, last);
      const like = cluster ? await reserveClient() : client;
      const entry = duplicate(like, { host: to.host, port: to.port });
      try {
        return await deliver(entry.open, (connection) => exec(connection, commands), () => close(entry), ms, what);
      } finally {
        close(entry);
      }
    },
    async refresh() {
      drop();
      // A keyed command through the cluster's own routing: it follows MOVED and
      // rediscovers the slots, which the connection above cannot.
      if (cluster) await client.sendCommand(emq.LEASE_KEY, false, ['EXISTS', emq.LEASE_KEY]).catch(() => {});
    },
    close: drop,
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

module.exports = { adapt, NotSent, IOREDIS_OWN };
