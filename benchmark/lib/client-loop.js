'use strict';

// The measured client of client-instr.js (get, post): http.request() in a
// loop against the raw upstream (lib/upstream.js), --c requests in flight
// on a keep-alive http.Agent, each response read to its end.  It prints a
// line on stdout (for startServer, which waits for a port) and then waits:
// each SIGHUP runs the next of --runs (request counts), and when a run's
// last response has ended it says on stderr
//   client-run: done {"requests":..,"errors":..,"sockets":..}
// The agent of every run but the last is then destroyed, so that each run
// opens its connections anew, as instr.js's client runs do.  Its lines go
// out with a plain write(2), not through a stream (see gc-probe.js).
//
//   node benchmark/lib/client-loop.js --port=<upstream> --method=POST --c=50 --runs=20000,20000,20000

const fs = require('node:fs');
const http = require('node:http');
const { parseArgs } = require('./args');

const opts = parseArgs(process.argv.slice(2), { port: 0, method: 'GET', c: 50, runs: '20000,20000,20000' },
  { script: __filename, choices: { method: ['GET', 'POST'] } });
const runs = opts.runs.split(',').map(Number);

// POST: a 1 KiB JSON body and its Content-Type; Content-Length is Node's,
// from end(body), as node-fetch 2 and axios send a string body.
const BODY = opts.method === 'POST' ? `{"data":"${'x'.repeat(1024 - 11)}"}` : undefined;
const HEADERS = opts.method === 'POST' ? { 'content-type': 'application/json' } : undefined;

let agent = null;
let left = 0; // requests still to start in this run
let inFlight = 0;
let done = 0;
let errors = 0;

function start() {
  left--;
  inFlight++;
  const req = http.request({ host: '127.0.0.1', port: opts.port, path: '/', method: opts.method, headers: HEADERS, agent }, onResponse);
  req.on('error', onError);
  req.end(BODY);
}

function onResponse(res) {
  res.resume();
  res.on('end', onEnd);
}

function onEnd() {
  done++;
  next();
}

function onError() {
  errors++;
  next();
}

function next() {
  inFlight--;
  if (left > 0) start();
  else if (inFlight === 0) finish();
}

function finish() {
  // sockets: the connections the run opened and kept; above --c, sockets
  // did not go back to the pool.
  fs.writeSync(2, `client-run: done ${JSON.stringify({ requests: done, errors, sockets: agent.totalSocketCount })}\n`);
  if (runs.length > 0) agent.destroy();
}

process.on('SIGHUP', () => {
  if (runs.length === 0) return;
  agent = new http.Agent({ keepAlive: true });
  left = runs.shift();
  done = 0;
  errors = 0;
  for (let i = 0; i < opts.c && left > 0; i++) start();
});

// No server here: the line startServer waits for.
process.stdout.write('0\n');
// Kept alive between runs, until SIGTERM.
setInterval(() => {}, 1 << 30);
