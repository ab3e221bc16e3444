// The page's half of xtask's browser runs (xtask/browser/drive.mjs), served at
// /xtask/page.mjs. run(work) hands the run's input to work and leaves what
// work returns, with the browser's user agent, where the driver awaits it; a
// failure is left there too, so the driver never waits on a silent page. A
// page imports only this module statically and the rest inside work, where a
// failure to load is caught.
export function run(work) {
  globalThis.xtaskResult = Promise.resolve(globalThis.xtaskInput)
    .then(work)
    .then((result) => ({ userAgent: navigator.userAgent, result }))
    .catch((e) => ({ fatal: `${e && e.name}: ${e && e.message}\n${e && e.stack}` }));
}
