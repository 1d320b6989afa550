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
const path = require('node:path');
const { spawnNode } = require('./helpers/child');

const LINE = Number(process.versions.node.split('.')[0]);
const FIXTURE = path.join(__dirname, 'fixtures', 'client-shapes.js');
const REGISTER = path.join(__dirname, '..', 'register.js');
const STATUS = path.join(__dirname, 'helpers', 'status-preload.js');

async function run(preload, env = {}) {
  const args = [];
  for (const p of preload) args.push('-r', p);
  const r = await spawnNode([...args, FIXTURE], { env: { COUNT_WRITES: '1', ...env } });
  if (r.code !== 0) throw new Error(`client-shapes exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// The case indexes of test/fixtures/client-shapes.js whose end(body) the
// client side sends in one write where stock makes a writev: on 20 and 22
// a string or small bytes of a known length, not chunked, no
// flushHeaders(), no end callback (which 20 and 22 add with this.once()
// between the data and the last write); on 24 and 26 small bytes (Node
// sends text with the head itself, and queues bytes apart from it).
const ONE_WRITE = LINE < 24 ? [1, 2, 3, 4, 5, 13, 15, 19, 21, 23, 24, 25, 26, 27, 28] : [2, 3, 30];
// end(body) whose data carries the end after bytes that went before it (a
// write(), flushHeaders(), a head apart from large bytes).
const CARRIES_END = LINE < 24 ? [9, 18, 20] : [20];

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
  t.equal(c.requestEnds, ONE_WRITE.length + CARRIES_END.length, 'end(body) calls whose data carried the end');
  if (LINE < 24) t.equal(ow.status.fallbacks['end callback'], 4, 'end(body, callback) is Node\'s on 20 and 22');
  for (let i = 0; i < stock.perCase.length; i++) {
    if (ONE_WRITE.includes(i)) {
      // The server's own answer is one _write in the same process.
      t.same(stock.perCase[i], { writes: 1, writevs: 1 }, `case ${i}: stock sends a writev`);
      t.same(ow.perCase[i], { writes: 2, writevs: 0 }, `case ${i}: onewrite one write`);
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
    t.equal(c.requestHeads + c.requestHeadsToNode + c.requestEnds + c.requestEndsToNode, 0, `${name}: nothing taken`);
    t.equal(ow.status.client, false, `${name}: status().client false`);
  }
});

t.test('install() options', async (t) => {
  const onewrite = require('..');
  t.throws(() => onewrite.install({ client: 'no' }),
    { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /"options.client" property must be of type boolean/ });
  t.equal(onewrite.status().mode, 'off', 'a bad option installs nothing');
  t.equal(onewrite.install({ client: false }), true);
  t.equal(onewrite.status().client, false);
  t.equal(onewrite.install(), true, 'again, without the option');
  t.equal(onewrite.status().client, true, 'the client side on');
  t.equal(onewrite.uninstall(), true);
  t.equal(onewrite.status().client, false, 'off once uninstalled');
});
