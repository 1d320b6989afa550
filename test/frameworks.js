'use strict';

// Express 5, Fastify 5, Koa 3 and @hono/node-server, unchanged, send the
// same bytes under `node -r onewrite/register` as without it, and their
// responses go through the fast paths.

const t = require('tap');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { exchange, normalise } = require('./helpers/wire');

const APP = path.join(__dirname, 'helpers', 'app-server.js');
const ROOT = path.join(__dirname, '..');
const ROUTES = ['/', '/json', '/cookie', '/buffer', '/utf8', '/404'];

// Start the app in a child with a clean environment (env -i: the test
// runner's hooks stay out); resolves with { port, stop }.
function start(framework, preload) {
  const args = ['-i', `PATH=${process.env.PATH}`, process.execPath];
  if (preload) args.push('-r', 'onewrite/register', '-e',
    'process.on("exit", () => process.stderr.write("counters " + JSON.stringify(require("onewrite").status().counters) + "\\n"));' +
    `process.argv[2] = ${JSON.stringify(framework)}; require(${JSON.stringify(APP)})`);
  else args.push(APP, framework);
  const child = spawn('env', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({
      port: Number(String(d).trim()),
      stop: () => new Promise((done) => {
        child.on('exit', () => done(stderr));
        child.kill('SIGTERM');
      }),
    }));
    child.on('exit', (code) => reject(new Error(`${framework} exited ${code}: ${stderr}`)));
  });
}

function requests() {
  // All routes pipelined on one keep-alive connection, then each alone.
  let raw = '';
  ROUTES.forEach((r, i) => {
    raw += `GET ${r} HTTP/1.1\r\nHost: localhost\r\n${i === ROUTES.length - 1 ? 'Connection: close\r\n' : ''}\r\n`;
  });
  return [raw, ...ROUTES.map((r) => `GET ${r} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
    'GET /json HTTP/1.0\r\nHost: localhost\r\n\r\n',
    'HEAD /json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'];
}

for (const framework of ['node', 'express', 'fastify', 'koa', 'hono']) {
  t.test(`${framework}: same bytes with onewrite`, async (t) => {
    const stock = await start(framework, false);
    const fast = await start(framework, true);
    for (const raw of requests()) {
      const [a, b] = await Promise.all([exchange(stock.port, raw), exchange(fast.port, raw)]);
      t.equal(normalise(b.bytes), normalise(a.bytes), JSON.stringify(raw.split('\r\n')[0] + (raw.length > 80 ? ' ...' : '')));
    }
    await stock.stop();
    const log = await fast.stop();
    const m = /counters (.*)/.exec(log);
    t.ok(m, 'the child reported its counters');
    const counters = JSON.parse(m[1]);
    t.ok(counters.heads > 0 && counters.ends > 0, `fast paths ran: ${m[1]}`);
  });
}
