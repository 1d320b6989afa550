'use strict';

// Server instructions per request: the figure that stays put on a noisy
// machine.  For each server (--bench) it counts stock Node, onewrite, the
// floor and the floor without draining the request (floor.js: the
// cheapest non-identical response), and the raw `net` ceiling (ceiling.js, once
// per run: the same server for every bench), each as a ratio to stock.
// With --drain it also counts the drain probe (drain.js): onewrite with the
// request drained in Node's ticks with no stream code (drain-ticks) and
// not drained at all (drain-none), and the floor drained in those ticks
// (floor-ticks): the bounds of any finish path a package could build.
//
// Each runs under `valgrind --tool=callgrind` with counting off; a fixed
// client (autocannon, --c connections) sends --warm requests in
// --warmRuns runs, counting is switched on (callgrind_control -i on),
// exactly --n requests are sent in one more run, the counts are dumped,
// and the user-space instructions of the server process (all its threads)
// are divided by the requests answered.  A count moves by 1-5 % from run
// to run (GC timing): compare ratios over interleaved runs (--repeat).
//
// The warm-up takes two client runs because V8 does not settle in one:
// when the first run's connections close, the stream functions that had
// only seen open connections (Readable.read, onStreamRead, endReadable,
// ...) are deoptimised, and they are optimised again during the next
// tens of thousands of requests, wherever the count is.  Each count also
// gives the share of V8's optimising compilers in it, and the count
// without them: above a few percent the block measured the compiler at
// work, and it says to warm up longer.
//
//   npm run bench:instr
//   node benchmark/instr.js --bench=simple,realistic --node=/path/to/node
//   node benchmark/instr.js --repeat=3 --keep     (three interleaved runs, dumps kept)
//   node benchmark/instr.js --bench=simple --drain --ceiling=false
//   node benchmark/instr.js --bench=simple --ceiling=false --functions=25
//   node benchmark/instr.js --baseline=/tmp/before --repeat=3 --floor=false --ceiling=false
//   node benchmark/instr.js --bench=simple --ceiling=false --functions=60 --inclusive
//   node benchmark/instr.js --bench=simple --agent=ddtrace --floor=false --ceiling=false
//
// --baseline=<dir> counts onewrite from another checkout (say a
// `git worktree add /tmp/before HEAD~1`, built there with `npx node-gyp
// rebuild`) as a variant of its own, right after onewrite in every round:
// a change against the code before it, interleaved, each as a ratio to
// the same stock.
//
// --agent=<name> (one of test/agents/config.js's: ddtrace, ddtrace-appsec,
// otel, elastic; installed by `npm ci --prefix test/agents`) counts three
// more variants: `agent`, stock Node with that APM agent preloaded;
// `agent-first`, the agent then onewrite (-r <agent> -r onewrite/register);
// `onewrite-first`, onewrite then the agent.  The last two are shown as
// ratios to `agent`.  The agent exports to a sink on loopback that answers
// as its collector would (test/agents/collectors.js).
//
// --functions=N says where the instructions go: each server runs with
// node --perf-basic-prof, so that the JIT code callgrind knows only by
// address is named from V8's perf map, and each function's own (exclusive)
// instructions per request are listed: the N largest of each variant, then
// the N largest differences between onewrite and stock, and between
// onewrite and the floor (what onewrite still spends above it).  The
// listing goes into the raw results too.
//
// GC: every server runs with its young generation pinned (--gc=pinned,
// the default: node --min-semi-space-size=2 --max-semi-space-size=2), so
// that a scavenge (~630,000 instructions on Node 26) comes after the same
// allocation in every process, whatever V8 would decide about growing the
// young generation in one server and not in the next; --gc=default runs
// V8's own sizing, as a user's server does.  Beside each count are the
// scavenges and mark-compacts per 1,000 requests and the V8 heap bytes
// allocated per request, all over the counted requests alone
// (lib/gc-probe.js, preloaded in every server, switches V8's --trace-gc on
// for the counted requests only, and reads V8's allocation counter,
// total_allocated_bytes, where the Node has it: see lib/gc.js); where the
// variants' GC work differs beyond noise, the report says so.
//
// Needs valgrind (callgrind, callgrind_control, callgrind_annotate).
// Raw results: <out>/instr-node<version>-<time>.json.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const b = require('./lib/bench');
const cg = require('./lib/callgrind');
const { parseArgs } = require('./lib/args');
const { server: benchServer, NAMES } = require('./lib/servers');
const variants = require('./lib/variants');
const { AGENTS } = require('../test/agents/config');
const { collector } = require('../test/agents/collectors');
const gc = require('./lib/gc');

const WARM = 40000; // V8 is still optimising before this (Node 24/26 longest)
const COMPILER_WARN = 0.03; // share of the count in V8's optimising compilers

const opts = parseArgs(process.argv.slice(2), {
  bench: 'simple,realistic', n: 20000, warm: WARM, warmRuns: 2, c: 50, repeat: 1, floor: true, drain: false, ceiling: true, keep: false,
  functions: 0, inclusive: false, baseline: '', agent: '', gc: 'pinned',
  type: 'bytes', len: 4, chunks: 1, chunkedEnc: 0, writeLen: 0,
  node: process.execPath, out: path.join(__dirname, 'results'),
}, {
  script: __filename,
  lists: { bench: NAMES },
  choices: { type: ['bytes', 'buffer'], chunkedEnc: [0, 1], gc: gc.MODES, agent: Object.keys(AGENTS) },
  help: {
    bench: 'servers to count',
    n: 'requests counted',
    warm: 'requests sent before counting',
    warmRuns: 'client runs the warm-up is split into (2: one closing of the connections before counting)',
    c: 'connections',
    repeat: 'runs of every variant, interleaved (the median is shown)',
    floor: 'count the floor and the floor without the drain',
    drain: 'count the drain probe (drain.js): drain-ticks, drain-none, floor-ticks (benchmark/README.md)',
    ceiling: 'count the raw net ceiling',
    keep: 'keep the callgrind dumps under <out>/callgrind-<time>/ (for callgrind_annotate)',
    inclusive: 'with --functions: each function\'s instructions with those of all it calls, not its own alone',
    baseline: 'a folder holding another checkout of onewrite, built: counted as the variant "baseline"',
    agent: 'an APM agent (npm ci --prefix test/agents): counts it on stock Node ("agent"), loaded before onewrite ("agent-first") and after ("onewrite-first")',
    gc: "pinned: every server's young generation pinned to 2 MiB semi-spaces (--min-semi-space-size=2 --max-semi-space-size=2); default: V8's own sizing",
    functions: 'with N > 0: each function\'s own instructions per request, JIT code named (node --perf-basic-prof): the N largest of each variant, and the N largest differences of onewrite from stock and from the floor',
    type: "simple's body type",
    len: "simple's body length",
    chunks: "simple's write() calls per body",
    chunkedEnc: 'simple: 1 for Transfer-Encoding: chunked',
    writeLen: "write-end's body length (0: a small JSON document)",
    node: 'the Node binary to measure',
    out: 'where the raw results go',
  },
});

if (!cg.available()) {
  console.error('valgrind (callgrind, callgrind_annotate) is not installed: apt-get install valgrind');
  process.exit(1);
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const keepDir = path.join(opts.out, `callgrind-${stamp}`);
let floorRoute = null; // what floor.js says about its writes
let agentOf = null; // --agent: the agent's file and environment (variants.agent())

// One count of `variant` on server `def`: { perRequest, compiler (share),
// requests, errors, gc (lib/gc.js figures: scavenges, bytes allocated, ...
// of the counted requests, or null) }.
async function count(def, variant) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-cg-'));
  const how = variants.launch(def, variant, opts.baseline, agentOf);
  const server = await b.startServer({
    node: opts.node,
    nodeFlags: [...gc.nodeFlags(opts.gc), ...(opts.functions > 0 ? ['--perf-basic-prof'] : [])],
    preload: [gc.PROBE, ...how.preload],
    env: how.env,
    script: how.script,
    args: how.args,
    wrap: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dir}/cg.%p`],
    timeout: 300000,
  });
  let result;
  let window = null; // the GC probe's start and end
  try {
    // A slow server under valgrind: no request may time out.
    const load = { path: how.path, connections: opts.c, timeout: 300 };
    for (let i = 0; i < opts.warmRuns; i++) await b.measure(server, { ...load, amount: Math.ceil(opts.warm / opts.warmRuns) });
    // The GC window opens before counting starts and closes after the
    // dump: the probe's own work is outside the count, and only the
    // counted requests run inside the window.
    const start = await gc.mark(server, 'start');
    cg.control(server.pid, '-i', 'on');
    const r = await b.measure(server, { ...load, amount: opts.n });
    cg.control(server.pid, '-d');
    window = { start, end: await gc.mark(server, 'end'), requests: r.requests };
    let instructions = 0;
    let compiler = 0;
    let functions = null;
    for (const f of cg.dumps(dir)) {
      const d = cg.readDump(f);
      instructions += d.instructions;
      compiler += d.compiler;
      if (opts.functions > 0) functions = addUp(functions, cg.functions(f, server.pid, r.requests, opts.inclusive));
      if (opts.keep) {
        fs.mkdirSync(keepDir, { recursive: true });
        fs.copyFileSync(f, path.join(keepDir, `${def.name}-${variant}-${path.basename(f)}`));
      }
    }
    // Under valgrind a connection now and then fails (a server slowed down
    // 50x meets its own timeouts): the count is per answered request, and
    // more than 1 % failures void the run.
    if (r.non2xx > 0 || r.requests < opts.n * 0.99) {
      throw new Error(`the client got ${r.requests} answers (${r.non2xx} non-2xx, ${r.errors} errors) for ${opts.n} requests`);
    }
    if (r.errors > 0) process.stderr.write(`\n(${variant}: ${r.errors} failed requests of ${opts.n})\n`);
    result = {
      perRequest: instructions / r.requests,
      compiler: compiler / instructions,
      withoutCompiler: (instructions - compiler) / r.requests,
      requests: r.requests,
      errors: r.errors,
      ...(functions ? { functions: Object.fromEntries([...functions].filter(([, v]) => v >= 1)) } : {}),
    };
  } finally {
    const stderr = await server.stop(); // V8's GC trace is all in once it has exited
    const said = /^floor: writes .*$/m.exec(stderr);
    if (said) floorRoute = said[0];
    fs.rmSync(dir, { recursive: true, force: true });
    const map = `/tmp/perf-${server.pid}.map`;
    // --keep: the perf map, which names the JIT code in the kept dumps, too.
    if (opts.keep && fs.existsSync(map)) fs.copyFileSync(map, path.join(keepDir, `${def.name}-${variant}-perf-${server.pid}.map`));
    fs.rmSync(map, { force: true });
  }
  // The GC trace is all in once the server has exited (stdio's buffer is
  // flushed at exit).
  result.gc = window && gc.figures({ ...window, trace: server.stdout() });
  return result;
}

// Per-function counts of several dumps (threads) of one count, added.
function addUp(into, more) {
  if (into === null) return more;
  for (const [k, v] of more) into.set(k, (into.get(k) || 0) + v);
  return into;
}

if (opts.baseline && !fs.existsSync(path.join(opts.baseline, 'register.js'))) {
  console.error(`--baseline=${opts.baseline}: no register.js there (a checkout of onewrite, built, is expected)`);
  process.exit(1);
}

// --functions: the run of a variant whose count is the median one, its
// functions as a Map.
function medianRun(xs) {
  const sorted = xs.slice().sort((x, y) => x.perRequest - y.perRequest);
  return new Map(Object.entries(sorted[(sorted.length - 1) >> 1].functions || {}));
}

// The N largest functions of each variant, then the N largest differences
// of onewrite from stock, from the baseline and from the floor.
function functionTables(names, results) {
  const n = opts.functions;
  const num0 = (x) => Math.round(x).toLocaleString('en-US').padStart(8);
  const lines = [];
  for (const name of names) {
    const runs = results[name];
    for (const v of Object.keys(runs)) {
      lines.push(`\n${name}, ${v}: the ${n} functions with the most instructions ${opts.inclusive ? 'with all they call' : 'of their own'}, per request`);
      for (const [f, c] of [...medianRun(runs[v])].slice(0, n)) lines.push(`${num0(c)}  ${cg.shortName(f)}`);
    }
    const ow = runs.onewrite && medianRun(runs.onewrite);
    for (const other of ['stock', 'baseline', 'floor']) {
      if (!ow || !runs[other]) continue;
      const them = medianRun(runs[other]);
      const diffs = [...cg.minus(ow, them)].map(([k, d]) => [k, d, ow.get(k) || 0, them.get(k) || 0])
        .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1])).slice(0, n);
      lines.push(`\n${name}: onewrite against ${other}, the ${n} largest differences per request (onewrite - ${other} | onewrite | ${other})`);
      for (const [k, d, a, o] of diffs) lines.push(`${num0(d)} ${num0(a)} ${num0(o)}  ${cg.shortName(k)}`);
    }
  }
  return lines.join('\n');
}

const LABELS = { ceiling: 'ceiling (net)' };
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const num = (x) => Math.round(x).toLocaleString('en-US');

// A GC figure of a variant's runs (the median), or NaN without one.
const gcOf = (xs, key) => gc.med(xs.map((x) => x.gc), key);

function table(names, results, ceiling) {
  const lines = ['server        variant          instr/req   vs stock   V8 compiler   without it   vs stock' +
    '   scav/1k   MC/1k   alloc B/req   vs stock'];
  const polluted = [];
  const gcWarnings = [];
  for (const name of names) {
    // Each variant's reference: stock, or for the variants loading onewrite
    // with an agent, stock Node with that agent (`agent`).
    const refs = {};
    for (const ref of ['stock', 'agent']) {
      const xs = results[name][ref];
      if (!xs) continue;
      refs[ref] = { per: b.median(xs.map((x) => x.perRequest)), without: b.median(xs.map((x) => x.withoutCompiler)),
        bytes: gcOf(xs, 'bytesPerRequest') };
    }
    const rows = { ...results[name], ...(ceiling.length ? { ceiling } : {}) };
    let first = true;
    for (const v of variants.chosen(opts)) {
      const head = `${(first ? name : '').padEnd(13)} ${(LABELS[v] || v).padEnd(15)}`;
      first = false;
      const xs = rows[v];
      if (!xs) continue;
      const per = b.median(xs.map((x) => x.perRequest));
      const share = b.median(xs.map((x) => x.compiler));
      const without = b.median(xs.map((x) => x.withoutCompiler));
      const ref = refs[(v === 'agent-first' || v === 'onewrite-first') && refs.agent ? 'agent' : 'stock'];
      const ratio = (x, of) => (v === 'stock' || !Number.isFinite(x / of) ? '' : `${(x / of).toFixed(2)}x`).padStart(8);
      const spread = xs.length > 1 ? `  (runs ${xs.map((x) => num(x.perRequest)).join(', ')})` : '';
      const bytes = gcOf(xs, 'bytesPerRequest');
      const fixed = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : '-');
      lines.push(`${head} ${num(per).padStart(10)}   ${ratio(per, ref.per)}   ${pct(share).padStart(11)}   ` +
        `${num(without).padStart(10)}   ${ratio(without, ref.without)}   ${fixed(gcOf(xs, 'scavengesPer1k'), 2).padStart(7)}   ` +
        `${fixed(gcOf(xs, 'markCompactsPer1k'), 2).padStart(5)}   ${(Number.isFinite(bytes) ? num(bytes) : '-').padStart(11)}   ` +
        `${ratio(bytes, ref.bytes)}${spread}`);
      if (v !== 'ceiling' || name === names[0]) {
        for (const x of xs) if (x.compiler > COMPILER_WARN) polluted.push(`${name} ${v} (${pct(x.compiler)})`);
      }
    }
    // The GC work of the variants of this server (the ceiling, another
    // server, apart).
    const byVariant = Object.fromEntries(Object.entries(results[name]).map(([v, xs]) => [v, xs.map((x) => x.gc)]));
    gcWarnings.push(...gc.warnings(byVariant, opts.gc, name));
  }
  return { text: lines.join('\n'), polluted, gcWarnings };
}

// The methods the GC figures were got by, as measured (every count says).
function gcNotes(results, ceiling) {
  const all = [...Object.values(results).flatMap((r) => Object.values(r).flat()), ...ceiling].map((x) => x.gc);
  const methods = [...new Set(all.filter(Boolean).map((g) => g.allocMethod))];
  const lines = [`GC: ${gc.describe(opts.gc)}; scav/1k, MC/1k: scavenges and mark-compacts per 1,000 counted requests ` +
    "(V8's --trace-gc, switched on in the server for the counted requests only)"];
  for (const m of methods) lines.push(`alloc B/req: V8 heap bytes allocated per counted request, ${gc.allocMethodText(m)}`);
  if (methods.includes('counter')) {
    // The figure of the Nodes without the counter, to compare with them.
    for (const [name, runs] of Object.entries(results)) {
      const stock = gcOf(runs.stock, 'bytesPerRequestTrace');
      lines.push(`  from V8's GC trace instead (as on Nodes without the counter), ${name}: ${Object.entries(runs).map(([v, xs]) => {
        const x = gcOf(xs, 'bytesPerRequestTrace');
        return `${v} ${Number.isFinite(x) ? num(x) : '-'}${v === 'stock' ? '' : ` (${(x / stock).toFixed(2)}x)`}`;
      }).join(', ')}`);
    }
  }
  const missing = all.filter((g) => !g || g.traceLost).length;
  if (missing > 0) lines.push(`warning: ${missing} counts have no GC figures (the server's GC trace did not come back)`);
  return lines.join('\n');
}

async function main() {
  const version = b.nodeVersion(opts.node);
  const names = String(opts.bench).split(',');
  const { type, len, chunks, chunkedEnc, writeLen } = opts;
  const defs = Object.fromEntries(names.map((name) => [name, benchServer(name, { type, len, chunks, chunkedEnc, writeLen })]));
  console.log(`server instructions per request (callgrind, user space, all threads), Node ${version}: ` +
    `${opts.warm} warm-up requests in ${opts.warmRuns} runs, then ${opts.n} counted, ${opts.c} connections` +
    `${opts.repeat > 1 ? `, ${opts.repeat} interleaved runs (median)` : ''}; ${gc.describe(opts.gc)}`);
  if (opts.warm < WARM || opts.warmRuns < 2) {
    console.log(`warning: a warm-up shorter than ${WARM} requests in 2 runs: V8's optimising compiler is likely ` +
      'still at work when counting starts, and its work lands in the count.');
  }
  let sink = null;
  if (opts.agent) {
    // The agent's collector: a sink on loopback that answers as one and
    // keeps nothing.
    sink = await collector(AGENTS[opts.agent].collector, { keep: false });
    agentOf = variants.agent(opts.agent, sink.url);
    console.log(`agent: ${opts.agent} (-r ${AGENTS[opts.agent].name}), exporting to ${sink.url}; ` +
      'agent-first and onewrite-first are ratios to agent (stock Node with the agent)');
  }
  const results = Object.fromEntries(names.map((name) => [name, {}]));
  const ceiling = [];
  for (let i = 0; i < opts.repeat; i++) {
    const run = `(${i + 1}/${opts.repeat})`;
    for (const name of names) {
      for (const v of variants.chosen({ ...opts, ceiling: false })) {
        b.progress(`${name}: ${v} ${run} under callgrind ...`);
        (results[name][v] ||= []).push(await count(defs[name], v));
      }
    }
    if (opts.ceiling) {
      b.progress(`ceiling ${run} under callgrind ...`);
      ceiling.push(await count(defs[names[0]], 'ceiling'));
    }
  }
  b.progressDone();
  if (sink) await sink.close();
  const { text, polluted, gcWarnings } = table(names, results, ceiling);
  console.log(text);
  console.log(gcNotes(results, ceiling));
  if (gcWarnings.length > 0) {
    // A warning where the GC did not run alike; a note where the GC work
    // follows the allocation (a variant that allocates less scavenges less).
    const alike = gcWarnings.every((w) => w.alike);
    console.log(`${alike ? 'note' : 'warning'}: the variants' GC work differs beyond noise (scavenge counts more than ` +
      `${Math.round(100 * gc.SCAVENGE_LIMIT)} % and ${gc.SCAVENGE_SLACK} scavenges apart, a young generation of another size, ` +
      'other mark-compact counts):');
    for (const w of gcWarnings) console.log(`  ${w.text}`);
    console.log(alike
      ? '  the GC ran alike (the same bytes per scavenge): the difference is the allocation\'s, and its cost is in the counts.'
      : '  the instruction counts carry GC work that is not the code\'s: compare them with it in view' +
        `${opts.gc === 'pinned' ? '' : ' (--gc=pinned pins the young generation)'}${opts.repeat < 3 ? ', or over --repeat=3' : ''}.`);
  }
  if (opts.functions > 0) console.log(functionTables(names, results));
  if (floorRoute) console.log(floorRoute);
  if (polluted.length > 0) {
    console.log(`warning: V8's optimising compiler ran more than ${pct(COMPILER_WARN)} of the counted instructions in ` +
      `${polluted.join(', ')}: those counts include the compiler's work; warm up longer (--warm=${Math.max(2 * opts.warm, WARM)}${opts.warmRuns < 2 ? ' --warmRuns=2' : ''}).`);
  }
  fs.mkdirSync(opts.out, { recursive: true });
  const file = path.join(opts.out, `instr-node${version}-${stamp}.json`);
  fs.writeFileSync(file, JSON.stringify({
    node: version, commit: b.commit(), ...(opts.baseline ? { baselineCommit: b.commit(opts.baseline) } : {}), date: new Date().toISOString(), options: opts, floorRoute, results,
    ...(opts.ceiling ? { ceiling } : {}),
  }, null, 2));
  console.log(`raw results: ${path.relative(process.cwd(), file)}`);
  if (opts.keep) console.log(`callgrind dumps: ${path.relative(process.cwd(), keepDir)}/ (callgrind_annotate <file>)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
