'use strict';

// Stock Node against onewrite, on real loopback sockets: the same raw
// requests go to a stock server and to a server answering with onewrite's
// ServerResponse, both running the same random handler scenario; the raw
// response bytes must be equal (the Date value is the only thing
// normalised), and so must the errors thrown and the events seen.
//
//   ONEWRITE_SEED=<n>    replay a run (the seed is printed)
//   ONEWRITE_CASES=<n>   number of scenarios (default 2500)
//   ONEWRITE_HOSTILE_CASES=<n>  number of hostile scenarios (default 400; below)

const t = require('tap');
const onewrite = require('..');
const { exchange, normalise, loggedPair, request } = require('./helpers/wire');
const { scenario, runSteps } = require('./helpers/scenarios');

const SEED = Number(process.env.ONEWRITE_SEED || Math.floor(Math.random() * 2 ** 31));
const CASES = Number(process.env.ONEWRITE_CASES || 2500);
const CONCURRENCY = 8;

if (!onewrite.status().available) {
  t.fail(`onewrite is not available: ${onewrite.status().reason}`);
  process.exit(1);
}

// Server settings the scenarios are spread over.
const CONFIGS = [
  { options: {}, set: {} },
  { options: {}, set: { keepAliveTimeout: 0 } },
  { options: { uniqueHeaders: ['x-unique', 'set-cookie', 'vary'] }, set: { maxRequestsPerSocket: 2 } },
  { options: { rejectNonStandardBodyWrites: true }, set: { keepAliveTimeout: 1500 } },
];

function handlerFor(logs) {
  return (req, res) => {
    const m = /^\/case\/(\d+)$/.exec(req.url);
    if (!m) {
      res.end('bye');
      return;
    }
    const index = Number(m[1]);
    const s = scenarios.get(index);
    // One log per response to this scenario's request (two when pipelined).
    const log = [];
    if (logs.has(index)) logs.get(index).push(log);
    else logs.set(index, [log]);
    req.resume();
    // Each server plays its own copy: Node mutates some header values in place.
    runSteps(res, structuredClone(s.steps), log);
  };
}

const scenarios = new Map();

function rawRequest(s) {
  const { method, version, headers = {}, body = '', pipelined } = s.request;
  const one = request(method, `/case/${s.index}`, { version, headers, body });
  const last = request('GET', '/close', { headers: { Connection: 'close' } });
  if (pipelined) return one + one + last;
  if (version === '1.0' && !headers.Connection) return one;
  if (headers.Connection === 'close') return one;
  return one + last;
}

t.test(`stock and onewrite send the same bytes, errors and events (seed ${SEED})`, async (t) => {
  const pairs = [];
  for (const config of CONFIGS) {
    const pair = await loggedPair(t, handlerFor, config.options);
    Object.assign(pair.stock, config.set);
    Object.assign(pair.fast, config.set);
    pairs.push(pair);
  }

  const before = onewrite.status().counters;
  let failures = 0;
  let next = 0;

  async function one(index) {
    const s = scenario(SEED, index);
    scenarios.set(index, s);
    const pair = pairs[s.config];
    const raw = rawRequest(s);
    const [a, b] = await Promise.all([exchange(pair.stockPort, raw), exchange(pair.fastPort, raw)]);
    // Let 'close' events of both responses fire before reading the logs.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const bytesA = normalise(a.bytes);
    const bytesB = normalise(b.bytes);
    const logsA = JSON.stringify(pair.logs.stock.get(index) || []);
    const logsB = JSON.stringify(pair.logs.fast.get(index) || []);
    const same = bytesA === bytesB && logsA === logsB && a.timedOut === b.timedOut;
    if (!same && failures++ < 5) {
      t.fail(`case ${index} differs (replay: ONEWRITE_SEED=${SEED}, case ${index})`, {
        scenario: JSON.stringify(s),
        stock: JSON.stringify(bytesA),
        onewrite: JSON.stringify(bytesB),
        stockLog: logsA,
        onewriteLog: logsB,
        timedOut: [a.timedOut, b.timedOut],
      });
    }
  }

  async function worker() {
    while (next < CASES) await one(next++);
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  t.equal(failures, 0, `${CASES} scenarios, ${failures} differing`);
  const after = onewrite.status().counters;
  // The comparison means something only if onewrite's paths ran: most
  // scenarios must have been answered by them.
  const heads = after.heads - before.heads;
  const ends = after.ends - before.ends;
  t.ok(heads > CASES / 4, `heads rendered natively: ${heads}`);
  t.ok(ends > CASES / 5, `end() in one write: ${ends}`);
  const writes = after.writes - before.writes;
  t.ok(writes > CASES / 20, `chunked writes in one socket write: ${writes}`);
});

// ---- the hostile family ------------------------------------------------------
//
// Scenarios whose values run user code in the middle of the fast paths
// (helpers/hostile.js): getters, Proxy traps, conversions, server settings
// with valueOf, wrappers; some end another response held on the same
// server, change their own response or destroy its socket.  Every call of
// that code is in the side's log.  They run one at a time
// (helpers/hostile-pairs.js), on both servers at once.
//
//   ONEWRITE_HOSTILE_CASES=<n>   number of hostile scenarios (default 400)

const { hostileScenario } = require('./helpers/hostile');
const { hostilePairs } = require('./helpers/hostile-pairs');

const HOSTILE_CASES = Number(process.env.ONEWRITE_HOSTILE_CASES || 400);

t.test(`hostile values: the same bytes, errors, events and user-code calls (seed ${SEED})`, async (t) => {
  const play = await hostilePairs(t, CONFIGS);
  const before = onewrite.status().counters;
  let differing = 0;
  for (let index = 0; index < HOSTILE_CASES; index++) {
    const s = hostileScenario(SEED, index, CONFIGS.length);
    const seen = await play(s);
    const a = JSON.stringify(seen.stock);
    const b = JSON.stringify(seen.fast);
    if (a !== b || seen.uncaught.length > 0) {
      if (differing++ < 5) {
        t.fail(`hostile case ${index} differs (replay: ONEWRITE_SEED=${SEED}, hostile case ${index})`, {
          scenario: JSON.stringify(s),
          stock: a,
          onewrite: b,
          uncaught: seen.uncaught,
        });
      }
    }
  }
  t.equal(differing, 0, `${HOSTILE_CASES} hostile scenarios, ${differing} differing`);
  // Hostile values must meet the fast paths, not only Node's code: a good
  // share of the heads are onewrite's.
  const heads = onewrite.status().counters.heads - before.heads;
  t.ok(heads > HOSTILE_CASES / 5, `heads rendered natively in hostile scenarios: ${heads}`);
});
