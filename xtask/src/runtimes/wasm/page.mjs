// The page's half of xtask's browser runs (xtask/src/runtimes/wasm/browser.rs),
// served at /xtask/page.mjs. run(work) fetches the run's input (/input), hands
// it to work, and posts what work returns (/result) with the browser's user
// agent; a failure is posted too, so the runner never waits on a silent page.
// A page imports only this module statically and the rest inside work, where
// a failure to load is caught.
export function run(work) {
  fetch('/input')
    .then((response) => response.json())
    .then(work)
    .then((result) => ({ userAgent: navigator.userAgent, result }))
    .catch((e) => ({ fatal: `${e && e.name}: ${e && e.message}\n${e && e.stack}` }))
    .then((body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) }));
}
