// Node.js CommonJS entry (api.cjs is generated from api.mjs by `cargo xtask wasm-build`).
'use strict';
const { makeApi } = require('./api.cjs');

module.exports = makeApi(require('./node/emq_id_wasm.js'), { envNode: process.env.EMQ_NODE });
