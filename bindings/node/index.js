'use strict';
// The loader of @echomq/emq-id: the native addon for this platform (from its
// platform package, @echomq/emq-id-linux-x64-gnu and the like), else the
// WebAssembly build (same API, same answers), or whichever EMQ_ID_BACKEND
// ('native' | 'wasm') asks for; backendInfo() says which and why. The API itself is
// api.cjs, copied from bindings/js/api.mjs: one source for both packages.

const { isMainThread } = require('node:worker_threads');
const { makeApi } = require('./api.cjs');

const NAME = '@echomq/emq-id';

// The platforms with a native package of their own (optionalDependencies in
// package.json: npm installs the one whose os, cpu and libc fit).
const PLATFORMS = ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl'];

function libc() {
  if (process.platform !== 'linux') return '';
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
  return report?.header?.glibcVersionRuntime ? '-gnu' : '-musl';
}

const PLATFORM = `${process.platform}-${process.arch}${libc()}`;

// The addon beside this file (a source tree, where `cargo xtask node-build`
// puts it), else this platform's package; undefined when neither is there.
function native() {
  const { nativeBackend } = require('./native.js');
  for (const from of [`./emq-id.${PLATFORM}.node`, `${NAME}-${PLATFORM}`]) {
    let addon;
    try {
      addon = require(from);
    } catch (cause) {
      if (cause?.code === 'MODULE_NOT_FOUND' && String(cause.message).includes(from)) continue;
      throw cause;
    }
    return { backend: nativeBackend(addon), from };
  }
  return undefined;
}

// EMQ_NODE is the main thread's (each worker thread instantiates a module of
// its own, a mint state of its own: see SPEC.md §5.1).
function wasm(why) {
  const { wasmBackend } = require('./wasm-backend.cjs');
  const backend = wasmBackend(require('./wasm/emq_id_wasm.js'), { envNode: isMainThread ? process.env.EMQ_NODE : undefined });
  return { backend, from: `WebAssembly (${why})` };
}

function load() {
  const asked = process.env.EMQ_ID_BACKEND;
  if (asked === 'wasm') return wasm('EMQ_ID_BACKEND=wasm');
  if (asked !== undefined && asked !== '' && asked !== 'native') {
    throw new Error(`${NAME}: EMQ_ID_BACKEND is 'native' or 'wasm', not ${JSON.stringify(asked)}`);
  }
  let loaded;
  try {
    loaded = native();
  } catch (cause) {
    if (asked === 'native' || cause?.code !== 'ERR_DLOPEN_FAILED') {
      throw new Error(`${NAME}: the native addon for ${PLATFORM} did not load`, { cause });
    }
    // An addon that is there but cannot load (a libc older than its floor, a broken file):
    // the answers stay the same on WebAssembly, but say why it is slower.
    if (isMainThread) {
      process.emitWarning(`the addon for ${PLATFORM} did not load (${cause.message}): using the WebAssembly build`, {
        code: 'EMQ_ID_ADDON_FAILED',
      });
    }
    return wasm(`the addon for ${PLATFORM} did not load: ${cause.message}`);
  }
  if (loaded) return loaded;
  if (asked === 'native') {
    const why = PLATFORMS.includes(PLATFORM) ? `${NAME}-${PLATFORM} is not installed` : `${PLATFORM} has no native package`;
    throw new Error(`${NAME}: EMQ_ID_BACKEND=native, but ${why}`);
  }
  if (!PLATFORMS.includes(PLATFORM)) return wasm(`no native package for ${PLATFORM}`);
  // A package exists for this platform but npm did not install it (--omit=optional,
  // --no-optional, or a lock file made where other platforms' packages were chosen):
  // the answers are the same, only slower, so say it once instead of failing.
  if (isMainThread) {
    process.emitWarning(`${NAME}-${PLATFORM} is not installed: using the WebAssembly build (the same answers, slower)`, {
      code: 'EMQ_ID_NO_ADDON',
    });
  }
  return wasm(`${NAME}-${PLATFORM} is not installed`);
}

const { backend, from } = load();
module.exports = makeApi(backend, { name: NAME, from });
