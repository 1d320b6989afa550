'use strict';

// Talking to servers on real loopback sockets, and comparing what they send.

const http = require('node:http');
const net = require('node:net');

// Send raw bytes, collect every byte the server sends until it closes the
// connection (or `timeout` ms pass with the connection still open, which is
// reported in the result rather than thrown).  ONEWRITE_TIMEOUT_MS raises
// the default for slow runs (valgrind).
const DEFAULT_TIMEOUT = Number(process.env.ONEWRITE_TIMEOUT_MS || 3000);
function exchange(port, request, { timeout = DEFAULT_TIMEOUT } = {}) {
  return new Promise((resolve) => {
    const chunks = [];
    let timedOut = false;
    const socket = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeout);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), timedOut });
    });
  });
}

// The Date value is the one thing allowed to differ between two runs.
function normalise(bytes) {
  return bytes.toString('latin1').replace(/(\r\n[Dd][Aa][Tt][Ee]: )[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g, '$1<date>');
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

function close(server) {
  return new Promise((resolve) => {
    if (typeof server.closeAllConnections === 'function') server.closeAllConnections();
    server.close(() => resolve());
  });
}

// A stock server and a onewrite server - the second answering with
// onewrite's ServerResponse, nothing global patched - with the same server
// options, listening on loopback, closed when the test `t` ends.
// makeHandler(side) gives each its handler (side: 'stock' or 'fast').
async function serverPair(t, makeHandler, options = {}) {
  const onewrite = require('../..');
  const stock = http.createServer(options, makeHandler('stock'));
  const fast = http.createServer({ ...options, ServerResponse: onewrite.ServerResponse }, makeHandler('fast'));
  const pair = { stock, fast, stockPort: await listen(stock), fastPort: await listen(fast) };
  t.teardown(async () => {
    await close(stock);
    await close(fast);
  });
  return pair;
}

// One request `raw` to a serverPair's stock side, then to its onewrite side,
// with snapshot() taken before and after the onewrite one: what moved in
// onewrite's counters for exactly that request.  `setup(server)` runs on
// both servers first.
async function measuredExchange(t, handler, { raw, serverOptions, setup, snapshot }) {
  const { stock, fast, stockPort, fastPort } = await serverPair(t, () => handler, serverOptions);
  if (setup) {
    setup(stock);
    setup(fast);
  }
  const a = await exchange(stockPort, raw);
  const before = snapshot();
  const b = await exchange(fastPort, raw);
  return { a, b, before, after: snapshot() };
}

// serverPair whose handlers log into a Map of their own side:
// makeHandler(logs) gives the handler; the pair comes back with
// logs: { stock, fast }.
async function loggedPair(t, makeHandler, options = {}) {
  const logs = { stock: new Map(), fast: new Map() };
  const pair = await serverPair(t, (side) => makeHandler(logs[side]), options);
  return { ...pair, logs };
}

function request(method, path, { version = '1.1', headers = {}, body = '' } = {}) {
  let head = `${method} ${path} HTTP/${version}\r\nHost: localhost\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  if (body.length > 0) head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return head + '\r\n' + body;
}

module.exports = {
  exchange, normalise, listen, close, serverPair, loggedPair, measuredExchange, request,
  http,
};
