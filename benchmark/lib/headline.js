'use strict';

// The lines compare.js's report leads with, per variant: its server CPU
// time per request against stock first, with every round's ratio and
// their spread, when the rounds agree on it; then req/s, the secondary
// figure, with its caveat (noisy, and on a machine of two cores often
// bounded by the load generator, which shares it).  When the rounds do
// not agree on CPU (their ratios spread over the limit), the median of
// the rounds would read as a gain or a loss they do not show: the lines
// then say the run is inconclusive, name the spread and, when it is
// steady, the user-space CPU per request (onewrite saves user-space work;
// the busy machine's noise lands in system time too), and what to do.
//
// Every line at most WIDTH columns (wrap()), whatever the rounds and the
// variant's name; lib/report.js wraps the rest of the report with wrap() too.

const { spread: spreadOf } = require('../../cli/compare/stats');

const WIDTH = 100;

const times = (r) => `${r.toFixed(2)}x`;
const perRound = (xs) => xs.map((r) => r.toFixed(2)).join(' ');
const percent = (s) => `${(s * 100).toFixed(0)} %`;

// `text`, each of its lines broken at spaces into lines of at most `width`
// columns; a line's continuations are indented two more than the line.  A
// word longer than a line (a long file name) stays whole.
function wrap(text, width = WIDTH) {
  const out = [];
  for (const line of String(text).split('\n')) {
    const indent = /^ */.exec(line)[0];
    const more = `${indent}  `;
    const words = line.slice(indent.length).split(' ');
    let current = indent + words.shift();
    for (const word of words) {
      if (current.length + 1 + word.length > width && current.trim() !== '') {
        out.push(current);
        current = more + word;
      } else {
        current += ` ${word}`;
      }
    }
    out.push(current);
  }
  return out.join('\n');
}

// `head` and `tail` on one line when it fits, else `tail` on a line of
// its own under `head`, indented as `indent`.
function fit(head, tail, indent) {
  const line = `${head} ${tail}`;
  return line.length <= WIDTH ? line : `${head}\n${indent}${tail}`;
}

// What a re-run needs.
function advice(rounds) {
  return `  re-run on a quieter machine, or with more rounds (--rounds=${Math.max(7, rounds * 2)});\n` +
    '  or count instructions, which the noise does not move: npm run bench:instr';
}

// req/s, the secondary figure, beside its caveat.
function rpsLine(rps, cores) {
  const shares = { 1: 'the one core', 2: 'these 2 cores' }[cores] || 'the machine';
  return fit(`  req/s ${times(rps.median)} (secondary, noisy: the load generator shares ${shares}):`,
    `per round ${perRound(rps.xs)}`, '    ');
}

// `cpu`, `user` (user-space CPU) and `rps`: the per-round ratios of
// `variant` to stock, { xs, median }; `limit`: the spread over which the
// rounds disagree; `rounds`: how many there were; `cores`: the machine's.
// The server CPU line first, then req/s; or, when the run is inconclusive,
// what the rounds disagree on and what to do, and no ratio of the
// disagreeing rounds.
function headline({ variant, cpu, user, rps, limit, rounds, cores = 0 }) {
  if (!Number.isFinite(cpu.median)) {
    return wrap(`${variant}: no server CPU time (it is read from /proc)\n${rpsLine(rps, cores)}`);
  }
  const cpuSpread = spreadOf(cpu.xs);
  if (cpuSpread <= limit) {
    const cpuLine = fit(`${variant}: server CPU/req ${times(cpu.median)} stock (lower is better), ` +
      `spread ${percent(cpuSpread)}:`, `per round ${perRound(cpu.xs)}`, '  ');
    return wrap(`${cpuLine}\n${rpsLine(rps, cores)}`);
  }
  const lines = [`${variant}: inconclusive: the rounds disagree on server CPU per request`,
    `  spread ${percent(cpuSpread)} (over ${percent(limit)}): per round ${perRound(cpu.xs)}`];
  const userSpread = spreadOf(user.xs);
  if (Number.isFinite(user.median) && userSpread <= limit) {
    lines.push(`  user-space CPU per request is steady: ${times(user.median)} stock, ` +
      `spread ${percent(userSpread)}: per round ${perRound(user.xs)}`);
  } else {
    lines.push(`  and on user-space CPU per request: spread ${percent(userSpread)}: per round ${perRound(user.xs)}`);
  }
  lines.push(advice(rounds));
  return wrap(lines.join('\n'));
}

module.exports = { headline, wrap, WIDTH };
