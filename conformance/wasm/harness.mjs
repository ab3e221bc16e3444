// Runs in headless Chromium: loads the built package exactly as a browser
// would (its browser entry, which fetches the .wasm), answers every request
// the runner serves, and posts the answers back. Any failure is posted too,
// so the runner never waits on a silent page.
async function run() {
  const emq = await import('/pkg/browser.mjs');
  const { translate } = await import('/js/translate.mjs');
  const requests = await (await fetch('/requests')).json();
  const answers = requests.map((r) => ({ req: r.req, ...translate(emq, r) }));
  return { userAgent: navigator.userAgent, answers };
}

run()
  .catch((e) => ({ fatal: `${e && e.name}: ${e && e.message}\n${e && e.stack}` }))
  .then((body) => fetch('/answers', { method: 'POST', body: JSON.stringify(body) }));
