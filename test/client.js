'use strict';

// The client side (http.request()): stock Node against onewrite on real
// loopback sockets.  test/fixtures/client-shapes.js sends requests of many
// shapes (bodies of each type and encoding, headers as an object, pairs or
// a flat array, Expect, flushHeaders(), a callback, end() twice, invalid
// values, a destroyed request...) to a server recording every byte; its
// transcript - the bytes, the request's events and callbacks in order,
// what was thrown, the state after, _header included - must be the same
// with onewrite preloaded as without.  With it the heads are the addon's
// and, on Node 20 and 22, end(body) leaves in one socket write (stock: a
// writev of the data and an empty string, or of head and bytes).
// test/client-differential.js does the same with seeded random requests.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cleanNode } = require('./helpers/child');

const LINE = Number(process.versions.node.split('.')[0]);
const FIXTURE = path.join(__dirname, 'fixtures', 'client-shapes.js');
const REGISTER = path.join(__dirname, '..', 'register.js');
const STATUS = path.join(__dirname, 'helpers', 'status-preload.js');

// The fixture under strace: its transcript, and per case the client's
// write(2) and writev(2) calls on the case's sockets (the fixture marks
// each case and its sockets' descriptors on stderr).
async function run(preload, env = {}) {
  const args = [];
  for (const p of preload) args.push('-r', p);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ow-client-'));
  const trace = path.join(dir, 'trace');
  const [cmd, argv, options] = cleanNode([...args, FIXTURE], { COUNT_WRITES: '1', ...env },
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const r = await new Promise((resolve) => {
    const child = spawn('strace', ['-f', '-qq', '-e', 'trace=write,writev', '-s', '40', '-o', trace, cmd, ...argv],
      options);
    const o = [];
    const e = [];
    child.stdout.on('data', (d) => o.push(d));
    child.stderr.on('data', (d) => e.push(d));
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(o).toString(), stderr: Buffer.concat(e).toString() }));
  });
  if (r.code !== 0) throw new Error(`client-shapes exited ${r.code}: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  out.perCase = writesPerCase(fs.readFileSync(trace, 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

function writesPerCase(trace) {
  const perCase = [];
  let calls = [];
  for (const line of trace.split('\n')) {
    const m = /^\d+ +(write|writev)\((\d+), (.*)/.exec(line);
    if (!m) continue;
    const mark = /^"OWMARK (start|end) (\d+) ?([\d,]*)\\n"/.exec(m[3]);
    if (m[2] === '2' && mark) {
      if (mark[1] === 'start') {
        calls = [];
      } else {
        const fds = new Set(mark[3].split(',').filter(Boolean));
        const mine = calls.filter((c) => fds.has(c.fd));
        perCase[Number(mark[2])] = {
          writes: mine.filter((c) => c.kind === 'write').length,
          writevs: mine.filter((c) => c.kind === 'writev').length,
        };
      }
      continue;
    }
    calls.push({ kind: m[1], fd: m[2] });
  }
  return perCase;
}

// The case indexes of test/fixtures/client-shapes.js whose bytes leave in
// one write where stock makes a writev: on 20 and 22 end(text or small
// bytes) with a known length, not chunked, no flushHeaders() (Node queues
// the data and an empty string carrying 'finish'), end callbacks too; on
// 24 and 26 end(small bytes) (Node queues the head apart from them, and
// sends text with the head itself).
const ONE_WRITE = LINE < 24 ? [1, 2, 3, 4, 5, 7, 8, 13, 15, 19, 21, 23, 24, 25, 26, 27, 28, 30] : [2, 3, 30];
// end(body) called once the request has its socket: end()'s one write, as
// a response's; the others are queued and flushed in one write.
const IN_SOCKET = 27;

t.test('every request shape: the same bytes, events, errors and state as stock', async (t) => {
  const [stock, ow] = await Promise.all([run([]), run([REGISTER, STATUS])]);
  t.equal(ow.received.length, stock.received.length, 'as many cases');
  for (let i = 0; i < stock.received.length; i++) {
    t.same(ow.received[i], stock.received[i], `case ${i}: the bytes the server received`);
    t.same(ow.logs[i], stock.logs[i], `case ${i}: events, callbacks, errors, state`);
  }
  const c = ow.status.counters;
  t.equal(ow.status.client, true, 'status().client');
  t.ok(c.requestHeads >= 25, `request heads rendered by the addon: ${c.requestHeads}`);
  t.equal(c.heads, 0, 'no response heads counted');
  t.ok(ow.status.fallbacks['non-ascii head'] >= 1, 'a latin1 header value is Node\'s');
  t.equal(c.requestEnds, 1, 'end(body) with the socket there: one write');
  t.equal(c.requestFlushes, ONE_WRITE.filter((i) => i !== IN_SOCKET).length, 'queued bytes flushed in one write');
  t.ok(ow.status.fallbacks['callback on an early entry'] >= 1, "a write()'s callback keeps Node's writes");
  for (let i = 0; i < stock.perCase.length; i++) {
    if (ONE_WRITE.includes(i)) {
      t.same(stock.perCase[i], { writes: 0, writevs: 1 }, `case ${i}: stock sends a writev`);
      t.same(ow.perCase[i], { writes: 1, writevs: 0 }, `case ${i}: onewrite one write`);
    } else {
      t.same(ow.perCase[i], stock.perCase[i], `case ${i}: the socket writes as stock's`);
    }
  }
});

t.test('ONEWRITE_CLIENT=0 and install({ client: false }) keep the client side Node\'s', async (t) => {
  const stock = await run([]);
  for (const [name, preload, env] of [
    ['ONEWRITE_CLIENT=0', [REGISTER, STATUS], { ONEWRITE_CLIENT: '0' }],
    ['install({ client: false })', [path.join(__dirname, 'helpers', 'install-server-only.js'), STATUS], {}],
  ]) {
    const ow = await run(preload, env);
    t.same(ow.received, stock.received, `${name}: the same bytes`);
    t.same(ow.logs, stock.logs, `${name}: the same events`);
    t.same(ow.perCase, stock.perCase, `${name}: the same writes`);
    const c = ow.status.counters;
    t.equal(c.requestHeads + c.requestHeadsToNode + c.requestEnds + c.requestEndsToNode + c.requestFlushes +
      c.requestFlushesToNode, 0, `${name}: nothing taken`);
    t.equal(ow.status.client, false, `${name}: status().client false`);
  }
});

t.test('install() options', async (t) => {
  const onewrite = require('..');
  t.throws(() => onewrite.install({ client: 'no' }),
    { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /"options.client" property must be of type boolean/ });
  t.equal(onewrite.status().mode, 'off', 'a bad option installs nothing');
  const http = require('node:http');
  const nodes = () => [http.Agent.prototype.addRequest, http.OutgoingMessage.prototype._flushOutput];
  const before = nodes();
  t.equal(onewrite.install({ client: false }), true);
  t.equal(onewrite.status().client, false);
  t.same(nodes(), before, "client: false: addRequest and _flushOutput are Node's own");
  t.equal(onewrite.install(), true, 'again, without the option');
  t.equal(onewrite.status().client, true, 'the client side on');
  t.not(nodes()[0], before[0], "addRequest is onewrite's");
  t.not(nodes()[1], before[1], "_flushOutput is onewrite's");
  t.equal(onewrite.install({ client: false }), true, 'and off again');
  t.same(nodes(), before, "Node's own again");
  t.equal(onewrite.install(), true);
  t.equal(onewrite.uninstall(), true);
  t.equal(onewrite.status().client, false, 'off once uninstalled');
});

t.test("Agent.prototype.addRequest: what Node's makes of the options, as stock", async (t) => {
  // test/fixtures/agent-options.js: the object an agent's getName() and
  // createConnection() are given, from requests and from direct calls
  // with a getter, a symbol, a Proxy, a prototype, a non-enumerable key,
  // integer keys, a getter that throws or hides a later key.
  const fixture = path.join(__dirname, 'fixtures', 'agent-options.js');
  const one = async (preload) => {
    const [cmd, argv, options] = cleanNode([...preload.flatMap((p) => ['-r', p]), fixture], {},
      { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = await new Promise((resolve) => {
      const child = spawn(cmd, argv, options);
      const o = [];
      child.stdout.on('data', (d) => o.push(d));
      child.on('close', (code) => resolve({ code, text: Buffer.concat(o).toString() }));
    });
    t.equal(out.code, 0, `${preload.length ? 'onewrite' : 'stock'} exited 0`);
    return JSON.parse(out.text);
  };
  const [stock, ow] = await Promise.all([one([]), one([REGISTER])]);
  t.ok(stock.length > 20, `entries logged: ${stock.length}`);
  t.same(ow, stock, 'the same objects, getter and trap calls, errors');
});
