'use strict';

// One socket write per response on the fast paths, counted at the kernel
// (each write(2) or writev(2) on the response's socket is one: the server
// runs as a child under strace, test/helpers/syscalls.js), and the bytes of
// non-ASCII bodies.

const ROUTES = {
  '/end-string': (req, res) => res.end('hello'),
  '/end-utf8': (req, res) => res.end('\u20ac'),
  '/end-buffer': (req, res) => res.end(Buffer.from('bytes')),
  '/end-big-buffer': (req, res) => res.end(Buffer.alloc(100000, 'b')),
  '/end-big-string': (req, res) => res.end('s'.repeat(100000)),
  '/express-like': (req, res) => {
    res.setHeader('X-Powered-By', 'Express');
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', '13');
    res.setHeader('ETag', 'W/"d-abc"');
    res.end(Buffer.from('{"hello":"w"}'));
  },
  '/writehead-cl': (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '4' });
    res.end('CCCC');
  },
  '/writehead-chunked': (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('chunked body');
  },
  '/writehead-chunked-utf8': (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('\u20ac');
  },
  '/writehead-chunked-buffer': (req, res) => {
    res.writeHead(200);
    res.end(Buffer.from('buf'));
  },
  '/write-write-end': (req, res) => {
    res.write('a');
    res.write(Buffer.from('b'));
    res.end();
  },
};

// Chunked writes in separate ticks: one handle write per tick.
const TICKED = (req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  res.write('data: 1\n\n');
  setImmediate(() => {
    res.write('data: 2\n\n');
    setImmediate(() => res.end('data: 3\n\n'));
  });
};

// writeHead() with a Content-Length, write(bytes), end(): Node's one writev
// of them all (one corked tick), which onewrite makes of Buffers alone, the
// head copied next to the first bytes, or in a Buffer of its own before
// bytes too many to copy (its cheaper way through Node's writev: no string
// to measure, no encoding to parse).
const CL_WRITES = {
  '/cl-write-end': (req, res) => {
    res.writeHead(200, { 'Content-Length': 6 });
    res.write(Buffer.from('bytes!'));
    res.end();
  },
  '/cl-write-6000-end': (req, res) => {
    res.writeHead(200, { 'Content-Length': 6000 });
    res.write(Buffer.alloc(6000, 'x'));
    res.end();
  },
  '/chunked-write-end': (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.write(Buffer.from('bytes!'));
    res.end();
  },
  '/chunked-write-write-end-data': (req, res) => {
    res.write(Buffer.from('abc'));
    res.write(new Uint8Array([0x64, 0x65, 0x66]), () => {});
    res.end(Buffer.from('ghi'), () => {});
  },
  '/chunked-write-end-trailers': (req, res) => {
    res.writeHead(200, { Trailer: 'X-Sum' });
    res.write(Buffer.from('bytes!'));
    res.addTrailers({ 'X-Sum': 'abc' });
    res.end();
  },
  '/cl-write-write-end-cb': (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': 6 });
    res.write(Buffer.from('abc'), () => {});
    res.write(new Uint8Array([0x64, 0x65, 0x66]));
    res.end(() => {});
  },
};
const ALL = { ...ROUTES, ...CL_WRITES, '/ticked': TICKED };
function route(req, res) {
  return ALL[req.url](req, res);
}

// Run as the traced server (test/helpers/syscalls.js), or as the test.
if (require('./helpers/syscalls').serveIfChild(() => route)) return;

const t = require('tap');
const http = require('node:http');
const onewrite = require('..');
const { exchange, normalise, listen, close } = require('./helpers/wire');
const { traced } = require('./helpers/syscalls');

// Each path of `paths` requested from a stock and a onewrite server, each
// traced: the same bytes, then check(path, seen, stockSeen) with the
// socket writes each side made for it.
async function eachRoute(t, paths, check) {
  const stock = await traced(t, __filename, { ONEWRITE: '0' });
  const fast = await traced(t, __filename, { ONEWRITE: '1' });
  for (const path of paths) {
    const raw = `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const [a, b] = await Promise.all([exchange(stock.port, raw), exchange(fast.port, raw)]);
    t.equal(normalise(b.bytes), normalise(a.bytes), `${path}: same bytes`);
  }
  const seen = fast.responses();
  const stockSeen = stock.responses();
  t.same(seen.map((r) => r.url), paths, 'every response traced');
  for (const path of paths) {
    check(path, seen.find((c) => c.url === path), stockSeen.find((c) => c.url === path));
  }
}

t.test('the fast paths write once per response', async (t) => {
  await eachRoute(t, Object.keys(ROUTES), (path, seen, stockSeen) => {
    t.equal(seen.writes, 1, `${path}: one socket write (${seen.kinds.join(', ')}; ` +
      `stock: ${stockSeen.writes}, ${stockSeen.kinds.join(', ')})`);
    // A string body, or a small buffer, goes out as one buffer: not a writev.
    if (!/big-buffer|write-write|chunked-utf8/.test(path)) {
      t.equal(seen.kinds[0], 'write', `${path}: not a writev`);
    }
  });
});

t.test('write(bytes) and end(), with a Content-Length or chunked: one socket write, as Node', async (t) => {
  await eachRoute(t, Object.keys(CL_WRITES), (path, seen, stockSeen) => {
    t.equal(seen.writes, stockSeen.writes, `${path}: as many socket writes as Node (${seen.kinds.join(', ')})`);
    t.equal(seen.writes, 1, `${path}: one`);
  });
});

t.test('chunked writes in separate ticks: one socket write each', async (t) => {
  // write, write, end(data): three ticks, three socket writes (the last
  // carries the final chunk and the last-chunk).
  await eachRoute(t, ['/ticked'], (path, seen, stockSeen) => {
    t.equal(seen.writes, 3, `socket writes: ${seen.kinds.join(', ')} (stock: ${stockSeen.kinds.join(', ')})`);
  });
});

t.test('a multibyte body is counted and sent in bytes', async (t) => {
  const fast = http.createServer({ ServerResponse: onewrite.ServerResponse }, route);
  const port = await listen(fast);
  t.teardown(() => close(fast));
  const raw = 'GET /end-utf8 HTTP/1.1\r\nHost: x\r\n\r\nGET /writehead-chunked-utf8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  const { bytes } = await exchange(port, raw);
  const text = bytes.toString('latin1');
  const first = text.indexOf('\r\n\r\n');
  t.match(text.slice(0, first), /\r\nContent-Length: 3$/, 'Content-Length counts bytes');
  t.same([...bytes.subarray(first + 4, first + 7)], [0xe2, 0x82, 0xac], 'body is UTF-8');
  const second = text.indexOf('HTTP/1.1', first);
  t.equal(text.indexOf('HTTP/1.1', first + 7), second, 'the next response starts right after');
  const body2 = text.slice(text.indexOf('\r\n\r\n', second) + 4);
  t.equal(body2, '3\r\n\u00e2\u0082\u00ac\r\n0\r\n\r\n', 'chunk size counts bytes');
});
