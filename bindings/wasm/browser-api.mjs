// The API for browsers and bundlers (browser.mjs, written by `cargo xtask js`,
// re-exports it by name): fetches and instantiates the .wasm next to this
// file. In a browser, call setNode(node) before mint(): there is no EMQ_NODE.
import init, * as raw from './web/emq_id_wasm.js';
import { makeApi } from './api.mjs';
import { wasmBackend } from './backend.mjs';

await init({ module_or_path: new URL('./web/emq_id_wasm_bg.wasm', import.meta.url) });
const api = makeApi(wasmBackend(raw), { name: '@echomq/emq-id-wasm' });
export default api;
