'use strict';

// A body changed by user code around end(): what stock Node does with it,
// onewrite does.
//   - Detached inside the implicit head (a writeHead wrapper transfers
//     the body's ArrayBuffer): on 24 and 26 stock throws a TypeError from
//     its socket (a detached Uint8Array) and sends no body; a Buffer's
//     bytes are gone and it sends the head alone.  onewrite measured the
//     body before the head, and must measure it again after.
//   - Changed after end(buf) returned, while the socket is backed up
//     (an earlier write() of the response still queued): Node keeps a
//     reference and sends the bytes the Buffer holds when the socket
//     writes them.
// On loopback, stock against onewrite, as test/contract.js compares.

const t = require('tap');
const net = require('node:net');
const { runPair, same, attempt } = require('./helpers/contract');
const { normalise } = require('./helpers/wire');

const major = Number(process.versions.node.split('.')[0]);

function detachInHead(makeBody) {
  return (req, res, ctx) => {
    const body = makeBody();
    const writeHead = res.writeHead;
    res.writeHead = function (...args) {
      structuredClone(body.buffer, { transfer: [body.buffer] });
      ctx.log.push(['detached', body.byteLength]);
      return writeHead.apply(this, args);
    };
    attempt(ctx.log, 'end', () => res.end(body));
    ctx.log.push(['state', res.finished, res.headersSent]);
    setTimeout(() => res.destroy(), 50);
  };
}

for (const [kind, makeBody] of [
  ['a Uint8Array', () => new Uint8Array(10).fill(66)],
  ['a Buffer', () => Buffer.alloc(10, 65)],
]) {
  t.test(`end(body): ${kind} detached inside the implicit head`, async (t) => {
    const result = await runPair({
      request: 'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
      handler: detachInHead(makeBody),
      wait: 500,
    });
    same(t, result, 'the same bytes, the same error thrown, the same state');
    t.ok(result.stock.log.some((e) => e[0] === 'detached'), 'with stock Node the body was detached in the head');
    if (major >= 24 && kind === 'a Uint8Array') {
      t.ok(result.stock.log.some((e) => e[0] === 'throw'), 'and stock Node threw');
    }
  });
}

// A request whose answer is read only after a pause: a large first
// write() fills the socket, so what end() sends waits behind it.
function slowClient(port) {
  return new Promise((resolve) => {
    const chunks = [];
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      socket.pause();
      setTimeout(() => socket.resume(), 300);
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('latin1');
      resolve({ length: all.length, head: normalise(Buffer.from(all.slice(0, 200), 'latin1')), tail: all.slice(-40) });
    });
  });
}

for (const kind of ['Content-Length', 'chunked']) {
  t.test(`end(buf) behind a backed-up socket, buf changed after (${kind}): the bytes the socket sends`, async (t) => {
    const big = 4 * 1024 * 1024;
    const result = await runPair({
      client: slowClient,
      handler: (req, res, ctx) => {
        if (kind === 'Content-Length') res.setHeader('Content-Length', big + 4);
        res.write(Buffer.alloc(big, 'x'));
        const b = Buffer.from('AAAA');
        res.end(b);
        // Still in the socket after end() (on 26 a chunked write before
        // the head waits in the response until end()).
        ctx.log.push(['queued', res.socket.writableLength > 0]);
        b.fill('B');
      },
      wait: 5000,
    });
    same(t, result, 'the same bytes');
    t.ok(result.stock.log.some((e) => e[0] === 'queued' && e[1]), 'bytes were still queued after end()');
    t.match(result.stock.tail, /BBBB/, 'stock Node sends the bytes the Buffer holds when the socket writes');
  });
}
