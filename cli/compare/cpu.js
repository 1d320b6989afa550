'use strict';

// Where the processes of a comparison run and how much CPU the server used:
// the app pinned to CPU 0 and the load generator to CPU 1 when `taskset`
// exists (both on CPU 0 on a one-core machine), and a process's CPU time
// read from /proc/<pid>/stat.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');

const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const cores = os.availableParallelism();
const SERVER_CPU = '0';
const CLIENT_CPU = cores > 1 ? '1' : '0';

// [command, args] running `cmd args` on `cpu` when taskset exists.  taskset
// execs the command: the pid is the command's.
function pinned(cpu, cmd, args) {
  return hasTaskset ? ['taskset', ['-c', cpu, cmd, ...args]] : [cmd, args];
}

function describePinning() {
  if (!hasTaskset) return 'not pinned to cores (taskset not found)';
  return `app pinned to CPU ${SERVER_CPU}, autocannon to CPU ${CLIENT_CPU}` +
    (cores > 1 ? '' : ' (one core: they share it)');
}

// Clock ticks per second of the /proc figures (100 on Linux, but asked).
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

// CPU time of a process so far, in seconds: { user, system }, NaN where
// /proc cannot tell (not Linux, process gone).
function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / CLK_TCK, system: Number(fields[12]) / CLK_TCK };
  } catch {
    return { user: NaN, system: NaN };
  }
}

module.exports = { hasTaskset, cores, SERVER_CPU, CLIENT_CPU, pinned, describePinning, cpuSeconds };
