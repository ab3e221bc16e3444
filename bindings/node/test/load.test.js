'use strict';
// The loader: EMQ_NODE, the load-time self-check, and ESM. Each case runs in a
// fresh process, because the process-wide minter and the addon load once.

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');

const fs = require('node:fs');
const os = require('node:os');

const pkg = path.join(__dirname, '..');
// Node claims of this file's processes live apart from other tests and processes of the host.
const claims = fs.mkdtempSync(path.join(os.tmpdir(), 'emq-id-load-test-'));
process.on('exit', () => fs.rmSync(claims, { recursive: true, force: true }));

function run(code, env = {}) {
  const e = { ...process.env, EMQ_NODE_DIR: claims, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete e[k];
  return spawnSync(process.execPath, ['-e', code], { cwd: pkg, env: e, encoding: 'utf8' });
}

test('EMQ_NODE sets the process-wide minter node', () => {
  const r = run("const e = require('.'); const id = e.mint('JOB'); console.log(JSON.stringify([e.processNode(), e.decode(id).node]))", {
    EMQ_NODE: '7',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [{ node: 7, source: 'env' }, 7]);
});

test('unset EMQ_NODE is visible as a fallback (a drawn node: unique on this host only)', () => {
  const r = run("console.log(require('.').processNode().source)", { EMQ_NODE: undefined });
  assert.equal(r.stdout.trim(), 'fallback');
});

test('a drawn node is said once, with a code (EMQ_ID_DRAWN_NODE); a given one never', () => {
  const code =
    "const e = require('.'); const seen = []; process.on('warning', (w) => seen.push([w.code, w.message])); " +
    "e.mint('JOB'); e.mintMany('JOB', 3); e.mint('JOB'); setImmediate(() => console.log(JSON.stringify(seen)));";
  const drawn = run(code, { EMQ_NODE: undefined });
  assert.equal(drawn.status, 0, drawn.stderr);
  const [[warned, message], ...more] = JSON.parse(drawn.stdout);
  assert.equal(warned, 'EMQ_ID_DRAWN_NODE');
  assert.match(message, /^EMQ_NODE is not set: this process mints with node \d+, drawn .* ids collide/);
  assert.deepEqual(more, [], 'one warning per process');
  for (const env of [{ EMQ_NODE: '7' }, { EMQ_NODE: undefined, SET: '1' }]) {
    const given = run(code.replace("e.mint('JOB'); e.mintMany", "if (process.env.SET) e.setNode(9); e.mint('JOB'); e.mintMany"), env);
    assert.equal(given.status, 0, given.stderr);
    assert.deepEqual(JSON.parse(given.stdout), [], JSON.stringify(env));
  }
});

test('setNode in place of EMQ_NODE', () => {
  const r = run("const e = require('.'); console.log(JSON.stringify([e.setNode(9), e.decode(e.mint('JOB')).node]))", { EMQ_NODE: undefined });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [{ node: 9, source: 'set' }, 9]);
});

test('an invalid EMQ_NODE is refused with range, never silently replaced', () => {
  for (const bad of ['1024', 'abc', '-1', '']) {
    const r = run("try { require('.').mint('JOB') } catch (e) { console.log(e.code) }", { EMQ_NODE: bad });
    assert.equal(r.stdout.trim(), 'range', bad);
  }
});

test('a native build that disagrees with the contract refuses to load', () => {
  // Stand in for a broken addon: its selfCheck fails the way the native one would.
  const code = `
    const Module = require('module');
    const load = Module._load;
    Module._load = function (request, parent, isMain) {
      const real = load.apply(this, arguments);
      if (!request.endsWith('.node')) return real;
      return { ...real, selfCheck() { const e = new Error('hash32(274557032793636864) disagrees'); e.code = 'self_check'; throw e; } };
    };
    try { require('.'); console.log('loaded') } catch (e) { console.log(e.message) }`;
  const r = run(code);
  assert.match(r.stdout, /refuses to load: self_check: hash32/);
});

test('a drift in the addon\'s answers, seen through the JS API, refuses to load, naming the vector', () => {
  const code = `
    const Module = require('module');
    const load = Module._load;
    Module._load = function (request) {
      const real = load.apply(this, arguments);
      if (!request.endsWith('.node')) return real;
      return { ...real, slot: (k) => real.slot(k) + (k === '{fills}' ? 1 : 0) };
    };
    try { require('.'); console.log('loaded') } catch (e) { console.log(e.message) }`;
  const r = run(code);
  assert.match(r.stdout, /refuses to load: self_check: at "slot \{fills\} 4165": got "4166"/);
});

test('the backend: the addon by default, WebAssembly when asked, and never an unknown one', () => {
  const which = (env) => run("console.log(require('.').backend())", env);
  assert.equal(which({}).stdout.trim(), 'native');
  // In a source tree the addon beside index.js answers (node-build puts it there).
  assert.equal(run("console.log(require('.').backendInfo().from)", {}).stdout.trim(), './emq-id.linux-x64-gnu.node');
  assert.equal(which({ EMQ_ID_BACKEND: 'native' }).stdout.trim(), 'native');
  assert.equal(which({ EMQ_ID_BACKEND: 'wasm' }).stdout.trim(), 'wasm');
  const bad = which({ EMQ_ID_BACKEND: 'gpu' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /EMQ_ID_BACKEND is 'native' or 'wasm', not "gpu"/);
});

test('where no addon fits the platform, the package runs on WebAssembly with the same API', () => {
  // The package without its addon, as npm installs it on a platform it ships no binary for.
  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'emq-id-no-addon-'));
  try {
    for (const f of fs.readdirSync(pkg)) {
      if (!f.endsWith('.node') && !['test', 'src', 'bench', 'node_modules', 'target'].includes(f)) {
        fs.cpSync(path.join(pkg, f), path.join(bare, f), { recursive: true });
      }
    }
    const code = "const e = require('.'); e.setNode(4); const id = e.mint('JOB'); console.log(e.backend(), e.decode(id).node, e.slot('{fills}'), e.backendInfo().from)";
    const r = spawnSync(process.execPath, ['-e', code], { cwd: bare, env: { ...process.env, EMQ_NODE_DIR: claims }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    // This platform has a package of its own (linux-x64-gnu): its absence is said, once, as a warning.
    assert.equal(r.stdout.trim(), 'wasm 4 4165 WebAssembly (@echomq/emq-id-linux-x64-gnu is not installed)');
    assert.equal(r.stderr.match(/EMQ_ID_NO_ADDON/g)?.length, 1, r.stderr);
    const asked = spawnSync(process.execPath, ['-e', "require('.')"], { cwd: bare, env: { ...process.env, EMQ_ID_BACKEND: 'native' }, encoding: 'utf8' });
    assert.notEqual(asked.status, 0, 'EMQ_ID_BACKEND=native without an addon is an error, not a fallback');
    assert.match(asked.stderr, /EMQ_ID_BACKEND=native, but @echomq\/emq-id-linux-x64-gnu is not installed/);
  } finally {
    fs.rmSync(bare, { recursive: true, force: true });
  }
});

test('ESM import gives the same API', () => {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', "import { encode, Minter, EmqIdError } from '@echomq/emq-id'; console.log(encode('USR', 274557032793636864n), typeof Minter, typeof EmqIdError)"], {
    cwd: pkg,
    encoding: 'utf8',
  });
  assert.equal(out.trim(), 'USR0KHTOWnGLuC function function');
});
