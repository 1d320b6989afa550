'use strict';

// The load generator, as its own process (so it can be pinned to a core and
// its CPU measured): autocannon against one URL, then one JSON line on
// stdout with autocannon's results and this process's own CPU time.
//
//   node benchmark/lib/client.js '<json options for autocannon>'
//
// The latency percentiles are taken here, from the time of every response
// ('response' events, in ms with a fraction): autocannon's own histogram
// records whole milliseconds, so its p50 reads 0 for any answer faster
// than 1 ms, which on loopback is nearly all of them.

const autocannon = require('autocannon');

const { client, ...options } = JSON.parse(process.argv[2]);
let times = new Float64Array(1 << 16);
let count = 0;
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const instance = autocannon({ ...options, renderProgressBar: false, renderResultsTable: false }, (err, result) => {
  if (err) {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  }
  const cpu = process.cpuUsage(cpu0);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const sorted = times.subarray(0, count).sort();
  const at = (p) => (count > 0 ? sorted[Math.min(count - 1, Math.floor(count * p))] : NaN);
  process.stdout.write(JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    duration: result.duration,
    p50: at(0.5),
    p99: at(0.99),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    clientCpu: (cpu.user + cpu.system) / 1e6 / wall, // cores busy, 1.0 = one full core
  }) + '\n');
});
instance.on('response', (c, statusCode, bytes, ms) => {
  if (count === times.length) {
    const more = new Float64Array(times.length * 2);
    more.set(times);
    times = more;
  }
  times[count++] = ms;
});
