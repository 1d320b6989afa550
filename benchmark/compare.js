'use strict';

// Stock Node against onewrite, end to end: the same server script run
// without and with `-r onewrite/register`, one server at a time, pinned to
// CPU 0 with the load generator (autocannon, or wrk) pinned to CPU 1, stock
// and onewrite interleaved round after round (A B A B ...).
//
//   npm run bench                      simple, the default: about a minute
//   node benchmark/compare.js --bench=simple,realistic,json,express,fastify,koa
//   node benchmark/compare.js --client=wrk --rounds=7 --floor --ceiling
//
// Per benchmark it leads with the server's CPU time per request (user +
// system, from /proc: the cost of a response, which shows a saving even
// when the client saturates) against stock, with the ratio of each round
// and their spread; then req/s beside its caveat: secondary, and noisy
// where the load generator shares the machine (on two cores autocannon
// fills one core before Node's server does; the report says when req/s is
// bounded by the client).  When the rounds disagree (per-round ratios
// spread over 15 % of their median, or a round more than 15 % from the
// others') it says so right under those lines: rerun with more rounds, or
// count instructions (npm run bench:instr), which the noise does not move;
// and when they disagree on server CPU per request, the line it leads with
// says the run is inconclusive in place of a ratio (lib/headline.js).
// Then three tables, every line at most 100 columns: server CPU, the load
// (req/s, p50/p99 latency, how busy the client was), and the GC: the V8
// heap bytes allocated per request over the measured run (not the
// warm-up) and the scavenges per 1,000 requests, each variant's and its
// ratio to stock (lib/gc-probe.js, lib/gc.js: V8's own counter where the
// Node has one, total_allocated_bytes on Node 26, its GC trace elsewhere;
// the report says which); lib/report.js writes the report.  The servers
// run with V8's own young-generation sizing, as a user's do; --gc=pinned
// pins it as instr.js does.
// Raw results go to <out>/compare-<node>-<time>.json and a chart to the
// same name .svg.

const fs = require('node:fs');
const path = require('node:path');
const b = require('./lib/bench');
const { parseArgs } = require('./lib/args');
const { server: benchServer, NAMES } = require('./lib/servers');
const variants = require('./lib/variants');
const { report, ratioTable, gcOf } = require('./lib/report');
const gc = require('./lib/gc');

const opts = parseArgs(process.argv.slice(2), {
  bench: 'simple', rounds: 3, duration: 5, warmup: 2, c: 50, pipelining: 1, client: 'autocannon',
  type: 'bytes', len: 4, chunks: 1, chunkedEnc: 0, writeLen: 0, floor: false, ceiling: false, gc: 'default',
  node: process.execPath, out: path.join(__dirname, 'results'),
}, {
  script: __filename,
  lists: { bench: NAMES },
  choices: { client: ['autocannon', 'wrk'], type: ['bytes', 'buffer'], gc: gc.MODES },
  help: {
    bench: 'servers to compare',
    rounds: 'interleaved rounds per variant',
    duration: 'seconds measured per round',
    warmup: 'seconds of load before each measured round',
    c: 'connections',
    pipelining: 'requests in flight per connection (autocannon only)',
    client: 'load generator (wrk needs less CPU: apt-get install wrk)',
    type: "simple's body type",
    len: "simple's body length",
    chunks: "simple's write() calls per body",
    chunkedEnc: "simple: 1 for Transfer-Encoding: chunked",
    writeLen: "write-end's body length (0: a small JSON document)",
    floor: 'also the floor (floor.js; not identical to stock)',
    ceiling: 'also a raw net server: the limit of any JavaScript path',
    gc: "default: V8's own young-generation sizing, as users run; pinned: 2 MiB semi-spaces in every server, as instr.js",
    node: 'the Node binary to measure',
    out: 'where the raw results and the chart go',
  },
});

function benchDef(name) {
  const { type, len, chunks, chunkedEnc, writeLen } = opts;
  return benchServer(name, { type, len, chunks, chunkedEnc, writeLen });
}

// One measured run; its `gc`: the GC figures of the measured run alone
// (lib/gc.js), or null.
async function runOne(def, variant) {
  const how = variants.launch(def, variant);
  const server = await b.startServer({
    node: opts.node, nodeFlags: gc.nodeFlags(opts.gc), preload: [gc.PROBE, ...how.preload], env: how.env, script: how.script, args: how.args,
  });
  let r;
  let window = null;
  try {
    const load = { path: how.path, connections: opts.c, pipelining: opts.pipelining, client: opts.client };
    if (opts.warmup > 0) await b.measure(server, { ...load, duration: opts.warmup });
    const start = await gc.mark(server, 'start');
    r = await b.measure(server, { ...load, duration: opts.duration });
    window = { start, end: await gc.mark(server, 'end'), requests: r.requests };
  } finally {
    await server.stop(); // V8's GC trace is all in once it has exited
  }
  r.gc = gc.figures({ ...window, trace: server.stdout() });
  return r;
}

// Three chart groups per benchmark, server CPU first, then req/s and the
// bytes allocated per request; every bar but stock's carries its median
// per-round ratio to stock.
function chartGroups(results) {
  const groups = [];
  for (const r of results) {
    const table = ratioTable(r.runs);
    for (const [key, what, unit] of [['serverCpuUs', 'server CPU', 'us per request, lower is better'], ['rps', 'req/s', 'higher is better'],
      ['bytesPerRequest', 'V8 heap allocated', 'bytes per request, lower is better']]) {
      const value = (x) => (key === 'bytesPerRequest' ? gcOf(x, key) : x[key]);
      if (!Object.values(r.runs).flat().some((x) => Number.isFinite(value(x)))) continue;
      groups.push({
        label: `${r.label}: ${what}`,
        unit,
        bars: Object.entries(r.runs).map(([v, rs]) => ({
          label: v,
          values: rs.map(value),
          ratio: v === 'stock' ? null : table[v][key].median,
        })),
      });
    }
  }
  return groups;
}

async function main() {
  if (opts.client === 'wrk' && !b.hasWrk) throw new Error('wrk is not installed (apt-get install wrk)');
  if (opts.client === 'wrk' && opts.pipelining > 1) throw new Error('--pipelining needs autocannon');
  const version = b.nodeVersion(opts.node);
  const names = String(opts.bench).split(',');
  const results = [];
  const started = Date.now();
  const plan = names.map((name) => {
    const def = benchDef(name);
    return { name, def, variants: variants.chosen(opts) };
  });
  const total = plan.reduce((n, p) => n + opts.rounds * p.variants.length, 0);
  let done = 0;
  for (const { name, def, variants: vs } of plan) {
    const runs = Object.fromEntries(vs.map((v) => [v, []]));
    for (let round = 0; round < opts.rounds; round++) {
      for (const v of vs) {
        b.progress(`[${++done}/${total}] ${name}, round ${round + 1}/${opts.rounds}: ${v} ...`);
        const r = await runOne(def, v);
        runs[v].push(r);
        b.progress(`[${done}/${total}] ${name}, round ${round + 1}/${opts.rounds}: ${v} ${r.serverCpuUs.toFixed(2)} us/req server CPU, ` +
          `${b.fmt(r.rps)} req/s, client ${(r.clientCpu * 100).toFixed(0)}%`);
      }
    }
    b.progressDone();
    console.log(report(def, runs, version, opts));
    results.push({ bench: name, label: def.label, runs });
  }
  const stamp = new Date(started).toISOString().replace(/[:.]/g, '-');
  fs.mkdirSync(opts.out, { recursive: true });
  const base = path.join(opts.out, `compare-node${version}-${stamp}`);
  fs.writeFileSync(`${base}.json`, JSON.stringify({ node: version, commit: b.commit(), options: opts, date: new Date(started).toISOString(), cores: b.cores, pinned: b.hasTaskset, results }, null, 2));
  fs.writeFileSync(`${base}.svg`, b.svgChart(`onewrite vs stock, Node ${version}`, chartGroups(results)));
  console.log(`\nraw results: ${path.relative(process.cwd(), base)}.json\nchart:       ${path.relative(process.cwd(), base)}.svg`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
