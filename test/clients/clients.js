'use strict';

// Real HTTP client libraries on onewrite's client side (issue 41, "Done
// when": axios, got, node-fetch 2 and http-proxy send the same bytes with the
// client side on; undici and `fetch` are untouched).
//
// For each library, test/clients/child.js plays a fixed set of requests
// against a recording loopback `net` server (fixed keep-alive HTTP/1.1
// answers), one after another, twice, in processes of their own:
//
//   stock      node child.js <library>
//   onewrite   node -r <this package>/register.js child.js <library>
//
// and the two transcripts must be equal: every byte each connection
// brought to the upstream (and, for http-proxy, what the plain http client
// sent to the proxy and got back), and what the library returned (status,
// headers, body, or its error); the servers' ports are normalised.  With
// onewrite, status().client is true and the library's requests took the
// client side (requestHeads > 0: the comparison is not of two stock
// runs); for undici's `fetch` the request counters did not move.
//
//   ONEWRITE_CLIENTS_PRELOAD=<file>  what the onewrite side preloads in
//                                    place of register.js ('none': both
//                                    sides stock, which checks that the
//                                    transcripts are deterministic)
//   ONEWRITE_CLIENTS_ONLY=<library>  one library only
//
// The libraries are installed apart: npm ci --prefix test/clients (their
// own package.json and lockfile, exact versions), so that the project's own
// `npm ci` stays lean; `tap` does not include this folder.  Run it with
// scripts/clients.sh.

const t = require('tap');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cleanNode } = require('../helpers/child');

const LIBRARIES = ['axios', 'got', 'node-fetch', 'http-proxy', 'fetch'];
// The ones that go through node:http's ClientRequest; `fetch` is undici's.
const THROUGH_HTTP = new Set(['axios', 'got', 'node-fetch', 'http-proxy']);
const REQUEST_COUNTERS = ['requestHeads', 'requestHeadsToNode', 'requestEnds', 'requestEndsToNode'];

const ROOT = path.join(__dirname, '..', '..');
const REGISTER = path.join(ROOT, 'register.js');
const CHILD = path.join(__dirname, 'child.js');
const PRELOAD = process.env.ONEWRITE_CLIENTS_PRELOAD || REGISTER;
const ONLY = process.env.ONEWRITE_CLIENTS_ONLY || '';

for (const dep of ['axios', 'got', 'node-fetch', 'http-proxy']) {
  if (!fs.existsSync(path.join(__dirname, 'node_modules', dep))) {
    // Not a skip: whoever runs this file means to test the libraries.
    t.fail('the client libraries are not installed: npm ci --prefix test/clients (or scripts/clients.sh)');
    process.exit(1);
  }
}

const versions = Object.fromEntries(['axios', 'got', 'node-fetch', 'http-proxy'].map((p) =>
  [p, require(require.resolve(`${p}/package.json`, { paths: [__dirname] })).version]));
t.comment(`Node ${process.version}; ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
  `onewrite side preloads ${PRELOAD === REGISTER ? 'register.js' : PRELOAD}`);

t.setTimeout(300000);

// One side's run of one library: { command, code, signal, stderr, result }.
function run(library, side) {
  const preloads = side === 'onewrite' && PRELOAD !== 'none' ? ['-r', PRELOAD] : [];
  const env = {
    HOME: process.env.HOME,
    CLIENTS_STATUS_FROM: preloads.length > 0 ? ROOT : '',
  };
  const args = [...preloads, CHILD, library];
  return new Promise((resolve) => {
    // A clean environment (env -i): tap's coverage hooks stay out of the
    // child, and so does any ONEWRITE_CLIENT=0 of the caller's.
    const child = spawn(...cleanNode(args, env, { cwd: __dirname, stdio: ['ignore', 'pipe', 'pipe'] }));
    const out = [];
    let stderr = '';
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => {
      const lines = Buffer.concat(out).toString().trim().split('\n');
      let result = null;
      try {
        result = JSON.parse(lines[lines.length - 1]);
      } catch {}
      resolve({ command: `node ${args.map((a) => (path.isAbsolute(a) && a.startsWith(ROOT + path.sep) ? path.relative(ROOT, a) : a)).join(' ')}`, code, signal, stderr, result });
    });
  });
}

// Where two values first part: a path into them and, for strings, the
// bytes around the first difference on each side.
function firstDifference(a, b, at = '') {
  if (typeof a === 'string' && typeof b === 'string') {
    if (a === b) return null;
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    const from = Math.max(0, i - 60);
    return { at: `${at}[char ${i}]`, stock: a.slice(from, i + 60), onewrite: b.slice(from, i + 60) };
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const d = firstDifference(a[k], b[k], `${at}${Array.isArray(a) ? `[${k}]` : `.${k}`}`);
      if (d) return d;
    }
    return null;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null : { at, stock: a, onewrite: b };
}

// Every answer the library returned (a request's own, or each of a
// "twice" request's): all 200s but the 404s asked for; errors only there.
function answers(requests) {
  return requests.flatMap((r) => (r.results ? r.results.map((x) => ({ name: r.name, ...x })) : [r]))
    .filter((r) => !/proxy errors$/.test(r.name));
}

for (const library of LIBRARIES.filter((l) => !ONLY || l === ONLY)) {
  t.test(library, async (t) => {
    const started = Date.now();
    const [stock, fast] = await Promise.all([run(library, 'stock'), run(library, 'onewrite')]);
    t.comment(`${library}: both sides in ${Date.now() - started} ms`);
    for (const [side, r] of [['stock', stock], ['onewrite', fast]]) {
      t.equal(r.code, 0, `${side} (${r.command}) exits 0`, { stderr: r.stderr.slice(-3000), signal: r.signal });
      t.ok(r.result, `${side}: printed its transcript`);
    }
    if (!stock.result || !fast.result) return;

    const { onewrite: status, ...fastTranscript } = fast.result;
    const { onewrite: none, ...stockTranscript } = stock.result;
    t.equal(none, null, 'stock: onewrite not loaded');

    // The stock run did what it was meant to: every request answered (a
    // comparison of two runs that both failed to connect would be empty).
    t.ok(stockTranscript.upstream.length > 0 && stockTranscript.upstream.every((c) => c.length > 0),
      `stock: the upstream recorded ${stockTranscript.upstream.length} connections`);
    const bad = answers(stockTranscript.requests).filter((r) => (/404$/.test(r.name) ? r.status !== 404 : r.status !== 200 || r.error));
    t.same(bad, [], `stock: ${answers(stockTranscript.requests).length} answers, each the status asked for`);

    const diff = firstDifference(stockTranscript, fastTranscript);
    if (diff) t.comment(`${library}: first difference at ${diff.at}:\n  stock:    ${JSON.stringify(diff.stock)}\n  onewrite: ${JSON.stringify(diff.onewrite)}`);
    t.same(fastTranscript, stockTranscript, `${library}: the same bytes on every connection and the same answers as stock`);

    if (PRELOAD === 'none') return;
    t.ok(status, 'onewrite: status() read');
    if (!status) return;
    const c = status.counters || {};
    t.comment(`${library}: counters ${JSON.stringify(c)}, fallbacks ${JSON.stringify(status.fallbacks)}`);
    t.equal(status.active, true, 'onewrite: active');
    t.equal(status.client, true, 'onewrite: status().client is true');
    if (THROUGH_HTTP.has(library)) {
      t.ok(c.requestHeads > 0, `onewrite: ${library}'s requests took the client side (requestHeads ${c.requestHeads}, ` +
        `requestHeadsToNode ${c.requestHeadsToNode}, requestEnds ${c.requestEnds}, requestEndsToNode ${c.requestEndsToNode})`);
    } else {
      const phase = status.phases && status.phases.fetch;
      t.ok(phase, 'onewrite: the request counters were read around the fetch calls');
      if (phase) {
        t.same(phase.after, phase.before, `onewrite: the request counters did not move during fetch() (${JSON.stringify(phase.after)})`);
      }
      t.same(REQUEST_COUNTERS.map((k) => c[k]), REQUEST_COUNTERS.map(() => 0), 'onewrite: no request of this process went through the client side');
    }
  });
}
