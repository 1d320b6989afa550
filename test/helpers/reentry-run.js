'use strict';

// The parent side of the mechanical re-entry test (test/reentry.js,
// test/reentry-refused.js): the child processes of
// test/helpers/reentry-child.js, one stock and one with onewrite, asked
// the same scenarios, and their answers compared.

const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cleanNode } = require('./child');
const { normalise } = require('./wire');
const { LIVE } = require('../../lib/primordials');

const ROOT = path.join(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'reentry-child.js');
const SHAPES = ['head-end', 'head-length-end', 'set-end-buffer', 'chunked', 'end-callback'];
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
    if (seen !== null) seen(target, s, o, shape);
  }
  return differ;
}

// (stuckA, stuckB: whether the harness had to close a connection itself,
// which is the clock's as much as the scenario's: not compared.  What a
// stuck response sent, and its events, are.)
function canonical(value) {
  return JSON.stringify(value, (key, v) => {
    if (key === 'stuckA' || key === 'stuckB') return undefined;
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v;
  });
}

// The counting runs (by default one of every shape, with whatever the
// child has wrapped), then each target either side called inside a
// counting run's handler armed in every mode, in that run's shape (armed
// in a shape that does not call it, a target does nothing).  Answers the
// scenarios, the targets called and the differences the counting runs
// found.  (`modes`: the client side's are its own.)
async function scenariosFor(stock, ours, counting = SHAPES.map((s) => ['', 'count', s]), modes = MODES) {
  const list = [];
  const called = new Set();
  const differ = await compare(stock, ours, counting, (target, s, o, shape) => {
    const names = [...new Set([...Object.keys(s.window), ...Object.keys(o.window)])].sort();
    for (const name of names) {
      called.add(name);
      for (const mode of modes) list.push([name, mode, shape]);
    }
  });
  return { list, called: [...called], differ, counted: counting.length };
}

function report(t, differ, what) {
  t.same(differ.slice(0, 3), [], `${what}: stock and onewrite alike (${differ.length} differ)`);
}

module.exports = { REFUSED, SHAPES, MODES, child, compare, canonical, scenariosFor, report };
