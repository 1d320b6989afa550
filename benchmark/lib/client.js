'use strict';

// The load generator, as its own process (so it can be pinned to a core and
// its CPU measured): autocannon against one URL, then one JSON line on
// stdout with autocannon's results and this process's own CPU time.
//
//   node benchmark/lib/client.js '<json options for autocannon>'

const autocannon = require('autocannon');

const { client, ...options } = JSON.parse(process.argv[2]);
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
autocannon({ ...options, renderProgressBar: false, renderResultsTable: false }, (err, result) => {
  if (err) {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  }
  const cpu = process.cpuUsage(cpu0);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    duration: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    clientCpu: (cpu.user + cpu.system) / 1e6 / wall, // cores busy, 1.0 = one full core
  }) + '\n');
});
