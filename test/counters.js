'use strict';

// status().counters count what happened, the same way on every Node and in
// every mode: each write() once, as sent by onewrite or by Node (writes
// Node 24+ merges into one chunk count as onewrite's when onewrite sends
// that chunk); each end(data) once; and status().fallbacks names why.
// NODE_DEBUG=onewrite prints the first hand-over of each reason.

const t = require('tap');
const path = require('node:path');
const onewrite = require('..');
const { normalise, measuredExchange } = require('./helpers/wire');
const { spawnNode } = require('./helpers/child');

const CLOSE = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
const delta = (before, after) => Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));

// The counters moved by one request to the onewrite side of a pair, and
// whether its bytes were stock Node's.
async function counted(t, handler) {
  const { a, b, before, after } = await measuredExchange(t, handler, {
    raw: CLOSE, snapshot: () => onewrite.status().counters,
  });
  t.equal(normalise(b.bytes), normalise(a.bytes), "Node's bytes");
  return delta(before, after);
}

t.test('two writes of one tick: each counted once, as onewrite\'s', async (t) => {
  const moved = await counted(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('a');
    res.write('b');
    setImmediate(() => res.end());
  });
  t.same([moved.writes, moved.writesToNode], [2, 0], JSON.stringify(moved));
});

t.test('sixteen writes with timer gaps: sixteen, as onewrite\'s, on every Node', async (t) => {
  const moved = await counted(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    let n = 0;
    const tick = () => {
      res.write(`chunk ${n}\n`);
      if (++n < 16) setTimeout(tick, 1);
      else setTimeout(() => res.end(), 1);
    };
    tick();
  });
  t.same([moved.writes, moved.writesToNode], [16, 0], JSON.stringify(moved));
});

t.test('writes Node sends itself are counted as Node\'s, once each', async (t) => {
  const moved = await counted(t, (req, res) => {
    res.write('aGk=', 'base64');
    res.write('aGk=', 'base64');
    res.end();
  });
  t.same([moved.writes, moved.writesToNode], [0, 2], JSON.stringify(moved));
});

t.test('end(data): once, by whichever sent it', async (t) => {
  const fast = await counted(t, (req, res) => res.end('x'));
  t.same([fast.ends, fast.endsToNode], [1, 0]);
  const node = await counted(t, (req, res) => res.end('eA==', 'base64'));
  t.same([node.ends, node.endsToNode], [0, 1]);
});

t.test('NODE_DEBUG=onewrite prints the first hand-over of each reason, with the method and a stack', async (t) => {
  const code = `
    const http = require('node:http');
    require(${JSON.stringify(path.join(__dirname, '..'))}).install();
    const server = http.createServer((req, res) => {
      res.end('aGk=', 'base64');     // 'encoding base64', twice: printed once
    });
    server.listen(0, '127.0.0.1', async () => {
      const get = () => new Promise((r) => http.get('http://127.0.0.1:' + server.address().port, (res) => { res.resume(); res.on('end', r); }));
      await get();
      await get();
      server.close();
    });`;
  // (A clean environment: tap's NODE_OPTIONS hooks would print to stderr too.)
  const run = (env) => spawnNode(['-e', code], { env });
  const debug = await run({ NODE_DEBUG: 'onewrite' });
  t.equal(debug.code, 0, debug.stderr);
  const lines = debug.stderr.split('\n').filter((l) => /ONEWRITE \d+: /.test(l));
  t.equal(lines.length, 2, `that it is active, then one line for the reason, not one per hand-over:\n${debug.stderr}`);
  t.match(lines[0], new RegExp(`^ONEWRITE \\d+: active \\(installed\\) on Node ${process.versions.node}, binary /.*onewrite\\.node$`),
    'once, that it is active, with the binary');
  t.match(lines[1], /^ONEWRITE \d+: end: handed to Node \(encoding base64\), first time$/);
  t.match(debug.stderr, /\n {4}at .*\[eval\]/, 'a stack that reaches the caller');
  t.equal((await run({ NODE_DEBUG: '' })).stderr, '', 'nothing without NODE_DEBUG');
});
