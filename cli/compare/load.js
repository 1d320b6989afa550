'use strict';

// The load: autocannon (an optional peer dependency, found beside this
// package or in the current directory's node_modules) run in its own
// process pinned to its own core, against one app at a time, and the app's
// CPU time per request over the measured run.

const { spawn } = require('node:child_process');
const path = require('node:path');
const { pinned, CLIENT_CPU, cpuSeconds } = require('./cpu');

const CLIENT = path.join(__dirname, 'client.js');
// Said after a byte check that passed, when autocannon is not there: the
// check is the result then, and the load rounds are what was left out.
const MISSING = 'Load rounds skipped: autocannon is not installed (npm install --no-save autocannon).';

// autocannon's entry point, or null when it is not installed.
function findAutocannon() {
  try {
    return require.resolve('autocannon', { paths: [__dirname, process.cwd()] });
  } catch {
    return null;
  }
}

// The load generators running now, for stopClients().
const clients = new Set();

function runClient(autocannon, options) {
  const [cmd, argv] = pinned(CLIENT_CPU, process.execPath, [CLIENT, JSON.stringify({ autocannon, options })]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    clients.add(child);
    child.on('exit', () => clients.delete(child));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon failed (exit ${code}): ${err.trim()}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

function baseUrl({ host, port }) {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

// One run of `seconds` against `app`, the given paths in turn on every
// connection: autocannon's figures plus the app's CPU time per request
// (user + system, microseconds).
async function measure(autocannon, app, { paths, connections, seconds }) {
  const options = { url: baseUrl(app) + paths[0], connections, duration: seconds };
  if (paths.length > 1) options.requests = paths.map((p) => ({ method: 'GET', path: p }));
  const cpu0 = cpuSeconds(app.pid);
  const r = await runClient(autocannon, options);
  const cpu1 = cpuSeconds(app.pid);
  if (app.exited) {
    throw app.failure(`exited during the load (${app.exited.signal || `code ${app.exited.code}`})`);
  }
  const cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system);
  r.cpuUsPerRequest = (cpu * 1e6) / r.requests;
  return r;
}

// Stop the load (the comparison is interrupted).
function stopClients() {
  for (const child of clients) child.kill('SIGTERM');
}

module.exports = { findAutocannon, measure, stopClients, MISSING };
