'use strict';
// The loader of @echomq/emq-id: the native addon for this platform when the
// package has one, else the WebAssembly build (same API, same answers), or
// whichever EMQ_ID_BACKEND ('native' | 'wasm') asks for. The API itself is
// api.cjs, copied from bindings/js/api.mjs: one source for both packages.

const { isMainThread } = require('node:worker_threads');
const { makeApi } = require('./api.cjs');

const NAME = '@echomq/emq-id';

function libc() {
  if (process.platform !== 'linux') return '';
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
  return report?.header?.glibcVersionRuntime ? '-gnu' : '-musl';
}

function native() {
  const { nativeBackend } = require('./native.js');
  return nativeBackend(require(`./emq-id.${process.platform}-${process.arch}${libc()}.node`));
}

// EMQ_NODE is the main thread's (each worker thread instantiates a module of
// its own, a mint state of its own: see SPEC.md §5.1).
function wasm() {
  const { wasmBackend } = require('./wasm-backend.cjs');
  return wasmBackend(require('./wasm/emq_id_wasm.js'), { envNode: isMainThread ? process.env.EMQ_NODE : undefined });
}

function backend() {
  const asked = process.env.EMQ_ID_BACKEND;
  if (asked === 'wasm') return wasm();
  if (asked !== undefined && asked !== '' && asked !== 'native') {
    throw new Error(`${NAME}: EMQ_ID_BACKEND is 'native' or 'wasm', not ${JSON.stringify(asked)}`);
  }
  try {
    return native();
  } catch (cause) {
    if (asked === 'native' || !['MODULE_NOT_FOUND', 'ERR_DLOPEN_FAILED'].includes(cause?.code)) {
      throw new Error(`${NAME}: the native addon for ${process.platform}-${process.arch}${libc()} did not load`, { cause });
    }
    return wasm(); // no addon for this platform in the package
  }
}

module.exports = makeApi(backend(), { name: NAME });
