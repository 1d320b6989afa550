'use strict';

// Fake collectors on 127.0.0.1, one per child process, for the agents of
// test/agents/agents.js: a Datadog agent (dd-trace's msgpack traces), an
// OTLP/HTTP JSON collector (OpenTelemetry's exporter) and an Elastic APM
// server (intake v2: gzip'd ndjson).  Each answers every request (so that
// no agent retries or backs off), keeps what it was sent, and says which
// paths were asked for: nothing an agent sends leaves loopback.
//
// collector(kind) resolves with { url, port, requests, done(), close() }:
// `requests` are { method, path, headers, body (decoded) }; done() resolves
// once every connection has closed and every request body has been read
// (call it after the child has exited: its flush at exit is then all in).
// collector(kind, { keep: false }) answers the same and keeps nothing
// (benchmark/instr.js --agent: a sink for thousands of requests' spans).

const http = require('node:http');
const zlib = require('node:zlib');

// ---- msgpack, as dd-trace's encoder writes it (decoding only) --------------
// No dependency: dd-trace ships an encoder only.  64-bit integers (ids,
// timestamps) come back as BigInt: the normalisers drop them.
function decodeMsgpack(buf) {
  let i = 0;
  const u8 = () => buf[i++];
  const take = (n) => {
    const out = buf.subarray(i, i + n);
    i += n;
    return out;
  };
  const str = (n) => take(n).toString('utf8');
  const arr = (n) => Array.from({ length: n }, () => value());
  const map = (n) => {
    const out = {};
    for (let k = 0; k < n; k++) {
      const key = value();
      out[typeof key === 'string' ? key : String(key)] = value();
    }
    return out;
  };
  function value() {
    const b = u8();
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if ((b & 0xf0) === 0x80) return map(b & 0x0f);
    if ((b & 0xf0) === 0x90) return arr(b & 0x0f);
    if ((b & 0xe0) === 0xa0) return str(b & 0x1f);
    let v;
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return Buffer.from(take(u8()));
      case 0xc5: v = buf.readUInt16BE(i); i += 2; return Buffer.from(take(v));
      case 0xc6: v = buf.readUInt32BE(i); i += 4; return Buffer.from(take(v));
      case 0xca: v = buf.readFloatBE(i); i += 4; return v;
      case 0xcb: v = buf.readDoubleBE(i); i += 8; return v;
      case 0xcc: return u8();
      case 0xcd: v = buf.readUInt16BE(i); i += 2; return v;
      case 0xce: v = buf.readUInt32BE(i); i += 4; return v;
      case 0xcf: v = buf.readBigUInt64BE(i); i += 8; return v;
      case 0xd0: v = buf.readInt8(i); i += 1; return v;
      case 0xd1: v = buf.readInt16BE(i); i += 2; return v;
      case 0xd2: v = buf.readInt32BE(i); i += 4; return v;
      case 0xd3: v = buf.readBigInt64BE(i); i += 8; return v;
      case 0xd9: return str(u8());
      case 0xda: v = buf.readUInt16BE(i); i += 2; return str(v);
      case 0xdb: v = buf.readUInt32BE(i); i += 4; return str(v);
      case 0xdc: v = buf.readUInt16BE(i); i += 2; return arr(v);
      case 0xdd: v = buf.readUInt32BE(i); i += 4; return arr(v);
      case 0xde: v = buf.readUInt16BE(i); i += 2; return map(v);
      case 0xdf: v = buf.readUInt32BE(i); i += 4; return map(v);
      default: throw new Error(`msgpack: type 0x${b.toString(16)} at ${i - 1} not decoded`);
    }
  }
  const out = value();
  if (i !== buf.length) throw new Error(`msgpack: ${buf.length - i} bytes after the value`);
  return out;
}

// The body of a request, by what it says it is.
function decodeBody(headers, raw) {
  const enc = headers['content-encoding'];
  const body = enc === 'gzip' ? zlib.gunzipSync(raw) : enc === 'deflate' ? zlib.inflateSync(raw) : raw;
  const type = String(headers['content-type'] || '');
  if (body.length === 0) return null;
  if (type.includes('msgpack')) return decodeMsgpack(body);
  if (type.includes('ndjson')) return body.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  if (type.includes('json')) return JSON.parse(body.toString('utf8'));
  return body.toString('latin1');
}

// What each kind answers.  Elastic asks for the server's version first
// (GET /); dd-trace reads /info; the rest get an empty success.
function answer(kind, req, res) {
  if (kind === 'elastic' && req.method === 'GET' && req.url === '/') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ version: '8.15.0', build_date: '2024-01-01T00:00:00Z', build_sha: 'x' }));
  } else if (kind === 'ddtrace' && req.url === '/info') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ version: '7.60.0', endpoints: ['/v0.4/traces'], client_drop_p0s: false }));
  } else if (kind === 'ddtrace' && req.url.startsWith('/v0.')) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ rate_by_service: {} }));
  } else if (kind === 'elastic') {
    res.writeHead(202);
    res.end();
  } else {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  }
}

function collector(kind, { keep = true } = {}) {
  const requests = [];
  const reading = new Set();
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    const read = new Promise((resolve) => {
      req.on('data', (d) => {
        if (keep) chunks.push(d);
      });
      req.on('end', () => {
        if (!keep) {
          answer(kind, req, res);
          return resolve();
        }
        const raw = Buffer.concat(chunks);
        let body;
        try {
          body = decodeBody(req.headers, raw);
        } catch (err) {
          body = { undecodable: String(err && err.message), bytes: raw.length };
        }
        requests.push({ method: req.method, path: req.url, headers: req.headers, body });
        answer(kind, req, res);
        resolve();
      });
      req.on('error', resolve);
    });
    reading.add(read);
    read.then(() => reading.delete(read));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        requests,
        async done(timeout = 10000) {
          const until = Date.now() + timeout;
          while ((sockets.size > 0 || reading.size > 0) && Date.now() < until) {
            await Promise.all([...reading]);
            await new Promise((r) => setTimeout(r, 20));
          }
          return sockets.size === 0 && reading.size === 0;
        },
        close() {
          for (const s of sockets) s.destroy();
          return new Promise((r) => server.close(() => r()));
        },
      });
    });
  });
}

module.exports = { collector, decodeMsgpack };
