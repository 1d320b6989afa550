'use strict';

// One handler, run on a stock server and on a onewrite server (its
// ServerResponse, nothing global patched), each on its own loopback port,
// one side after the other; and the comparison of everything a user can
// observe: the bytes on the wire (the Date value normalised), and the
// handler's log - errors thrown (class, code, message), events and
// callbacks in their order, the state it read, and how many times its own
// code (getters, traps, valueOf, wrappers) ran.
//
// A case is a spec:
//   handler(req, res, ctx)  ctx: { log, side, held, ... } of this side
//   request                 raw request bytes (default client), or
//   client(port, ctx)       a client of its own, returning what it saw
//   options                 server options; set(ctx): fields to assign on the server;
//                           setup(server, ctx): anything else (listeners)
//   wait                    ms to let a response that never closes its
//                           connection run before the server closes it
//   settle                  ms after the client is done, for the last events

const http = require('node:http');
const net = require('node:net');
const crypto = require('node:crypto');
const { exchange, normalise, listen, close } = require('./wire');
const { describeError } = require('./scenarios');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The events a response emits, into the log, in order.  `extra(res)`
// adds what the handler reads at each of them.
function watch(res, log, extra) {
  for (const ev of ['prefinish', 'finish', 'close', 'error']) {
    res.on(ev, (e) => {
      if (ev === 'error') log.push(['error', describeError(e)]);
      else log.push(extra ? [ev, ...extra(res)] : [ev]);
    });
  }
}

// A write() / end() callback that logs its call.
function callback(log, name) {
  return (err) => log.push([name, err ? describeError(err) : null]);
}

// Run fn, logging what it throws as ['throw', label, error]; returns
// whether it threw.
function attempt(log, label, fn) {
  try {
    fn();
    return false;
  } catch (err) {
    log.push(['throw', label, describeError(err)]);
    return true;
  }
}

// The default client: send `raw`, collect until the server closes.
function rawClient(raw, timeout) {
  return async (port) => {
    const r = await exchange(port, raw, { timeout });
    return { bytes: normalise(r.bytes), timedOut: r.timedOut };
  };
}

// A client for big responses: the byte count and a digest (the Date in
// the first KiB normalised), the head shown.
function digestClient(raw) {
  return (port) => new Promise((resolve) => {
    const hash = crypto.createHash('sha256');
    let first = Buffer.alloc(0);
    let length = 0;
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    socket.on('data', (d) => {
      length += d.length;
      if (first.length < 1024) {
        const k = Math.min(1024 - first.length, d.length);
        first = Buffer.concat([first, d.subarray(0, k)]);
        d = d.subarray(k);
      }
      hash.update(d);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({
      length,
      head: normalise(first).slice(0, 160),
      digest: crypto.createHash('sha256').update(normalise(first), 'latin1')
        .update(hash.digest()).digest('hex'),
    }));
  });
}

// One side: a server answering with Node's ServerResponse ('stock') or
// onewrite's ('fast'), the spec's client against it, the log.
async function runSide(side, spec) {
  const onewrite = require('../..');
  const ctx = { side, log: [], held: null };
  const options = side === 'fast' ? { ...spec.options, ServerResponse: onewrite.ServerResponse }
    : { ...spec.options };
  const server = http.createServer(options, (req, res) => spec.handler(req, res, ctx));
  if (spec.set) Object.assign(server, spec.set(ctx));
  if (spec.setup) spec.setup(server, ctx);
  const port = await listen(server);
  const client = (spec.client || rawClient(spec.request, spec.timeout))(port, ctx);
  // A response that never ends (a detached socket) keeps its connection
  // open: after `wait` ms the server closes it, on both sides alike.
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, spec.wait ?? 2000, 'late')));
  const first = await Promise.race([client, late]);
  clearTimeout(timer);
  if (first === 'late') await close(server);
  const seen = await client;
  await sleep(spec.settle ?? 30);
  await close(server);
  return { ...seen, log: ctx.log };
}

// Both sides in this process, one after the other.
async function runPair(spec) {
  return { stock: await runSide('stock', spec), fast: await runSide('fast', spec) };
}

// Strings with control characters as JSON text, one line each, so that
// the diagnostics show CR, LF and NUL as they are.
function printable(v) {
  if (typeof v === 'string') return /[\x00-\x1f\x7f]/.test(v) ? JSON.stringify(v) : v;
  if (Array.isArray(v)) return v.map(printable);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, printable(x)]));
  }
  return v;
}

// Pass when the two sides saw the same; otherwise fail showing both whole.
function same(t, result, message) {
  const a = JSON.stringify(result.stock);
  const b = JSON.stringify(result.fast);
  if (a === b) t.pass(message);
  else t.fail(message, { stock: printable(result.stock), onewrite: printable(result.fast) });
  return a === b;
}

module.exports = {
  watch, callback, attempt, rawClient, digestClient, runSide, runPair, same, sleep, describeError,
};
