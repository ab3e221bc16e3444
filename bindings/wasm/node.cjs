// Node.js entry, for require and (through node.mjs, written by `cargo xtask js`)
// for import: one instance either way. It loads the .wasm synchronously.
// EMQ_NODE, when set, is the node of mint() on the main thread only: each
// worker thread instantiates a module (a mint state) of its own, and EMQ_NODE
// names one node for the process, so a worker must be given its own with
// setNode (SPEC.md §5.1). api.cjs and backend.cjs are copies of bindings/js/
// (`cargo xtask js`).
'use strict';
const { isMainThread } = require('node:worker_threads');
const { makeApi } = require('./api.cjs');
const { wasmBackend } = require('./backend.cjs');

const raw = require('./node/emq_id_wasm.js');
module.exports = makeApi(wasmBackend(raw, { envNode: isMainThread ? process.env.EMQ_NODE : undefined }), { name: '@echomq/emq-id-wasm' });
