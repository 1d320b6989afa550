'use strict';

// Micro-benchmark: rendering one response head (what _storeHeader does),
// Node's own JavaScript against onewrite, for 0, 4, 13 and 30 headers.
//
//   npm run bench:head [-- --rounds=7 --iterations=200000 --json=file]
//
// Both sides do the same work on the same kind of object: a fresh
// ServerResponse (no socket) whose head is rendered from a writeHead()
// object (validated, as Node does for those), ending with the same _header
// string (checked before timing).  The cost of making the response is
// measured alone and subtracted.  onewrite is measured three ways:
//   native   every head rendered by the addon (its cache turned off);
//   cached   the same headers every time: a kept head is reused;
//   patched  one value (a request id) differs every time: the kept head
//            gets the new value spliced in, the addon is not called.
// Rounds alternate stock, native, cached, patched, stock, ...; the table
// shows the median ns per head with min-max over the rounds, each variant's
// speed-up over stock (median of the per-round ratios), and the JS heap
// bytes allocated per head (measured with no GC in between: the benchmark
// runs itself again with a large young generation for that).
//
// Time on this project's shared two-core machine moves by a third from run
// to run (the same build has given native 0.59x, 0.71x and 0.93x at 4
// headers).  --instr counts instructions instead, repeatably, as instr.js
// does for a request: each variant and size runs alone under valgrind's
// callgrind, in `node --single-threaded` (no compiler or GC thread adds to
// the count), checks its bytes against stock's, renders --warm heads
// uncounted, then --counted heads counted, and again with twice as many:
// the difference is the heads' alone.  The cost of making the response
// (and, for patched, the headers) is counted the same way and subtracted.  The table gives instructions per
// head and each variant's speed-up over stock (stock's count divided by
// the variant's); a count that includes V8's optimising compiler says so.
// A count still moves by up to ~5 % from run to run (GC, the Date value
// changing inside the block): --repeat counts every variant several times,
// interleaved, and gives medians.
//
//   npm run bench:head -- --instr [--sizes=4,13,30] [--node=/path/to/node]
//   npm run bench:head -- --instr --sizes=4 --functions=30     (where they go)

const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
const { spawnSync, execFile } = require('node:child_process');

const { parseArgs } = require('./lib/args');
const bench = require('./lib/bench');
const callgrind = require('./lib/callgrind');

const args = parseArgs(process.argv.slice(2), {
  rounds: 7, iterations: 200000, sizes: '0,4,13,30', json: '',
  instr: false, warm: 100000, counted: 20000, repeat: 1, functions: 0, node: process.execPath, child: '',
}, {
  script: __filename,
  help: {
    rounds: 'interleaved rounds',
    iterations: 'heads rendered per round and variant',
    sizes: 'numbers of headers, comma-separated',
    json: 'also write the results to this file',
    instr: 'count instructions under callgrind instead of timing (needs valgrind)',
    warm: '--instr: heads rendered before counting',
    counted: '--instr: heads counted',
    repeat: '--instr: counts of every variant, interleaved (the median is shown)',
    functions: '--instr: with N > 0, the N functions with the most instructions of their own per head, for each variant, making the response (and its headers) subtracted (node --perf-basic-prof names the JIT code)',
    node: '--instr: the Node binary to measure',
    child: '(internal) the one count an --instr run makes: <variant>:<headers>',
  },
});

// The timed run needs a large young generation (the heap bytes per head are
// read with no GC in between): it runs itself again with one.  An --instr
// count runs under callgrind, started by countAll() below.
if (!args.instr && !args.child && !process.execArgv.includes('--max-semi-space-size=64')) {
  const r = spawnSync(process.execPath, ['--max-semi-space-size=64', '--expose-gc', __filename,
    ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status);
}

const internals = require('../lib/internals');
const head = require('../lib/head');
const response = require('../lib/response');
const { status } = require('../index');

const ROUNDS = args.rounds;
const ITER = args.iterations;
const SIZES = String(args.sizes).split(',').map(Number);

if (!args.instr && !status().available) {
  console.error(`onewrite is not available here: ${status().reason}`);
  process.exit(1);
}

// Header sets in the shape frameworks send: a content type, a length, then
// application headers.
function headerSet(n, id) {
  const h = {};
  const base = [
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', 1234],
    ['Cache-Control', 'no-store'],
    ['X-Request-Id', id],
  ];
  for (let i = 0; i < n; i++) {
    const [k, v] = base[i] || [`X-Custom-Header-${i}`, `value-${i}-abcdefghijklmnop`];
    h[k] = v;
  }
  return h;
}

const FIRST_LINE = 'HTTP/1.1 200 OK\r\n';
const fakeReq = { method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} };
function makeResponse() {
  const res = new http.ServerResponse(fakeReq);
  res.shouldKeepAlive = true;
  res._keepAliveTimeout = 5000;
  return res;
}

const stockStore = internals.originals.storeHeader;
// onewrite's _storeHeader, as the subclass has it (always on).
const fastStore = response.makeMethods({ on: true })._storeHeader;

function runner(store, size, varying, cacheSize) {
  const fixed = headerSet(size, '0f8a1c2e-5b7d-4e3a-9c1f-2d4b6a8e0c3f');
  let id = 0;
  return (n) => {
    head.setCacheSize(cacheSize);
    let sink = 0;
    for (let i = 0; i < n; i++) {
      const res = makeResponse();
      const headers = varying ? headerSet(size, `req-${(id++).toString(36)}-abcdef`) : fixed;
      store.call(res, FIRST_LINE, headers);
      sink += res._header.length;
    }
    head.setCacheSize(16);
    return sink;
  };
}

// The baseline: making the response (and, when values vary, the headers).
function baseline(size, varying) {
  let id = 0;
  const fixed = headerSet(size, 'x');
  return (n) => {
    let sink = 0;
    for (let i = 0; i < n; i++) {
      const h = varying ? headerSet(size, `req-${(id++).toString(36)}-abcdef`) : fixed;
      sink += makeResponse().statusCode + (h ? 1 : 0);
    }
    return sink;
  };
}

function nsPer(fn, n) {
  const t0 = process.hrtime.bigint();
  fn(n);
  return Number(process.hrtime.bigint() - t0) / n;
}

function bytesPer(fn) {
  const n = 2000;
  fn(n);
  global.gc();
  const before = process.memoryUsage().heapUsed;
  fn(n);
  return (process.memoryUsage().heapUsed - before) / n;
}

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const VARIANTS = [
  // name, store, values vary, cache slots
  ['stock', stockStore, false, 16],
  ['native', fastStore, false, 0],
  ['cached', fastStore, false, 16],
  ['patched', fastStore, true, 16],
];

// The same bytes from stock and the addon, or exit 1.
function checkSame(size) {
  const a = makeResponse();
  const b = makeResponse();
  stockStore.call(a, FIRST_LINE, headerSet(size, 'x'));
  head.setCacheSize(0);
  fastStore.call(b, FIRST_LINE, headerSet(size, 'x'));
  head.setCacheSize(16);
  if (a._header.replace(/Date: [^\r]*/, '') !== b._header.replace(/Date: [^\r]*/, '')) {
    console.error('heads differ:', JSON.stringify(a._header), JSON.stringify(b._header));
    process.exit(1);
  }
}

function timeAll() {
  const results = [];
  for (const size of SIZES) {
    checkSame(size);
    const row = { headers: size, variants: {} };
    const fns = VARIANTS.map(([name, store, varying, cache]) =>
      [name, runner(store, size, varying, cache), baseline(size, varying)]);
    for (const [, fn, base] of fns) {
      fn(ITER / 4);
      base(ITER / 4);
    }
    const ns = Object.fromEntries(VARIANTS.map(([name]) => [name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, fn, base] of fns) ns[name].push(nsPer(fn, ITER) - nsPer(base, ITER));
    }
    for (const [name, fn, base] of fns) {
      const ratios = ns.stock.map((s, i) => s / ns[name][i]);
      row.variants[name] = {
        ns: median(ns[name]), min: Math.min(...ns[name]), max: Math.max(...ns[name]),
        speedup: median(ratios), ratios,
        bytes: Math.max(0, Math.round(bytesPer(fn) - bytesPer(base))),
      };
    }
    results.push(row);
  }

  const f0 = (x) => x.toFixed(0);
  console.log(`head builder (_storeHeader, writeHead object), Node ${process.versions.node}, ` +
    `${ROUNDS} interleaved rounds of ${ITER}`);
  console.log('headers | variant | ns/head (min-max)   | vs stock (median of rounds) | JS heap bytes/head');
  for (const r of results) {
    for (const [name] of VARIANTS) {
      const v = r.variants[name];
      console.log(`${String(r.headers).padStart(7)} | ${name.padEnd(7)} | ${`${f0(v.ns)} (${f0(v.min)}-${f0(v.max)})`.padEnd(19)} | ` +
        `${(name === 'stock' ? '' : `${v.speedup.toFixed(2)}x`).padEnd(27)} | ${v.bytes}`);
    }
  }
  writeJson({ node: process.versions.node, rounds: ROUNDS, iterations: ITER, results });
}

function writeJson(data) {
  if (!args.json) return;
  const file = path.resolve(String(args.json));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
}

// ---- --instr ------------------------------------------------------------------

// The counts: the cost of making the response (fixed headers; new headers
// each time for patched), then each variant.
const COUNTED = [
  ['base', null, false, 16], ['base-varying', null, true, 16], ...VARIANTS,
];

// Under callgrind (--instr-atstart=no): render --warm heads, switch
// counting on, render --counted heads, dump the counts, exit.  The switches
// are callgrind_control, run by a child process that valgrind answers
// while this one waits in its event loop.
function countOne(what) {
  const [name, size] = what.split(':');
  const spec = COUNTED.find(([n]) => n === name);
  if (!spec || !Number.isInteger(Number(size))) throw new Error(`--child=${what}: not <variant>:<headers>`);
  const [, store, varying, cacheSize] = spec;
  checkSame(Number(size));
  const fn = store === null ? baseline(Number(size), varying) : runner(store, Number(size), varying, cacheSize);
  const control = (what, then) => execFile('callgrind_control', [...what, String(process.pid)], (err) => {
    if (err) throw err;
    then();
  });
  // In calls of 1,000 heads: one long call would leave the loop optimised
  // on-stack only, and V8 would compile the function for its next entry
  // while it is counted.
  const heads = (n) => {
    for (let i = 0; i < n; i += 1000) fn(Math.min(1000, n - i));
  };
  heads(args.warm);
  control(['-i', 'on'], () => {
    heads(args.counted);
    control(['-d'], () => process.exit(0));
  });
}

// The instructions (all of the process's, in the counted block) and those
// of V8's optimising compiler, for `counted` heads; with --functions, each
// function's own.
function count(name, size, counted) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-head-'));
  let pid = 0;
  try {
    const r = spawnSync('valgrind', ['--tool=callgrind', '--instr-atstart=no',
      `--callgrind-out-file=${dir}/cg.%p`, args.node, '--single-threaded', '--max-semi-space-size=64',
      ...(args.functions > 0 ? ['--perf-basic-prof'] : []),
      __filename, `--child=${name}:${size}`, `--warm=${args.warm}`, `--counted=${counted}`],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
    pid = r.pid;
    const dumps = callgrind.dumps(dir);
    if (r.status !== 0 || dumps.length !== 1) {
      throw new Error(`the count of ${name} at ${size} headers failed (${r.status}): ${r.stderr.slice(-2000)}`);
    }
    return { ...callgrind.readDump(dumps[0]), functions: args.functions > 0 ? callgrind.functions(dumps[0], pid, 1) : null };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    if (pid) fs.rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}

// Instructions per head: the counted block holds, besides the heads, the
// work of switching counting on (the end of a child process, whose code
// V8 compiles then), the same whatever the variant; counting --counted
// heads and twice as many, the difference is the heads' alone.
function perHead(name, size) {
  const n = args.counted;
  const one = count(name, size, n);
  const two = count(name, size, 2 * n);
  const instructions = two.instructions - one.instructions;
  return {
    perHead: instructions / n,
    compiler: Math.max(0, two.compiler - one.compiler) / instructions,
    functions: one.functions && callgrind.minus(two.functions, one.functions, n),
  };
}

// --functions: the largest functions of `name` less those of the base
// count, for the first round.
function functionLines(raw, name, varying, size) {
  const base = raw[varying ? 'base-varying' : 'base'].functions;
  const diff = [...callgrind.minus(raw[name].functions, base)].sort((x, y) => y[1] - x[1]).slice(0, args.functions);
  const lines = [`\n${size} headers, ${name}: the ${args.functions} functions with the most instructions of their own per head (making the response subtracted)`];
  for (const [f, v] of diff) lines.push(`${Math.round(v).toLocaleString('en-US').padStart(8)}  ${callgrind.shortName(f)}`);
  return lines;
}

async function countAll() {
  if (!callgrind.available()) {
    console.error('valgrind (callgrind, callgrind_annotate) is not installed: apt-get install valgrind');
    process.exit(1);
  }
  const version = bench.nodeVersion(args.node);
  const check = spawnSync(args.node, ['-p', `require(${JSON.stringify(path.join(__dirname, '..'))}).status().reason`],
    { encoding: 'utf8' });
  if (check.stdout.trim() !== 'not installed') {
    console.error(`onewrite is not available on Node ${version}: ${check.stdout.trim() || check.stderr}`);
    process.exit(1);
  }
  console.log(`head builder (_storeHeader, writeHead object), Node ${version}: instructions per head under callgrind ` +
    `(node --single-threaded; ${args.warm} heads warm-up, then ${args.counted} and ${2 * args.counted} counted: the difference; ` +
    `making the response subtracted${args.repeat > 1 ? `; median of ${args.repeat} interleaved rounds, ratio the median of theirs` : ''})`);
  console.log('headers | variant | instr/head | vs stock | V8 compiler');
  const results = [];
  const noisy = [];
  for (const size of SIZES) {
    // Interleaved rounds of every count; each round's figures net of its
    // own base counts.
    const rounds = [];
    for (let r = 0; r < args.repeat; r++) {
      const raw = {};
      for (const [name] of COUNTED) {
        bench.progress(`${size} headers: ${name} (${r + 1}/${args.repeat}) under callgrind ...`);
        raw[name] = perHead(name, size);
      }
      rounds.push(raw);
    }
    bench.progressDone();
    const net = (raw, name, varying) => raw[name].perHead - raw[varying ? 'base-varying' : 'base'].perHead;
    const row = {
      headers: size, base: median(rounds.map((raw) => raw.base.perHead)),
      baseVarying: median(rounds.map((raw) => raw['base-varying'].perHead)), variants: {},
    };
    for (const [name, , varying] of VARIANTS) {
      const counts = rounds.map((raw) => net(raw, name, varying));
      const ratios = rounds.map((raw) => net(raw, 'stock', false) / net(raw, name, varying));
      const compiler = Math.max(...rounds.map((raw) => raw[name].compiler));
      const v = median(counts);
      row.variants[name] = { instructions: v, speedup: median(ratios), counts, ratios, compiler };
      if (compiler > 0.01) noisy.push(`${name} at ${size} headers (${(compiler * 100).toFixed(1)}%)`);
      const runs = counts.length > 1 ? `  (runs ${counts.map((c) => Math.round(c).toLocaleString('en-US')).join(', ')})` : '';
      console.log(`${String(size).padStart(7)} | ${name.padEnd(7)} | ${Math.round(v).toLocaleString('en-US').padStart(10)} | ` +
        `${(name === 'stock' ? '' : `${median(ratios).toFixed(2)}x`).padStart(8)} | ${(compiler * 100).toFixed(1)}%${runs}`);
    }
    results.push(row);
    if (args.functions > 0) {
      console.log(VARIANTS.flatMap(([name, , varying]) => functionLines(rounds[0], name, varying, size)).join('\n'));
      row.functions = Object.fromEntries(VARIANTS.map(([name, , varying]) => {
        const base = rounds[0][varying ? 'base-varying' : 'base'].functions;
        return [name, Object.fromEntries([...callgrind.minus(rounds[0][name].functions, base)].filter(([, v]) => Math.abs(v) >= 1))];
      }));
    }
  }
  if (noisy.length > 0) {
    console.log(`warning: V8's optimising compiler ran more than 1% of the counted instructions in ${noisy.join(', ')}: ` +
      'warm up longer (--warm).');
  }
  writeJson({ node: version, commit: bench.commit(), instr: true, warm: args.warm, counted: args.counted,
    repeat: args.repeat, results });
}

if (args.child) {
  countOne(args.child);
} else if (args.instr) {
  countAll().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  timeAll();
}
