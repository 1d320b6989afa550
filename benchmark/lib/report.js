'use strict';

// The report benchmark/compare.js prints per benchmark: the lines it leads
// with (lib/headline.js: server CPU per request against stock first, with
// every round's ratio and their spread, then req/s beside its caveat),
// what may make them mislead (a client that saturated, runs with errors,
// rounds that disagree), then three tables (server CPU, the load, the GC)
// and what the GC columns are.  Every line at most 100 columns
// (headline.js's wrap()), so that it reads in a terminal of that width.
//
// `runs`: { [variant]: [one result per round] }, stock first, each with
// serverCpuUs, serverUserUs, rps, p50, p99, serverCpu, clientCpu and gc
// (lib/gc.js's figures, or null); `opts`: compare.js's options.

const b = require('./bench');
const gc = require('./gc');
const { headline, wrap } = require('./headline');

// Per-round ratios whose spread ((max - min) / median) is above this, or a
// round further than this from its variant's median: a warning.  The limit
// and the formula are `onewrite compare`'s (cli/compare/stats.js).
const { spread: spreadOf, SPREAD_LIMIT } = require('../../cli/compare/stats');

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

// Warnings when the rounds disagree: per-round ratios spread over
// SPREAD_LIMIT, and any round further than that from the median of its
// variant (one stock round at 579 req/s against 17k in the others).
function spread(runs, table, opts) {
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
    `  so the medians may mislead: rerun with more rounds (--rounds=${Math.max(7, opts.rounds * 2)}), ` +
    'or count instructions, which the noise does not move: npm run bench:instr'];
}

// The variant's figure `key`: its median, with the range of its rounds.
function medianRange(rs, key, digits) {
  const xs = rs.map((r) => r[key]);
  return `${b.fmt(b.median(xs), digits)} (${b.fmt(b.min(xs), digits)}-${b.fmt(b.max(xs), digits)})`;
}

// A variant's ratio to stock: the median of the per-round ratios, with
// their range (every round's ratio is in the lines the report leads with,
// and in the JSON).
const ratioRange = (r) => `${r.median.toFixed(2)}x (${b.min(r.xs).toFixed(2)}-${b.max(r.xs).toFixed(2)})`;

// A table of the variants: `columns`, [header, cell(variant, runs), right]
// (cell is '' for stock's ratios; `right` aligns it right); each column as
// wide as its widest cell.
function table(runs, columns) {
  const all = [['variant', (v) => v, false], ...columns];
  const rows = [all.map(([header]) => header), ...Object.keys(runs).map((v) => all.map(([, cell]) => cell(v, runs[v])))];
  const widths = all.map((c, i) => Math.max(...rows.map((r) => r[i].length), i === 0 ? 13 : 0));
  return rows.map((r) => r.map((text, i) => (all[i][2] ? text.padStart(widths[i]) : text.padEnd(widths[i]))).join(' | ').trimEnd());
}

function report(def, runs, version, opts, { cores = b.cores, hasTaskset = b.hasTaskset } = {}) {
  const stock = runs.stock;
  const lines = [];
  lines.push(`\n${def.label} - Node ${version}`);
  lines.push(`  ${opts.client}, c=${opts.c}${opts.pipelining > 1 ? ` pipelining=${opts.pipelining}` : ''}, ` +
    `${opts.duration}s x ${opts.rounds} rounds, interleaved; server on CPU 0, client on CPU ${cores > 1 ? 1 : 0}` +
    `${hasTaskset ? '' : ' (no taskset: not pinned)'}`);
  const ratiosOf = ratioTable(runs);
  for (const [v, { serverCpuUs: cpu, serverUserUs: user, rps }] of Object.entries(ratiosOf)) {
    lines.push(headline({ variant: v, cpu, user, rps, limit: SPREAD_LIMIT, rounds: opts.rounds, cores }));
  }
  // What may make those figures mislead, under them rather than under the tables.
  const all = Object.values(runs).flat();
  const saturated = all.filter((r) => r.clientCpu >= 0.9).length;
  if (saturated > 0) {
    lines.push(`note: the client used >= 90% of a core in ${saturated} of ${all.length} runs: req/s is bounded by the ` +
      'load generator there; the server CPU time per request is the figure to compare.');
  }
  const bad = all.filter((r) => r.errors > 0 || r.timeouts > 0 || r.non2xx > 0).length;
  if (bad > 0) lines.push(`warning: ${bad} runs had errors, timeouts or non-2xx answers.`);
  lines.push(...spread(runs, ratiosOf, opts));
  lines.push('');
  const vs = (key) => (v) => (v === 'stock' ? '' : ratioRange(ratiosOf[v][key]));
  const stockUser = b.median(stock.map((r) => r.serverUserUs));
  const percentOf = (key) => (v, rs) => `${(b.median(rs.map((r) => r[key])) * 100).toFixed(0)}%`;
  lines.push(...table(runs, [
    ['server CPU us/req (min-max)', (v, rs) => medianRange(rs, 'serverCpuUs', 2)],
    ['vs stock (min-max)', vs('serverCpuUs')],
    ['user us/req (vs stock)', (v, rs) => {
      const user = b.median(rs.map((r) => r.serverUserUs));
      return `${b.fmt(user, 2)}${v === 'stock' ? '' : ` (${(user / stockUser).toFixed(2)}x)`}`;
    }],
    ['busy', percentOf('serverCpu'), true],
  ]));
  lines.push(...table(runs, [
    ['req/s (min-max)', (v, rs) => medianRange(rs, 'rps', 0)],
    ['vs stock (min-max)', vs('rps')],
    ['p50 ms', (v, rs) => b.fmt(b.median(rs.map((r) => r.p50)), 2), true],
    ['p99 ms', (v, rs) => b.fmt(b.median(rs.map((r) => r.p99)), 2), true],
    ['client busy', percentOf('clientCpu'), true],
  ]));
  lines.push(...table(runs, [
    ['alloc B/req (vs stock)', (v, rs) => `${b.fmt(b.median(rs.map((r) => gcOf(r, 'bytesPerRequest'))))}` +
      `${v === 'stock' ? '' : ` (${b.fmt(ratiosOf[v].bytesPerRequest.median, 2)}x)`}`],
    ['scav/1k', (v, rs) => b.fmt(b.median(rs.map((r) => gcOf(r, 'scavengesPer1k'))), 2), true],
  ]));
  lines.push(...gcLines(runs, opts));
  return wrap(lines.join('\n'));
}

// What the GC columns are, how the bytes were counted, and where the
// variants' GC work differs beyond noise.
function gcLines(runs, opts) {
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

module.exports = { report, ratioTable, gcOf };
