'use strict';

// Streaming responses for benchmark/stream.js:
//   /sse     89 events, one per tick (tokens arriving one by one)
//   /ndjson  1,000 rows from an async source, 50 rows per tick
//
//   node benchmark/stream-server.js --mode=stock      idiomatic writes, stock Node
//   node -r onewrite/register benchmark/stream-server.js --mode=onewrite
//                                                     onewrite.sse() / .ndjson()
//
// Idiomatic SSE writes an event as `data: `, the payload, and the blank
// line: three write()s.

const http = require('node:http');

const { parseArgs } = require('./lib/args');

const { mode } = parseArgs(process.argv.slice(2), { mode: 'stock' }, {
  script: __filename,
  choices: { mode: ['stock', 'onewrite'] },
  help: { mode: 'stock: idiomatic write()s; onewrite: sse() / ndjson() (with -r onewrite/register)' },
});
const onewrite = mode === 'onewrite' ? require('..') : null;

const TOKENS = Array.from({ length: 89 }, (_, i) => JSON.stringify({ i, token: `tok${i}`, done: i === 88 }));
const tick = () => new Promise((resolve) => setImmediate(resolve));

async function* rows() {
  for (let i = 0; i < 1000; i++) {
    if (i % 50 === 0) await tick();
    yield { id: i, name: `row ${i}`, price: (i * 1.25).toFixed(2), tags: ['a', 'b'] };
  }
}

async function sse(req, res) {
  if (onewrite) {
    const events = onewrite.sse(res);
    for (const t of TOKENS) {
      await tick();
      events.send(t);
    }
    events.close();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.flushHeaders();
  for (const t of TOKENS) {
    await tick();
    res.write('data: ');
    res.write(t);
    res.write('\n\n');
  }
  res.end();
}

async function ndjson(req, res) {
  if (onewrite) {
    const out = onewrite.ndjson(res);
    await out.stream(rows());
    out.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
  for await (const row of rows()) {
    if (!res.write(JSON.stringify(row) + '\n')) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

const server = http.createServer((req, res) => {
  if (req.url === '/sse') sse(req, res);
  else ndjson(req, res);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
