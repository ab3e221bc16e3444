'use strict';
// The Node adapter of `cargo xtask conformance` (see conformance/PROTOCOL.md):
// protocol requests on stdin, answers on stdout, through a package's public
// API, translated by conformance/js/translate.mjs. EMQ_ID_PACKAGE names the
// package (the native Node package by default; the WASM package's Node entry
// is checked with this same adapter; EMQ_ID_BACKEND=wasm runs the Node
// package on its WebAssembly fallback, and the adapter makes sure it does).

const readline = require('node:readline');
const path = require('node:path');

async function main() {
  const pkg = require(process.env.EMQ_ID_PACKAGE || path.join(__dirname, '../../bindings/node'));
  const asked = process.env.EMQ_ID_BACKEND;
  if (asked && pkg.backend() !== asked) throw new Error(`asked for the ${asked} backend, got ${pkg.backend()}`);
  const { translate } = await import('../js/translate.mjs');
  const out = [];
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    out.push(JSON.stringify({ req: r.req, ...translate(pkg, r) }));
    if (out.length >= 512) process.stdout.write(out.splice(0).join('\n') + '\n');
  }
  if (out.length) process.stdout.write(out.join('\n') + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
