'use strict';

// `onewrite compare <app> [options]`: the byte check, then the load rounds,
// then the report and the chart.  main(argv, streams) resolves with the exit
// status: 0 done (the byte check alone, when autocannon is not installed),
// 1 the answers differ or something failed, 2 a wrong command line.
// Results go to `out`; progress and errors to `err`.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { parse, HELP, UsageError } = require('./args');
const { checkPaths, NotActive } = require('./check');
const { findAutocannon, stopClients, MISSING } = require('./load');
const { runRounds, summarise } = require('./rounds');
const { describePinning } = require('./cpu');
const { stopAll } = require('./app');
const { describe } = require('./fastpaths');
const { fmt, fmtRatio } = require('./stats');
const { chart } = require('./svg');

function progressOn(stream) {
  const tty = Boolean(stream.isTTY);
  return {
    step: (text) => stream.write(tty ? `\r\x1b[K${text}` : `${text}\n`),
    done: () => tty && stream.write('\r\x1b[K'),
  };
}

function nodeVersion(node) {
  const r = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new UsageError(`--node=${node} cannot be run: ${r.error ? r.error.message : (r.stderr || '').trim()}`);
  }
  return r.stdout.trim();
}

function checkApp(file) {
  const script = path.resolve(file);
  let stat;
  try {
    stat = fs.statSync(script);
  } catch {
    throw new UsageError(`no such app script: ${file}`);
  }
  if (!stat.isFile()) throw new UsageError(`not a script file: ${file}`);
  return script;
}

// The chart's file: --out, or a new file in the current directory when it
// can be written, or in the temp dir.
function chartFile(out) {
  if (out) return path.resolve(out);
  const name = `onewrite-compare-${new Date().toISOString().replace(/[:.]/g, '-')}.svg`;
  try {
    fs.accessSync(process.cwd(), fs.constants.W_OK);
    return path.join(process.cwd(), name);
  } catch {
    return path.join(os.tmpdir(), name);
  }
}

function reportCheck(results, say) {
  const width = Math.max(...results.map((r) => r.path.length));
  say('Byte check (GET, HTTP/1.1, Connection: close; Date normalised):');
  for (const r of results) {
    const verdict = { identical: 'identical', different: 'DIFFERENT', varies: 'varies   ' }[r.verdict];
    say(`  ${r.path.padEnd(width)}  ${verdict}  ${String(r.bytes).padStart(6)} bytes  ${describe(r.usage)}`);
    if (r.verdict === 'different') {
      const d = r.difference;
      say(`      first difference at byte ${d.offset} (line ${d.line}; lengths ${d.lengths[0]} and ${d.lengths[1]}):`);
      say(`      - stock:    ${d.a}`);
      say(`      + onewrite: ${d.b}`);
    } else if (r.verdict === 'varies') {
      say(`      two stock answers differ already (at byte ${r.difference.offset}, line ${r.difference.line}: ` +
        `${r.difference.a} then ${r.difference.b}): this path's bytes cannot be compared`);
    }
  }
}

function reportRounds(opts, runs, summary, say) {
  say('');
  say(`Load: ${opts.rounds} round${opts.rounds > 1 ? 's' : ''} x ${opts.duration} s per variant ` +
    `(${opts.warmup > 0 ? `after ${opts.warmup} s of warm-up` : 'no warm-up'}), ${opts.connections} connections, ` +
    `${opts.paths.length > 1 ? `paths ${opts.paths.join(', ')} in turn` : `path ${opts.paths[0]}`}; ` +
    'interleaved stock, onewrite, stock, ...');
  say('  round |   stock: CPU/req      req/s | onewrite: CPU/req      req/s | onewrite/stock: CPU/req  req/s');
  runs.stock.forEach((s, i) => {
    const o = runs.onewrite[i];
    say(`  ${String(i + 1).padStart(5)} | ${`${fmt(s.cpuUsPerRequest, 2)} us`.padStart(16)} ${fmt(s.rps).padStart(10)} | ` +
      `${`${fmt(o.cpuUsPerRequest, 2)} us`.padStart(17)} ${fmt(o.rps).padStart(10)} | ` +
      `${fmtRatio(summary.cpu.perRound[i]).padStart(23)} ${fmtRatio(summary.rps.perRound[i]).padStart(6)}`);
  });
  const { cpu, rps } = summary;
  const per = (f) => `per round ${f.perRound.map((x) => fmt(x, 2)).join(' ')}, spread ${(f.spread * 100).toFixed(0)}%`;
  say('');
  say(`Medians of ${opts.rounds} round${opts.rounds > 1 ? 's' : ''}, onewrite/stock as the median of the per-round ratios:`);
  say(`  server CPU per request: stock ${fmt(cpu.stock, 2)} us, onewrite ${fmt(cpu.onewrite, 2)} us, ` +
    `${fmtRatio(cpu.ratio)} (lower is better; ${per(cpu)})`);
  say(`  req/s:                  stock ${fmt(rps.stock)}, onewrite ${fmt(rps.onewrite)}, ` +
    `${fmtRatio(rps.ratio)} (higher is better; ${per(rps)})`);
  if (!Number.isFinite(cpu.stock)) say('note: no CPU time: it is read from /proc/<pid>/stat, which this system lacks.');
  for (const w of summary.warnings) say(w);
}

function writeChart(file, { app, version, opts, summary }) {
  const svg = chart({
    title: `onewrite vs stock Node ${version}: ${path.basename(app)}`,
    subtitle: `${opts.rounds} interleaved rounds x ${opts.duration} s, ${opts.connections} connections, ${opts.paths.join(' ')}`,
    groups: [
      { label: 'server CPU per request (us, lower is better)', unit: 'us', ratio: summary.cpu.ratio,
        bars: [{ label: 'stock', values: summary.cpu.values.stock }, { label: 'onewrite', values: summary.cpu.values.onewrite }] },
      { label: 'requests per second (higher is better)', ratio: summary.rps.ratio,
        bars: [{ label: 'stock', values: summary.rps.values.stock }, { label: 'onewrite', values: summary.rps.values.onewrite }] },
    ],
    footer: `per-round onewrite/stock: CPU/req ${summary.cpu.perRound.map(fmtRatio).join(' ')}; ` +
      `req/s ${summary.rps.perRound.map(fmtRatio).join(' ')}`,
  });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, svg);
}

async function main(argv, { out = process.stdout, err = process.stderr } = {}) {
  const say = (line) => out.write(`${line}\n`);
  const progress = progressOn(err);
  let opts;
  try {
    opts = parse(argv);
    if (opts.help) {
      say(HELP);
      return 0;
    }
    opts.script = checkApp(opts.app);
    opts.version = nodeVersion(opts.node);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.write(`onewrite compare: ${e.message}\n(npx onewrite compare --help for the options)\n`);
    return 2;
  }
  if (/onewrite\/register/.test(process.env.NODE_OPTIONS || '')) {
    err.write('onewrite compare: NODE_OPTIONS preloads onewrite/register, so the stock run would not be stock; ' +
      'run it without that in NODE_OPTIONS\n');
    return 1;
  }

  const app = { script: opts.script, args: opts.appArgs, node: opts.node, fixedPort: opts.port };
  // Interrupted: no app left running behind.
  const onSignal = (signal) => {
    progress.done();
    err.write(`onewrite compare: ${signal}, stopping the app\n`);
    stopClients();
    stopAll().then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    say(`onewrite compare: ${opts.app} on Node ${opts.version}, ${describePinning()}`);
    const { results, status } = await checkPaths({ app, paths: opts.paths, progress: progress.step });
    progress.done();
    say(`onewrite in the app: active${status.mode ? `, mode ${status.mode}` : ''}`);
    say('');
    reportCheck(results, say);
    if (results.some((r) => r.verdict === 'different')) {
      say('');
      say('The answers differ: onewrite must never change a byte, so this is a bug in onewrite. Please report it ' +
        'with the lines above (and your Node version); no load was run. Meanwhile, ONEWRITE_DISABLE=1 turns it off.');
      return 1;
    }
    // Without autocannon the byte check is the whole run: it passed.
    const autocannon = findAutocannon();
    if (autocannon === null) {
      say('');
      say(MISSING);
      return 0;
    }
    const runs = await runRounds({ autocannon, app, opts, progress: progress.step });
    progress.done();
    const summary = summarise(runs);
    reportRounds(opts, runs, summary, say);
    const file = chartFile(opts.out);
    writeChart(file, { app: opts.app, version: opts.version, opts, summary });
    say('');
    say(`chart: ${file}`);
    return 0;
  } catch (e) {
    progress.done();
    err.write(`onewrite compare${e instanceof NotActive ? '' : ' failed'}: ${e.message}\n`);
    return 1;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

module.exports = { main };
