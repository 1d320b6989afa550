'use strict';

// The GC window of a server the runners measure (instr.js, compare.js):
// preloaded with -r in front of every variant, it does nothing until the
// runner sends SIGUSR2, and nothing per request or per GC of its own.
//
//   first SIGUSR2   the window opens: V8's --trace-gc is switched on
//                   (v8.setFlagsFromString), and one line goes to stderr:
//                   gc-window: start {"used":..,"allocated":..,"young":..}
//   second SIGUSR2  the window closes: --trace-gc off, and
//                   gc-window: end {...}
//
// used: v8.getHeapStatistics().used_heap_size (the heap's live objects,
// as V8's GC trace counts them); allocated: its total_allocated_bytes,
// V8's own count of every byte allocated since the isolate began (Node 26
// has it, older Nodes give null); young: the young generation's capacity
// (new_space: used + available), which says whether its size was pinned
// and what V8 grew it to.
//
// Between the two signals V8 writes one line per GC to stdout (in C++,
// through stdio's buffer: flushed when the buffer fills and at exit, so
// the runner reads them once the server has stopped): the GCs of the
// window and nothing else, since the trace is off outside it.  Measured
// under callgrind, a trace line costs 13-15k instructions per GC on
// Node 20 and 26, no allocation on the JS heap and no JS at all; the
// alternatives cost more: v8.GCProfiler 370-430k instructions per GC
// (heap statistics of every space before and after each GC, as JSON),
// --trace-gc-nvp 50-130k, and a PerformanceObserver runs JS and allocates
// in the server for each GC.  See benchmark/README.md.

const v8 = require('node:v8');
const fs = require('node:fs');

// Its lines go out with a plain write(2): process.stderr is a stream, and
// writing to it would give the server's hot stream functions (Writable's
// _write, writeOrBuffer, onwrite) a stream of another kind at the start of
// the counted window, which V8 deoptimises them for and compiles again
// there (seen with --trace-deopt: +5 % of the count, in V8's compilers).
function say(line) {
  fs.writeSync(2, `${line}\n`);
}

let open = false;

function young() {
  for (const s of v8.getHeapSpaceStatistics()) {
    if (s.space_name === 'new_space') return s.space_used_size + s.space_available_size;
  }
  return null;
}

function stats() {
  const h = v8.getHeapStatistics();
  return { used: h.used_heap_size, allocated: h.total_allocated_bytes ?? null, young: young() };
}

// V8's trace reaches the runner when stdio's buffer is flushed at exit: a
// server that SIGTERM would kill outright (no handler of its own) exits
// through process.exit() instead, which flushes it.
process.on('SIGTERM', () => {
  if (process.listenerCount('SIGTERM') === 1) process.exit(0);
});

process.on('SIGUSR2', () => {
  if (!open) {
    open = true;
    const s = stats();
    v8.setFlagsFromString('--trace-gc');
    say(`gc-window: start ${JSON.stringify(s)}`);
  } else {
    open = false;
    v8.setFlagsFromString('--no-trace-gc');
    say(`gc-window: end ${JSON.stringify(stats())}`);
  }
});
