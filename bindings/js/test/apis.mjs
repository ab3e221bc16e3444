// The three APIs the tests here compare: the Node package on its addon, the
// Node package on its WebAssembly fallback (a fresh instance), and the
// WebAssembly package. Loaded on call, after a test has set its environment
// (EMQ_NODE_DIR, EMQ_NODE); importing this file loads nothing.
import { createRequire } from 'node:module';

export const require = createRequire(import.meta.url);
export const nodePkg = new URL('../../node/', import.meta.url).pathname;
export const wasmPkg = new URL('../../wasm/', import.meta.url).pathname;

/** The Node package with EMQ_ID_BACKEND set to `backend`, as a fresh instance. */
export function loadNodePackage(backend) {
  const saved = process.env.EMQ_ID_BACKEND;
  process.env.EMQ_ID_BACKEND = backend;
  delete require.cache[require.resolve(nodePkg)];
  try {
    return require(nodePkg);
  } finally {
    if (saved === undefined) delete process.env.EMQ_ID_BACKEND;
    else process.env.EMQ_ID_BACKEND = saved;
  }
}

/** `{ native, 'node package on wasm', 'wasm package' }` */
export function loadApis() {
  return {
    native: loadNodePackage('native'),
    'node package on wasm': loadNodePackage('wasm'),
    'wasm package': require(wasmPkg + 'node.cjs'),
  };
}
