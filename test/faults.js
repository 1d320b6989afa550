'use strict';

// Hostile and unlucky conditions, each compared with stock Node on the same
// input: what reaches the client (bytes, or a digest for big bodies), what
// the handler sees (events, write() results, errors), and that the process
// survives.

const t = require('tap');
const net = require('node:net');
const crypto = require('node:crypto');
const { exchange, normalise, loggedPair } = require('./helpers/wire');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A stock and a onewrite server running the same handler; each request's
// handler log is kept by URL.
async function pair(t, handler, options = {}) {
  const servers = await loggedPair(t, (logs) => (req, res) => {
    const log = [];
    logs.set(req.url, log);
    for (const ev of ['finish', 'close', 'drain', 'error']) {
      res.on(ev, (e) => log.push(ev === 'error' ? ['error', e.code || e.message] : ev));
    }
    handler(req, res, log);
  }, options);
  return { ports: { stock: servers.stockPort, fast: servers.fastPort }, logs: servers.logs };
}

// A digest of a response, its Date normalised. Node puts Date after the
// user's headers, so it is looked for in the whole head: behind 1,000
// headers or a 1 MiB value it is far from the start.
const digest = (buf) => {
  const end = buf.indexOf('\r\n\r\n');
  const head = end === -1 ? buf.length : end + 4;
  return crypto.createHash('sha256')
    .update(normalise(buf.subarray(0, head)), 'latin1').update(buf.subarray(head)).digest('hex');
};

t.test('the client goes away in the middle of a big response', async (t) => {
  const body = Buffer.alloc(8 * 1024 * 1024, 'q');
  const { ports, logs } = await pair(t, (req, res, log) => {
    res.writeHead(200, { 'Content-Length': body.length });
    log.push(['end', res.end(body) === res]);
  });
  for (const name of ['stock', 'fast']) {
    await new Promise((resolve) => {
      const s = net.connect(ports[name], '127.0.0.1', () => s.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n'));
      let n = 0;
      s.on('data', (d) => {
        n += d.length;
        if (n > 100000) s.destroy();
      });
      s.on('close', resolve);
    });
  }
  await sleep(100);
  t.same(logs.fast.get('/big'), logs.stock.get('/big'), 'same events on the server');
  t.ok(logs.fast.get('/big').includes('close'), 'the response closed');
});

t.test('a slow reader: write() returns false and drain fires as in Node, nothing lost or reordered', async (t) => {
  const piece = 'p'.repeat(32 * 1024);
  const { ports, logs } = await pair(t, async (req, res, log) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    let falses = 0;
    for (let i = 0; i < 300; i++) {
      if (!res.write(`${String(i).padStart(4, '0')}${piece}`)) {
        falses++;
        await new Promise((resolve) => res.once('drain', resolve));
      }
    }
    log.push(['falses>0', falses > 0]);
    res.end('done');
  });
  const read = (port) => new Promise((resolve) => {
    const parts = [];
    const s = net.connect(port, '127.0.0.1', () => s.write('GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    s.on('data', (d) => {
      parts.push(d);
      s.pause();
      setTimeout(() => s.resume(), 1);
    });
    s.on('close', () => resolve(Buffer.concat(parts)));
  });
  const [a, b] = await Promise.all([read(ports.stock), read(ports.fast)]);
  t.equal(digest(b), digest(a), `same ${a.length} bytes`);
  const text = b.toString('latin1');
  let last = -1;
  let ordered = true;
  for (const m of text.matchAll(/(\d{4})p{32768}/g)) {
    if (Number(m[1]) !== last + 1) ordered = false;
    last = Number(m[1]);
  }
  t.equal(last, 299, 'all 300 pieces arrived');
  t.ok(ordered, 'in order');
  await sleep(20);
  t.same(logs.fast.get('/slow'), logs.stock.get('/slow'), 'write() returned false and drain fired, as in Node');
  t.ok(logs.fast.get('/slow').some((e) => e[0] === 'falses>0' && e[1]), 'backpressure happened');
});

t.test('100 pipelined requests on one connection', async (t) => {
  const { ports } = await pair(t, (req, res) => {
    const n = Number(req.url.slice(1));
    if (n % 3 === 0) res.end(`plain ${n}`);
    else if (n % 3 === 1) {
      res.writeHead(200, { 'X-N': n });
      res.end(Buffer.from(`buffer ${n}`));
    } else setImmediate(() => res.end(`later ${n}`));
  });
  let raw = '';
  for (let i = 0; i < 100; i++) raw += `GET /${i} HTTP/1.1\r\nHost: x\r\n${i === 99 ? 'Connection: close\r\n' : ''}\r\n`;
  const [a, b] = await Promise.all([exchange(ports.stock, raw), exchange(ports.fast, raw)]);
  t.equal(normalise(b.bytes), normalise(a.bytes));
  t.equal((normalise(b.bytes).match(/HTTP\/1\.1 200 OK/g) || []).length, 100, '100 responses');
});

t.test('HTTP/1.0 without keep-alive', async (t) => {
  const { ports } = await pair(t, (req, res) => res.end('one-oh'));
  const raw = 'GET / HTTP/1.0\r\nHost: x\r\n\r\n';
  const [a, b] = await Promise.all([exchange(ports.stock, raw), exchange(ports.fast, raw)]);
  t.equal(normalise(b.bytes), normalise(a.bytes));
  t.match(normalise(b.bytes), /\r\nConnection: close\r\n/);
});

t.test('1,000 headers, and a 1 MiB header value', async (t) => {
  const many = {};
  for (let i = 0; i < 1000; i++) many[`X-H-${i}`] = `value ${i}`;
  const huge = 'v'.repeat(1024 * 1024);
  const { ports } = await pair(t, (req, res) => {
    if (req.url === '/many') res.writeHead(200, many);
    else res.setHeader('X-Huge', huge);
    res.end('ok');
  }, { maxHeaderSize: 4 * 1024 * 1024 });
  for (const path of ['/many', '/huge']) {
    const raw = `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const [a, b] = await Promise.all([exchange(ports.stock, raw), exchange(ports.fast, raw)]);
    t.equal(digest(b.bytes), digest(a.bytes), `${path}: same ${a.bytes.length} bytes`);
  }
});

t.test('a 64 MiB body, as a Buffer and as a string', async (t) => {
  const buf = Buffer.alloc(64 * 1024 * 1024, 'b');
  const str = 's'.repeat(64 * 1024 * 1024);
  const { ports } = await pair(t, (req, res) => res.end(req.url === '/buffer' ? buf : str));
  for (const path of ['/buffer', '/string']) {
    const raw = `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const [a, b] = await Promise.all([exchange(ports.stock, raw, { timeout: 60000 }),
      exchange(ports.fast, raw, { timeout: 60000 })]);
    t.equal(b.bytes.length, a.bytes.length, `${path}: ${a.bytes.length} bytes`);
    t.equal(digest(b.bytes), digest(a.bytes), `${path}: same bytes`);
  }
});

t.test('ended twice, written after end, destroyed between writeHead and end', async (t) => {
  const { ports, logs } = await pair(t, (req, res, log) => {
    const cb = (name) => (err) => log.push([name, err ? err.code : null]);
    if (req.url === '/twice') {
      res.end('one', cb('end1'));
      res.end('two', cb('end2'));
    } else if (req.url === '/after') {
      res.end('one');
      log.push(['write', res.write('late', cb('write'))]);
    } else {
      res.writeHead(200, { 'Content-Length': '4' });
      res.socket.destroy();
      log.push(['end', res.end('gone', cb('end')) === res]);
    }
  });
  for (const path of ['/twice', '/after', '/destroyed']) {
    const raw = `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const [a, b] = await Promise.all([exchange(ports.stock, raw), exchange(ports.fast, raw)]);
    await sleep(30);
    t.equal(normalise(b.bytes), normalise(a.bytes), `${path}: same bytes`);
    t.same(logs.fast.get(path), logs.stock.get(path), `${path}: same events and errors`);
  }
});
