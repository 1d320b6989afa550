'use strict';

// Hello-world and JSON routes on Express 5, Fastify 5 and Koa 3, for the
// benchmarks.  Run stock or with onewrite:
//
//   node [-r onewrite/register] benchmark/frameworks.js --framework=express
//
// Routes: / (text) and /json.  Prints the port it listens on.

const http = require('node:http');

const { parseArgs } = require('./lib/args');

const args = parseArgs(process.argv.slice(2), { framework: 'express', port: 0 }, {
  script: __filename,
  choices: { framework: ['express', 'fastify', 'koa'] },
  help: { framework: 'which framework', port: 'port to listen on (0: a free one)' },
});
const data = { hello: 'world', count: 42, items: [1, 2, 3, 4, 5], nested: { a: true, b: null } };

async function build(name) {
  if (name === 'express') {
    const app = require('express')();
    app.get('/', (req, res) => res.send('Hello World!'));
    app.get('/json', (req, res) => res.json(data));
    return http.createServer(app);
  }
  if (name === 'fastify') {
    const app = require('fastify')();
    app.get('/', async () => 'Hello World!');
    app.get('/json', async () => data);
    await app.ready();
    return app.server;
  }
  if (name === 'koa') {
    const app = new (require('koa'))();
    app.use(async (ctx) => {
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
