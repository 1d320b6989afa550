'use strict';

// The GC figures of a measured window, for instr.js and compare.js: how
// the young generation is sized (--gc), the window opened and closed in
// the server (gc-probe.js, preloaded, signalled), and from what the server
// said: scavenges and mark-compacts per 1,000 requests and V8 heap bytes
// allocated per request, over the window's requests alone.
//
//   --gc=pinned   every server runs with --min-semi-space-size=2
//                 --max-semi-space-size=2: the young generation is 2 MiB
//                 semi-spaces from start to end, so a scavenge comes after
//                 the same allocation in every process, whatever V8 would
//                 have decided about growing it (on Node 26 it grows from
//                 1 to 2 MiB in one server and not in the next: ~630,000
//                 instructions a scavenge, ~5 points of a count).  The two
//                 flags exist and pin the size alike on Node 20, 22, 24
//                 and 26 (the new space's capacity stays 2 MiB).
//   --gc=default  V8's own sizing, as a user's server runs.
//
// Bytes allocated: on a Node whose v8.getHeapStatistics() has
// total_allocated_bytes (Node 26), V8's own counter, read at the start and
// the end of the window.  Elsewhere, from the GC trace: the live heap's
// growth between one GC's end and the next one's start, summed over the
// window (its first stretch from the heap's size when it opened, its last
// to its size when it closed; --trace-gc gives the sizes to 0.1 MB, an
// error of ~0.03 MB a GC that averages out).  On Node 26 the trace's
// figure is kept too (bytesPerRequestTrace), to compare with the older
// Nodes: the counter reads 12-25 % above it on the benchmark servers (and
// more than a pinned young generation holds per scavenge), while the two
// agree within 1 % on a plain allocation loop.  Either way the V8 heap
// alone: the memory behind Buffers and ArrayBuffers is not in it.

const path = require('node:path');

const PROBE = path.join(__dirname, 'gc-probe.js');
const MODES = ['pinned', 'default'];
const PIN = ['--min-semi-space-size=2', '--max-semi-space-size=2'];
const MB = 1024 * 1024;

// Node's own flags for a GC mode.
function nodeFlags(mode) {
  return mode === 'pinned' ? PIN.slice() : [];
}

// What the runners print about the mode.
function describe(mode) {
  return mode === 'pinned'
    ? `young generation pinned in every server (${PIN.join(' ')}: 2 MiB semi-spaces; --gc=default for V8's own sizing)`
    : "young generation sized by V8 (--gc=default, as a user's server runs): the GC counts, and what they cost, " +
      'move with its growth decisions; --gc=pinned pins it';
}

// Opens (which: 'start') or closes ('end') the window in a server started
// with PROBE preloaded; resolves with what the probe said.
async function mark(server, which, timeout = 120000) {
  const from = server.stderr().length;
  server.signal('SIGUSR2');
  const m = await server.waitForStderr(new RegExp(`^gc-window: ${which} (\\{.*\\})$`, 'm'), from, timeout);
  return JSON.parse(m[1]);
}

// The GCs in V8's --trace-gc lines: [{ kind: 'scavenge' | 'mark-compact'
// | 'other', name, before, after }], sizes in bytes (the live heap before
// and after).  The names: Scavenge, Scavenge (interleaved), Minor
// Mark-Sweep, Mark-Compact, Mark-Compact (reduce), Incremental
// Mark-Compact (Node 26), ...
const LINE = / ms: ([A-Za-z][A-Za-z -]*?(?: \([a-z ]+\))?) ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;
function parseTrace(text) {
  const gcs = [];
  for (const line of String(text).split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const name = m[1];
    const kind = /Scavenge|Minor/i.test(name) ? 'scavenge' : /Mark-Compact|Mark-Sweep/i.test(name) ? 'mark-compact' : 'other';
    gcs.push({ kind, name, before: Number(m[2]) * MB, after: Number(m[4]) * MB });
  }
  return gcs;
}

// The figures of one window: `start` and `end` from mark(), `trace` the
// server's stdout after its port line (read once it stopped), `requests`
// answered in the window.
function figures({ start, end, trace, requests }) {
  const gcs = parseTrace(trace);
  const scavenges = gcs.filter((g) => g.kind === 'scavenge').length;
  const markCompacts = gcs.filter((g) => g.kind === 'mark-compact').length;
  let fromTrace = 0;
  let live = start.used;
  for (const g of gcs) {
    fromTrace += g.before - live; // not clamped: the 0.1 MB roundings cancel out
    live = g.after;
  }
  fromTrace += end.used - live;
  const counter = start.allocated !== null && end.allocated !== null ? end.allocated - start.allocated : null;
  // A heap that shrank with no GC seen: the trace did not reach us.
  const lost = gcs.length === 0 && end.used < start.used - MB;
  const allocated = counter ?? fromTrace;
  return {
    requests,
    scavenges,
    markCompacts,
    otherGcs: gcs.length - scavenges - markCompacts,
    scavengesPer1k: (scavenges * 1000) / requests,
    markCompactsPer1k: (markCompacts * 1000) / requests,
    bytesPerRequest: lost && counter === null ? NaN : allocated / requests,
    allocMethod: counter !== null ? 'counter' : 'trace',
    ...(counter !== null ? { bytesPerRequestTrace: fromTrace / requests } : {}),
    bytesPerScavenge: scavenges > 0 ? allocated / scavenges : NaN,
    youngStart: start.young,
    youngEnd: end.young,
    ...(lost ? { traceLost: true } : {}),
  };
}

// How the bytes were counted, for the report.
function allocMethodText(method) {
  return method === 'counter'
    ? "V8's own counter, v8.getHeapStatistics().total_allocated_bytes, read when the window opens and closes"
    : "from V8's --trace-gc: the live heap's growth between GCs (0.1 MB a GC), summed over the window; " +
      'this Node has no total_allocated_bytes';
}

const { median } = require('../../cli/compare/stats');

// A GC figure of a variant's runs: the median.
function med(runs, key) {
  return median(runs.map((r) => (r ? r[key] : NaN)));
}

// Scavenge counts that differ by more than this (and by more than
// SCAVENGE_SLACK in the window: a window's edges cut a scavenge or two)
// differ beyond noise.
const SCAVENGE_LIMIT = 0.1;
const SCAVENGE_SLACK = 2;
// Young-generation bytes per scavenge that differ by more than this (and
// by more than a window's edges make of them: 2 scavenges' worth), or a
// young generation of another capacity at the window's start or end: the
// GC did not run alike.
const PER_SCAVENGE_LIMIT = 0.15;

const mib = (x) => `${(x / MB).toFixed(x >= 10 * MB ? 0 : 2)} MiB`;
const k = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');

// Where the variants' GC work differs beyond noise, and where one
// variant's runs disagree with each other: [{ text, alike }].  alike is
// true where the GC ran alike (the same young generation, the same bytes
// per scavenge) and the scavenge counts differ as the allocation does;
// false where the GC itself did not run alike (a young generation of
// another size, more bytes per scavenge, a mark-compact in one and not
// the other, runs that disagree), whether or not the counts differ.
// `gcByVariant`: { [variant]: [figures of each run, or null] }, stock
// among them; `mode`: --gc.  [] when they agree.
function warnings(gcByVariant, mode, label = '') {
  const lines = [];
  const stock = gcByVariant.stock;
  const at = label ? `${label}: ` : '';
  // Per-1k figures a and b, of windows of na and nb requests.
  const differ = (a, b, na, nb) => Math.abs(a - b) > Math.max(SCAVENGE_LIMIT * Math.max(a, b), (SCAVENGE_SLACK * 1000) / Math.min(na, nb)) + 1e-9;
  // Runs of one variant that disagree.
  for (const [v, runs] of Object.entries(gcByVariant)) {
    const ok = runs.filter(Boolean);
    if (ok.length < 2) continue;
    const xs = ok.map((r) => r.scavengesPer1k);
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    const n = Math.min(...ok.map((r) => r.requests));
    if (differ(lo, hi, n, n)) lines.push({ alike: false, text: `${at}${v}: its runs disagree on scavenges per 1k requests (${xs.map(k).join(', ')})` });
    const mcs = ok.map((r) => r.markCompacts);
    if (Math.min(...mcs) !== Math.max(...mcs)) lines.push({ alike: false, text: `${at}${v}: its runs disagree on mark-compacts in the window (${mcs.join(', ')})` });
  }
  if (!stock || !stock.some(Boolean)) return lines;
  const s = med(stock, 'scavengesPer1k');
  const sMc = med(stock, 'markCompacts');
  const sPer = med(stock, 'bytesPerScavenge');
  const sReq = med(stock, 'requests');
  const sYoung = [med(stock, 'youngStart'), med(stock, 'youngEnd')];
  for (const [v, runs] of Object.entries(gcByVariant)) {
    if (v === 'stock' || !runs.some(Boolean)) continue;
    const x = med(runs, 'scavengesPer1k');
    const per = med(runs, 'bytesPerScavenge');
    const young = [med(runs, 'youngStart'), med(runs, 'youngEnd')];
    const fewest = Math.min(med(runs, 'scavenges'), med(stock, 'scavenges'));
    const perDiffers = Math.abs(per - sPer) > Math.max(PER_SCAVENGE_LIMIT, SCAVENGE_SLACK / fewest) * Math.max(per, sPer);
    const youngDiffers = young[0] !== sYoung[0] || young[1] !== sYoung[1];
    const counts = `${k(x)} scavenges per 1k requests against stock's ${k(s)}`;
    if (perDiffers || youngDiffers) {
      lines.push({
        alike: false,
        text: `${at}${v}: the GC did not run alike: ${counts}, ${mib(per)} allocated per scavenge against stock's ${mib(sPer)}, ` +
          `young generation ${mib(young[0])} -> ${mib(young[1])} over the window against ${mib(sYoung[0])} -> ${mib(sYoung[1])}` +
          `${mode === 'pinned' ? '' : ' (V8\'s own sizing: --gc=pinned pins it)'}`,
      });
    } else if (differ(x, s, med(runs, 'requests'), sReq)) {
      lines.push({
        alike: true,
        text: `${at}${v}: ${counts}: it allocates ${(med(runs, 'bytesPerRequest') / med(stock, 'bytesPerRequest')).toFixed(2)}x ` +
          `stock's bytes per request, ${mib(per)} per scavenge as stock ${mib(sPer)}: GC work that follows the allocation`,
      });
    }
    const mc = med(runs, 'markCompacts');
    if (mc !== sMc) {
      lines.push({
        alike: false,
        text: `${at}${v}: ${mc} mark-compacts in the window against stock's ${sMc}: one costs far more than a scavenge, ` +
          'and lands in the count of the run it falls in',
      });
    }
  }
  return lines;
}

module.exports = {
  PROBE, MODES, PIN, SCAVENGE_LIMIT, SCAVENGE_SLACK, nodeFlags, describe, mark, parseTrace, figures, allocMethodText, warnings, med,
};
