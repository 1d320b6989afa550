'use strict';

// callgrind for instr.js: switching counting on and dumping a running
// process (callgrind_control), and reading a dump (callgrind_annotate):
// the instructions counted, and how many of them V8's optimising
// compilers ran (TurboFan, Turboshaft, Maglev: the symbols under
// v8::internal::compiler:: and v8::internal::maglev::, and those named
// Turbofan/Turboshaft/Maglev).  A server still being optimised spends
// these on its background threads and they land in the count: a share
// above a few percent says the block measured the compiler, not the
// server, and that the warm-up was too short.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const COMPILER = /v8::internal::(compiler|maglev)::|Turbofan|Turboshaft|Maglev/;

function available() {
  return spawnSync('valgrind', ['--version']).status === 0 &&
    spawnSync('callgrind_annotate', ['--version']).error === undefined;
}

function control(pid, ...args) {
  const r = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} failed: ${r.stderr}`);
}

// The files in `dir` that a `callgrind_control -d` wrote (not the one
// written at exit).
function dumps(dir) {
  return fs.readdirSync(dir).map((f) => path.join(dir, f))
    .filter((f) => /^desc: Trigger: dump/m.test(start(f, 4096)));
}

// The first n bytes of a file (a dump is megabytes; its header is at the top).
function start(file, n) {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(n);
    return b.toString('latin1', 0, fs.readSync(fd, b, 0, n, 0));
  } finally {
    fs.closeSync(fd);
  }
}

// { instructions, compiler } of one dump file: every function's own
// (exclusive) count, as callgrind_annotate lists them.
function readDump(file) {
  const r = spawnSync('callgrind_annotate', ['--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`callgrind_annotate ${file} failed: ${r.stderr}`);
  let instructions = NaN;
  let compiler = 0;
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1].replace(/,/g, ''));
    if (m[2].startsWith('PROGRAM TOTALS')) instructions = n;
    else if (COMPILER.test(m[2])) compiler += n;
  }
  if (!Number.isFinite(instructions)) throw new Error(`no totals in ${file}`);
  return { instructions, compiler };
}

// The JIT code V8 wrote to /tmp/perf-<pid>.map (node --perf-basic-prof):
// [start, size, name] sorted by start, or [] without one.
function perfMap(pid) {
  let text;
  try {
    text = fs.readFileSync(`/tmp/perf-${pid}.map`, 'utf8');
  } catch {
    return [];
  }
  const entries = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m) entries.push([parseInt(m[1], 16), parseInt(m[2], 16), m[3]]);
  }
  return entries.sort((a, b) => a[0] - b[0]);
}

// The name of the JIT function at `address`, or null.
function jitName(map, address) {
  let lo = 0;
  let hi = map.length - 1;
  let best = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (map[mid][0] <= address) {
      best = map[mid];
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best && address < best[0] + best[1] ? best[2] : null;
}

// Each function's own (exclusive) instructions in a dump, divided by `per`:
// a Map of name -> count, largest first.  JIT code, which callgrind knows
// only by address, is named from the perf map of process `pid` (V8's
// markers of the tier - '*', '~', '^', '+' - dropped, so that one function
// compiled twice is one row; the source position kept).
// With `inclusive`, each function's instructions with those of all it
// calls (callgrind_annotate --inclusive=yes): what one call of a handler,
// of res.end() or of socket.write() costs whole.  The tiers of one
// function add up, so a function that calls itself, or whose code calls
// its own other tier, counts the inner calls twice.
function functions(file, pid, per, inclusive = false) {
  const r = spawnSync('callgrind_annotate', ['--threshold=100', ...(inclusive ? ['--inclusive=yes'] : []), file],
    { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`callgrind_annotate ${file} failed: ${r.stderr}`);
  const map = perfMap(pid);
  const out = new Map();
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2].startsWith('PROGRAM TOTALS')) continue;
    let name = m[2].replace(/ \[[^\]]*\]$/, '').replace(/^\?\?\?:/, '');
    const at = /^0x([0-9a-f]+)$/.exec(name);
    if (at) name = jitName(map, parseInt(at[1], 16)) ?? `JIT code at ${name}`;
    name = name.replace(/^JS:[*~^+]?/, '').replace(/^'/, '');
    out.set(name, (out.get(name) || 0) + Number(m[1].replace(/,/g, '')) / per);
  }
  return new Map([...out].sort((a, b) => b[1] - a[1]));
}

// a - b, function by function (Maps of name -> count), divided by `per`.
function minus(a, b, per = 1) {
  const out = new Map();
  for (const k of new Set([...a.keys(), ...b.keys()])) out.set(k, ((a.get(k) || 0) - (b.get(k) || 0)) / per);
  return out;
}

// A function's name cut for a listing.
function shortName(name) {
  return name.length > 110 ? `${name.slice(0, 107)}...` : name;
}

module.exports = { available, control, dumps, readDump, functions, minus, shortName };
