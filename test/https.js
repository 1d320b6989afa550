'use strict';

// https: a TLS socket is written like any other net.Socket, so the fast
// paths take it, with Node's bytes inside the TLS stream, and as many
// writes of the connection's socket as Node makes (counted at the kernel:
// the servers run as children under strace, test/helpers/syscalls.js; TLS
// makes one record of what Node writes in one go either way, and OpenSSL
// adds its own, such as TLS 1.3's session tickets after the handshake).
// The certificate in fixtures/tls is a self-signed test one (CN=localhost,
// valid until 2126).

const fs = require('node:fs');
const path = require('node:path');

const tlsOptions = {
  key: fs.readFileSync(path.join(__dirname, 'fixtures', 'tls', 'key.pem')),
  cert: fs.readFileSync(path.join(__dirname, 'fixtures', 'tls', 'cert.pem')),
};

// path -> [name, handler, the fast write() calls it makes].
const cases = {
  '/write-head-end': ['writeHead + end(data)', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Tls': 'yes' });
    res.end('hello over TLS');
  }, 0],
  '/implicit-write-end': ['implicit head, chunked write + end(data)', (req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.write('first ');
    setImmediate(() => res.end('last'));
  }, 1],
};

// Run as the traced server, or as the test.
if (require('./helpers/syscalls').serveIfChild(() => (req, res) => cases[req.url][1](req, res),
  (options, handler) => require('node:https').createServer({ ...tlsOptions, ...options }, handler))) return;

const t = require('tap');
const tls = require('node:tls');
const { normalise } = require('./helpers/wire');
const { traced } = require('./helpers/syscalls');

const request = (url) => `GET ${url} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`;

// Raw bytes over TLS: send `request`, collect the plaintext until close.
function exchange(port, raw) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => socket.write(raw));
    socket.setTimeout(3000, () => socket.destroy(new Error('timed out')));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

// The traced server's onewrite.status().
async function status(port) {
  const bytes = (await exchange(port, request('/__onewrite_status'))).toString();
  return JSON.parse(bytes.slice(bytes.indexOf('\r\n\r\n') + 4)).counters;
}

for (const [url, [name, , writes]] of Object.entries(cases)) {
  t.test(name, async (t) => {
    const stock = await traced(t, __filename, { ONEWRITE: '0' });
    const fast = await traced(t, __filename, { ONEWRITE: '1' });
    const a = await exchange(stock.port, request(url));
    const before = await status(fast.port);
    const b = await exchange(fast.port, request(url));
    const after = await status(fast.port);
    t.equal(normalise(b), normalise(a), "Node's bytes inside the TLS stream");
    t.ok(after.heads > before.heads, 'the head was rendered by onewrite');
    t.ok(after.ends > before.ends, 'end(data) took the fast path');
    t.equal(after.endsToNode, before.endsToNode, 'nothing handed over to Node');
    t.equal(after.writes - before.writes, writes, 'each write() took the fast path');
    const seen = fast.responses().find((r) => r.url === url);
    const stockSeen = stock.responses().find((r) => r.url === url);
    t.ok(seen.writes > 0, 'the response was traced');
    t.equal(seen.writes, stockSeen.writes, `as many socket writes as Node (${seen.kinds.join(', ')})`);
  });
}
