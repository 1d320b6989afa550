'use strict';

// Re-entry, mechanically: every builtin, every method between a response
// and the kernel (the response's, the socket's and its streams', the event
// emitter's, the handle's) and every index accessor of Array.prototype,
// replaced before onewrite loads and after, by a wrapper that counts its
// calls, or that once, from inside the response's handler, ends another
// held response, writes to or ends the response being made, or throws
// (test/helpers/reentry-child.js).  Stock Node and onewrite run the same
// scenarios; each must give the same bytes for both responses, the same
// error from the handler, the same events, the same effect of the hostile
// call and the same count of every wrapped function.
//
// Nothing is listed by hand: the targets are enumerated from the objects
// themselves, so a builtin or a write-path method that lib/ starts to call
// is in this test already.  Hostile scenarios are made for every target
// either side calls while the handler runs (the counting run says which).
// The targets onewrite refuses when they are replaced (the builtins Node
// calls live, lib/primordials.js LIVE; the socket's write path; Node's
// methods onewrite stands in for) would turn it off for everything when
// all are wrapped at once: they are wrapped one at a time after load, and
// all together before load (where onewrite must hand every call to Node).

const t = require('tap');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cleanNode } = require('./helpers/child');
const { normalise } = require('./helpers/wire');
const { LIVE } = require('../lib/primordials');

const ROOT = path.join(__dirname, '..');
const CHILD = path.join(__dirname, 'helpers', 'reentry-child.js');
const SHAPES = ['head-end', 'set-end-buffer', 'chunked', 'end-callback'];
const MODES = ['end-other', 'write-same', 'end-same', 'throw'];

// What onewrite refuses or hands to Node when it is replaced.
const REFUSED = [
  ...LIVE,
  'stream.Writable.prototype.write', 'stream.Duplex.prototype.write',
  'stream.Writable.prototype.cork', 'stream.Duplex.prototype.cork',
  'stream.Writable.prototype.uncork', 'stream.Duplex.prototype.uncork',
  'net.Socket.prototype._write', 'net.Socket.prototype._writev', 'net.Socket.prototype._writeGeneric',
  'net.Socket.prototype._unrefTimer',
  ...['writev', 'writeBuffer', 'writeLatin1String', 'writeUtf8String', 'writeAsciiString', 'writeUcs2String']
    .map((m) => `handle.LibuvStreamWrap.prototype.${m}`),
  ...['end', 'write', 'uncork', 'cork', '_storeHeader', '_send', '_writeRaw', '_flushOutput']
    .map((m) => `http.OutgoingMessage.prototype.${m}`),
  'http.ServerResponse.prototype.writeHead', 'http.ServerResponse.prototype._implicitHeader',
  'http.OutgoingMessage.prototype._isLenientHeaderValidation', // 24.22 26
  // No builtin tells a Proxy: without Node's own isProxy, onewrite takes
  // every header object for one.
  'util.types.isProxy',
  // Node's functions onewrite takes at load and calls itself: replaced
  // before, they leave it off.
  'Buffer.allocUnsafe', 'timers.setTimeout',
  // Elements on Array.prototype: every fast call is Node's while there is one.
  ...Array.from({ length: 16 }, (_, i) => `Array.prototype[${i}]`),
];

// A child (stock or onewrite), and run(target, mode, shape) on it.
function child(onewrite, when, skip) {
  const proc = spawn(...cleanNode([CHILD], {
    ONEWRITE: onewrite ? '1' : '0', ONEWRITE_ROOT: ROOT, WHEN: when, SKIP: skip.join(','),
  }, { stdio: ['ignore', 'pipe', 'inherit'] }));
  let buffered = '';
  const waiting = [];
  const lines = [];
  proc.stdout.on('data', (d) => {
    buffered += d;
    let at;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      if (waiting.length > 0) waiting.shift()(line);
      else lines.push(line);
    }
  });
  const line = () => new Promise((resolve, reject) => {
    if (lines.length > 0) return resolve(lines.shift());
    const timer = setTimeout(() => reject(new Error('the child said nothing for 10 s')), 10000);
    waiting.push((l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const ready = (async () => {
    const port = Number((await line()).split(' ')[1]);
    const targets = JSON.parse((await line()).slice('targets '.length));
    return { port, targets };
  })();
  async function run(target, mode, shape) {
    const { port } = await ready;
    const a = connect(port, 'GET /hold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const heldLine = await line();
    if (heldLine !== 'held') throw new Error(`the child said ${heldLine}`);
    const q = `t=${encodeURIComponent(target)}&m=${mode}&s=${shape}`;
    const b = connect(port, `GET /run?${q} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    const [bytesA, bytesB] = await Promise.all([a, b]);
    const report = await line();
    if (!report.startsWith('R ')) throw new Error(`the child said ${report}`);
    return { a: normalise(bytesA), b: normalise(bytesB), ...JSON.parse(report.slice(2)) };
  }
  async function status() {
    const { port } = await ready;
    const bytes = (await connect(port, 'GET /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toString();
    return JSON.parse(bytes.slice(bytes.indexOf('\r\n\r\n') + 4));
  }
  const stop = () => new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', resolve);
    proc.kill();
  });
  return { ready, run, status, stop };
}

// Everything a connection receives until it closes (or 3 s pass).
function connect(port, request) {
  return new Promise((resolve) => {
    const chunks = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

// The same scenarios on both sides, in order; the ones that differ, each
// with both sides' results.  (Counts are compared by name: the order in
// which the functions were first called is not what is compared.)
async function compare(stock, ours, scenarios, seen = null) {
  const differ = [];
  for (const [target, mode, shape] of scenarios) {
    const [s, o] = await Promise.all([stock.run(target, mode, shape), ours.run(target, mode, shape)]);
    if (canonical(s) !== canonical(o)) differ.push({ target, mode, shape, stock: s, onewrite: o });
    if (seen !== null) seen(target, s, o);
  }
  return differ;
}

function canonical(value) {
  return JSON.stringify(value, (key, v) => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

// The targets either side called inside a handler, by counting runs.
async function calledInHandlers(stock, ours) {
  const called = new Set();
  for (const shape of SHAPES) {
    for (const side of [stock, ours]) {
      for (const name of Object.keys((await side.run('', 'count', shape)).window)) called.add(name);
    }
  }
  return [...called].sort();
}

// Counting runs of every shape, then each called target armed in every
// mode.  `only`: the targets to consider (all by default).
async function scenariosFor(stock, ours, only = null) {
  const called = (await calledInHandlers(stock, ours)).filter((n) => only === null || only.includes(n));
  const list = SHAPES.map((s) => ['', 'count', s]);
  for (const target of called) {
    for (const mode of MODES) for (const shape of SHAPES) list.push([target, mode, shape]);
  }
  return { list, called };
}

function report(t, differ, what) {
  t.same(differ.slice(0, 3), [], `${what}: stock and onewrite alike (${differ.length} differ)`);
}

t.test('wrapped after load, all but what onewrite refuses: every scenario as stock', async (t) => {
  const stock = child(false, 'after', REFUSED);
  const ours = child(true, 'after', REFUSED);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { targets } = await ours.ready;
  t.ok(targets.length > 500, `targets enumerated: ${targets.length}`);
  const { list, called } = await scenariosFor(stock, ours);
  t.ok(called.length > 3, `targets called inside the handlers: ${called.length}`);
  report(t, await compare(stock, ours, list), `${list.length} scenarios`);
  const { counters } = await ours.status();
  t.ok(counters.heads > 0 && counters.ends > 0, 'the fast paths ran', { counters });
});

t.test('wrapped before load, all but what onewrite refuses: every scenario as stock, fast paths on', async (t) => {
  const stock = child(false, 'before', REFUSED);
  const ours = child(true, 'before', REFUSED);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { list } = await scenariosFor(stock, ours);
  report(t, await compare(stock, ours, list), `${list.length} scenarios`);
  const { counters } = await ours.status();
  t.ok(counters.heads > 0 && counters.ends > 0, 'the fast paths ran', { counters });
});

t.test('what onewrite refuses, each wrapped alone after load: every scenario as stock', { timeout: 600000 }, async (t) => {
  const stock = child(false, 'each', []);
  const ours = child(true, 'each', []);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { targets } = await ours.ready;
  const refused = REFUSED.filter((n) => targets.includes(n));
  t.ok(refused.length > REFUSED.length - 4, `refused targets found: ${refused.length} of ${REFUSED.length}`);
  // Each counted alone in every shape; armed in every mode where either
  // side calls it inside a handler.
  const counting = [];
  for (const target of refused) for (const shape of SHAPES) counting.push([target, 'count', shape]);
  const called = new Set();
  const differ = await compare(stock, ours, counting, (target, s, o) => {
    if (s.window[target] || o.window[target]) called.add(target);
  });
  const list = [];
  for (const target of called) for (const mode of MODES) for (const shape of SHAPES) list.push([target, mode, shape]);
  differ.push(...await compare(stock, ours, list));
  t.ok(called.size > 10, `refused targets called inside the handlers: ${called.size}`);
  report(t, differ, `${counting.length + list.length} scenarios`);
});

t.test('what onewrite refuses, all wrapped before load: every call Node\'s, as stock', async (t) => {
  const probe = child(false, 'each', []);
  const { targets } = await probe.ready;
  await probe.stop();
  const others = targets.filter((n) => !REFUSED.includes(n));
  const stock = child(false, 'before', others);
  const ours = child(true, 'before', others);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { list } = await scenariosFor(stock, ours, REFUSED);
  report(t, await compare(stock, ours, list), `${list.length} scenarios`);
  const status = await ours.status();
  t.equal(status.counters.ends, 0, 'no end() of onewrite\'s', { status: status.counters });
});
