// The WASM package's benchmark, one source for every host: the same calls on
// the same inputs beside the same pure-JS anchors, measured the same way, so
// the tables of two hosts are the same table by construction. A host loads the
// package and the anchors its own way and hands them in with its clock:
// node.mjs (Node) and browser.mjs (a page in headless Chromium), both run by
// `cargo xtask bench wasm`. A benchmark, not a test: it asserts nothing.
//
// How a row is measured: its calls run in batches; a batch is doubled until
// one takes `roundMs` (which warms the JIT up too), one more batch of that
// size is run unmeasured, then `rounds` batches are timed and the median is
// the row's ns per call. A browser's clock is coarse (100 µs in Chromium,
// jittered, for a page that is not cross-origin isolated): a batch of 20 ms
// is 200 ticks of it. Every row is its own loop, so each call site sees one
// function (as a caller's hot loop does), and every result is stored where the
// optimiser cannot prove it unused.

const hole = new Array(64).fill(null);

/**
 * Measures every row; returns `[{ call, anchor, ns }]` in the table's order,
 * where `anchor` names the row to compare with (or is null).
 *
 * @param api       the package's API, as the host loaded it
 * @param anchors   `{ clusterKeySlot, ulid }`: the anchor packages
 * @param settings  `{ roundMs, rounds, node }`: a batch's length, the timed batches per row, the node of mint
 * @param now       the host's clock, in milliseconds (`performance.now`)
 */
export async function bench(api, { clusterKeySlot, ulid }, { roundMs, rounds, node }, now) {
  api.setNode(node);
  const ids = Array.from({ length: 64 }, (_, i) => api.encode('JOB', (BigInt(i + 1) * 0x9e3779b97f4a7c15n) & ((1n << 63n) - 1n)));
  const snowflakes = ids.map((id) => api.decodeSnowflake(id));
  const ulids = Array.from({ length: 64 }, (_, i) => ulid.ulid(1769526697641 + i * 1000));
  const keys = Array.from({ length: 1000 }, (_, i) => `emq:{orders-${String(i).padStart(3, '0')}}:job:JOB0KHTOWnGLuC`);
  const T0 = 1769526697641;

  // [call, anchor row, calls per batch entry, n => run n of them]
  const rows = [
    ['hash32', null, 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.hash32(snowflakes[i & 63]); }],
    ['encode', 'ulid encodeTime', 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.encode('JOB', snowflakes[i & 63]); }],
    ['decode', 'ulid decodeTime', 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.decode(ids[i & 63]); }],
    ['decodeSnowflake', 'ulid decodeTime', 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.decodeSnowflake(ids[i & 63]); }],
    ['slot', 'cluster-key-slot', 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.slot(keys[i % 1000]); }],
    ['slotMany, per key (1,000 keys)', 'cluster-key-slot, per key (1,000 calls)', 1000, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.slotMany(keys); }],
    ['hashtag', null, 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.hashtag(keys[i % 1000]); }],
    ['mint, per id', null, 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.mint('JOB'); }],
    ['mintMany, per id (1,000 ids)', null, 1000, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = api.mintMany('JOB', 1000); }],
    ['ulid encodeTime', null, 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = ulid.encodeTime(T0 + (i & 63), 10); }],
    ['ulid decodeTime', null, 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = ulid.decodeTime(ulids[i & 63]); }],
    ['cluster-key-slot', null, 1, (n) => { for (let i = 0; i < n; i++) hole[i & 63] = clusterKeySlot(keys[i % 1000]); }],
    ['cluster-key-slot, per key (1,000 calls)', null, 1000, (n) => {
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let k = 0; k < 1000; k++) s ^= clusterKeySlot(keys[k]);
        hole[i & 63] = s;
      }
    }],
  ];

  const measured = [];
  for (const [call, anchor, per, batch] of rows) {
    const time = (n) => {
      const t0 = now();
      batch(n);
      return now() - t0;
    };
    let n = 1;
    while (time(n) < roundMs) n *= 2;
    time(n);
    const samples = Array.from({ length: rounds }, () => (time(n) * 1e6) / (n * per)).sort((a, b) => a - b);
    measured.push({ call, anchor, ns: samples[rounds >> 1] });
    await new Promise((resolve) => setTimeout(resolve, 0)); // between rows, the host's own work runs
  }
  return measured;
}
