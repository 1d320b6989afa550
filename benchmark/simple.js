'use strict';

// The server of Node's own benchmark/http/simple.js (its fixture
// simple-http-server.js), plus "realistic", "json" and "write-end" handlers.
// Run it stock, or with onewrite:
//
//   node benchmark/simple.js [--handler=simple|realistic|json|write-end]
//        [--type=bytes|buffer] [--len=4] [--chunks=1] [--chunkedEnc=0] [--writeLen=0]
//   node -r onewrite/register benchmark/simple.js ...
//
// It listens on --port (default: a free one) and prints the port.  The
// load parameters of Node's benchmark (c, duration) belong to the client:
// see compare.js.

const http = require('node:http');

const { parseArgs } = require('./lib/args');

const args = parseArgs(process.argv.slice(2), {
  handler: 'simple', type: 'bytes', len: 4, chunks: 1, chunkedEnc: 0, writeLen: 0, port: 0,
}, {
  script: __filename,
  choices: { handler: ['simple', 'realistic', 'json', 'write-end'], type: ['bytes', 'buffer'], chunkedEnc: [0, 1] },
  help: {
    handler: 'what to answer',
    type: "simple's body: a string (bytes) or a Buffer",
    len: "simple's body length",
    chunks: "simple's write() calls per body",
    chunkedEnc: 'simple: 1 for Transfer-Encoding: chunked',
    writeLen: "write-end's body length (0: a small JSON document)",
    port: 'port to listen on (0: a free one)',
  },
});
const { type, len, chunks } = args;
const handlerName = args.handler;
const chunkedEnc = args.chunkedEnc === 1;

// simple: as Node's fixture for /<type>/<len>/<chunks>/normal/<chunkedEnc>.
const body = type === 'buffer' ? Buffer.alloc(len, 'C') : 'C'.repeat(len);
function simple(req, res) {
  if (chunkedEnc) {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  } else {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length.toString() });
  }
  if (chunks > 1) {
    const step = Math.floor(len / chunks) || 1;
    for (let i = 0, n = chunks - 1; i < n; ++i) res.write(body.slice(i * step, i * step + step));
    res.end(body.slice((chunks - 1) * step));
  } else {
    res.end(body);
  }
}

// realistic: what an application answer looks like: a content type and a
// request id set as it goes (a new id each time, so no two heads are
// alike), then writeHead with caching, a cookie and the length.
let nextId = 0;
const page = JSON.stringify({ id: 1, name: 'onewrite', tags: ['http', 'native'], ok: true });
function realistic(req, res) {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('X-Request-Id', `req-${(nextId++).toString(36)}-${process.pid}`);
  res.writeHead(200, {
    'Cache-Control': 'private, max-age=0, must-revalidate',
    'Set-Cookie': 'session=abc123; Path=/; HttpOnly; SameSite=Lax',
    'Content-Length': Buffer.byteLength(page),
  });
  res.end(page);
}

// json: an object serialised per request.
const data = { hello: 'world', count: 42, items: [1, 2, 3, 4, 5], nested: { a: true, b: null } };
function json(req, res) {
  const s = JSON.stringify(data);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(s) });
  res.end(s);
}

// write-end: the head with a length, the body by write(), then end(), as
// h3/srvx, send/express.static and pipeline() with a known length answer.
const file = args.writeLen > 0 ? Buffer.alloc(args.writeLen, 'W') : Buffer.from(JSON.stringify(data));
function writeEnd(req, res) {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': file.length });
  res.write(file);
  res.end();
}

const handlers = { simple, realistic, json, 'write-end': writeEnd };
const server = http.createServer(handlers[handlerName]);
server.listen(args.port, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
