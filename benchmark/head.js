'use strict';

// Micro-benchmark: rendering one response head (what _storeHeader does),
// Node's own JavaScript against onewrite, for 0, 4, 13 and 30 headers.
//
//   npm run bench:head [-- --rounds=7 --iterations=200000 --json=file]
//
// Both sides do the same work on the same kind of object: a fresh
// ServerResponse (no socket) whose head is rendered from a writeHead()
// object (validated, as Node does for those), ending with the same _header
// string (checked before timing).  The cost of making the response is
// measured alone and subtracted.  onewrite is measured three ways:
//   native   every head rendered by the addon (its cache turned off);
//   cached   the same headers every time: a kept head is reused;
//   patched  one value (a request id) differs every time: the kept head
//            gets the new value spliced in, the addon is not called.
// Rounds alternate stock, native, cached, patched, stock, ...; the table
// shows the median ns per head with min-max over the rounds, each variant's
// speed-up over stock (median of the per-round ratios), and the JS heap
// bytes allocated per head (measured with no GC in between: the benchmark
// runs itself again with a large young generation for that).

const http = require('node:http');
const path = require('node:path');
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');

const { parseArgs } = require('./lib/args');

const args = parseArgs(process.argv.slice(2), { rounds: 7, iterations: 200000, sizes: '0,4,13,30', json: '' }, {
  script: __filename,
  help: {
    rounds: 'interleaved rounds',
    iterations: 'heads rendered per round and variant',
    sizes: 'numbers of headers, comma-separated',
    json: 'also write the results to this file',
  },
});

if (!process.execArgv.includes('--max-semi-space-size=64')) {
  const r = spawnSync(process.execPath, ['--max-semi-space-size=64', '--expose-gc', __filename,
    ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status);
}

const internals = require('../lib/internals');
const head = require('../lib/head');
const response = require('../lib/response');
const { status } = require('../index');

const ROUNDS = args.rounds;
const ITER = args.iterations;
const SIZES = String(args.sizes).split(',').map(Number);

if (!status().available) {
  console.error(`onewrite is not available here: ${status().reason}`);
  process.exit(1);
}

// Header sets in the shape frameworks send: a content type, a length, then
// application headers.
function headerSet(n, id) {
  const h = {};
  const base = [
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', 1234],
    ['Cache-Control', 'no-store'],
    ['X-Request-Id', id],
  ];
  for (let i = 0; i < n; i++) {
    const [k, v] = base[i] || [`X-Custom-Header-${i}`, `value-${i}-abcdefghijklmnop`];
    h[k] = v;
  }
  return h;
}

const FIRST_LINE = 'HTTP/1.1 200 OK\r\n';
const fakeReq = { method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} };
function makeResponse() {
  const res = new http.ServerResponse(fakeReq);
  res.shouldKeepAlive = true;
  res._keepAliveTimeout = 5000;
  return res;
}

const stockStore = internals.originals.storeHeader;
// onewrite's _storeHeader, as the subclass has it (always on).
const fastStore = response.makeMethods({ on: true })._storeHeader;

function runner(store, size, varying, cacheSize) {
  const fixed = headerSet(size, '0f8a1c2e-5b7d-4e3a-9c1f-2d4b6a8e0c3f');
  let id = 0;
  return (n) => {
    head.setCacheSize(cacheSize);
    let sink = 0;
    for (let i = 0; i < n; i++) {
      const res = makeResponse();
      const headers = varying ? headerSet(size, `req-${(id++).toString(36)}-abcdef`) : fixed;
      store.call(res, FIRST_LINE, headers);
      sink += res._header.length;
    }
    head.setCacheSize(16);
    return sink;
  };
}

// The baseline: making the response (and, when values vary, the headers).
function baseline(size, varying) {
  let id = 0;
  const fixed = headerSet(size, 'x');
  return (n) => {
    let sink = 0;
    for (let i = 0; i < n; i++) {
      const h = varying ? headerSet(size, `req-${(id++).toString(36)}-abcdef`) : fixed;
      sink += makeResponse().statusCode + (h ? 1 : 0);
    }
    return sink;
  };
}

function nsPer(fn, n) {
  const t0 = process.hrtime.bigint();
  fn(n);
  return Number(process.hrtime.bigint() - t0) / n;
}

function bytesPer(fn) {
  const n = 2000;
  fn(n);
  global.gc();
  const before = process.memoryUsage().heapUsed;
  fn(n);
  return (process.memoryUsage().heapUsed - before) / n;
}

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const VARIANTS = [
  // name, store, values vary, cache slots
  ['stock', stockStore, false, 16],
  ['native', fastStore, false, 0],
  ['cached', fastStore, false, 16],
  ['patched', fastStore, true, 16],
];

const results = [];
for (const size of SIZES) {
  // Same bytes first.
  const a = makeResponse();
  const b = makeResponse();
  stockStore.call(a, FIRST_LINE, headerSet(size, 'x'));
  head.setCacheSize(0);
  fastStore.call(b, FIRST_LINE, headerSet(size, 'x'));
  head.setCacheSize(16);
  if (a._header.replace(/Date: [^\r]*/, '') !== b._header.replace(/Date: [^\r]*/, '')) {
    console.error('heads differ:', JSON.stringify(a._header), JSON.stringify(b._header));
    process.exit(1);
  }
  const row = { headers: size, variants: {} };
  const fns = VARIANTS.map(([name, store, varying, cache]) =>
    [name, runner(store, size, varying, cache), baseline(size, varying)]);
  for (const [, fn, base] of fns) {
    fn(ITER / 4);
    base(ITER / 4);
  }
  const ns = Object.fromEntries(VARIANTS.map(([name]) => [name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, fn, base] of fns) ns[name].push(nsPer(fn, ITER) - nsPer(base, ITER));
  }
  for (const [name, fn, base] of fns) {
    const ratios = ns.stock.map((s, i) => s / ns[name][i]);
    row.variants[name] = {
      ns: median(ns[name]), min: Math.min(...ns[name]), max: Math.max(...ns[name]),
      speedup: median(ratios), ratios,
      bytes: Math.max(0, Math.round(bytesPer(fn) - bytesPer(base))),
    };
  }
  results.push(row);
}

const f0 = (x) => x.toFixed(0);
console.log(`head builder (_storeHeader, writeHead object), Node ${process.versions.node}, ` +
  `${ROUNDS} interleaved rounds of ${ITER}`);
console.log('headers | variant | ns/head (min-max)   | vs stock (median of rounds) | JS heap bytes/head');
for (const r of results) {
  for (const [name] of VARIANTS) {
    const v = r.variants[name];
    console.log(`${String(r.headers).padStart(7)} | ${name.padEnd(7)} | ${`${f0(v.ns)} (${f0(v.min)}-${f0(v.max)})`.padEnd(19)} | ` +
      `${(name === 'stock' ? '' : `${v.speedup.toFixed(2)}x`).padEnd(27)} | ${v.bytes}`);
  }
}
if (args.json) {
  const file = path.resolve(String(args.json));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ node: process.versions.node, rounds: ROUNDS, iterations: ITER, results }, null, 2));
}
