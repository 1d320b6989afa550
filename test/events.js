'use strict';

// The response lifecycle is Node's: for each response pattern, the order of
// 'prefinish', 'finish', 'close', the end() callback, write() callbacks,
// 'drain', and of the next tick and the next immediate queued right after
// end() returns, plus the writable* and headersSent values seen at each of
// them, are the same with onewrite as with stock Node of this version.
// (Their order differs between Node 20/22 and 24/26; each run compares
// against the Node it runs on.)

const t = require('tap');
const { exchange, normalise, loggedPair } = require('./helpers/wire');

function snapshot(res) {
  return [res.headersSent, res.writableEnded, res.writableFinished, res.finished];
}

function watch(res, log) {
  for (const ev of ['prefinish', 'finish', 'close', 'drain', 'error']) {
    res.on(ev, () => log.push([ev, ...snapshot(res)]));
  }
}

function marks(res, log) {
  log.push(['returned', ...snapshot(res)]);
  process.nextTick(() => log.push(['tick', ...snapshot(res)]));
  setImmediate(() => log.push(['immediate', ...snapshot(res)]));
}

const cb = (log, name) => (err) => log.push([name, err ? err.code || err.message : null]);

const PATTERNS = {
  'end(string)': (req, res, log) => {
    res.end('hello', cb(log, 'end-cb'));
    marks(res, log);
  },
  'end(buffer)': (req, res, log) => {
    res.end(Buffer.from('hello'), cb(log, 'end-cb'));
    marks(res, log);
  },
  'writeHead + end(string), content-length': (req, res, log) => {
    res.writeHead(200, { 'Content-Length': '5' });
    res.end('hello', cb(log, 'end-cb'));
    marks(res, log);
  },
  'writeHead + end(string), chunked': (req, res, log) => {
    res.writeHead(200);
    res.end('hello', cb(log, 'end-cb'));
    marks(res, log);
  },
  'setHeader + end(string, encoding, cb)': (req, res, log) => {
    res.setHeader('Content-Type', 'text/plain');
    res.end('hello', 'utf8', cb(log, 'end-cb'));
    marks(res, log);
  },
  'write + write + end()': (req, res, log) => {
    log.push(['write', res.write('a', cb(log, 'write-cb-1'))]);
    log.push(['write', res.write(Buffer.from('b'), cb(log, 'write-cb-2'))]);
    res.end(cb(log, 'end-cb'));
    marks(res, log);
  },
  'write, next tick end(string)': (req, res, log) => {
    res.write('a', cb(log, 'write-cb'));
    setImmediate(() => {
      res.end('b', cb(log, 'end-cb'));
      marks(res, log);
    });
  },
  'end() twice': (req, res, log) => {
    res.end('once', cb(log, 'end-cb-1'));
    res.end('twice', cb(log, 'end-cb-2'));
    marks(res, log);
  },
  'write after end': (req, res, log) => {
    res.end('done');
    log.push(['write', res.write('late', cb(log, 'write-cb'))]);
    marks(res, log);
  },
  'big body': (req, res, log) => {
    res.end('x'.repeat(2 * 1024 * 1024), cb(log, 'end-cb'));
    marks(res, log);
  },
  'HEAD body dropped': (req, res, log) => {
    res.end('dropped', cb(log, 'end-cb'));
    marks(res, log);
  },
};

function handler(logs) {
  return (req, res) => {
    const name = decodeURIComponent(req.url.slice(1));
    const log = [];
    logs.set(name, log);
    watch(res, log);
    PATTERNS[name](req, res, log);
  };
}

t.test(`events and callbacks in Node ${process.versions.node}'s order`, async (t) => {
  const { stockPort: p1, fastPort: p2, logs: { stock: stockLogs, fast: fastLogs } } = await loggedPair(t, handler);
  for (const name of Object.keys(PATTERNS)) {
    const method = name.startsWith('HEAD') ? 'HEAD' : 'GET';
    const raw = `${method} /${encodeURIComponent(name)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const [a, b] = await Promise.all([exchange(p1, raw), exchange(p2, raw)]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal(normalise(b.bytes), normalise(a.bytes), `${name}: bytes`);
    t.same(fastLogs.get(name), stockLogs.get(name), `${name}: events`);
  }
});

t.test('keep-alive: the next request on the connection is answered after finish', async (t) => {
  const { stockPort: p1, fastPort: p2, logs: { stock: stockLogs, fast: fastLogs } } = await loggedPair(t, handler);
  const one = (name, last) => `GET /${encodeURIComponent(name)} HTTP/1.1\r\nHost: x\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
  const raw = one('end(string)') + one('writeHead + end(string), chunked') + one('end(buffer)', true);
  const [a, b] = await Promise.all([exchange(p1, raw), exchange(p2, raw)]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(normalise(b.bytes), normalise(a.bytes), 'pipelined responses, same bytes');
  for (const name of ['end(string)', 'writeHead + end(string), chunked', 'end(buffer)']) {
    t.same(fastLogs.get(name), stockLogs.get(name), `${name}: events`);
  }
});
