'use strict';

// Stock Node against onewrite on the client side (issue 41): the same seeded
// http.request() scenarios (helpers/client-scenarios.js) played by plain
// `node` and by `node -r onewrite/register`, each against recording
// loopback servers of its own; for every scenario the bytes the server
// received on each connection and the client's log (every event of the
// request and its response, in order; write/end callbacks with their
// errors; errors thrown; return values; req._header, getHeaders() and the
// fields of Node's that say how the head and body go, at creation, after
// the calls and at the end; every call of user code in the hostile family)
// must be equal.  Only the server's port is normalised.
//
// Why two processes rather than install()/uninstall() around each half in
// one: onewrite's methods go on OutgoingMessage.prototype, which
// ClientRequest shares with ServerResponse, and they keep state across
// calls (the head cache, counters, the re-entry guard); uninstall() puts
// Node's methods back but leaves a wrapper put on after install() in place,
// and the global agent keeps sockets (and their listeners) across
// scenarios.  A process per side shares nothing: the stock half never has
// onewrite loaded at all, the onewrite half has it exactly as an app with
// `-r onewrite/register` has it, and the two run in parallel.
//
//   ONEWRITE_SEED=<n>                   replay a run (the seed is printed)
//   ONEWRITE_CLIENT_CASES=<n>           scenarios (default 3000)
//   ONEWRITE_CLIENT_HOSTILE_CASES=<n>   hostile scenarios (default 500)
//   ONEWRITE_CLIENT_ONLY=<i>            play only scenario i (with the seed)
//   ONEWRITE_CLIENT_ONLY_HOSTILE=<i>    play only hostile scenario i
//   ONEWRITE_CLIENT_FAST_PRELOAD=<file> what the onewrite half preloads
//                                       (default: this package's register.js;
//                                       'none': both halves stock, which
//                                       checks that the test itself is
//                                       deterministic)

const t = require('tap');
const path = require('node:path');
const os = require('node:os');
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const { clientScenario, hostileScenario } = require('./helpers/client-scenarios');

const SEED = Number(process.env.ONEWRITE_SEED || Math.floor(Math.random() * 2 ** 31));
const CASES = Number(process.env.ONEWRITE_CLIENT_CASES || 3000);
const HOSTILE_CASES = Number(process.env.ONEWRITE_CLIENT_HOSTILE_CASES || 500);
const ROOT = path.join(__dirname, '..');
const DEFAULT_PRELOAD = path.join(ROOT, 'register.js');
const PRELOAD = process.env.ONEWRITE_CLIENT_FAST_PRELOAD || DEFAULT_PRELOAD;
const CHILD = path.join(__dirname, 'helpers', 'client-child.js');

function run(side, preload, dir, extra = {}) {
  const out = path.join(dir, `${side}.json`);
  const args = preload === 'none' ? [CHILD, out] : ['-r', preload, CHILD, out];
  const env = {
    ...process.env,
    ...extra,
    ONEWRITE_SEED: String(SEED),
    ONEWRITE_CLIENT_CASES: String(CASES),
    ONEWRITE_CLIENT_HOSTILE_CASES: String(HOSTILE_CASES),
    ONEWRITE_CLIENT_SIDE: side,
    ONEWRITE_CLIENT_STATUS_FROM: side === 'fast' && preload === DEFAULT_PRELOAD ? ROOT : '',
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.on('data', () => {});
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code, signal) => {
      let result = null;
      try {
        result = JSON.parse(fs.readFileSync(out, 'utf8'));
      } catch {}
      resolve({ code, signal, stderr, result });
    });
  });
}

// A transcript where a wait ran out: for a socket, a connection, a
// response ('stuck': the server never answered within STUCK ms).
const RAN_OUT = /wait-timeout|"stuck"/;

// Where two transcripts first part, for the report.
function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 160);
  return { at: i, stock: a.slice(from, i + 240), onewrite: b.slice(from, i + 240) };
}

t.test(`http.request(): stock and onewrite send the same bytes, events and errors (seed ${SEED})`, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-client-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const started = Date.now();
  const [stock, fast] = await Promise.all([run('stock', 'none', dir), run('fast', PRELOAD, dir)]);
  t.comment(`seed ${SEED}: ${CASES} scenarios and ${HOSTILE_CASES} hostile ones in ${Date.now() - started} ms ` +
    `(stock half ${stock.result && stock.result.ms} ms, onewrite half ${fast.result && fast.result.ms} ms)`);
  for (const [name, side] of [['stock', stock], ['onewrite', fast]]) {
    if (side.result === null) {
      t.fail(`the ${name} half did not finish (exit ${side.code}, signal ${side.signal})`, { stderr: side.stderr.slice(-4000) });
    }
  }
  if (stock.result === null || fast.result === null) return;

  if (PRELOAD === DEFAULT_PRELOAD) {
    const st = fast.result.status;
    t.ok(st && st.active, `onewrite is active in the onewrite half (${st && (st.reason || st.mode)})`);
    if (st && st.counters) {
      t.comment(`onewrite half: counters ${JSON.stringify(st.counters)}; fallbacks ${JSON.stringify(st.fallbacks)}`);
      // The comparison means something only if onewrite rendered heads:
      // most requests must have had theirs rendered by it.
      const heads = st.counters.requestHeads ?? st.counters.heads;
      const replay = process.env.ONEWRITE_CLIENT_ONLY || process.env.ONEWRITE_CLIENT_ONLY_HOSTILE;
      if (!replay) t.ok(heads > CASES / 4, `request heads rendered by onewrite: ${heads}`);
    }
  } else {
    t.comment(`onewrite half preloads ${PRELOAD}`);
  }

  const families = [
    ['results', 'case', 'ONEWRITE_CLIENT_ONLY', clientScenario],
    ['hostile', 'hostile case', 'ONEWRITE_CLIENT_ONLY_HOSTILE', hostileScenario],
  ];
  for (const [key, label, only, make] of families) {
    const a = new Map(stock.result[key]);
    const b = new Map(fast.result[key]);
    let differing = 0;
    let replayed = 0;
    const indices = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x - y);
    for (const index of indices) {
      let x = a.get(index);
      let y = b.get(index);
      if (x === y) continue;
      // A wait that ran out on one side only (STUCK ms: a machine busy with
      // other work; at 41,000 cases on Node 26 beside two callgrind runs,
      // stock's answer to case 17342 of seed 251956832 came too late) is
      // timing, not onewrite: such a case is played again, alone, on both
      // sides, and that is what is compared.
      if (replayed < 20 && RAN_OUT.test(`${x}${y}`)) {
        replayed++;
        const [s2, f2] = await Promise.all([run('stock', 'none', dir, { [only]: String(index) }),
          run('fast', PRELOAD, dir, { [only]: String(index) })]);
        x = s2.result && new Map(s2.result[key]).get(index);
        y = f2.result && new Map(f2.result[key]).get(index);
        t.comment(`${label} ${index}: a wait ran out on one side; played again alone: ${x === y ? 'the same' : 'differs'}`);
        if (x === y && x !== undefined) continue;
      }
      if (differing++ < 5) {
        t.fail(`${label} ${index} differs (replay: ONEWRITE_SEED=${SEED} ${only}=${index})`, {
          scenario: JSON.stringify(make(SEED, index)),
          first: x !== undefined && y !== undefined ? firstDifference(x, y) : 'missing on one side',
          stock: x,
          onewrite: y,
        });
      }
    }
    t.equal(differing, 0, `${indices.length} ${label}s, ${differing} differing`);
  }
  t.same(fast.result.uncaught, stock.result.uncaught, 'the same uncaught exceptions');
  // How many scenarios ran into the server never finishing them: a few (the
  // same on both sides) are what some shapes do; many would mean the
  // scenarios test little.
  const stuck = stock.result.results.filter(([, s]) => RAN_OUT.test(s)).length;
  t.ok(stuck <= CASES / 20 + 2, `scenarios that waited for an end that never came: ${stuck}`);
});
