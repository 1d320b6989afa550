'use strict';

// Stock Node against onewrite, end to end: the same server script run
// without and with `-r onewrite/register`, one server at a time, pinned to
// CPU 0 with the load generator (autocannon) pinned to CPU 1, stock and
// onewrite interleaved round after round (A B A B ...).
//
//   npm run bench                      simple, the default: about a minute
//   node benchmark/compare.js --bench=simple,realistic,json,express,fastify,koa
//   options: --rounds=3 --duration=5 --warmup=2 --c=50 --pipelining=1
//            --type=bytes --len=4 --chunks=1 --chunkedEnc=0   (simple's)
//            --ceiling (also a raw net server: the limit of any JS path)
//            --client=wrk (instead of autocannon, where wrk is installed:
//            it needs less CPU, so the server saturates before it does)
//            --node=/path/to/node   --out=benchmark/results
//
// Per benchmark it prints the median req/s with min-max, the onewrite/stock
// ratio of each round and their median, p50/p99 latency, the server's CPU
// time per request (from /proc: a saving shows here even when the client
// saturates), and the client's CPU: on two cores autocannon fills one core
// before Node's server does, and the table says when req/s is bounded by
// the client.  Raw results go to <out>/compare-<node>-<time>.json and a
// chart to the same name .svg.

const fs = require('node:fs');
const path = require('node:path');
const b = require('./lib/bench');
const { server: benchServer } = require('./lib/servers');

const opts = b.parseArgs(process.argv.slice(2), {
  bench: 'simple', rounds: 3, duration: 5, warmup: 2, c: 50, pipelining: 1, client: 'autocannon',
  type: 'bytes', len: 4, chunks: 1, chunkedEnc: 0, ceiling: false,
  node: process.execPath, out: path.join(__dirname, 'results'),
});

const HERE = __dirname;
function benchDef(name) {
  return benchServer(name, { type: opts.type, len: opts.len, chunks: opts.chunks, chunkedEnc: opts.chunkedEnc });
}

async function runOne(def, variant) {
  const ceiling = variant === 'ceiling';
  const server = await b.startServer({
    node: opts.node,
    preload: variant === 'onewrite' ? ['onewrite/register'] : [],
    script: ceiling ? path.join(HERE, 'ceiling.js') : def.script,
    args: ceiling ? [] : def.args,
  });
  try {
    const load = { path: ceiling ? '/' : def.path, connections: opts.c, pipelining: opts.pipelining, client: opts.client };
    if (opts.warmup > 0) await b.measure(server, { ...load, duration: opts.warmup });
    return await b.measure(server, { ...load, duration: opts.duration });
  } finally {
    await server.stop();
  }
}

function ratioList(xs, ys) {
  return xs.map((x, i) => ys[i] / x);
}

function report(def, runs, version) {
  const variants = Object.keys(runs);
  const stock = runs.stock;
  const lines = [];
  lines.push(`\n${def.label} - Node ${version}, ${opts.client}, c=${opts.c}${opts.pipelining > 1 ? ` pipelining=${opts.pipelining}` : ''}, ` +
    `${opts.duration}s x ${opts.rounds} rounds, interleaved; server on CPU 0, client on CPU ${b.cores > 1 ? 1 : 0}${b.hasTaskset ? '' : ' (no taskset: not pinned)'}`);
  lines.push('variant   | req/s median (min-max)  | vs stock, per round (median)   | p50 ms | p99 ms | server CPU us/req (vs stock) | user us/req (vs stock) | server CPU | client CPU');
  for (const v of variants) {
    const rs = runs[v];
    const rps = rs.map((r) => r.rps);
    const us = rs.map((r) => r.serverCpuUs);
    const ratios = v === 'stock' ? null : ratioList(stock.map((r) => r.rps), rps);
    const cpuRatio = v === 'stock' ? null : b.median(us) / b.median(stock.map((r) => r.serverCpuUs));
    const user = rs.map((r) => r.serverUserUs);
    const userRatio = v === 'stock' ? null : b.median(user) / b.median(stock.map((r) => r.serverUserUs));
    lines.push(
      `${v.padEnd(9)} | ${`${b.fmt(b.median(rps))} (${b.fmt(b.min(rps))}-${b.fmt(b.max(rps))})`.padEnd(23)} | ` +
      `${(ratios ? `${ratios.map((x) => x.toFixed(2)).join(' ')} (${b.median(ratios).toFixed(2)}x)` : '').padEnd(30)} | ` +
      `${b.fmt(b.median(rs.map((r) => r.p50)), 2).padStart(6)} | ${b.fmt(b.median(rs.map((r) => r.p99)), 2).padStart(6)} | ` +
      `${`${b.fmt(b.median(us), 2)}${cpuRatio ? ` (${cpuRatio.toFixed(2)}x)` : ''}`.padEnd(28)} | ` +
      `${`${b.fmt(b.median(user), 2)}${userRatio ? ` (${userRatio.toFixed(2)}x)` : ''}`.padEnd(22)} | ` +
      `${(b.median(rs.map((r) => r.serverCpu)) * 100).toFixed(0).padStart(8)}%  | ${(b.median(rs.map((r) => r.clientCpu)) * 100).toFixed(0).padStart(8)}%`);
  }
  const all = Object.values(runs).flat();
  const saturated = all.filter((r) => r.clientCpu >= 0.9).length;
  if (saturated > 0) {
    lines.push(`note: the client used >= 90% of a core in ${saturated} of ${all.length} runs: req/s is bounded by the ` +
      'load generator there; the server CPU time per request is the figure to compare.');
  }
  const bad = all.filter((r) => r.errors > 0 || r.timeouts > 0 || r.non2xx > 0).length;
  if (bad > 0) lines.push(`warning: ${bad} runs had errors, timeouts or non-2xx answers.`);
  return lines.join('\n');
}

async function main() {
  if (opts.client === 'wrk' && !b.hasWrk) throw new Error('wrk is not installed (apt-get install wrk)');
  if (opts.client === 'wrk' && opts.pipelining > 1) throw new Error('--pipelining needs autocannon');
  const version = b.nodeVersion(opts.node);
  const names = String(opts.bench).split(',');
  const variants = ['stock', 'onewrite', ...(opts.ceiling ? ['ceiling'] : [])];
  const results = [];
  const started = Date.now();
  const total = names.length * opts.rounds * variants.length;
  let done = 0;
  for (const name of names) {
    const def = benchDef(name);
    const runs = Object.fromEntries(variants.map((v) => [v, []]));
    for (let round = 0; round < opts.rounds; round++) {
      for (const v of variants) {
        b.progress(`[${++done}/${total}] ${name}, round ${round + 1}/${opts.rounds}: ${v} ...`);
        const r = await runOne(def, v);
        runs[v].push(r);
        b.progress(`[${done}/${total}] ${name}, round ${round + 1}/${opts.rounds}: ${v} ${b.fmt(r.rps)} req/s, ` +
          `${r.serverCpuUs.toFixed(2)} us/req server CPU, client ${(r.clientCpu * 100).toFixed(0)}%`);
      }
    }
    b.progressDone();
    const text = report(def, runs, version);
    console.log(text);
    results.push({ bench: name, label: def.label, runs });
  }
  const stamp = new Date(started).toISOString().replace(/[:.]/g, '-');
  fs.mkdirSync(opts.out, { recursive: true });
  const base = path.join(opts.out, `compare-node${version}-${stamp}`);
  fs.writeFileSync(`${base}.json`, JSON.stringify({ node: version, options: opts, date: new Date(started).toISOString(), cores: b.cores, pinned: b.hasTaskset, results }, null, 2));
  const groups = [];
  for (const r of results) {
    groups.push({ label: `${r.label}: req/s`, unit: 'higher is better', bars: Object.entries(r.runs).map(([v, rs]) => ({ label: v, values: rs.map((x) => x.rps) })) });
    groups.push({ label: `${r.label}: server CPU`, unit: 'us per request, lower is better', bars: Object.entries(r.runs).map(([v, rs]) => ({ label: v, values: rs.map((x) => x.serverCpuUs) })) });
  }
  fs.writeFileSync(`${base}.svg`, b.svgChart(`onewrite vs stock, Node ${version}`, groups));
  console.log(`\nraw results: ${path.relative(process.cwd(), base)}.json, chart: ${path.relative(process.cwd(), base)}.svg`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
