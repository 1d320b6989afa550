'use strict';

// The line `npm run bench` (benchmark/compare.js) leads with: the server
// CPU per request against stock when the rounds agree on it, a loss as
// much as a gain; when they disagree, "inconclusive", the spread, the
// user-space figure when that one is steady, and what to do, but never a
// ratio of the disagreeing rounds, which reads as a gain or a loss.

const t = require('tap');
const { headline } = require('../benchmark/lib/headline');
const { SPREAD_LIMIT, median } = require('../cli/compare/stats');

// The per-round ratios to stock as compare.js passes them.
const figure = (xs) => ({ xs, median: median(xs) });
const line = ({ cpu, user, rps = [1.2, 1.21, 1.19], rounds = 3 }) => headline({
  variant: 'onewrite', cpu: figure(cpu), user: figure(user), rps: figure(rps), limit: SPREAD_LIMIT, rounds,
});

t.test('a steady gain: the ratio, per round and its spread', async (t) => {
  const text = line({ cpu: [0.79, 0.8, 0.81], user: [0.74, 0.75, 0.75] });
  t.match(text, /^onewrite: server CPU per request 0\.80x stock \(lower is better; per round 0\.79 0\.80 0\.81, spread 3 %\), req\/s 1\.20x/,
    'the ratio, the rounds, their spread, and req/s');
  t.notMatch(text, /inconclusive/, 'not called inconclusive');
  t.equal(text.split('\n').length, 1, 'one line');
});

t.test('a steady loss is a result: printed as such', async (t) => {
  const text = line({ cpu: [1.1, 1.12, 1.11], user: [1.12, 1.13, 1.12], rps: [0.9, 0.91, 0.9] });
  t.match(text, /^onewrite: server CPU per request 1\.11x stock \(lower is better; per round 1\.10 1\.12 1\.11, spread 2 %\)/,
    'the ratio over 1, as measured');
  t.notMatch(text, /inconclusive/, 'not called inconclusive');
});

t.test('rounds that disagree on CPU, user-space steady: inconclusive, the steady figure named', async (t) => {
  // The busy machine of issue 22: a median of 1.15x, the rounds far apart,
  // user-space CPU per request steady at 0.80x.
  const text = line({ cpu: [0.9, 1.15, 1.7], user: [0.79, 0.8, 0.81] });
  const [first, second, third] = text.split('\n');
  t.match(first, /^onewrite: inconclusive: the rounds disagree on server CPU per request \(per round 0\.90 1\.15 1\.70: a spread of 70 %, over 15 %\)$/,
    'says inconclusive, with the rounds and their spread');
  t.match(second, /user-space CPU per request is steady: 0\.80x stock \(per round 0\.79 0\.80 0\.81, spread 3 %\)/, 'names the steady figure');
  t.match(third, /re-run on a quieter machine, or with more rounds \(--rounds=7\)/, 'and what to do');
  t.notMatch(text, /1\.15x/, 'no median of the disagreeing rounds, which reads as a loss');
  t.notMatch(text, /req\/s \d/, 'nor a req/s ratio of them');
});

t.test('everything spread: inconclusive, no figure to offer', async (t) => {
  const text = line({ cpu: [0.7, 1.0, 1.3], user: [0.6, 0.85, 1.1], rps: [0.8, 1.1, 1.4], rounds: 5 });
  t.match(text, /^onewrite: inconclusive: the rounds disagree on server CPU per request \(per round 0\.70 1\.00 1\.30: a spread of 60 %, over 15 %\), and on user-space CPU per request \(per round 0\.60 0\.85 1\.10: a spread of 59 %\)\n/,
    'says inconclusive, with both spreads');
  t.match(text, /re-run on a quieter machine, or with more rounds \(--rounds=10\)/, 'more rounds than this run had');
  t.notMatch(text, /steady/, 'nothing called steady');
  t.notMatch(text, /\d\.\d\dx/, 'no ratio at all');
});

t.test('no CPU time (no /proc): says so, with req/s', async (t) => {
  const text = line({ cpu: [NaN, NaN, NaN], user: [NaN, NaN, NaN] });
  t.match(text, /^onewrite: no server CPU time \(it is read from \/proc\); req\/s 1\.20x/, 'no NaNx');
});
