'use strict';

// onewrite.sse() and onewrite.ndjson(): framing per the WHATWG server-sent
// events rules and one JSON value per line, one chunk and one socket write
// per item (counted at the kernel: the server runs as a child under
// strace, test/helpers/syscalls.js), backpressure with a slow reader, the
// iterator stopped when the client goes away, and a real client reading it.

const onewrite = require('..');

// The two responses whose socket writes are counted.
const EVENTS = [];
for (let i = 0; i < 20; i++) EVENTS.push({ id: String(i), data: `token ${i} \u00e9` });
const ROWS = Array.from({ length: 30 }, (_, i) => ({ i, name: `r\u00f6w ${i}`, emoji: '\ud83d\ude00' }));
const TRACED = {
  '/sse': async (req, res) => {
    const sse = onewrite.sse(res);
    // Ten in the same tick (Node 24+ would merge these into one chunk if
    // written plainly), ten in separate ticks.
    for (const e of EVENTS.slice(0, 10)) sse.send(e);
    for (const e of EVENTS.slice(10)) {
      await new Promise((resolve) => setImmediate(resolve));
      sse.send(e);
    }
    sse.close();
  },
  '/ndjson': async (req, res) => {
    const out = onewrite.ndjson(res);
    const result = await out.stream(ROWS);
    // What stream() answered, where the test can read it.
    res.addTrailers({ 'X-Result': JSON.stringify(result) });
    out.end();
  },
};

// Run as the traced server, or as the test.
if (require('./helpers/syscalls').serveIfChild(() => (req, res) => TRACED[req.url](req, res))) return;

const t = require('tap');
const http = require('node:http');
const net = require('node:net');
const { sseFrame } = require('../lib/stream');
const { listen, close, exchange } = require('./helpers/wire');
const { traced } = require('./helpers/syscalls');

// The event-stream interpretation of the HTML standard ("9.2.6 Interpreting
// an event stream"): lines end in CRLF, LF or CR; a blank line dispatches;
// "field: value" with one optional space after the colon; lines starting
// with a colon are comments.  Returns the events [{ type, data, id }] and
// the last retry value.
function parseEventStream(text) {
  const events = [];
  let data = '';
  let type = '';
  let lastId = '';
  let retry = null;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data !== '') events.push({ type: type || 'message', data: data.slice(0, -1), id: lastId });
      data = '';
      type = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data += `${value}\n`;
    else if (field === 'event') type = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }
  return { events, retry };
}

// The body of a chunked HTT/1.1 response: the chunks' data, and how many.
function dechunk(raw) {
  const text = raw.toString('latin1');
  let at = text.indexOf('\r\n\r\n') + 4;
  const chunks = [];
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, eol), 16);
    if (size === 0) {
      at = eol + 2;
      break;
    }
    chunks.push(Buffer.from(text.slice(eol + 2, eol + 2 + size), 'latin1'));
    at = eol + 2 + size + 2;
  }
  return { head: text.slice(0, text.indexOf('\r\n\r\n')), chunks, trailers: text.slice(at) };
}

t.test('SSE framing', async (t) => {
  t.equal(sseFrame('hello'), 'data: hello\n\n');
  t.equal(sseFrame(''), 'data: \n\n', 'empty data is one empty data line');
  t.equal(sseFrame('a\nb\r\nc\rd'), 'data: a\ndata: b\ndata: c\ndata: d\n\n', 'LF, CRLF and CR all split lines');
  t.equal(sseFrame({ event: 'tick', id: '42', data: 'x' }), 'event: tick\nid: 42\ndata: x\n\n');
  t.equal(sseFrame({ data: { a: 1 } }), 'data: {"a":1}\n\n', 'non-string data is JSON');
  t.equal(sseFrame({ retry: 2500 }), 'retry: 2500\n\n');
  t.equal(sseFrame({ comment: 'one\ntwo' }), ': one\n: two\n\n', 'a comment, each line marked');
  t.throws(() => sseFrame({ id: 'a\nb', data: 'x' }), TypeError, 'an id with a line break');
  t.throws(() => sseFrame({ id: 'a\0b', data: 'x' }), TypeError, 'an id with NUL');
  t.throws(() => sseFrame({ event: 'a\rb', data: 'x' }), TypeError, 'an event name with CR');
  t.throws(() => sseFrame({ retry: -1 }), TypeError);
  t.throws(() => sseFrame({ retry: 1.5 }), TypeError);
  t.throws(() => sseFrame({}), TypeError, 'a message with nothing in it');

  // Whatever the data, the standard's parser reads back exactly what was sent.
  const samples = ['plain', 'multi\nline', 'cr\rlf\r\nmix', ' leading space', 'ends with newline\n',
    '', ':not a comment', '\u20ac caf\u00e9 \ud83d\ude00', 'data: nested'];
  for (const s of samples) {
    const { events } = parseEventStream(sseFrame({ event: 'e', id: 'i', data: s }));
    const expected = s.replace(/\r\n|\r/g, '\n');
    t.same(events, [{ type: 'e', data: expected, id: 'i' }], `round trip ${JSON.stringify(s)}`);
  }
});

t.test('sse() and ndjson() say what they want when given something else', async (t) => {
  for (const [name, fn] of [['sse', onewrite.sse], ['ndjson', onewrite.ndjson]]) {
    for (const bad of [{}, null, undefined, 'res']) {
      t.throws(() => fn(bad), { name: 'TypeError', message: new RegExp(`^${name}\\(res\\) needs an http\\.ServerResponse`) },
        `${name}(${JSON.stringify(bad)})`);
    }
    const res = new http.ServerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} });
    res.writeHead(200);
    t.throws(() => fn(res), { message: `${name}(res) must start the response: its head was already sent` });
  }
});

function serve(handler, options = {}) {
  const server = http.createServer({ ServerResponse: onewrite.ServerResponse, ...options }, handler);
  return { server };
}

// Every byte of the response to one GET.
async function raw(port, url = '/') {
  return (await exchange(port, `GET ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).bytes;
}

t.test('one chunk, one buffer at the socket per item; one socket write per item alone in its tick', async (t) => {
  const server = await traced(t, __filename, { ONEWRITE: '1' });
  const body = await raw(server.port, '/sse');
  const { head, chunks } = dechunk(body);
  t.match(head, /\r\nContent-Type: text\/event-stream\r\n/);
  t.match(head, /\r\nCache-Control: no-cache\r\n/);
  t.match(head, /\r\nConnection: close\r\n/, 'the client asked to close: Node closes');
  t.equal(chunks.length, 20, 'one chunk per event');
  chunks.forEach((c, i) => t.equal(c.toString('utf8'), sseFrame(EVENTS[i]), `chunk ${i} is event ${i}`));
  const { events: parsed } = parseEventStream(Buffer.concat(chunks).toString('utf8'));
  t.same(parsed.map((e) => e.data), EVENTS.map((e) => e.data), 'a parser reads every event back');
  // At the socket: the head alone (flushed at once, for EventSource); the
  // ten events of one tick in one writev, a buffer each; then one write per
  // event for the ten in their own ticks, the last one together with the
  // end (close() in the same tick).
  const c = server.responses().find((r) => r.url === '/sse');
  t.equal(c.writes, 1 + 1 + 10, `socket writes: ${c.kinds.join(', ')}`);
  t.equal(c.buffers, 1 + 10 + 10 + 1, 'one buffer per event');
});

t.test('NDJSON: one line per item, non-ASCII counted in bytes', async (t) => {
  const server = await traced(t, __filename, { ONEWRITE: '1' });
  const { head, chunks, trailers } = dechunk(await raw(server.port, '/ndjson'));
  t.match(head, /\r\nContent-Type: application\/x-ndjson\r\n/);
  t.equal(chunks.length, 30, 'one chunk per row');
  t.same(Buffer.concat(chunks).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l)), ROWS);
  t.match(trailers, /\r?\n?X-Result: \{"items":30,"aborted":false\}/, 'stream() answered every item, not aborted');
  // stream() writes a row per step, all in one tick (an array): one socket
  // writev carries them, a buffer per row, the first with the head; the
  // end follows.
  const c = server.responses().find((r) => r.url === '/ndjson');
  t.equal(c.buffers, 31, `buffers at the socket: ${c.buffers} (${c.kinds.join(', ')})`);
  t.throws(() => onewrite.ndjson(new http.ServerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} })).write(undefined), TypeError);
});

t.test('backpressure: a stalled reader stops the producer, nothing is lost or reordered', async (t) => {
  const ITEMS = 400;
  const big = 'x'.repeat(64 * 1024); // 25 MB in all: more than the socket buffers hold
  let produced = 0;
  let finished;
  const done = new Promise((resolve) => (finished = resolve));
  const { server } = serve(async (req, res) => {
    const sse = onewrite.sse(res);
    async function* items() {
      for (let i = 0; i < ITEMS; i++) {
        produced++;
        yield { id: String(i), data: big };
      }
    }
    const result = await sse.stream(items());
    sse.close();
    finished(result);
  });
  const port = await listen(server);
  t.teardown(() => close(server));
  const parts = [];
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.on('data', (d) => parts.push(d));
  // The reader stalls: once the kernel's buffers are full the producer must
  // stop and stay stopped.
  await sleep(50);
  socket.pause();
  await sleep(400);
  const stalledAt = produced;
  await sleep(300);
  t.equal(produced, stalledAt, `the producer stopped while the reader stalled (at item ${stalledAt})`);
  t.ok(stalledAt < ITEMS, `${stalledAt} of ${ITEMS} items produced before the stall`);
  socket.resume();
  await closed;
  const result = await done;
  t.same(result, { items: ITEMS, aborted: false });
  const { events } = parseEventStream(dechunk(Buffer.concat(parts)).chunks.map((c) => c.toString()).join(''));
  t.equal(events.length, ITEMS, 'every event arrived');
  t.same(events.map((e) => e.id), Array.from({ length: ITEMS }, (_, i) => String(i)), 'in order');
  t.ok(events.every((e) => e.data === big), 'intact');
});

t.test('the client goes away: the iterator is stopped and its resources freed', async (t) => {
  let cleanedUp = false;
  let finished;
  const done = new Promise((resolve) => (finished = resolve));
  const { server } = serve(async (req, res) => {
    const sse = onewrite.sse(res, { heartbeat: 5 });
    async function* ticks() {
      try {
        for (let i = 0; ; i++) {
          yield `tick ${i}`;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      } finally {
        cleanedUp = true;
      }
    }
    finished(await sse.stream(ticks()));
  });
  const port = await listen(server);
  t.teardown(() => close(server));
  await new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    let n = 0;
    s.on('data', () => {
      if (++n === 5) s.destroy();
    });
    s.on('close', resolve);
  });
  const result = await done;
  t.equal(result.aborted, true, 'stream() reports the abort');
  t.ok(result.items >= 1, `items sent before: ${result.items}`);
  t.equal(cleanedUp, true, 'the generator\'s finally block ran');
});

t.test('a real client reads the stream', async (t) => {
  const { server } = serve((req, res) => {
    const sse = onewrite.sse(res, { retry: 1000 });
    let i = 0;
    const timer = setInterval(() => {
      sse.send({ event: 'count', id: String(i), data: `n=${i}\nline two` });
      if (++i === 5) {
        clearInterval(timer);
        sse.close();
      }
    }, 2);
  });
  const port = await listen(server);
  t.teardown(() => close(server));
  if (typeof globalThis.EventSource === 'function') {
    // Node's own EventSource (undici), where this Node has one.
    const got = await new Promise((resolve, reject) => {
      const es = new EventSource(`http://127.0.0.1:${port}/`);
      const seen = [];
      es.addEventListener('count', (e) => {
        seen.push([e.data, e.lastEventId]);
        if (seen.length === 5) {
          es.close();
          resolve(seen);
        }
      });
      es.onerror = (e) => reject(e);
    });
    t.same(got, [0, 1, 2, 3, 4].map((i) => [`n=${i}\nline two`, String(i)]), 'EventSource got every event');
  } else {
    // fetch (undici) reading the body, parsed by the standard's rules.
    const res = await fetch(`http://127.0.0.1:${port}/`);
    t.equal(res.headers.get('content-type'), 'text/event-stream');
    const { events, retry } = parseEventStream(await res.text());
    t.equal(retry, 1000);
    t.same(events.map((e) => [e.type, e.data, e.id]),
      [0, 1, 2, 3, 4].map((i) => ['count', `n=${i}\nline two`, String(i)]), 'fetch read every event');
  }
});
