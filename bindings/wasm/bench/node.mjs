// The Node column of `cargo xtask bench wasm`: bench.mjs on the package's Node
// entry. `node bench/node.mjs '{"roundMs":20,"rounds":11,"node":100}'` prints
// `{ host, rows }` as JSON.
import { createRequire } from 'node:module';
import api from '../node.mjs';
import { bench } from './bench.mjs';

// The anchors are the Node package's dev dependencies, as a Node user requires them.
const require = createRequire(new URL('../../node/package.json', import.meta.url));
const anchors = { clusterKeySlot: require('cluster-key-slot'), ulid: require('ulid') };
const rows = await bench(api, anchors, JSON.parse(process.argv[2]), () => performance.now());
console.log(JSON.stringify({ host: `node ${process.version}`, rows }));
