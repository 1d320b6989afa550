'use strict';

// --name=value arguments (a bare --name is true) over defaults; a value is
// a number where its default is.  Used by the runners and by the server
// scripts they start, so it loads nothing else.
function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (const a of argv) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument ${a}`);
    const v = m[2] === undefined ? true : m[2];
    out[m[1]] = typeof defaults[m[1]] === 'number' ? Number(v) : v;
  }
  return out;
}

module.exports = { parseArgs };
