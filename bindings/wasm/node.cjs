// Node.js CommonJS entry (api.cjs and backend.cjs are copies of bindings/js/, by `cargo xtask js`).
// EMQ_NODE is the node of mint() on the main thread only: see node.mjs.
'use strict';
const { isMainThread } = require('node:worker_threads');
const { makeApi } = require('./api.cjs');
const { wasmBackend } = require('./backend.cjs');

const raw = require('./node/emq_id_wasm.js');
module.exports = makeApi(wasmBackend(raw, { envNode: isMainThread ? process.env.EMQ_NODE : undefined }), { name: '@echomq/emq-id-wasm' });
