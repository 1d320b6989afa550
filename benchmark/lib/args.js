'use strict';

// The command line of every benchmark script (and of scripts/soak.js):
// --name=value over defaults.  A value is a number where the default is
// one, a boolean where the default is one (a bare --name is true; =false,
// =0, =no turn it off), a string otherwise.
//
//   const opts = parseArgs(process.argv.slice(2), { rounds: 3, bench: 'simple' },
//     { script: __filename, help: { rounds: 'interleaved rounds' },
//       choices: { client: ['autocannon', 'wrk'] },      one value of a list
//       lists: { bench: ['simple', 'json'] } });          comma-separated values of a list
//
// --help (or -h) prints the script's header comment and its options with
// their defaults, then exits 0 and runs nothing.  An unknown option (with a
// guess at the one meant), a bad value, a value not among its choices or a
// stray argument exits 2 with the list of valid options.  Loads nothing but node:fs and node:path: the
// servers the runners start use it too.

const fs = require('node:fs');
const path = require('node:path');

const TRUE = new Set(['', 'true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

function parseArgs(argv, defaults, meta = {}) {
  const script = meta.script || (require.main && require.main.filename) || 'script';
  const names = Object.keys(defaults);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage(script, defaults, meta));
    process.exit(0);
  }
  const out = { ...defaults };
  for (const a of argv) {
    const m = /^--([^=]+)(?:=([\s\S]*))?$/.exec(a);
    if (!m) fail(script, names, `unexpected argument ${JSON.stringify(a)}`);
    const [, name, raw] = m;
    if (!Object.hasOwn(defaults, name)) fail(script, names, `unknown option --${name}${guess(name, names)}`);
    const v = convert(defaults[name], raw);
    if (v === undefined) fail(script, names, `--${name}${raw === undefined ? '' : `=${raw}`}: ${expected(defaults[name])}`);
    const choices = meta.choices && meta.choices[name];
    if (choices && !choices.includes(v)) fail(script, names, `--${name}=${v}: one of ${choices.join(', ')}`);
    const list = meta.lists && meta.lists[name];
    const wrong = list ? String(v).split(',').filter((x) => !list.includes(x)) : [];
    if (wrong.length > 0) fail(script, names, `--${name}: unknown ${wrong.join(', ')}; comma-separated, of: ${list.join(', ')}`);
    out[name] = v;
  }
  return out;
}

// The value of `raw` for an option whose default is `def`, or undefined
// when it is not one.
function convert(def, raw) {
  if (typeof def === 'boolean') {
    if (raw === undefined || TRUE.has(raw)) return true;
    return FALSE.has(raw) ? false : undefined;
  }
  if (raw === undefined || raw === '') return undefined;
  if (typeof def === 'number') return Number.isFinite(Number(raw)) ? Number(raw) : undefined;
  return raw;
}

function expected(def) {
  if (typeof def === 'boolean') return 'needs true or false';
  return typeof def === 'number' ? 'needs a number' : 'needs a value';
}

// " (did you mean --x?)" for a name one or two edits away from a valid one.
function guess(name, names) {
  let best = null;
  let bestD = 3;
  for (const n of names) {
    const d = distance(name.toLowerCase(), n.toLowerCase());
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best ? ` (did you mean --${best}?)` : '';
}

function distance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

function fail(script, names, message) {
  process.stderr.write(`${path.basename(script)}: ${message}\n` +
    `valid options: ${[...names.map((n) => `--${n}`), '--help'].join(' ')}\n`);
  process.exit(2);
}

// The script's header comment (the // lines after 'use strict'), then its
// options with their defaults and help texts.
function usage(script, defaults, meta) {
  let header = [];
  try {
    const lines = fs.readFileSync(script, 'utf8').split('\n');
    let i = 0;
    while (i < lines.length && !lines[i].startsWith('//')) i++;
    for (; i < lines.length && lines[i].startsWith('//'); i++) header.push(lines[i].replace(/^\/\/ ?/, ''));
  } catch {
    header = [path.basename(script)];
  }
  const help = meta.help || {};
  const shown = (d) => {
    const rel = typeof d === 'string' && path.isAbsolute(d) ? path.relative(process.cwd(), d) : '';
    return d === '' ? '<value>' : rel && !rel.startsWith('..') ? rel : String(d);
  };
  const rows = Object.entries(defaults).map(([n, d]) => {
    const choices = (meta.choices && meta.choices[n]) ? ` (one of: ${meta.choices[n].join(', ')})`
      : (meta.lists && meta.lists[n]) ? ` (comma-separated, of: ${meta.lists[n].join(', ')})` : '';
    return [`--${n}=${shown(d)}`, `${help[n] || ''}${choices}`.trim()];
  });
  rows.push(['--help', 'print this and exit']);
  const w = Math.min(28, Math.max(...rows.map(([s]) => s.length)));
  const opts = rows.map(([s, t]) => (s.length > w && t ? `  ${s}\n  ${''.padEnd(w)}  ${t}` : `  ${s.padEnd(w)}  ${t}`).trimEnd());
  const bools = Object.values(defaults).some((d) => typeof d === 'boolean') ? ' (a bare --name is --name=true)' : '';
  return `${header.join('\n').trim()}\n\noptions, with their defaults${bools}:\n${opts.join('\n')}\n`;
}

module.exports = { parseArgs };
