'use strict';

// The interleaved rounds: stock, onewrite, stock, onewrite, ... each run a
// fresh start of the app (so an app on a fixed port works too, and no run
// inherits another's heap), warmed up, then measured; and what they add up
// to: medians, per-round ratios, their spread, and the warnings they call
// for.

const { startApp } = require('./app');
const { measure } = require('./load');
const { median, ratios, spread, SPREAD_LIMIT } = require('./stats');

const VARIANTS = ['stock', 'onewrite'];

// { stock: [result per round], onewrite: [...] }; `progress(text)` is told
// of each step.
async function runRounds({ autocannon, app, opts, progress }) {
  const runs = { stock: [], onewrite: [] };
  const total = opts.rounds * VARIANTS.length;
  let step = 0;
  for (let round = 1; round <= opts.rounds; round++) {
    for (const variant of VARIANTS) {
      step++;
      const where = `[${step}/${total}] round ${round}/${opts.rounds}, ${variant}`;
      progress(`${where}: starting the app ...`);
      const server = await startApp({ ...app, onewrite: variant === 'onewrite' });
      try {
        const load = { paths: opts.paths, connections: opts.connections };
        if (opts.warmup > 0) {
          progress(`${where}: warm-up, ${opts.warmup} s ...`);
          await measure(autocannon, server, { ...load, seconds: opts.warmup });
        }
        progress(`${where}: measuring, ${opts.duration} s ...`);
        const r = await measure(autocannon, server, { ...load, seconds: opts.duration });
        if (r.requests === 0) throw new Error(`${server.label} answered no request in ${opts.duration} s of load`);
        runs[variant].push(r);
      } finally {
        await server.stop();
      }
    }
  }
  return runs;
}

// The figures of the rounds, and the warnings they call for.
function summarise(runs) {
  const figure = (key) => {
    const stock = runs.stock.map((r) => r[key]);
    const onewrite = runs.onewrite.map((r) => r[key]);
    const perRound = ratios(stock, onewrite);
    return { stock: median(stock), onewrite: median(onewrite), perRound, ratio: median(perRound), spread: spread(perRound),
      values: { stock, onewrite } };
  };
  const cpu = figure('cpuUsPerRequest');
  const rps = figure('rps');
  const all = [...runs.stock, ...runs.onewrite];
  const warnings = [];
  const rounds = runs.stock.length;
  for (const [what, f] of [['CPU/request', cpu], ['req/s', rps]]) {
    if (f.spread > SPREAD_LIMIT) {
      warnings.push(`warning: the rounds disagree on ${what}: per-round ratios ` +
        `${Math.min(...f.perRound).toFixed(2)}-${Math.max(...f.perRound).toFixed(2)}, a spread of ` +
        `${(f.spread * 100).toFixed(0)}% (over ${SPREAD_LIMIT * 100}%): the machine was busy or the rounds too short; ` +
        `run more rounds (--rounds=${Math.max(10, rounds * 2)}) or longer ones (--duration=10).`);
    }
  }
  if (rounds < 3) warnings.push(`note: ${rounds} round${rounds > 1 ? 's' : ''} per variant: too few to tell a gain from noise (--rounds=5 or more).`);
  const saturated = all.filter((r) => r.clientCpu >= 0.9).length;
  if (saturated > 0) {
    warnings.push(`note: autocannon kept its core >= 90% busy in ${saturated} of ${all.length} runs: req/s is bounded ` +
      'by the load generator there; the server CPU time per request is the figure to compare.');
  }
  const bad = all.filter((r) => r.errors > 0 || r.timeouts > 0).length;
  if (bad > 0) warnings.push(`warning: ${bad} of ${all.length} runs had connection errors or timeouts.`);
  const non2xx = all.filter((r) => r.non2xx > 0).length;
  if (non2xx > 0) warnings.push(`note: ${non2xx} of ${all.length} runs had answers other than 2xx (is every --path right?).`);
  return { cpu, rps, warnings };
}

module.exports = { runRounds, summarise };
