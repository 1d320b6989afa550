'use strict';

// The line compare.js's report leads with, per variant: its server CPU
// time per request against stock, when the rounds agree on it.  When they
// do not (their ratios spread over the limit), the median of the rounds
// would read as a gain or a loss they do not show: the line then says the
// run is inconclusive, names the spread and, when it is steady, the
// user-space CPU per request (onewrite saves user-space work; the busy
// machine's noise lands in system time too), and what to do.

const { spread: spreadOf } = require('../../cli/compare/stats');

const times = (r) => `${r.toFixed(2)}x`;
const perRound = (xs) => xs.map((r) => r.toFixed(2)).join(' ');
const percent = (s) => `${(s * 100).toFixed(0)} %`;

// What a re-run needs.
function advice(rounds) {
  return `  re-run on a quieter machine, or with more rounds (--rounds=${Math.max(7, rounds * 2)}); ` +
    'instruction counts, which the noise does not move: npm run bench:instr';
}

// `cpu`, `user` (user-space CPU) and `rps`: the per-round ratios of
// `variant` to stock, { xs, median }; `limit`: the spread over which the
// rounds disagree; `rounds`: how many there were.  One line, or three
// when the run is inconclusive.
function headline({ variant, cpu, user, rps, limit, rounds }) {
  const rpsText = `req/s ${times(rps.median)} (per round ${perRound(rps.xs)})`;
  if (!Number.isFinite(cpu.median)) return `${variant}: no server CPU time (it is read from /proc); ${rpsText}`;
  const cpuSpread = spreadOf(cpu.xs);
  if (cpuSpread <= limit) {
    return `${variant}: server CPU per request ${times(cpu.median)} stock (lower is better; per round ` +
      `${perRound(cpu.xs)}, spread ${percent(cpuSpread)}), ${rpsText}`;
  }
  const disagree = `${variant}: inconclusive: the rounds disagree on server CPU per request (per round ` +
    `${perRound(cpu.xs)}: a spread of ${percent(cpuSpread)}, over ${percent(limit)})`;
  const userSpread = spreadOf(user.xs);
  if (Number.isFinite(user.median) && userSpread <= limit) {
    return [disagree,
      `  user-space CPU per request is steady: ${times(user.median)} stock (per round ${perRound(user.xs)}, ` +
        `spread ${percent(userSpread)})`,
      advice(rounds)].join('\n');
  }
  return [`${disagree}, and on user-space CPU per request (per round ${perRound(user.xs)}: ` +
    `a spread of ${percent(userSpread)})`, advice(rounds)].join('\n');
}

module.exports = { headline };
