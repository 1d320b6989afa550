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
// Per benchmark it prints, first, the server's CPU time per request (user +
// system, from /proc: the cost of a response, which shows a saving even
// when the client saturates) with the onewrite/stock ratio of each round;
// then req/s the same way, p50/p99 latency, and the client's CPU: on two
// cores autocannon fills one core before Node's server does, and the
// report says when req/s is bounded by the client.  When the rounds
// disagree (per-round ratios spread over 15 % of their median, or a round
// more than 15 % from the others') it says so: rerun with more rounds, or
// count instructions (npm run bench:instr), which the noise does not move;
// and when they disagree on server CPU per request, the line it leads with
// says the run is inconclusive in place of a ratio (lib/headline.js).
// Beside them, the V8 heap bytes allocated per request over the measured
// run (not the warm-up) and the scavenges per 1,000 requests, each
// variant's and its ratio to stock (lib/gc-probe.js, lib/gc.js: V8's own
// counter where the Node has one, total_allocated_bytes on Node 26, its
// GC trace elsewhere; the report says which).  The servers run with V8's
// own young-generation sizing, as a user's do; --gc=pinned pins it as
// instr.js does.
// Raw results go to <out>/compare-<node>-<time>.json and a chart to the
// same name .svg.

const fs = require('node:fs');
const path = require('node:path');
const b = require('./lib/bench');
const { parseArgs } = require('./lib/args');
const { server: benchServer, NAMES } = require('./lib/servers');
const variants = require('./lib/variants');
const { headline } = require('./lib/headline');
const gc = require('./lib/gc');

// Per-round ratios whose spread ((max - min) / median) is above this, or a
// round further than this from its variant's median: a warning.  The limit
// and the formula are `onewrite compare`'s (cli/compare/stats.js).
const { spread: spreadOf, SPREAD_LIMIT } = require('../cli/compare/stats');

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

const gcOf = (r, key) => (r.gc ? r.gc[key] : NaN);

// The per-round ratios of `variant` to stock for one figure, and their median.
function ratios(runs, variant, key) {
  const xs = runs.stock.map((s, i) => runs[variant][i][key] / s[key]);
  return { xs, median: b.median(xs) };
}

// The same for a GC figure (lib/gc.js).
function gcRatios(runs, variant, key) {
  const xs = runs.stock.map((s, i) => gcOf(runs[variant][i], key) / gcOf(s, key));
  return { xs, median: b.median(xs) };
}

// Every non-stock variant's ratios, per figure: { [variant]: { serverCpuUs, serverUserUs, rps } }.
function ratioTable(runs) {
  const table = {};
  for (const v of Object.keys(runs)) {
    if (v !== 'stock') {
      table[v] = {
        serverCpuUs: ratios(runs, v, 'serverCpuUs'), serverUserUs: ratios(runs, v, 'serverUserUs'), rps: ratios(runs, v, 'rps'),
        bytesPerRequest: gcRatios(runs, v, 'bytesPerRequest'),
      };
    }
  }
  return table;
}

const roundsText = (r) => `${r.xs.map((x) => x.toFixed(2)).join(' ')} (${r.median.toFixed(2)}x)`;

// Warnings when the rounds disagree: per-round ratios spread over
// SPREAD_LIMIT, and any round further than that from the median of its
// variant (one stock round at 579 req/s against 17k in the others).
function spread(runs, table) {
  const lines = [];
  const figures = [['serverCpuUs', 'server CPU', 'us/req', 2], ['rps', 'req/s', 'req/s', 0]];
  for (const v of Object.keys(runs)) {
    if (v !== 'stock') {
      const parts = [];
      for (const [key, what] of figures) {
        const r = table[v][key].xs;
        if (spreadOf(r) > SPREAD_LIMIT) parts.push(`${what} ${b.min(r).toFixed(2)}-${b.max(r).toFixed(2)}x`);
      }
      if (parts.length > 0) lines.push(`${v}/stock per round: ${parts.join(', ')}`);
    }
    const off = [];
    for (const [key, , unit, digits] of figures) {
      const xs = runs[v].map((r) => r[key]);
      const m = b.median(xs);
      xs.forEach((x, i) => {
        if (xs.length > 1 && Math.abs(x - m) / m > SPREAD_LIMIT) {
          off.push(`round ${i + 1} ${b.fmt(x, digits)} ${unit} (${(x / m).toFixed(2)}x the median, ${b.fmt(m, digits)})`);
        }
      });
    }
    if (off.length > 0) lines.push(`${v}: ${off.join('; ')}`);
  }
  if (lines.length === 0) return [];
  return [`warning: the rounds disagree by more than ${Math.round(SPREAD_LIMIT * 100)} %:`, ...lines.map((l) => `  ${l}`),
    `  so the medians above may mislead: rerun with more rounds (--rounds=${Math.max(7, opts.rounds * 2)}), ` +
    'or count instructions, which the noise does not move: npm run bench:instr'];
}

function report(def, runs, version) {
  const stock = runs.stock;
  const lines = [];
  lines.push(`\n${def.label} - Node ${version}, ${opts.client}, c=${opts.c}${opts.pipelining > 1 ? ` pipelining=${opts.pipelining}` : ''}, ` +
    `${opts.duration}s x ${opts.rounds} rounds, interleaved; server on CPU 0, client on CPU ${b.cores > 1 ? 1 : 0}${b.hasTaskset ? '' : ' (no taskset: not pinned)'}`);
  const table = ratioTable(runs);
  for (const [v, { serverCpuUs: cpu, serverUserUs: user, rps }] of Object.entries(table)) {
    lines.push(headline({ variant: v, cpu, user, rps, limit: SPREAD_LIMIT, rounds: opts.rounds }));
  }
  lines.push('variant       | server CPU us/req (min-max) | vs stock, per round (median) | req/s (min-max)         | vs stock, per round (median) | p50 ms | p99 ms | user us/req (vs stock) | server CPU | client CPU | alloc B/req (vs stock) | scav/1k');
  for (const v of Object.keys(runs)) {
    const rs = runs[v];
    const us = rs.map((r) => r.serverCpuUs);
    const rps = rs.map((r) => r.rps);
    const user = rs.map((r) => r.serverUserUs);
    const userRatio = v === 'stock' ? null : b.median(user) / b.median(stock.map((r) => r.serverUserUs));
    lines.push(
      `${v.padEnd(13)} | ${`${b.fmt(b.median(us), 2)} (${b.fmt(b.min(us), 2)}-${b.fmt(b.max(us), 2)})`.padEnd(27)} | ` +
      `${(v === 'stock' ? '' : roundsText(table[v].serverCpuUs)).padEnd(28)} | ` +
      `${`${b.fmt(b.median(rps))} (${b.fmt(b.min(rps))}-${b.fmt(b.max(rps))})`.padEnd(23)} | ` +
      `${(v === 'stock' ? '' : roundsText(table[v].rps)).padEnd(28)} | ` +
      `${b.fmt(b.median(rs.map((r) => r.p50)), 2).padStart(6)} | ${b.fmt(b.median(rs.map((r) => r.p99)), 2).padStart(6)} | ` +
      `${`${b.fmt(b.median(user), 2)}${userRatio ? ` (${userRatio.toFixed(2)}x)` : ''}`.padEnd(22)} | ` +
      `${(b.median(rs.map((r) => r.serverCpu)) * 100).toFixed(0).padStart(9)}% | ${(b.median(rs.map((r) => r.clientCpu)) * 100).toFixed(0).padStart(9)}% | ` +
      `${`${b.fmt(b.median(rs.map((r) => gcOf(r, 'bytesPerRequest'))))}${v === 'stock' ? '' : ` (${b.fmt(table[v].bytesPerRequest.median, 2)}x)`}`.padEnd(22)} | ` +
      `${b.fmt(b.median(rs.map((r) => gcOf(r, 'scavengesPer1k'))), 2).padStart(7)}`);
  }
  lines.push(...gcLines(runs));
  const all = Object.values(runs).flat();
  const saturated = all.filter((r) => r.clientCpu >= 0.9).length;
  if (saturated > 0) {
    lines.push(`note: the client used >= 90% of a core in ${saturated} of ${all.length} runs: req/s is bounded by the ` +
      'load generator there; the server CPU time per request is the figure to compare.');
  }
  const bad = all.filter((r) => r.errors > 0 || r.timeouts > 0 || r.non2xx > 0).length;
  if (bad > 0) lines.push(`warning: ${bad} runs had errors, timeouts or non-2xx answers.`);
  lines.push(...spread(runs, table));
  return lines.join('\n');
}

// What the GC columns are, how the bytes were counted, and where the
// variants' GC work differs beyond noise.
function gcLines(runs) {
  const all = Object.values(runs).flat().map((r) => r.gc);
  const methods = [...new Set(all.filter(Boolean).map((g) => g.allocMethod))];
  const lines = [`alloc B/req: V8 heap bytes allocated per request in the measured run (not the warm-up), ` +
    `${methods.map(gc.allocMethodText).join('; ') || 'not measured'}`];
  if (methods.includes('counter')) {
    // The figure of the Nodes without the counter, to compare with them.
    const trace = (v) => b.median(runs[v].map((r) => gcOf(r, 'bytesPerRequestTrace')));
    lines.push(`  from V8's GC trace instead (as on Nodes without the counter): ${Object.keys(runs).map((v) =>
      `${v} ${b.fmt(trace(v))}${v === 'stock' ? '' : ` (${b.fmt(trace(v) / trace('stock'), 2)}x)`}`).join(', ')}`);
  }
  lines.push(`scav/1k: scavenges per 1,000 requests in the measured run; ${gc.describe(opts.gc)}`);
  const warnings = gc.warnings(Object.fromEntries(Object.entries(runs).map(([v, rs]) => [v, rs.map((r) => r.gc)])), opts.gc);
  if (warnings.length > 0) {
    lines.push(`${warnings.every((w) => w.alike) ? 'note' : 'warning'}: the GC work differs beyond noise:`, ...warnings.map((w) => `  ${w.text}`));
  }
  return lines;
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
    console.log(report(def, runs, version));
    results.push({ bench: name, label: def.label, runs });
  }
  const stamp = new Date(started).toISOString().replace(/[:.]/g, '-');
  fs.mkdirSync(opts.out, { recursive: true });
  const base = path.join(opts.out, `compare-node${version}-${stamp}`);
  fs.writeFileSync(`${base}.json`, JSON.stringify({ node: version, commit: b.commit(), options: opts, date: new Date(started).toISOString(), cores: b.cores, pinned: b.hasTaskset, results }, null, 2));
  fs.writeFileSync(`${base}.svg`, b.svgChart(`onewrite vs stock, Node ${version}`, chartGroups(results)));
  console.log(`\nraw results: ${path.relative(process.cwd(), base)}.json, chart: ${path.relative(process.cwd(), base)}.svg`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
