'use strict';

// A small app on one framework, for test/frameworks.js (the framework
// benchmarks keep their own two routes: benchmark/frameworks.js).  Run: node [-r onewrite/register] app-server.js <framework>
// It listens on a free port and prints it.  Routes:
//   /        hello text          /json   a JSON object
//   /cookie  two Set-Cookie      /404    the framework's not-found answer
//   /buffer  a Buffer body       /utf8   a multibyte body

const framework = process.argv[2];
const BODY = { hello: 'world', n: 42, list: [1, 2, 3], nested: { ok: true } };

async function main() {
  let server;
  if (framework === 'node') {
    const http = require('node:http');
    server = http.createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('Hello World!');
      } else if (req.url === '/json') {
        const s = JSON.stringify(BODY);
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.setHeader('Content-Length', Buffer.byteLength(s));
        res.end(s);
      } else if (req.url === '/cookie') {
        res.setHeader('Set-Cookie', ['a=1; Path=/', 'b=2; HttpOnly']);
        res.end('cookies');
      } else if (req.url === '/buffer') {
        res.end(Buffer.from('buffer body'));
      } else if (req.url === '/utf8') {
        res.end('h\u00e9llo \u20ac \ud83d\ude00');
      } else {
        res.statusCode = 404;
        res.end('Not Found');
      }
    });
  } else if (framework === 'express') {
    const express = require('express');
    const app = express();
    app.get('/', (req, res) => res.send('Hello World!'));
    app.get('/json', (req, res) => res.json(BODY));
    app.get('/cookie', (req, res) => {
      res.cookie('a', '1');
      res.cookie('b', '2', { httpOnly: true });
      res.send('cookies');
    });
    app.get('/buffer', (req, res) => res.send(Buffer.from('buffer body')));
    app.get('/utf8', (req, res) => res.send('h\u00e9llo \u20ac \ud83d\ude00'));
    server = require('node:http').createServer(app);
  } else if (framework === 'fastify') {
    const fastify = require('fastify')();
    fastify.get('/', async () => 'Hello World!');
    fastify.get('/json', async () => BODY);
    fastify.get('/cookie', async (req, reply) => {
      reply.header('set-cookie', ['a=1; Path=/', 'b=2; HttpOnly']);
      return 'cookies';
    });
    fastify.get('/buffer', async (req, reply) => reply.type('application/octet-stream').send(Buffer.from('buffer body')));
    fastify.get('/utf8', async () => 'h\u00e9llo \u20ac \ud83d\ude00');
    await fastify.ready();
    server = fastify.server;
  } else if (framework === 'koa') {
    const Koa = require('koa');
    const app = new Koa();
    app.use(async (ctx) => {
      if (ctx.path === '/') ctx.body = 'Hello World!';
      else if (ctx.path === '/json') ctx.body = BODY;
      else if (ctx.path === '/cookie') {
        ctx.cookies.set('a', '1', { signed: false });
        ctx.cookies.set('b', '2', { signed: false });
        ctx.body = 'cookies';
      } else if (ctx.path === '/buffer') ctx.body = Buffer.from('buffer body');
      else if (ctx.path === '/utf8') ctx.body = 'h\u00e9llo \u20ac \ud83d\ude00';
    });
    server = require('node:http').createServer(app.callback());
  } else if (framework === 'hono') {
    const { Hono } = require('hono');
    const { createAdaptorServer } = require('@hono/node-server');
    const app = new Hono();
    app.get('/', (c) => c.text('Hello World!'));
    app.get('/json', (c) => c.json(BODY));
    app.get('/cookie', (c) => {
      c.header('Set-Cookie', 'a=1; Path=/', { append: true });
      c.header('Set-Cookie', 'b=2; HttpOnly', { append: true });
      return c.text('cookies');
    });
    app.get('/buffer', (c) => c.body(new Uint8Array(Buffer.from('buffer body'))));
    app.get('/utf8', (c) => c.text('h\u00e9llo \u20ac \ud83d\ude00'));
    server = createAdaptorServer({ fetch: app.fetch });
  } else {
    throw new Error(`unknown framework ${framework}`);
  }
  server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
    process.stdout.write(`${server.address().port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main();
