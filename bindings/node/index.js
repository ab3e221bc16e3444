'use strict';
// The loader of @echomq/emq-id: finds the native addon for this platform,
// runs the contract self-check once, and gives every refusal the EmqIdError
// class. All logic lives in the Rust core; this file only loads and wraps.

const { platform, arch } = process;

function libc() {
  if (platform !== 'linux') return '';
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
  return report?.header?.glibcVersionRuntime ? '-gnu' : '-musl';
}

const triple = `${platform}-${arch}${libc()}`;
let native;
try {
  native = require(`./emq-id.${triple}.node`);
} catch (cause) {
  throw new Error(
    `@echomq/emq-id: no native binary for ${triple} in this package (it ships linux-x64-gnu). ` +
      'Build one from the repository with `cargo xtask node-build` (needs Rust), ' +
      'or use the WebAssembly package, which runs everywhere.',
    { cause },
  );
}

/** Every refusal of the contract: `code` is the gate ("length", "namespace", "charset", "range", "queue", "kind"). */
class EmqIdError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = 'EmqIdError';
    this.code = code;
  }
}

const GATES = new Set(['length', 'namespace', 'charset', 'range', 'queue', 'kind', 'node', 'self_check']);

function rethrow(e) {
  if (e && GATES.has(e.code)) throw new EmqIdError(e.code, e.message);
  if (e && e.code === 'ERR_INVALID_ARG_TYPE') {
    const t = new TypeError(e.message);
    t.code = e.code;
    throw t;
  }
  throw e;
}

// One wrapper shape for every function: native call, errors re-classed.
function wrap(fn) {
  return function (a, b, c) {
    try {
      return fn(a, b, c);
    } catch (e) {
      return rethrow(e);
    }
  };
}

// decode builds its answer here, from the fields the native side wrote to a
// scratch array: creating an object property by property through N-API costs
// several times the whole decode.
const scratch = new Float64Array(4);
native.setScratch(scratch);

/** Reads an id: { ns, snowflake, unixMs, node, seq }. */
function decode(text) {
  let snowflake;
  try {
    snowflake = native.decodeInto(text);
  } catch (e) {
    return rethrow(e);
  }
  const ns = scratch[3];
  return {
    ns: String.fromCharCode(ns >>> 16, (ns >>> 8) & 255, ns & 255),
    snowflake,
    unixMs: scratch[0],
    node: scratch[1],
    seq: scratch[2],
  };
}

/** A minter for one node (0..=1023). Ids from one Minter never repeat and never decrease. */
class Minter {
  #native;
  constructor(node) {
    try {
      this.#native = new native.Minter(node);
    } catch (e) {
      rethrow(e);
    }
  }
  /** The node this minter stamps. */
  get node() {
    return this.#native.node;
  }
  /** Mints with the system clock: a bigint snowflake. */
  next() {
    try {
      return this.#native.next();
    } catch (e) {
      return rethrow(e);
    }
  }
  /** Mints with a clock reading in unix ms (number or bigint): the contract's pure step. */
  nextAt(nowMs) {
    try {
      return this.#native.nextAt(nowMs);
    } catch (e) {
      return rethrow(e);
    }
  }
}

const api = {
  EmqIdError,
  Minter,
  encode: wrap(native.encode),
  decode,
  decodeSnowflake: wrap(native.decodeSnowflake),
  hash32: wrap(native.hash32),
  unixMs: wrap(native.unixMs),
  node: wrap(native.node),
  seq: wrap(native.seq),
  minFor: wrap(native.minFor),
  slot: wrap(native.slot),
  slotMany: wrap(native.slotMany),
  hashtag: wrap(native.hashtag),
  queueKey: wrap(native.queueKey),
  jobKey: wrap(native.jobKey),
  key: wrap(native.key),
  parseKey: wrap(native.parseKey),
  reserve: wrap(native.reserve),
  jobPrefix: wrap(native.jobPrefix),
  prefixBytes: wrap(native.prefixBytes),
  xaddId: wrap(native.xaddId),
  fromXaddId: wrap(native.fromXaddId),
  mint: wrap(native.mint),
  mintMany: wrap(native.mintMany),
  mintStep: wrap(native.mintStep),
  setNode: wrap(native.setNode),
  processNode: wrap(native.processNode),
  selfCheck: wrap(native.selfCheck),
  CONTRACT: 'branded-snowflake/1.0.0',
  KEYSPACE: 'emq-keyspace/2',
};

// A build that disagrees with the contract must not load.
try {
  api.selfCheck();
} catch (e) {
  throw new Error(`@echomq/emq-id refuses to load: ${e.message}`, { cause: e });
}

module.exports = api;
