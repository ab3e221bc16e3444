// Runs in headless Chromium: loads the built package exactly as a browser
// would (its browser entry, which fetches the .wasm), answers every request
// the runner gives it, and hands the answers back through xtask's page helper
// (which hands back any failure too).
import { run } from '/xtask/page.mjs';

run(async (requests) => {
  const emq = await import('/pkg/browser.mjs');
  const { translate } = await import('/js/translate.mjs');
  return requests.map((r) => ({ req: r.req, ...translate(emq, r) }));
});
