'use strict';

// The load generator in a process of its own (so that it can be pinned to
// its own core and kept out of the app's CPU time): autocannon, from the
// path `onewrite compare` resolved, against one app; then one JSON line on
// stdout with autocannon's figures and this process's CPU use.
//
//   node client.js '{"autocannon": "/path/to/autocannon", "options": {...}}'

const { autocannon: modulePath, options } = JSON.parse(process.argv[2]);
const autocannon = require(modulePath);

const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
autocannon({ ...options, renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false }, (err, result) => {
  if (err) {
    process.stderr.write(`${err.stack || err}\n`);
    process.exit(1);
  }
  const cpu = process.cpuUsage(cpu0);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    clientCpu: (cpu.user + cpu.system) / 1e6 / wall, // cores busy: 1 is one full core
  }) + '\n');
});
