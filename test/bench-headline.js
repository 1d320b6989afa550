'use strict';

// What `npm run bench` (benchmark/compare.js) leads with: the server CPU
// per request against stock, with every round's ratio and their spread,
// when the rounds agree on it, a loss as much as a gain; then req/s, on
// the next line, beside its caveat (secondary, noisy where the load
// generator shares the machine).  When the rounds disagree on CPU:
// "inconclusive", the spread, the user-space figure when that one is
// steady, and what to do, but never a ratio of the disagreeing rounds,
// which reads as a gain or a loss.  Every line of the report, headline and
// tables, at most 100 columns, whatever the rounds and the variants.

const t = require('tap');
const { headline, WIDTH } = require('../benchmark/lib/headline');
const { report } = require('../benchmark/lib/report');
const { SPREAD_LIMIT, median } = require('../cli/compare/stats');

// The per-round ratios to stock as compare.js passes them.
const figure = (xs) => ({ xs, median: median(xs) });
const line = ({ cpu, user, rps = [1.2, 1.21, 1.19], rounds = 3, variant = 'onewrite', cores = 2 }) => headline({
  variant, cpu: figure(cpu), user: figure(user), rps: figure(rps), limit: SPREAD_LIMIT, rounds, cores,
});

function fits(t, text, what) {
  const long = text.split('\n').filter((l) => l.length > WIDTH);
  t.same(long, [], `${what}: every line at most ${WIDTH} columns`);
}

t.test('a steady gain: the CPU ratio first, with its rounds and spread; req/s next, with its caveat', async (t) => {
  t.equal(WIDTH, 100, 'the width is 100 columns');
  const text = line({ cpu: [0.79, 0.8, 0.81], user: [0.74, 0.75, 0.75] });
  const [cpu, rps, ...rest] = text.split('\n');
  t.match(cpu, /^onewrite: server CPU\/req 0\.80x stock \(lower is better\), spread 3 %: per round 0\.79 0\.80 0\.81$/,
    'first: the CPU ratio, its spread, every round');
  t.match(rps, /^ {2}req\/s 1\.20x \(secondary, noisy: the load generator shares these 2 cores\): per round 1\.20 1\.21 1\.19$/,
    'then req/s, beside its caveat');
  t.same(rest, [], 'two lines');
  t.notMatch(text, /inconclusive/, 'not called inconclusive');
  fits(t, text, 'a steady gain');
});

t.test('a steady loss is a result: printed as such', async (t) => {
  const text = line({ cpu: [1.1, 1.12, 1.11], user: [1.12, 1.13, 1.12], rps: [0.9, 0.91, 0.9] });
  t.match(text, /^onewrite: server CPU\/req 1\.11x stock \(lower is better\), spread 2 %: per round 1\.10 1\.12 1\.11\n {2}req\/s 0\.90x \(secondary/,
    'the ratio over 1, as measured, then req/s');
  t.notMatch(text, /inconclusive/, 'not called inconclusive');
});

t.test('the noisy run of issue 40: CPU steady, req/s all over: the CPU ratio leads, req/s is the caveat\'s', async (t) => {
  const text = line({ cpu: [0.91, 0.84, 0.96], user: [0.8, 0.79, 0.81], rps: [1.45, 0.71, 1.63] });
  const lines = text.split('\n');
  t.match(lines[0], /^onewrite: server CPU\/req 0\.91x stock \(lower is better\), spread 13 %: per round 0\.91 0\.84 0\.96$/);
  t.match(lines[1], /^ {2}req\/s 1\.45x \(secondary, noisy: [^)]*\): per round 1\.45 0\.71 1\.63$/);
  t.ok(text.indexOf('server CPU') < text.indexOf('req/s'), 'CPU before req/s');
  fits(t, text, 'issue 40\'s run');
});

t.test('many rounds, a long variant name: still 100 columns, the rounds on lines of their own', async (t) => {
  const ten = [0.79, 0.8, 0.81, 0.8, 0.78, 0.82, 0.8, 0.79, 0.81, 0.8];
  const text = line({ variant: 'floor-nodrain', cpu: ten, user: ten, rps: ten.map((x) => x + 0.4), rounds: 10 });
  fits(t, text, '10 rounds');
  t.match(text, /^floor-nodrain: server CPU\/req 0\.80x stock \(lower is better\), spread 5 %:\n {2}per round 0\.79 0\.80 /,
    'the ratio and its spread first, the rounds under them');
  t.match(text, /\n {2}req\/s 1\.20x \(secondary, noisy: [^)]*\):\n {4}per round 1\.19 1\.20 /, 'then req/s with its caveat');
  for (const cores of [1, 2, 8]) {
    const caveat = /\(secondary, noisy: the load generator shares ([^)]*)\)/.exec(line({ cpu: [0.8, 0.8, 0.8], user: [0.8, 0.8, 0.8], cores }));
    t.match(caveat && caveat[1], { 1: 'the one core', 2: 'these 2 cores', 8: 'the machine' }[cores], `${cores} cores: said so`);
  }
  // The inconclusive lines too.
  const spreadOut = [0.7, 1.0, 1.3, 0.75, 1.25, 0.9, 1.1, 0.8, 1.2, 1.05];
  fits(t, line({ variant: 'floor-nodrain', cpu: spreadOut, user: spreadOut, rounds: 10 }), 'inconclusive, 10 rounds');
  fits(t, line({ variant: 'floor-nodrain', cpu: spreadOut, user: ten, rounds: 10 }), 'inconclusive, user steady, 10 rounds');
});

t.test('rounds that disagree on CPU, user-space steady: inconclusive, the steady figure named', async (t) => {
  // The busy machine of issue 22: a median of 1.15x, the rounds far apart,
  // user-space CPU per request steady at 0.80x.
  const text = line({ cpu: [0.9, 1.15, 1.7], user: [0.79, 0.8, 0.81] });
  const [first, second, third, ...advice] = text.split('\n');
  t.match(first, /^onewrite: inconclusive: the rounds disagree on server CPU per request$/, 'says inconclusive first');
  t.match(second, /^ {2}spread 70 % \(over 15 %\): per round 0\.90 1\.15 1\.70$/, 'with the spread and the rounds');
  t.match(third, /^ {2}user-space CPU per request is steady: 0\.80x stock, spread 3 %: per round 0\.79 0\.80 0\.81$/, 'names the steady figure');
  t.match(advice.join('\n'), /re-run on a quieter machine, or with more rounds \(--rounds=7\)/, 'and what to do');
  t.notMatch(text, /1\.15x/, 'no median of the disagreeing rounds, which reads as a loss');
  t.notMatch(text, /req\/s \d/, 'nor a req/s ratio of them');
  fits(t, text, 'inconclusive');
});

t.test('everything spread: inconclusive, no figure to offer', async (t) => {
  const text = line({ cpu: [0.7, 1.0, 1.3], user: [0.6, 0.85, 1.1], rps: [0.8, 1.1, 1.4], rounds: 5 });
  t.match(text, /^onewrite: inconclusive: the rounds disagree on server CPU per request\n {2}spread 60 % \(over 15 %\): per round 0\.70 1\.00 1\.30\n {2}and on user-space CPU per request: spread 59 %: per round 0\.60 0\.85 1\.10\n/,
    'says inconclusive, with both spreads');
  t.match(text, /re-run on a quieter machine, or with more rounds \(--rounds=10\)/, 'more rounds than this run had');
  t.notMatch(text, /steady/, 'nothing called steady');
  t.notMatch(text, /\d\.\d\dx/, 'no ratio at all');
  fits(t, text, 'everything spread');
});

t.test('no CPU time (no /proc): says so first, then req/s with its caveat', async (t) => {
  const text = line({ cpu: [NaN, NaN, NaN], user: [NaN, NaN, NaN] });
  t.match(text, /^onewrite: no server CPU time \(it is read from \/proc\)\n {2}req\/s 1\.20x \(secondary, noisy: /, 'no NaNx');
  fits(t, text, 'no CPU time');
});

// One round of a variant as compare.js records it (the figures of a run
// on this project's two-core machine).
function round({ cpu, user, rps, client, bytes, scavenges }) {
  const requests = Math.round(rps * 5);
  return {
    requests, rps, duration: 5, p50: 0.416599, p99: 5.713469, errors: 0, timeouts: 0, non2xx: 0,
    clientCpu: client, serverCpuUs: cpu, serverUserUs: user, serverCpu: 0.71,
    gc: {
      requests, scavenges: Math.round((scavenges * requests) / 1000), markCompacts: 0, otherGcs: 0,
      scavengesPer1k: scavenges, markCompactsPer1k: 0, bytesPerRequest: bytes, allocMethod: 'trace',
      bytesPerScavenge: (bytes * 1000) / scavenges, youngStart: 4123520, youngEnd: 8247040,
    },
  };
}

t.test('the whole report: the headline first, what may mislead under it, then the tables; 100 columns', async (t) => {
  const opts = { client: 'autocannon', c: 50, pipelining: 1, duration: 5, rounds: 3, gc: 'default' };
  const def = { label: 'simple (type=bytes len=4 chunks=1 chunkedEnc=0)' };
  // Issue 40's run: req/s 1.45x, rounds 1.45 0.71 1.63; the client saturated in two.
  const runs = {
    stock: [
      round({ cpu: 9.28, user: 5.66, rps: 61700, client: 0.57, bytes: 6213, scavenges: 1.15 }),
      round({ cpu: 9.53, user: 5.71, rps: 114600, client: 0.97, bytes: 6230, scavenges: 1.24 }),
      round({ cpu: 8.54, user: 5.4, rps: 59400, client: 0.56, bytes: 6220, scavenges: 0.98 }),
    ],
    onewrite: [
      round({ cpu: 8.45, user: 4.5, rps: 89465, client: 0.78, bytes: 4743, scavenges: 0.91 }),
      round({ cpu: 8.01, user: 4.36, rps: 81366, client: 0.7, bytes: 4700, scavenges: 0.9 }),
      round({ cpu: 8.2, user: 4.3, rps: 96822, client: 0.98, bytes: 4750, scavenges: 0.92 }),
    ],
  };
  const text = report(def, runs, '20.20.2', opts, { cores: 2, hasTaskset: true });
  t.comment(text);
  fits(t, text, 'the report');
  const lines = text.split('\n').filter((l) => l !== '');
  t.match(lines[0], /^simple \(type=bytes len=4 chunks=1 chunkedEnc=0\) - Node 20\.20\.2$/, 'the server and the Node');
  t.match(lines[1], /^ {2}autocannon, c=50, 5s x 3 rounds, interleaved; server on CPU 0, client on CPU 1$/, 'how it ran');
  t.match(lines[2], /^onewrite: server CPU\/req 0\.91x stock \(lower is better\), spread 13 %: per round 0\.91 0\.84 0\.96$/,
    'then the CPU ratio, with its spread');
  t.match(lines[3], /^ {2}req\/s 1\.45x \(secondary, noisy: the load generator shares these 2 cores\): per round 1\.45 0\.71 1\.63$/,
    'then req/s, with its caveat');
  const at = (re) => lines.findIndex((l) => re.test(l));
  const tables = at(/^variant +\| server CPU us\/req \(min-max\) \| vs stock \(min-max\) \| user us\/req \(vs stock\) \| +busy$/);
  t.ok(tables > 3, 'the server CPU table');
  t.ok(at(/^note: the client used >= 90% of a core in 2 of 6 runs/) < tables, 'the saturated client said before the tables');
  t.ok(at(/^warning: the rounds disagree by more than 15 %/) > 3 && at(/^warning: the rounds disagree/) < tables,
    'the spread warning too, under the headline');
  t.match(lines[tables + 2], /^onewrite +\| 8\.20 \(8\.01-8\.45\) +\| 0\.91x \(0\.84-0\.96\) +\| 4\.36 \(0\.77x\) +\| +71%$/, 'onewrite\'s row');
  t.ok(at(/^variant +\| req\/s \(min-max\) +\| vs stock \(min-max\) \| p50 ms \| p99 ms \| client busy$/) > tables, 'the load table');
  t.ok(at(/^variant +\| alloc B\/req \(vs stock\) \| scav\/1k$/) > tables, 'the GC table');
  t.match(text, /^onewrite +\| 4743 \(0\.76x\) +\| +0\.91$/m, 'bytes per request and scavenges');

  // More rounds and variants: the lines still fit.
  const seven = (rs) => [...rs, ...rs, rs[0]];
  const wide = {
    stock: seven(runs.stock), onewrite: seven(runs.onewrite), floor: seven(runs.onewrite), 'floor-nodrain': seven(runs.onewrite),
  };
  fits(t, report(def, wide, '26.12.1', { ...opts, rounds: 7, gc: 'pinned' }, { cores: 2, hasTaskset: false }), '7 rounds, 4 variants');
});
