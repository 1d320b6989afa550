'use strict';

// https: a TLS socket is written like any other net.Socket, so the fast
// paths take it, with Node's bytes inside the TLS stream and each response
// one write to the TLS handle.  The certificate in fixtures/tls is a
// self-signed test one (CN=localhost, valid until 2126).

const t = require('tap');
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const https = require('node:https');
const tls = require('node:tls');
const onewrite = require('..');
const { normalise, close, countHandleWrites } = require('./helpers/wire');

const tlsOptions = {
  key: fs.readFileSync(path.join(__dirname, 'fixtures', 'tls', 'key.pem')),
  cert: fs.readFileSync(path.join(__dirname, 'fixtures', 'tls', 'cert.pem')),
};
const CLOSE = 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';

// Raw bytes over TLS: send `request`, collect the plaintext until close.
function exchange(port, request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => socket.write(request));
    socket.setTimeout(3000, () => socket.destroy(new Error('timed out')));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

// An https server answering with `ServerResponse`, counting the writes that
// reach each TLS connection's handle during its response.
async function server(t, ServerResponse, handler) {
  const s = https.createServer({ ...tlsOptions, ServerResponse }, handler);
  const counts = countHandleWrites(s, 'secureConnection');
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  t.teardown(() => close(s));
  return { port: s.address().port, writes: () => counts().map((c) => c.writes) };
}

// name -> [handler, the fast write() calls it makes, the TLS writes of its
// response (one per response write)].
const cases = {
  'writeHead + end(data)': [(req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Tls': 'yes' });
    res.end('hello over TLS');
  }, 0, [1]],
  'implicit head, chunked write + end(data)': [(req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.write('first ');
    setImmediate(() => res.end('last'));
  }, 1, [2]],
};

for (const [name, [handler, writes, expected]] of Object.entries(cases)) {
  t.test(name, async (t) => {
    const stock = await server(t, http.ServerResponse, handler);
    const fast = await server(t, onewrite.ServerResponse, handler);
    const a = await exchange(stock.port, CLOSE);
    const before = onewrite.status().counters;
    const b = await exchange(fast.port, CLOSE);
    const after = onewrite.status().counters;
    t.equal(normalise(b), normalise(a), "Node's bytes inside the TLS stream");
    t.ok(after.heads > before.heads, 'the head was rendered by onewrite');
    t.ok(after.ends > before.ends, 'end(data) took the fast path');
    t.equal(after.endsToNode, before.endsToNode, 'nothing handed over to Node');
    t.equal(after.writes - before.writes, writes, 'each write() took the fast path');
    t.same(fast.writes(), expected, 'one TLS write per response write');
  });
}
