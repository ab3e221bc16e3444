// Node.js CommonJS entry (api.cjs is generated from api.mjs by `cargo xtask wasm-build`).
// EMQ_NODE is the node of mint() on the main thread only: see node.mjs.
'use strict';
const { isMainThread } = require('node:worker_threads');
const { makeApi } = require('./api.cjs');

module.exports = makeApi(require('./node/emq_id_wasm.js'), { envNode: isMainThread ? process.env.EMQ_NODE : undefined });
