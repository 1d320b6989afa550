'use strict';

// The shapes of real apps on Express 5, Fastify 5 and Koa 3, for the
// benchmarks.  Run stock or with onewrite:
//
//   node [-r onewrite/register] benchmark/frameworks.js --framework=express
//
// Routes (each framework):
//   /          text: hello world
//   /json      a small JSON document
//   /headers   text, its head built with the framework's setHeader()
//              calls: a fixed Cache-Control and a request id that changes
//              every response (as an API's X-Request-Id does)
// and Express alone:
//   /json-1k   res.json() of a ~1 KiB object
//   /static/file.txt
//              express.static serving a 10 KiB file (a fixed mtime, so
//              that its ETag and Last-Modified are the same in every run)
// Prints the port it listens on.

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const { parseArgs } = require('./lib/args');

const args = parseArgs(process.argv.slice(2), { framework: 'express', port: 0 }, {
  script: __filename,
  choices: { framework: ['express', 'fastify', 'koa'] },
  help: { framework: 'which framework', port: 'port to listen on (0: a free one)' },
});
const data = { hello: 'world', count: 42, items: [1, 2, 3, 4, 5], nested: { a: true, b: null } };

// An API's list of ~1 KiB: twelve users.
const data1k = {
  users: Array.from({ length: 12 }, (_, i) => ({
    id: 1000 + i, name: `user ${i}`, email: `user${i}@example.com`, active: i % 3 !== 0, roles: ['read', 'write'],
  })),
  page: 1,
  more: false,
};

let requestId = 0;
const nextId = () => `req-${++requestId}`;

// The static file, made once in a folder of its own and removed at exit.
function staticDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-bench-static-'));
  const file = path.join(dir, 'file.txt');
  fs.writeFileSync(file, 'onewrite static benchmark file\n'.repeat(331).slice(0, 10240));
  const mtime = new Date('2026-01-01T00:00:00Z');
  fs.utimesSync(file, mtime, mtime);
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function build(name) {
  if (name === 'express') {
    const express = require('express');
    const app = express();
    app.get('/', (req, res) => res.send('Hello World!'));
    app.get('/json', (req, res) => res.json(data));
    app.get('/json-1k', (req, res) => res.json(data1k));
    app.get('/headers', (req, res) => {
      res.set('Cache-Control', 'no-store');
      res.set('X-Request-Id', nextId());
      res.send('Hello World!');
    });
    app.use('/static', express.static(staticDir()));
    return http.createServer(app);
  }
  if (name === 'fastify') {
    const app = require('fastify')();
    app.get('/', async () => 'Hello World!');
    app.get('/json', async () => data);
    app.get('/headers', async (req, reply) => {
      reply.header('cache-control', 'no-store');
      reply.header('x-request-id', nextId());
      return 'Hello World!';
    });
    await app.ready();
    return app.server;
  }
  if (name === 'koa') {
    const app = new (require('koa'))();
    app.use(async (ctx) => {
      if (ctx.path === '/headers') {
        ctx.set('Cache-Control', 'no-store');
        ctx.set('X-Request-Id', nextId());
      }
      ctx.body = ctx.path === '/json' ? data : 'Hello World!';
    });
    return http.createServer(app.callback());
  }
  throw new Error(`unknown framework ${name}`);
}

build(args.framework).then((server) => {
  server.listen(args.port, '127.0.0.1', () => {
    process.stdout.write(`${server.address().port}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
});
