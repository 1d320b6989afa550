'use strict';

// Micro-benchmark: rendering one response head, Node's own _storeHeader
// against onewrite's native builder, for 0, 4, 13 and 30 headers.
//
//   node benchmark/head.js [--rounds=7] [--iterations=200000] [--json=file]
//
// Both sides do the same work on the same kind of object: a fresh
// ServerResponse (no socket) whose head is rendered from a writeHead()
// object, ending with the same _header string (checked before timing).  The
// cost of making the response is measured alone and subtracted.  Rounds
// alternate stock, onewrite, stock, onewrite, ... and the table shows the
// median ns per head, the spread, the per-round ratio, and the bytes each
// head allocates on the JS heap (measured with GC off during a short run).

const http = require('node:http');
const path = require('node:path');
const fs = require('node:fs');
const internals = require('../lib/internals');
const response = require('../lib/response');
const { status } = require('../index');

const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
  return m ? [m[1], m[2] === undefined ? true : m[2]] : [a, true];
}));
const ROUNDS = Number(args.rounds || 7);
const ITER = Number(args.iterations || 200000);
const SIZES = (args.sizes || '0,4,13,30').split(',').map(Number);

if (!status().available) {
  console.error(`onewrite is not available here: ${status().reason}`);
  process.exit(1);
}

// Header sets in the shape frameworks send: a content type, then
// application headers; string values with one number (Content-Length).
function headerSet(n) {
  const h = {};
  const base = [
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', 1234],
    ['Cache-Control', 'no-store'],
    ['X-Request-Id', '0f8a1c2e-5b7d-4e3a-9c1f-2d4b6a8e0c3f'],
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
const fastStore = response._storeHeader;

function runStore(store, headers, n) {
  let sink = 0;
  for (let i = 0; i < n; i++) {
    const res = makeResponse();
    store.call(res, FIRST_LINE, headers);
    sink += res._header.length;
  }
  return sink;
}

function runBaseline(n) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += makeResponse().statusCode;
  return sink;
}

function nsPer(fn, n) {
  const t0 = process.hrtime.bigint();
  fn(n);
  return Number(process.hrtime.bigint() - t0) / n;
}

// JS heap bytes allocated per call, over a run too short for a scavenge.
function bytesPer(fn) {
  const n = 2000;
  fn(n); // warm
  if (global.gc) global.gc();
  const before = process.memoryUsage();
  fn(n);
  const after = process.memoryUsage();
  return {
    heap: Math.max(0, after.heapUsed - before.heapUsed) / n,
    external: Math.max(0, after.external - before.external) / n,
  };
}

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const results = [];
for (const size of SIZES) {
  const headers = headerSet(size);
  const a = makeResponse();
  const b = makeResponse();
  stockStore.call(a, FIRST_LINE, headers);
  fastStore.call(b, FIRST_LINE, headers);
  if (a._header.replace(/Date: [^\r]*/, '') !== b._header.replace(/Date: [^\r]*/, '')) {
    console.error('heads differ:', JSON.stringify(a._header), JSON.stringify(b._header));
    process.exit(1);
  }
  const stock = (n) => runStore(stockStore, headers, n);
  const fast = (n) => runStore(fastStore, headers, n);
  // Warm both paths up before measuring.
  stock(ITER / 4);
  fast(ITER / 4);
  runBaseline(ITER / 4);
  const rows = { stock: [], onewrite: [], ratio: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const base = nsPer(runBaseline, ITER);
    const s = nsPer(stock, ITER) - base;
    const f = nsPer(fast, ITER) - base;
    rows.stock.push(s);
    rows.onewrite.push(f);
    rows.ratio.push(s / f);
  }
  const bs = bytesPer((n) => { runStore(stockStore, headers, n); });
  const bf = bytesPer((n) => { runStore(fastStore, headers, n); });
  const bb = bytesPer(runBaseline);
  results.push({
    headers: size,
    stockNs: median(rows.stock),
    onewriteNs: median(rows.onewrite),
    stockRange: [Math.min(...rows.stock), Math.max(...rows.stock)],
    onewriteRange: [Math.min(...rows.onewrite), Math.max(...rows.onewrite)],
    speedup: median(rows.ratio),
    ratios: rows.ratio,
    stockBytes: Math.round(bs.heap - bb.heap),
    onewriteBytes: Math.round(bf.heap - bb.heap + bf.external - bb.external),
  });
}

const f0 = (x) => x.toFixed(0);
console.log(`head builder, Node ${process.versions.node}, ${ROUNDS} interleaved rounds of ${ITER}`);
console.log('headers | stock ns (min-max)     | onewrite ns (min-max)  | speedup (median of rounds) | bytes/head stock -> onewrite');
for (const r of results) {
  console.log(`${String(r.headers).padStart(7)} | ${f0(r.stockNs).padStart(6)} (${f0(r.stockRange[0])}-${f0(r.stockRange[1])})`.padEnd(33) +
    `| ${f0(r.onewriteNs).padStart(6)} (${f0(r.onewriteRange[0])}-${f0(r.onewriteRange[1])})`.padEnd(25) +
    `| ${r.speedup.toFixed(2)}x [${r.ratios.map((x) => x.toFixed(2)).join(' ')}]`.padEnd(29) +
    `| ${r.stockBytes} -> ${r.onewriteBytes}`);
}
if (args.json) {
  const file = path.resolve(String(args.json));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ node: process.versions.node, rounds: ROUNDS, iterations: ITER, results }, null, 2));
}
