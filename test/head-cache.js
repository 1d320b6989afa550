'use strict';

// The cache of rendered heads, and the patching of changed header values
// into a kept head: long runs of similar responses (same names, values that
// come and go, Content-Length that varies, values that may not be patched)
// give stock Node's bytes, and the cache's three ways (exact hit, patch,
// fresh render) all run.

const t = require('tap');
const head = require('../lib/head');
const { makeRandom } = require('./helpers/scenarios');
const { exchange, normalise, serverPair } = require('./helpers/wire');

const SEED = Number(process.env.ONEWRITE_SEED || Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.ONEWRITE_CACHE_REQUESTS || 3000);

const VALUES = ['a', 'b', 'a-longer-value', 'x y z', 'tab\there', '"quoted"', '', 'caf\u00e9',
  'bad\r\nvalue', '\u20ac'];
const CONNECTION = ['keep-alive', 'close', 'Upgrade'];

function plan(rnd) {
  const pick = (xs) => rnd.pick(xs);
  return {
    via: pick(['setHeader', 'writeHead', 'writeHead-array', 'mixed']),
    id: rnd.chance(0.9) ? `req-${rnd.int(20)}` : pick(VALUES),
    type: rnd.chance(0.9) ? 'text/plain' : pick(VALUES),
    length: rnd.chance(0.5) ? String(rnd.int(3)) : null,
    connection: rnd.chance(0.1) ? pick(CONNECTION) : null,
    status: rnd.chance(0.9) ? 200 : pick([201, 404]),
    reason: rnd.chance(0.9) ? undefined : pick(['Fine', 'Also Fine']),
    body: pick(['', 'x', 'hello']),
  };
}

function handler(plans) {
  return (req, res) => {
    const p = plans[Number(req.url.slice(1))];
    const pairs = [['X-Request-Id', p.id], ['Content-Type', p.type]];
    if (p.length !== null) pairs.push(['Content-Length', p.length]);
    if (p.connection !== null) pairs.push(['Connection', p.connection]);
    try {
      if (p.via === 'setHeader') {
        for (const [k, v] of pairs) res.setHeader(k, v);
        res.statusCode = p.status;
        if (p.reason) res.statusMessage = p.reason;
        res.end(p.body);
        return;
      }
      if (p.via === 'mixed') {
        res.setHeader(...pairs[0]);
        res.writeHead(p.status, p.reason, Object.fromEntries(pairs.slice(1)));
      } else if (p.via === 'writeHead-array') {
        res.writeHead(p.status, p.reason, pairs.flat());
      } else {
        res.writeHead(p.status, p.reason, Object.fromEntries(pairs));
      }
      res.end(p.body);
    } catch (err) {
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end(`${err.code}`);
      } else {
        res.destroy();
      }
    }
  };
}

t.test(`kept and patched heads are Node's bytes (seed ${SEED})`, async (t) => {
  const rnd = makeRandom(SEED);
  const plans = Array.from({ length: REQUESTS }, () => plan(rnd));
  const { stockPort: p1, fastPort: p2 } = await serverPair(t, () => handler(plans));
  const before = { ...head.cacheStats };
  // Batches of keep-alive requests on one connection, sequentially.
  let differing = 0;
  for (let start = 0; start < REQUESTS; start += 50) {
    let raw = '';
    const end = Math.min(start + 50, REQUESTS);
    for (let i = start; i < end; i++) {
      raw += `GET /${i} HTTP/1.1\r\nHost: x\r\n${i === end - 1 ? 'Connection: close\r\n' : ''}\r\n`;
    }
    const [a, b] = await Promise.all([exchange(p1, raw), exchange(p2, raw)]);
    if (normalise(a.bytes) !== normalise(b.bytes) && differing++ < 3) {
      t.fail(`requests ${start}-${end - 1} differ (seed ${SEED})`, {
        stock: JSON.stringify(normalise(a.bytes)).slice(0, 3000),
        onewrite: JSON.stringify(normalise(b.bytes)).slice(0, 3000),
      });
    }
  }
  t.equal(differing, 0, 'every batch identical');
  const after = head.cacheStats;
  t.ok(after.hits > before.hits, `exact hits: ${after.hits - before.hits}`);
  t.ok(after.patches > before.patches, `patched heads: ${after.patches - before.patches}`);
  t.ok(after.renders > before.renders, `rendered by the addon: ${after.renders - before.renders}`);
});

// A new value goes into a kept head only where the addon would render it
// and Node would send it as given: ASCII after setHeader() (which checked
// it), and with writeHead()'s own object also nothing Node's
// headerCharRegex rejects.  Every other value is rendered again, or left
// to Node (which throws for DEL in writeHead()).  The bytes are stock's
// either way; the counts say which way each response went.
t.test('a changed value is patched only where it is plain', async (t) => {
  const cases = [
    // [via, value, patched (within one second)?]
    ['setHeader', 'req-1', false], ['setHeader', 'req-2', true], ['setHeader', 'tab\there', true],
    ['setHeader', 'caf\u00e9', false], ['setHeader', 'req-3', true], ['setHeader', '~ ~', true],
    ['writeHead', 'req-1', false], ['writeHead', 'req-2', true], ['writeHead', 'tab\there', true],
    ['writeHead', 'caf\u00e9', false], ['writeHead', 'req-3', true], ['writeHead', 'del\x7f', false],
    ['writeHead', 'req-4', true], ['writeHead', '~ ~', true],
  ];
  const patched = [];
  const { stockPort, fastPort } = await serverPair(t, (side) => (req, res) => {
    if (req.url === '/last') return res.end();
    const [via, value] = cases[Number(req.url.slice(1))];
    const before = head.cacheStats.patches;
    try {
      if (via === 'setHeader') {
        res.setHeader('Content-Type', 'text/plain');
        res.setHeader('X-Request-Id', value);
        res.setHeader('Content-Length', 2);
        res.end('ok');
      } else {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Request-Id': value, 'Content-Length': 2 });
        res.end('ok');
      }
    } catch (err) {
      res.statusCode = 500;
      res.end(`${err.code}`);
    }
    if (side === 'fast') patched.push(head.cacheStats.patches > before);
  });
  // (Connection: close on a request of its own: it changes the head.)
  let raw = '';
  for (let i = 0; i < cases.length; i++) raw += `GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`;
  raw += 'GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  const a = await exchange(stockPort, raw);
  const b = await exchange(fastPort, raw);
  t.equal(normalise(b.bytes), normalise(a.bytes), "stock's bytes");
  t.match(normalise(a.bytes), /ERR_INVALID_CHAR/, 'Node refuses DEL in writeHead()');
  // A kept head holds its Date: in the response where the second turns,
  // the head is rendered again whatever its values.
  const dates = [...String(b.bytes).matchAll(/\r\nDate: ([^\r]*)\r\n/g)].map((m) => m[1]);
  t.equal(dates.length, cases.length + 1, 'one Date a response');
  const expected = cases.map((c, i) => c[2] && dates[i] === dates[i - 1]);
  t.same(patched, expected, 'patched where the value is plain, rendered again elsewhere');
});
