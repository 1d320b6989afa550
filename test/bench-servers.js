'use strict';

// The servers the benchmarks measure (benchmark/lib/servers.js) answer
// with stock Node's bytes when onewrite serves them, so that a figure
// compares the same responses; and the floor (benchmark/floor.js) sends
// each one's status and body, as benchmark/README.md says it does.  Two
// requests a server, each on a connection of its own, the Date normalised
// (and realistic's request id, which carries the process id).

const t = require('tap');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');

const { server, NAMES } = require('../benchmark/lib/servers');
const { startServer } = require('../benchmark/lib/bench');
const { normalise, request } = require('./helpers/wire');

const ROOT = path.join(__dirname, '..');
const PRELOAD = {
  stock: [],
  onewrite: [path.join(ROOT, 'register.js')],
  floor: [path.join(ROOT, 'benchmark', 'floor.js')],
};

// One answer, read to the end its Content-Length gives (every server here
// sends one; the floor keeps its connections open whatever was asked).
function get(port, urlPath) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(request('GET', urlPath, { headers: { Connection: 'close' } }));
    });
    let bytes = Buffer.alloc(0);
    const done = () => {
      socket.destroy();
      resolve(normalise(bytes).replace(/(\r\nX-Request-Id: req-[0-9a-z]+)-\d+/g, '$1-<pid>'));
    };
    socket.on('data', (d) => {
      bytes = Buffer.concat([bytes, d]);
      const end = bytes.indexOf('\r\n\r\n');
      const length = end >= 0 && /\r\nContent-Length: *(\d+)/i.exec(bytes.toString('latin1', 0, end));
      if (length && bytes.length >= end + 4 + Number(length[1])) done();
    });
    socket.on('error', reject);
    socket.on('close', done);
  });
}

// Two answers from `name` run as `side` (ONEWRITE_STRICT: a onewrite that
// is off fails at startup rather than passing as stock).
async function answers(name, side) {
  const def = server(name);
  const s = await startServer({ script: def.script, args: def.args, preload: PRELOAD[side], env: { ONEWRITE_STRICT: '1' } });
  try {
    return [await get(s.port, def.path), await get(s.port, def.path)];
  } finally {
    await s.stop();
  }
}

// A response's status line and body (what the floor keeps).
function statusAndBody(text) {
  const end = text.indexOf('\r\n\r\n');
  return { status: text.slice(0, text.indexOf('\r\n')), body: text.slice(end + 4) };
}

for (const name of NAMES) {
  t.test(name, async (t) => {
    const stock = await answers(name, 'stock');
    t.match(stock[0], /^HTTP\/1\.1 200 OK\r\n/, 'stock answers 200');
    t.same(await answers(name, 'onewrite'), stock, 'onewrite sends stock\'s bytes');
    const floor = await answers(name, 'floor');
    t.same(floor.map(statusAndBody), stock.map(statusAndBody), 'the floor sends its status and body');
  });
}

// The GC window the runners open around the measured requests
// (benchmark/lib/gc-probe.js, benchmark/lib/gc.js): V8's trace of the
// window's GCs alone, which reaches the runner when the server exits, and
// the figures read from it.
const gc = require('../benchmark/lib/gc');

function getMany(port, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let left = n;
  const one = () => new Promise((resolve, reject) => {
    http.get({ port, host: '127.0.0.1', path: '/', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
  const worker = async () => {
    while (left-- > 0) await one();
  };
  return Promise.all([worker(), worker(), worker(), worker()]).finally(() => agent.destroy());
}

t.test('GC window: the pinned young generation, the window\'s GCs and bytes', async (t) => {
  const def = server('simple');
  const s = await startServer({ script: def.script, args: def.args, nodeFlags: gc.nodeFlags('pinned'), preload: [gc.PROBE] });
  let figures;
  try {
    // Before the window, not in it: V8 compiles and pretenures while the
    // server warms, allocating outside the young generation.
    await getMany(s.port, 4000);
    const start = await gc.mark(s, 'start');
    await getMany(s.port, 3000);
    const end = await gc.mark(s, 'end');
    await s.stop();
    figures = gc.figures({ start, end, trace: s.stdout(), requests: 3000 });
  } finally {
    await s.stop();
  }
  t.equal(figures.youngStart, figures.youngEnd, 'the young generation keeps its size');
  t.ok(figures.youngStart > 1.9 * 1024 * 1024 && figures.youngStart <= 2 * 1024 * 1024, 'of 2 MiB');
  t.ok(figures.scavenges > 0, `scavenges seen (${figures.scavenges})`);
  t.ok(figures.bytesPerRequest > 500 && figures.bytesPerRequest < 50000, `bytes per request (${Math.round(figures.bytesPerRequest)})`);
  t.equal(figures.allocMethod, typeof require('node:v8').getHeapStatistics().total_allocated_bytes === 'number' ? 'counter' : 'trace');
  // A scavenge per semi-space filled: allocation and GC count agree.  Bytes
  // V8 still places in old space (code, pretenured sites) come on top.
  t.ok(figures.bytesPerScavenge > 1024 * 1024 && figures.bytesPerScavenge < 3 * 1024 * 1024, `about 2 MiB allocated per scavenge (${Math.round(figures.bytesPerScavenge / 1024)} KiB)`);
});

t.test('GC trace lines of Node 20 to 26', async (t) => {
  const trace = [
    '[1:0x1]       71 ms: Scavenge 5.1 (5.2) -> 4.7 (7.2) MB, 6.72 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
    '[1:0x1]      358 ms: Mark-Compact 56.0 (60.9) -> 6.5 (13.1) MB, 2.17 / 0.00 ms  (+ 2.8 ms in 4 steps since start of marking, biggest step 2.3 ms, walltime since start of marking 14 ms) (average mu = 1.000, current mu = 1.000) finalize incremental marking via stack guard; GC in old space requested',
    '[1:0x1]       84 ms: Scavenge (interleaved) 5.6 (6.4) -> 5.0 (8.4) MB, pooled: 0 MB, 6.00 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
    '[1:0x1]      459 ms: Incremental Mark-Compact 84.5 (89.7) -> 32.3 (64.6) MB, pooled: 9.0 MB, 26.60 / 0.00 ms (+ 0.1 ms in 2 steps since start of marking) finalize incremental marking via stack guard; GC in old space requested',
    '[1:0x1]      104 ms: Scavenge 6.0 (7.6) -> 5.5 (9.1) MB, pooled: 0.0 MB, 10.60 / 0.00 ms (average mu = 1.000, current mu = 1.000) allocation failure; ',
  ].join('\n');
  t.same(gc.parseTrace(trace).map((g) => g.kind), ['scavenge', 'mark-compact', 'scavenge', 'mark-compact', 'scavenge']);
  const MB = 1024 * 1024;
  const f = gc.figures({
    start: { used: 4 * MB, allocated: null, young: 2 * MB }, end: { used: 6 * MB, allocated: null, young: 2 * MB },
    trace: '[1:0x1] 1 ms: Scavenge 5.0 (9.0) -> 3.0 (9.0) MB, 1.00 / 0.00 ms allocation failure;\n', requests: 1000,
  });
  t.equal(f.bytesPerRequest, (1 * MB + 3 * MB) / 1000, 'the heap\'s growth to each GC and to the window\'s end, summed');
  t.equal(f.allocMethod, 'trace');
});
