'use strict';

// Client instructions per request (issue 41: a request's head built
// natively and sent in one write), counted as instr.js counts a server's.
// Each workload (--bench) has one measured process:
//   get    a client doing http.request() GETs in a loop (lib/client-loop.js:
//          a keep-alive http.Agent, --c requests in flight, each response
//          read to its end) against a raw `net` upstream (lib/upstream.js)
//   post   the same, req.end(body) of a 1 KiB JSON string with its
//          Content-Type (Content-Length is Node's, from end(body))
//   proxy  a reverse proxy (lib/proxy.js, shaped like http-proxy's web
//          path) in front of the same upstream, driven by autocannon
//          (--c connections) as instr.js drives a server
// The upstream and autocannon run pinned to the other core; the measured
// process runs under `valgrind --tool=callgrind` with counting off: --warm
// requests in --warmRuns runs (each run opens its connections anew, as
// instr.js's do), then counting on (callgrind_control -i on), exactly --n
// requests, a dump, and its user-space instructions (all threads) divided
// by the requests answered; beside it the share of V8's optimising
// compilers, and the count without them.
//
// Variants, interleaved in each of --repeat rounds, each a ratio to stock
// (the median of the rounds' ratios, every round's shown):
//   stock              no preload
//   onewrite           -r onewrite/register (ONEWRITE_STRICT=1)
//   baseline           --baseline=<dir>: onewrite from another checkout
//   onewrite-noclient  --noclient: onewrite with ONEWRITE_CLIENT=0 (Node's
//                      own client path, where lib/ reads that variable)
//   floor              a probe, NOT identical (client-floor.js): the head a
//                      constant string, head and body one socket.write();
//                      for proxy, the response side too (floor.js: one
//                      string of its own head and the body)
//
// The measured process runs with its young generation pinned (--gc, as
// instr.js) and --no-allocation-site-pretenuring, so that V8 deciding to
// pretenure a site in one process and not the next does not move the
// count; --pretenuring=default runs V8's own pretenuring, to show beside.
//
//   npm run bench:client
//   node benchmark/client-instr.js --bench=get,post,proxy --repeat=1 --n=10000
//   node benchmark/client-instr.js --bench=get --node=/path/to/node --functions=30 --inclusive
//   node benchmark/client-instr.js --baseline=/tmp/before --floor=false
//
// Needs valgrind.  Raw results: <out>/client-instr-node<version>-<time>.json.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const b = require('./lib/bench');
const cg = require('./lib/callgrind');
const gc = require('./lib/gc');
const variants = require('./lib/variants');
const { parseArgs } = require('./lib/args');

const WARM = 40000; // as instr.js: V8 still optimises before this
const COMPILER_WARN = 0.03;
const BENCHES = ['get', 'post', 'proxy'];
const LIB = path.join(__dirname, 'lib');

const opts = parseArgs(process.argv.slice(2), {
  bench: BENCHES.join(','), n: 20000, warm: WARM, warmRuns: 2, c: 50, repeat: 3, floor: true, noclient: false,
  baseline: '', gc: 'pinned', pretenuring: 'off', functions: 0, inclusive: false,
  node: process.execPath, out: path.join(__dirname, 'results'),
}, {
  script: __filename,
  lists: { bench: BENCHES },
  choices: { gc: gc.MODES, pretenuring: ['off', 'default'] },
  help: {
    bench: 'workloads to count',
    n: 'requests counted',
    warm: 'requests sent before counting',
    warmRuns: 'runs the warm-up is split into',
    c: 'requests in flight (get, post), autocannon connections (proxy)',
    repeat: 'rounds, every variant interleaved in each',
    floor: 'count the floor (client-floor.js; proxy: with floor.js)',
    noclient: 'count onewrite with ONEWRITE_CLIENT=0 too (onewrite-noclient)',
    baseline: 'a folder holding another checkout of onewrite, built: counted as the variant "baseline"',
    gc: "pinned: the young generation pinned to 2 MiB semi-spaces; default: V8's own sizing",
    pretenuring: "off: --no-allocation-site-pretenuring; default: V8's own",
    functions: "with N > 0: the N functions with the most instructions per request, each variant's and onewrite's " +
      'differences from stock, and Runtime_CopyDataProperties with all it calls',
    inclusive: "with --functions: each function's instructions with all it calls",
    node: 'the Node binary to measure',
    out: 'where the raw results go',
  },
});

if (!cg.available()) {
  console.error('valgrind (callgrind, callgrind_annotate) is not installed: apt-get install valgrind');
  process.exit(1);
}
if (opts.baseline && !fs.existsSync(path.join(opts.baseline, 'register.js'))) {
  console.error(`--baseline=${opts.baseline}: no register.js there (a checkout of onewrite, built, is expected)`);
  process.exit(1);
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const NODE_FLAGS = [...gc.nodeFlags(opts.gc), ...(opts.pretenuring === 'off' ? ['--no-allocation-site-pretenuring'] : [])];
const CHOSEN = ['stock', 'onewrite', ...(opts.baseline ? ['baseline'] : []), ...(opts.noclient ? ['onewrite-noclient'] : []),
  ...(opts.floor ? ['floor'] : [])];

// The measured process of `bench` for `variant`: startServer's options,
// and run(proc, amount), which sends `amount` requests through it.
function launch(bench, variant, upstream) {
  const warmRun = Math.ceil(opts.warm / opts.warmRuns);
  const def = bench === 'proxy'
    ? { script: path.join(LIB, 'proxy.js'), args: [`--upstream=${upstream}`], path: '/' }
    : {
      script: path.join(LIB, 'client-loop.js'), path: '/',
      args: [`--port=${upstream}`, `--method=${bench.toUpperCase()}`, `--c=${opts.c}`,
        `--runs=${[...Array(opts.warmRuns).fill(warmRun), opts.n].join(',')}`],
    };
  let how;
  if (variant === 'floor') {
    const preload = [path.join(__dirname, 'client-floor.js'), ...(bench === 'proxy' ? [path.join(__dirname, 'floor.js')] : [])];
    how = { preload, env: {}, script: def.script, args: def.args };
  } else if (variant === 'onewrite-noclient') {
    how = variants.launch(def, 'onewrite', '');
    how.env = { ...how.env, ONEWRITE_CLIENT: '0' };
  } else {
    how = variants.launch(def, variant, opts.baseline);
  }
  // proxy: autocannon, pinned to the other core; get, post: the client's
  // next run (SIGHUP), done when it says so.
  how.run = bench === 'proxy'
    ? (proc, amount) => b.measure(proc, { path: '/', connections: opts.c, timeout: 300, amount })
    : async (proc) => {
      const from = proc.stderr().length;
      proc.signal('SIGHUP');
      const m = await proc.waitForStderr(/^client-run: done (\{.*\})$/m, from, 3600000);
      return { non2xx: 0, ...JSON.parse(m[1]) };
    };
  return how;
}

// One count: { perRequest, compiler, withoutCompiler, requests, errors,
// gc, functions?, copyDataProperties? }.
async function count(bench, variant, upstream) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-cg-'));
  const how = launch(bench, variant, upstream);
  const proc = await b.startServer({
    node: opts.node,
    nodeFlags: [...NODE_FLAGS, ...(opts.functions > 0 ? ['--perf-basic-prof'] : [])],
    preload: [gc.PROBE, ...how.preload],
    env: how.env,
    script: how.script,
    args: how.args,
    wrap: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dir}/cg.%p`],
    timeout: 300000,
  });
  let result;
  let window = null;
  let sockets; // get, post: the connections the counted run kept
  try {
    for (let i = 0; i < opts.warmRuns; i++) await how.run(proc, Math.ceil(opts.warm / opts.warmRuns));
    // As instr.js: the GC window opens before counting and closes after the dump.
    const start = await gc.mark(proc, 'start');
    cg.control(proc.pid, '-i', 'on');
    const r = await how.run(proc, opts.n);
    cg.control(proc.pid, '-d');
    window = { start, end: await gc.mark(proc, 'end'), requests: r.requests };
    if (r.sockets !== undefined) sockets = r.sockets;
    // Stock opens a few more than --c (a response can end before its
    // request's 'finish'); many more: sockets that never went back.
    if (r.sockets > 2 * opts.c) throw new Error(`${bench} ${variant}: ${r.sockets} connections for ${opts.c} in flight: sockets not reused`);
    if (r.non2xx > 0 || r.requests < opts.n * 0.99) {
      throw new Error(`${bench} ${variant}: ${r.requests} answers (${r.non2xx} non-2xx, ${r.errors} errors) for ${opts.n} requests`);
    }
    let instructions = 0;
    let compiler = 0;
    let functions = null;
    let copy = null;
    for (const f of cg.dumps(dir)) {
      const d = cg.readDump(f);
      instructions += d.instructions;
      compiler += d.compiler;
      if (opts.functions > 0) {
        const fns = cg.functions(f, proc.pid, r.requests, opts.inclusive);
        functions = addUp(functions, fns);
        // Runtime_CopyDataProperties with all it calls (object spread,
        // Object.assign's slow path): from the same listing when inclusive.
        const incl = opts.inclusive ? fns : cg.functions(f, proc.pid, r.requests, true);
        copy = addUp(copy, new Map([...incl].filter(([k]) => /Runtime_CopyDataProperties/.test(k))));
      }
    }
    result = {
      perRequest: instructions / r.requests,
      compiler: compiler / instructions,
      withoutCompiler: (instructions - compiler) / r.requests,
      requests: r.requests,
      errors: r.errors,
      ...(sockets !== undefined ? { sockets } : {}),
      ...(functions ? { functions: Object.fromEntries([...functions].filter(([, v]) => v >= 1)) } : {}),
      ...(copy ? { copyDataProperties: Object.fromEntries(copy) } : {}),
    };
  } finally {
    await proc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`/tmp/perf-${proc.pid}.map`, { force: true });
  }
  result.gc = window && gc.figures({ ...window, trace: proc.stdout() });
  return result;
}

function addUp(into, more) {
  if (into === null) return more;
  for (const [k, v] of more) into.set(k, (into.get(k) || 0) + v);
  return into;
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;
const num = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-');
const fixed = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const times = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : '');

// Every round's ratio of a variant to that round's stock, for `key` of a
// count (a function of it), and their median.
function ratios(runs, v, key) {
  const xs = runs[v].map((x, i) => key(x) / key(runs.stock[i]));
  return { xs, median: b.median(xs) };
}

function table(results) {
  const lines = ['bench  variant             instr/req   vs stock   V8 compiler   without it   vs stock' +
    '   scav/1k   MC/1k   alloc B/req   vs stock   rounds: without it vs stock'];
  const polluted = [];
  const gcWarnings = [];
  for (const bench of Object.keys(results)) {
    const runs = results[bench];
    CHOSEN.forEach((v, i) => {
      const xs = runs[v];
      const med = (f) => b.median(xs.map(f));
      const vs = (f) => (v === 'stock' ? '' : times(ratios(runs, v, f).median));
      const bytes = (x) => (x.gc ? x.gc.bytesPerRequest : NaN);
      const rounds = v === 'stock' ? '' : ratios(runs, v, (x) => x.withoutCompiler).xs.map(times).join(', ');
      lines.push(`${(i === 0 ? bench : '').padEnd(6)} ${v.padEnd(17)} ${num(med((x) => x.perRequest)).padStart(10)}   ` +
        `${vs((x) => x.perRequest).padStart(8)}   ${pct(med((x) => x.compiler)).padStart(11)}   ` +
        `${num(med((x) => x.withoutCompiler)).padStart(10)}   ${vs((x) => x.withoutCompiler).padStart(8)}   ` +
        `${fixed(gc.med(xs.map((x) => x.gc), 'scavengesPer1k'), 2).padStart(7)}   ` +
        `${fixed(gc.med(xs.map((x) => x.gc), 'markCompactsPer1k'), 2).padStart(5)}   ${num(med(bytes)).padStart(11)}   ` +
        `${vs(bytes).padStart(8)}   ${rounds}`);
      for (const x of xs) if (x.compiler > COMPILER_WARN) polluted.push(`${bench} ${v} (${pct(x.compiler)})`);
    });
    gcWarnings.push(...gc.warnings(Object.fromEntries(Object.entries(runs).map(([v, xs]) => [v, xs.map((x) => x.gc)])), opts.gc, bench));
  }
  return { text: lines.join('\n'), polluted, gcWarnings };
}

// --functions: the listing of the run whose count is the median one.
function medianRun(xs, key = 'functions') {
  const sorted = xs.slice().sort((x, y) => x.perRequest - y.perRequest);
  return new Map(Object.entries(sorted[(sorted.length - 1) >> 1][key] || {}));
}

function functionTables(results) {
  const n = opts.functions;
  const pad = (x) => num(x).padStart(8);
  const lines = [];
  for (const [bench, runs] of Object.entries(results)) {
    for (const v of CHOSEN) {
      lines.push(`\n${bench}, ${v}: the ${n} functions with the most instructions ${opts.inclusive ? 'with all they call' : 'of their own'}, per request`);
      for (const [f, c] of [...medianRun(runs[v])].slice(0, n)) lines.push(`${pad(c)}  ${cg.shortName(f)}`);
    }
    const ow = medianRun(runs.onewrite);
    const stock = medianRun(runs.stock);
    lines.push(`\n${bench}: onewrite against stock, the ${n} largest differences per request (onewrite - stock | onewrite | stock)`);
    const diffs = [...cg.minus(ow, stock)].sort((x, y) => Math.abs(y[1]) - Math.abs(x[1])).slice(0, n);
    for (const [k, d] of diffs) lines.push(`${pad(d)} ${pad(ow.get(k) || 0)} ${pad(stock.get(k) || 0)}  ${cg.shortName(k)}`);
    lines.push(`\n${bench}: Runtime_CopyDataProperties with all it calls, per request`);
    for (const v of CHOSEN) {
      const copy = medianRun(runs[v], 'copyDataProperties');
      const total = [...copy.values()].reduce((s, x) => s + x, 0);
      lines.push(`  ${v.padEnd(17)} ${pad(total)}${copy.size > 1 ? `  (${[...copy.keys()].map(cg.shortName).join('; ')})` : ''}`);
    }
  }
  return lines.join('\n');
}

async function main() {
  const version = b.nodeVersion(opts.node);
  const benches = String(opts.bench).split(',');
  console.log(`client instructions per request (callgrind, user space, all threads of the measured process), Node ${version}: ` +
    `${opts.warm} warm-up requests in ${opts.warmRuns} runs, then ${opts.n} counted, c=${opts.c}` +
    `${opts.repeat > 1 ? `, ${opts.repeat} interleaved rounds (median)` : ''}; node ${NODE_FLAGS.join(' ')}`);
  if (opts.warm < WARM || opts.warmRuns < 2) {
    console.log(`warning: a warm-up shorter than ${WARM} requests in 2 runs: V8's optimising compiler is likely still at work when counting starts.`);
  }
  // One upstream for every count: not measured, on the other core.
  const upstream = await b.startServer({ script: path.join(LIB, 'upstream.js'), cpu: b.CLIENT_CPU });
  const results = Object.fromEntries(benches.map((x) => [x, {}]));
  try {
    for (let i = 0; i < opts.repeat; i++) {
      for (const bench of benches) {
        for (const v of CHOSEN) {
          b.progress(`${bench}: ${v} (${i + 1}/${opts.repeat}) under callgrind ...`);
          (results[bench][v] ||= []).push(await count(bench, v, upstream.port));
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  b.progressDone();
  const { text, polluted, gcWarnings } = table(results);
  console.log(text);
  console.log("vs stock: the median of every round's ratio to that round's stock; without it: V8's optimising compilers' " +
    'threads left out; scav/1k, MC/1k: scavenges and mark-compacts per 1,000 counted requests; alloc B/req: V8 heap bytes');
  for (const w of gcWarnings) console.log(`GC ${w.alike ? 'note' : 'warning'}: ${w.text}`);
  if (opts.functions > 0) console.log(functionTables(results));
  if (polluted.length > 0) {
    console.log(`warning: V8's optimising compiler ran more than ${pct(COMPILER_WARN)} of the counted instructions in ` +
      `${polluted.join(', ')}: warm up longer (--warm=${2 * Math.max(opts.warm, WARM)}).`);
  }
  fs.mkdirSync(opts.out, { recursive: true });
  const file = path.join(opts.out, `client-instr-node${version}-${stamp}.json`);
  fs.writeFileSync(file, JSON.stringify({
    node: version, commit: b.commit(), ...(opts.baseline ? { baselineCommit: b.commit(opts.baseline) } : {}),
    date: new Date().toISOString(), options: opts, nodeFlags: NODE_FLAGS, results,
  }, null, 2));
  console.log(`raw results: ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
