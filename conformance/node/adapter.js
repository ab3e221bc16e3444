'use strict';
// The Node adapter of `cargo xtask conformance` (see conformance/PROTOCOL.md):
// protocol requests on stdin, answers on stdout, through the package's public
// API. It translates; the runner judges. EMQ_ID_PACKAGE names the package to
// load (the Node native package by default; the WASM package reuses this file).

const readline = require('node:readline');
const path = require('node:path');

const pkg = require(process.env.EMQ_ID_PACKAGE || path.join(__dirname, '../../bindings/node'));

function ok(value) {
  return { ok: value };
}

function refused(e) {
  if (e instanceof pkg.EmqIdError) return { error: { gate: e.code, message: e.message } };
  return { unsupported: `${e && e.name}: ${e && e.message}` };
}

function call(f) {
  try {
    return ok(f());
  } catch (e) {
    return refused(e);
  }
}

// Strings go through the string API; *_hex bytes through the Uint8Array API.
function input(r, name) {
  return r[`${name}_hex`] !== undefined ? Buffer.from(r[`${name}_hex`], 'hex') : r[name];
}

function translate(r) {
  switch (r.op) {
    case 'decode':
      return call(() => {
        const d = pkg.decode(input(r, 'text'));
        return {
          ns: d.ns,
          snowflake: d.snowflake.toString(),
          unix_ms: String(pkg.unixMs(d.snowflake)),
          node: pkg.node(d.snowflake),
          seq: pkg.seq(d.snowflake),
          hash32: pkg.hash32(d.snowflake),
        };
      });
    case 'encode':
      return call(() => ({ text: pkg.encode(r.ns, BigInt(r.snowflake)) }));
    case 'min_for':
      return call(() => ({ snowflake: pkg.minFor(BigInt(r.unix_ms)).toString() }));
    case 'mint':
      return call(() => {
        const minter = new pkg.Minter(r.node);
        return {
          steps: r.now_ms.map((now) => {
            try {
              return { snowflake: minter.nextAt(BigInt(now)).toString() };
            } catch (e) {
              if (e instanceof pkg.EmqIdError) return { gate: e.code };
              throw e;
            }
          }),
        };
      });
    case 'slot':
      return call(() => {
        const key = input(r, 'key');
        const tag = pkg.hashtag(key);
        return { slot: pkg.slot(key), hashtag_hex: Buffer.from(tag).toString('hex') };
      });
    case 'key':
      return call(() => ({ key: r.id === undefined ? pkg.key(r.queue, r.kind) : pkg.key(r.queue, r.kind, r.id) }));
    default:
      return { unsupported: `unknown op ${r.op}` };
  }
}

const out = [];
readline
  .createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on('line', (line) => {
    if (!line.trim()) return;
    const r = JSON.parse(line);
    out.push(JSON.stringify({ req: r.req, ...translate(r) }));
    if (out.length >= 512) process.stdout.write(out.splice(0).join('\n') + '\n');
  })
  .on('close', () => {
    if (out.length) process.stdout.write(out.join('\n') + '\n');
  });
