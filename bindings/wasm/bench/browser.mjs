// The Chromium column of `cargo xtask bench wasm`: bench.mjs on the package's
// browser entry (which fetches the .wasm), in the page xtask serves
// (xtask/browser/drive.mjs); the rows go back through xtask's page helper.
import { run } from '/xtask/page.mjs';

run(async (settings) => {
  const { default: api } = await import('/pkg/browser.mjs');
  const { bench } = await import('/bench.mjs');
  const ulid = await import('ulid');
  const clusterKeySlot = await commonJs('/node_modules/cluster-key-slot/lib/index.js');
  return bench(api, { clusterKeySlot, ulid }, settings, () => performance.now());
});

// cluster-key-slot ships CommonJS only: run as a bundler would, in a function given `module`.
async function commonJs(url) {
  const module = { exports: {} };
  new Function('module', 'exports', await (await fetch(url)).text())(module, module.exports);
  return module.exports;
}
