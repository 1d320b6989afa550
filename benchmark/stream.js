'use strict';

// Streaming responses, stock (idiomatic writes) against onewrite
// (sse()/ndjson()), interleaved rounds, server pinned to CPU 0 and the
// client to CPU 1:
//   - an 89-event SSE response (one event per tick),
//   - a 1,000-row NDJSON response (50 rows per tick).
// For each: chunks on the wire per response (from the chunked framing),
// server CPU time per response (/proc), and p50 time to the last byte.
//
//   node benchmark/stream.js [--rounds=3] [--responses=200] [--c=4] [--node=...]

const net = require('node:net');
const path = require('node:path');
const b = require('./lib/bench');
const { parseArgs } = require('./lib/args');

const opts = parseArgs(process.argv.slice(2), {
  rounds: 3, responses: 200, c: 4, node: process.execPath,
}, {
  script: __filename,
  help: {
    rounds: 'interleaved rounds per variant',
    responses: 'responses per run',
    c: 'responses at a time',
    node: 'the Node binary to measure',
  },
});

// One response over a fresh connection: its bytes and the time to its end.
function fetchOnce(port, urlPath) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const parts = [];
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(`GET ${urlPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
    s.on('data', (d) => parts.push(d));
    s.on('error', reject);
    s.on('close', () => resolve({ bytes: Buffer.concat(parts), ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
  });
}

function countChunks(bytes) {
  const text = bytes.toString('latin1');
  let at = text.indexOf('\r\n\r\n') + 4;
  let n = 0;
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, eol), 16);
    if (!(size > 0)) break;
    n++;
    at = eol + 2 + size + 2;
  }
  return n;
}

async function runVariant(variant, urlPath) {
  const server = await b.startServer({
    node: opts.node,
    preload: variant === 'onewrite' ? ['onewrite/register'] : [],
    script: path.join(__dirname, 'stream-server.js'),
    args: [`--mode=${variant}`],
  });
  try {
    // Warm up, then measure.
    for (let i = 0; i < 20; i++) await fetchOnce(server.port, urlPath);
    const cpu0 = b.cpuSeconds(server.pid);
    const times = [];
    let last = null; // the bytes of one response, to count its chunks after the run
    let next = 0;
    async function worker() {
      while (next < opts.responses) {
        next++;
        const r = await fetchOnce(server.port, urlPath);
        times.push(r.ms);
        last = r.bytes;
      }
    }
    await Promise.all(Array.from({ length: opts.c }, worker));
    const cpu1 = b.cpuSeconds(server.pid);
    const cpuUs = ((cpu1.user - cpu0.user + cpu1.system - cpu0.system) * 1e6) / opts.responses;
    return { chunks: countChunks(last), cpuUs, p50: b.median(times) };
  } finally {
    await server.stop();
  }
}

async function main() {
  const version = b.nodeVersion(opts.node);
  console.log(`streaming responses, Node ${version}: ${opts.responses} responses per run, ${opts.c} at a time, ` +
    `${opts.rounds} interleaved rounds; server on CPU 0, client on CPU ${b.cores > 1 ? 1 : 0}`);
  console.log('response           | variant  | chunks/response | server CPU us/response (vs stock) | p50 ms');
  for (const [label, urlPath] of [['SSE, 89 events', '/sse'], ['NDJSON, 1000 rows', '/ndjson']]) {
    const runs = { stock: [], onewrite: [] };
    for (let r = 0; r < opts.rounds; r++) {
      for (const v of ['stock', 'onewrite']) {
        b.progress(`${label}: round ${r + 1}/${opts.rounds}, ${v} ...`);
        runs[v].push(await runVariant(v, urlPath));
      }
    }
    b.progressDone();
    const stockCpu = b.median(runs.stock.map((x) => x.cpuUs));
    for (const v of ['stock', 'onewrite']) {
      const cpu = b.median(runs[v].map((x) => x.cpuUs));
      console.log(`${label.padEnd(18)} | ${v.padEnd(8)} | ${String(runs[v][0].chunks).padStart(15)} | ` +
        `${`${cpu.toFixed(0)}${v === 'stock' ? '' : ` (${(cpu / stockCpu).toFixed(2)}x)`}`.padEnd(33)} | ` +
        `${b.median(runs[v].map((x) => x.p50)).toFixed(2)}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
