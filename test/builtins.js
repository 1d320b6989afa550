'use strict';

// Builtins a user may patch (String.prototype.toLowerCase, Math.imul,
// Array.isArray, Function.prototype.call, ...): Node's own http code takes
// most of what it calls when it loads (its primordials), and calls a few
// live (name.toLowerCase(), RE.test(), Buffer.byteLength, ...).  A patched
// builtin must run inside onewrite exactly where and as often as inside
// Node, over every shape of response (test/helpers/builtins-cases.js),
// counted by a wrapper put on every method of the standard prototypes and
// namespaces after the server listens (test/helpers/builtins-child.js):
//   - every builtin but those Node calls live wrapped: the fast paths run,
//     and call none of them more or less often than Node;
//   - all of them wrapped: onewrite sees the live ones replaced and hands
//     each call to Node, whose code calls them as always;
//   - a patched String.prototype.toLowerCase that ends another response
//     while a head is being built: each response keeps its own status and
//     headers (it did not: B went out as "200 Not Found" carrying A's
//     header).

const t = require('tap');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cleanNode } = require('./helpers/child');
const { normalise } = require('./helpers/wire');
const http = require('node:http');

const ROOT = path.join(__dirname, '..');
const CHILD = path.join(__dirname, 'helpers', 'builtins-child.js');
const CASES = Object.keys(require('./helpers/builtins-cases'));
const { LIVE } = require('../lib/primordials');

// One request on a connection of its own; the whole answer as it came on
// the wire, Date normalised.  Node's client finds where it ends: a client
// that half-closes would have the server end the socket when its FIN is
// read, which may be before a response written over several ticks is
// done (Node's server does not allow half-open), and a request that waits
// for the server to close would wait out keep-alive where a response says
// "connection: keep-alive".
function request(port, name) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const req = http.get({ port, host: '127.0.0.1', path: `/${name}`, agent: false, headers: { Host: 'x', Connection: 'close' } });
    req.on('socket', (socket) => socket.on('data', (d) => chunks.push(d)));
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        req.destroy();
        resolve(normalise(Buffer.concat(chunks)));
      });
    });
  });
}

// The child, its answers to every case, and its counts.
function serve(onewrite, skip = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(...cleanNode([CHILD], { ONEWRITE: onewrite ? '1' : '0', ONEWRITE_ROOT: ROOT, SKIP: skip.join(',') },
      { stdio: ['ignore', 'pipe', 'inherit'] }));
    let out = '';
    let asked = false;
    // The child says "closed" as each connection closes on its side.  The
    // next request waits for it: a connection accepted before the last one
    // has closed finds no parser to reuse, and Node's own calls then
    // differ by a few at random.
    let closed = 0;
    let onClosed = null;
    const closedCount = (n) => new Promise((resolve) => {
      onClosed = () => closed >= n && resolve();
      onClosed();
    });
    child.stdout.on('data', async (d) => {
      out += d;
      closed = out.split('\n').filter((line) => line === 'closed').length;
      if (onClosed) onClosed();
      if (asked || !out.includes('\n')) return;
      asked = true;
      const port = Number(out.split('\n')[0]);
      const answers = {};
      for (const [i, name] of CASES.entries()) {
        answers[name] = await request(port, name);
        await closedCount(i + 1);
      }
      await request(port, 'done');
      child.answers = answers;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}`));
      const json = out.trim().split('\n').filter((line) => line.startsWith('{'));
      resolve({ answers: child.answers, ...JSON.parse(json[json.length - 1]) });
    });
  });
}

function compare(t, stock, ours) {
  for (const name of CASES) {
    t.match(stock.answers[name], /^HTTP\/1\.1 \d{3} /, `${name}: an answer`);
    t.equal(ours.answers[name], stock.answers[name], `${name}: the same bytes`);
  }
  const names = [...new Set([...Object.keys(stock.counts), ...Object.keys(ours.counts)])].sort();
  const differ = names.filter((n) => stock.counts[n] !== ours.counts[n])
    .map((n) => `${n}: stock ${stock.counts[n] || 0}, onewrite ${ours.counts[n] || 0}`);
  t.same(differ, [], 'every builtin called as often as with stock Node');
  t.comment(`builtins called while serving: ${names.filter((n) => stock.counts[n]).join(', ') || 'none'}`);
}

t.test('builtins Node takes at load, patched: the fast paths run, and call none of them', async (t) => {
  const stock = await serve(false, LIVE);
  const ours = await serve(true, LIVE);
  compare(t, stock, ours);
  t.ok(ours.status.counters.heads > 10 && ours.status.counters.ends > 10, 'the fast paths ran',
    { counters: ours.status.counters });
  t.equal(ours.status.fallbacks['builtin replaced'], undefined, 'no builtin Node calls live was replaced');
});

t.test('builtins Node calls live, patched too: onewrite hands each call to Node', async (t) => {
  const stock = await serve(false);
  const ours = await serve(true);
  compare(t, stock, ours);
  t.ok(ours.status.fallbacks['builtin replaced'] > 0, 'counted as "builtin replaced"',
    { fallbacks: ours.status.fallbacks });
  t.equal(ours.status.counters.heads, 0, 'no head rendered by onewrite');
});

// The case: toLowerCase patched to end response A while B's head
// is built.
t.test('a patched toLowerCase that ends another response while a head is built', async (t) => {
  const code = `
    const http = require('node:http');
    if (process.env.ONEWRITE === '1') require(${JSON.stringify(ROOT)}).install();
    const { toLowerCase } = String.prototype;
    let held = null;
    let ran = 0;
    String.prototype.toLowerCase = function () {
      ran++;
      if (held !== null) {
        const a = held;
        held = null;
        a.statusCode = 404;
        a.setHeader('X-From-A', 'secret-of-A');
        a.end('A');
      }
      return toLowerCase.call(this);
    };
    const server = http.createServer((req, res) => {
      if (req.url === '/a') { held = res; return; }
      res.setHeader('X-From-B', 'b');
      res.setHeader('Content-Type', 'text/plain');
      res.end('B');
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    process.on('SIGTERM', () => { process.stdout.write('ran ' + ran + '\\n'); process.exit(0); });
  `;
  const run = (onewrite) => new Promise((resolve, reject) => {
    const child = spawn(...cleanNode(['-e', code], { ONEWRITE: onewrite ? '1' : '0' }, { stdio: ['ignore', 'pipe', 'inherit'] }));
    let out = '';
    let started = false;
    child.stdout.on('data', async (d) => {
      out += d;
      if (started || !out.includes('\n')) return;
      started = true;
      const port = Number(out.split('\n')[0]);
      const a = request(port, 'a');
      await new Promise((r) => setTimeout(r, 100));
      const b = await request(port, 'b');
      child.result = { a: await a, b };
      child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('close', () => resolve({ ...child.result, ran: out.trim().split('\n').pop() }));
  });
  const stock = await run(false);
  const ours = await run(true);
  t.match(stock.b, /^HTTP\/1\.1 200 OK\r\n/, 'with stock Node B is 200 OK');
  t.equal(ours.a, stock.a, 'A: the same bytes');
  t.equal(ours.b, stock.b, 'B: the same bytes: its own status and headers');
  t.notMatch(ours.b, /X-From-A/, 'B carries nothing of A');
  t.equal(ours.ran, stock.ran, 'the patched toLowerCase ran as often');
});
