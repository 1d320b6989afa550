'use strict';

// The command line of `onewrite compare`: options, their defaults and
// checks, and the help text.  A wrong command line throws a UsageError
// (exit status 2).

const { parseArgs } = require('node:util');

const OPTIONS = {
  path: { type: 'string', multiple: true, value: '/x', help: 'a path to check and load (repeatable; default /); several are loaded in turn' },
  port: { type: 'string', value: 'n', help: 'the port the app listens on, for an app that ignores PORT and listens on several, or without /proc (passed in PORT too)' },
  rounds: { type: 'string', value: 'n', default: '5', help: 'rounds of load per variant, interleaved stock, onewrite, stock, ...' },
  duration: { type: 'string', value: 's', default: '5', help: 'seconds of measured load per round' },
  warmup: { type: 'string', value: 's', default: '2', help: 'seconds of unmeasured load before each round' },
  connections: { type: 'string', value: 'n', default: '50', help: 'autocannon connections' },
  node: { type: 'string', value: 'path', help: 'the Node to run the app with (default: the one running this)' },
  out: { type: 'string', value: 'file.svg', help: 'where to write the chart (default: ./onewrite-compare-<time>.svg, or the temp dir)' },
  help: { type: 'boolean', short: 'h', help: 'this text' },
};

const VALID = Object.keys(OPTIONS).map((k) => `--${k}`);

class UsageError extends Error {}

const HELP = `Usage: npx onewrite compare <app.js> [options] [-- app arguments]

Runs your app twice, stock and with onewrite preloaded (node -r onewrite/register),
one at a time, on the port passed in PORT, or the one it prints, or else the one
its process listens on (read from /proc on Linux), or --port=n.  First it checks
that every path answers byte for byte the same (Date aside) and which fast paths
each answer used, and why the others were handed over to Node; then it loads the
app with autocannon in interleaved rounds and prints the server's CPU time per
request and req/s, medians and per-round ratios, and writes an SVG chart.
The load needs autocannon (npm install --no-save autocannon); the byte check does not.

Options:
${Object.entries(OPTIONS).map(([name, o]) => {
    const flag = `  ${o.short ? `-${o.short}, ` : ''}--${name}${o.value ? `=${o.value}` : ''}`;
    return `${flag.padEnd(24)}${o.help}${o.default ? ` (default ${o.default})` : ''}`;
  }).join('\n')}

Exit status: 0 when done (after the byte check alone when autocannon is not installed),
1 when the answers differ or something failed, 2 for a wrong command line.`;

function number(name, text, { integer, min, max = Infinity }) {
  const n = Number(text);
  if (text === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    const range = max === Infinity ? `>= ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'} ${range}, not ${JSON.stringify(text)}`);
  }
  return n;
}

// argv (after `compare`) -> { help } or { app, appArgs, paths, port, rounds, duration, warmup, connections, node, out }
function parse(argv) {
  const config = {};
  for (const [name, o] of Object.entries(OPTIONS)) {
    config[name] = { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = (/'([^']+)'/.exec(err.message) || [, 'an option'])[1];
      throw new UsageError(`unknown option ${flag}; valid options: ${VALID.join(', ')}`);
    }
    throw new UsageError(err.message.split('\n')[0]);
  }
  const { values, tokens } = parsed;
  if (values.help) return { help: true };

  const terminator = tokens.find((t) => t.kind === 'option-terminator');
  const positionals = tokens.filter((t) => t.kind === 'positional');
  const before = positionals.filter((t) => !terminator || t.index < terminator.index).map((t) => t.value);
  const after = positionals.filter((t) => terminator && t.index > terminator.index).map((t) => t.value);
  if (before.length === 0) throw new UsageError('which app? usage: npx onewrite compare <app.js> [options]');
  if (before.length > 1) {
    throw new UsageError(`one app script, not ${before.map((s) => JSON.stringify(s)).join(' ')} ` +
      '(arguments for the app go after --)');
  }

  const paths = values.path || ['/'];
  for (const p of paths) {
    if (!/^\/[\x21-\x7e]*$/.test(p)) {
      throw new UsageError(`--path ${JSON.stringify(p)}: a path starts with / and has no spaces or control characters`);
    }
  }
  const get = (name) => values[name] ?? OPTIONS[name].default;
  return {
    help: false,
    app: before[0],
    appArgs: after,
    paths,
    port: values.port === undefined ? null : number('port', values.port, { integer: true, min: 1, max: 65535 }),
    rounds: number('rounds', get('rounds'), { integer: true, min: 1 }),
    duration: number('duration', get('duration'), { integer: false, min: 0.1 }),
    warmup: number('warmup', get('warmup'), { integer: false, min: 0 }),
    connections: number('connections', get('connections'), { integer: true, min: 1 }),
    node: values.node ?? process.execPath,
    out: values.out ?? null,
  };
}

module.exports = { parse, HELP, UsageError };
