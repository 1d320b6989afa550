'use strict';

// One library's fixed requests, for test/clients/clients.js: run as
//
//   node child.js <library>                           stock Node
//   node -r <onewrite>/register.js child.js <library>  onewrite's client side
//
// against a recording loopback `net` server (every byte each connection
// brought, kept in order; fixed HTTP/1.1 answers, keep-alive), one request
// after another.  The last line of stdout is the transcript as JSON:
//
//   { library, node, requests: [{ name, ...what the library returned }],
//     upstream: [bytes of each connection, in accept order],
//     relay: [{ sent, received }]        (http-proxy: what the client sent
//                                         to the proxy and got back)
//     onewrite: null | { client, active, counters, phases } }
//
// with the servers' ports replaced by names.  `onewrite` is filled only with
// CLIENTS_STATUS_FROM=<the onewrite package> (the onewrite side): its
// status() at the end, and the request counters around each phase (for
// `fetch`, around the fetch calls alone).  It is left out of the comparison.

const net = require('node:net');
const http = require('node:http');

const LIBRARY = process.argv[2];
const STATUS_FROM = process.env.CLIENTS_STATUS_FROM || '';
const onewrite = STATUS_FROM ? require(STATUS_FROM) : null;
const REQUEST_COUNTERS = ['requestHeads', 'requestHeadsToNode', 'requestEnds', 'requestEndsToNode'];
const counters = () => {
  if (!onewrite) return null;
  const c = onewrite.status().counters || {};
  return Object.fromEntries(REQUEST_COUNTERS.map((k) => [k, c[k]]));
};

// A fixed Date: the proxy's responses carry the upstream's, so Node adds
// none of its own.
const DATE = 'Thu, 01 Jan 2026 00:00:00 GMT';

// ---------------------------------------------------------------------------
// The recording upstream.

// One whole request off the front of `buf` ({ head, length } with `length`
// the bytes it takes, head and body), or null until it is all there: a
// Content-Length body, chunks up to the last one and its trailers, or none.
function parseRequest(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const head = buf.subarray(0, end).toString('latin1');
  let at = end + 4;
  let bodyLength = 0;
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
    for (;;) {
      const eol = buf.indexOf('\r\n', at);
      if (eol === -1) return null;
      const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
      if (size === 0) {
        // Trailers, if any, end with an empty line.
        const close = buf.indexOf('\r\n\r\n', eol);
        if (close === -1) return null;
        at = close + 4;
        break;
      }
      if (buf.length < eol + 2 + size + 2) return null;
      bodyLength += size;
      at = eol + 2 + size + 2;
    }
  } else {
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    bodyLength = m ? Number(m[1]) : 0;
    if (buf.length < at + bodyLength) return null;
    at += bodyLength;
  }
  return { head, length: at, bodyLength };
}

// The fixed answer to a request: 404 for /missing, else 200; a JSON body
// naming the method, the path and the body's length (not the head itself,
// which carries the port).
function answer(req, nth) {
  const [method, target] = req.head.split('\r\n')[0].split(' ');
  const close = /\r\nconnection:\s*close/i.test(req.head);
  const missing = target.startsWith('/missing');
  const body = JSON.stringify({ method, target, bodyLength: req.bodyLength, nth });
  return [
    missing ? 'HTTP/1.1 404 Not Found' : 'HTTP/1.1 200 OK',
    `Date: ${DATE}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Upstream: recording',
    close ? 'Connection: close' : 'Connection: keep-alive',
    '',
    body,
  ].join('\r\n');
}

function recordingServer() {
  const connections = [];
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const conn = { chunks: [] };
    connections.push(conn);
    let pending = Buffer.alloc(0);
    let nth = 0;
    socket.on('data', (d) => {
      conn.chunks.push(d);
      pending = Buffer.concat([pending, d]);
      let req;
      while ((req = parseRequest(pending))) {
        pending = pending.subarray(req.length);
        socket.write(answer(req, nth++));
        if (/\r\nconnection:\s*close/i.test(req.head)) {
          socket.end();
          break;
        }
      }
    });
    socket.on('error', () => {});
  });
  return {
    server,
    sockets,
    bytes: () => connections.map((c) => Buffer.concat(c.chunks).toString('latin1')),
  };
}

// A relay in front of the proxy: every byte each way, per connection.
function recordingRelay(targetPort) {
  const connections = [];
  const sockets = new Set();
  const server = net.createServer((socket) => {
    const conn = { sent: [], received: [] };
    connections.push(conn);
    const out = net.connect(targetPort, '127.0.0.1');
    sockets.add(socket);
    sockets.add(out);
    socket.on('data', (d) => {
      conn.sent.push(d);
      out.write(d);
    });
    out.on('data', (d) => {
      conn.received.push(d);
      socket.write(d);
    });
    socket.on('end', () => out.end());
    out.on('end', () => socket.end());
    socket.on('close', () => { sockets.delete(socket); out.destroy(); });
    out.on('close', () => { sockets.delete(out); socket.destroy(); });
    socket.on('error', () => {});
    out.on('error', () => {});
  });
  return {
    server,
    sockets,
    bytes: () => connections.map((c) => ({
      sent: Buffer.concat(c.sent).toString('latin1'),
      received: Buffer.concat(c.received).toString('latin1'),
    })),
  };
}

const listen = (server) => new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', () => resolve(server.address().port));
});

// ---------------------------------------------------------------------------
// What a library returned, or the error it gave.

function describeError(err) {
  const out = { error: String(err && err.message), code: err && err.code };
  if (err && err.response) {
    // axios and got: the response that came with the error.
    out.status = err.response.status !== undefined ? err.response.status : err.response.statusCode;
    out.body = err.response.data !== undefined ? err.response.data : err.response.body;
  }
  return out;
}

const plainHeaders = (h) => JSON.parse(JSON.stringify(h));

// ---------------------------------------------------------------------------
// The libraries.  Each: async (base, log) => void, base the upstream's URL
// (http://127.0.0.1:<port>), log(name, fn) records fn's result.

const keepAlive = () => new http.Agent({ keepAlive: true });
const agents = [];
const agent = () => {
  const a = keepAlive();
  agents.push(a);
  return a;
};

const LIBRARIES = {
  async axios(base, log) {
    const axios = require('axios');
    const res = (r) => ({ status: r.status, headers: plainHeaders(r.headers), body: r.data });
    await log('GET', async () => res(await axios.get(`${base}/axios/get?x=1`)));
    await log('POST JSON object', async () => res(await axios.post(`${base}/axios/json`,
      { a: 1, b: 'two', c: [3, 'four'], d: { e: null }, f: 'é€' })));
    await log('POST Buffer', async () => res(await axios.post(`${base}/axios/buffer`,
      Buffer.from('bytes \x00\x01\xff and more', 'latin1'), { headers: { 'Content-Type': 'application/octet-stream' } })));
    await log('custom headers', async () => res(await axios.get(`${base}/axios/headers`, {
      headers: { 'X-Custom': 'Value', 'x-lower-case': 'v', Authorization: 'Bearer token', 'X-Multi': ['a', 'b'] },
    })));
    await log('keep-alive agent, twice', async () => {
      const httpAgent = agent();
      const a = res(await axios.get(`${base}/axios/ka/1`, { httpAgent }));
      const b = res(await axios.put(`${base}/axios/ka/2`, 'text body', { httpAgent }));
      return [a, b];
    });
    await log('404', async () => res(await axios.get(`${base}/missing/axios`)));
  },

  async got(base, log) {
    const got = require('got');
    const res = (r) => ({ status: r.statusCode, headers: plainHeaders(r.headers), body: r.body });
    await log('GET', async () => res(await got(`${base}/got/get?y=2`)));
    await log('POST json', async () => res(await got.post(`${base}/got/json`,
      { json: { a: 1, list: [1, 2, 3], s: 'ü' }, responseType: 'json' })));
    await log('POST body string', async () => res(await got.post(`${base}/got/body`,
      { body: 'a plain string body', headers: { 'content-type': 'text/plain' } })));
    await log('keep-alive agent, twice', async () => {
      const a = agent();
      return [
        res(await got(`${base}/got/ka/1`, { agent: { http: a }, headers: { 'X-Got': 'one' } })),
        res(await got.post(`${base}/got/ka/2`, { agent: { http: a }, body: Buffer.from('buffer body') })),
      ];
    });
    await log('404', async () => res(await got(`${base}/missing/got`, { retry: 0 })));
  },

  async 'node-fetch'(base, log) {
    const fetch = require('node-fetch');
    const res = async (r) => ({ status: r.status, headers: [...r.headers], body: await r.text() });
    await log('GET', async () => res(await fetch(`${base}/node-fetch/get`)));
    await log('POST string', async () => res(await fetch(`${base}/node-fetch/string`,
      { method: 'POST', body: 'string body', headers: { 'Content-Type': 'text/plain' } })));
    await log('POST Buffer', async () => res(await fetch(`${base}/node-fetch/buffer`,
      { method: 'POST', body: Buffer.from([0, 1, 2, 250, 255]) })));
    await log('POST URLSearchParams', async () => res(await fetch(`${base}/node-fetch/form`,
      { method: 'POST', body: new URLSearchParams({ a: '1', b: 'two words', c: 'ä&=' }) })));
    await log('keep-alive agent, twice', async () => {
      const a = agent();
      return [
        await res(await fetch(`${base}/node-fetch/ka/1`, { agent: a, headers: { 'X-Fetch': 'yes' } })),
        await res(await fetch(`${base}/node-fetch/ka/2`, { agent: a, method: 'POST', body: 'again' })),
      ];
    });
  },

  // A proxy (its own http.Server, proxy.web()) in front of the upstream,
  // and a plain http.request() client going through a relay that records
  // what it sent to the proxy and what it got back.  Twice: http-proxy's
  // default (no agent: a connection per request, `Connection: close`), and
  // with a keep-alive agent.
  async 'http-proxy'(base, log, extra) {
    const httpProxy = require('http-proxy');
    const call = (port, method, target, body) => new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path: target, agent: extra.clientAgent,
        headers: body === undefined ? { 'X-Client': 'plain' }
          : { 'X-Client': 'plain', 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/octet-stream' } },
      (res) => {
        const chunks = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
    extra.clientAgent = agent();
    for (const [name, options] of [['default', {}], ['keep-alive agent', { agent: agent() }]]) {
      const proxy = httpProxy.createProxyServer({ target: base, ...options });
      const proxyErrors = [];
      proxy.on('error', (err, req, res) => {
        proxyErrors.push(String(err.message));
        res.statusCode = 502;
        res.end('proxy error');
      });
      const server = http.createServer((req, res) => proxy.web(req, res));
      const port = await listen(server);
      extra.servers.push(server);
      const relay = recordingRelay(port);
      const relayPort = await listen(relay.server);
      extra.ports[`proxy ${name}`] = port;
      extra.ports[`relay ${name}`] = relayPort;
      extra.relays.push(relay);
      await log(`${name}: GET`, () => call(relayPort, 'GET', `/proxy/${name.replace(/ /g, '-')}/get`));
      await log(`${name}: POST`, () => call(relayPort, 'POST', `/proxy/${name.replace(/ /g, '-')}/post`, 'posted=through&the=proxy'));
      await log(`${name}: POST Buffer`, () => call(relayPort, 'POST', `/proxy/${name.replace(/ /g, '-')}/buffer`,
        Buffer.from('bytes \x00\xff through the proxy', 'latin1')));
      await log(`${name}: proxy errors`, async () => proxyErrors);
    }
  },

  // undici's fetch (the global one): not node:http, so onewrite must not
  // take part; the counters are read around the calls.
  async fetch(base, log, extra) {
    const res = async (r) => ({ status: r.status, headers: [...r.headers], body: await r.text() });
    const before = counters();
    await log('GET', async () => res(await fetch(`${base}/fetch/get`)));
    await log('POST', async () => res(await fetch(`${base}/fetch/post`,
      { method: 'POST', body: 'fetch body', headers: { 'content-type': 'text/plain' } })));
    extra.phases.fetch = { before, after: counters() };
  },
};

// ---------------------------------------------------------------------------

async function main() {
  if (!LIBRARIES[LIBRARY]) throw new Error(`no such library: ${LIBRARY} (${Object.keys(LIBRARIES).join(', ')})`);
  const upstream = recordingServer();
  const port = await listen(upstream.server);
  const base = `http://127.0.0.1:${port}`;
  const requests = [];
  const extra = { servers: [], relays: [], ports: { upstream: port }, phases: {} };
  const log = async (name, fn) => {
    let result;
    try {
      result = await fn();
    } catch (err) {
      result = describeError(err);
    }
    requests.push({ name, ...(Array.isArray(result) ? { results: result } : result && typeof result === 'object' ? result : { result }) });
  };
  const before = counters();
  await LIBRARIES[LIBRARY](base, log, extra);
  extra.phases.all = { before, after: counters() };

  // Let the last bytes reach the recorders, then close everything.
  await new Promise((r) => setTimeout(r, 50));
  const transcript = {
    library: LIBRARY,
    node: process.version,
    requests,
    upstream: upstream.bytes(),
    relay: extra.relays.flatMap((r) => r.bytes()),
  };
  for (const a of agents) a.destroy();
  for (const s of extra.servers) s.close();
  for (const r of extra.relays) {
    r.server.close();
    for (const s of r.sockets) s.destroy();
  }
  upstream.server.close();
  for (const s of upstream.sockets) s.destroy();

  // The ports, by name: `:<upstream>` and so on.
  let json = JSON.stringify(transcript);
  for (const [name, p] of Object.entries(extra.ports)) {
    json = json.replace(new RegExp(`:${p}(?!\\d)`, 'g'), `:<${name}>`);
  }
  const out = JSON.parse(json);
  if (onewrite) {
    const s = onewrite.status();
    out.onewrite = { client: s.client, active: s.active, counters: s.counters, fallbacks: s.fallbacks, phases: extra.phases };
  } else {
    out.onewrite = null;
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}

// Nothing here should take more than a few seconds.
setTimeout(() => {
  process.stderr.write(`clients child (${LIBRARY}): timed out\n`);
  process.exit(2);
}, 30000).unref();

main().catch((err) => {
  process.stderr.write(`clients child (${LIBRARY}): ${err && err.stack}\n`);
  process.exit(1);
});
