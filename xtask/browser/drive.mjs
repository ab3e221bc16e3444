// xtask's browser runs (xtask/src/runtimes/wasm/browser.rs): one page in
// Debian's headless Chromium, driven by Playwright. Every request the page
// makes is answered from the tree by Playwright's routing, so no server
// listens anywhere; the run's input is set on the page before its scripts
// run, and the page leaves its result where page.mjs puts it.
//
//   node drive.mjs RUN.json
//
// RUN.json: { root, html, dirs: [[urlPrefix, dirUnderRoot], ...], input, deadlineMs }.
// Prints { userAgent, result } as JSON, or exits 1 naming what failed. The
// deadline covers the whole run; when it passes, the process exits and
// Playwright kills the browser it started, so no browser outlives a run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const run = JSON.parse(await readFile(process.argv[2], 'utf8'));
const fail = (why) => {
  console.error(`drive.mjs: ${why}`);
  process.exit(1);
};
// What the run is doing, for the deadline's message.
let phase = 'launching Chromium';
// unref: a run that ends in time exits as soon as the browser is closed,
// without waiting out the timer.
setTimeout(() => fail(`the run did not finish in ${run.deadlineMs / 1000} s (${phase})`), run.deadlineMs).unref();
// A name that cannot resolve: only the routes below can answer it.
const origin = 'http://emq-id.invalid';

function fileFor(path) {
  if (path === '/') return run.html;
  if (path === '/xtask/page.mjs') return 'xtask/browser/page.mjs';
  if (path.includes('..')) return null;
  const [prefix, dir] = run.dirs.find(([p]) => path.startsWith(p)) ?? [];
  return prefix === undefined ? null : join(dir, path.slice(prefix.length));
}

try {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: run.deadlineMs,
  });
  phase = 'loading the page';
  const page = await browser.newPage();
  page.on('pageerror', (e) => fail(`the page threw: ${e.stack ?? e}`));
  await page.addInitScript((input) => {
    globalThis.xtaskInput = input;
  }, run.input);
  await page.route(`${origin}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    const file = fileFor(path);
    const body = file && (await readFile(join(run.root, file)).catch(() => null));
    if (!body) console.error(`drive.mjs: the page asked for ${path}: not found`);
    const type = path.endsWith('.wasm') ? 'application/wasm' : /\.m?js$/.test(path) ? 'text/javascript' : undefined;
    await route.fulfill(body ? { body, contentType: path === '/' ? 'text/html' : type } : { status: 404 });
  });
  await page.goto(`${origin}/`, { timeout: run.deadlineMs });
  phase = 'awaiting the result';
  await page.waitForFunction(() => globalThis.xtaskResult, null, { timeout: run.deadlineMs });
  const posted = await page.evaluate(() => globalThis.xtaskResult);
  if (posted.fatal) fail(`the page failed: ${posted.fatal}`);
  process.stdout.write(JSON.stringify(posted));
  phase = 'closing Chromium';
  await browser.close();
} catch (e) {
  fail(e.stack ?? e);
}
