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

module.exports = { available, control, dumps, readDump };
