'use strict';

// The app test/agents/agents.js runs under each agent, with and without
// onewrite (with the preloads on its command line):
//
//   node -r <agent> app.js                          stock
//   node -r <agent> -r onewrite/register app.js     the agent first
//   node -r onewrite/register -r <agent> app.js     onewrite first
//
// AGENTS_SERVER=http|express picks the server; both answer the same
// routes, each a shape of response an app sends (ROUTES in agents.js).
// It listens on 127.0.0.1, prints { port }, and on 'done' (stdin) closes
// the server and prints what it logged and, when onewrite is loaded
// (AGENTS_ONEWRITE=1), onewrite's status(); then it runs out of work, so
// that each agent flushes at 'beforeExit' as it does when an app exits,
// and at exit prints where it connected.

const path = require('node:path');
const http = require('node:http');
const dc = require('node:diagnostics_channel');

const ROOT = path.join(__dirname, '..', '..');
const SERVER = process.env.AGENTS_SERVER;
const AGENT = process.env.AGENTS_AGENT;

// Where every TCP connection this process opened went (an agent's to its
// collector): the host looked up and the address connected to.  Seen
// through Node's own channel, nothing patched.
const connections = [];
dc.subscribe('net.client.socket', ({ socket }) => {
  socket.once('lookup', (err, address, family, host) => connections.push(`lookup ${host}`));
  socket.once('connect', () => connections.push(`connect ${socket.remoteAddress}`));
});

// An Error made in a 'finish' listener, as a logger does for each 5xx
// (pino-http): its message and its first frame (the listener's own), and,
// where the agent has an API for it, given to the agent.
const logged = [];
function logError(err) {
  const first = String(err.stack).split('\n')[1] || '';
  logged.push({ message: err.message, frame: first.replace(/\(.*[\\/]/, '(').trim() });
  if (AGENT === 'elastic') require('elastic-apm-node').captureError(err);
}

// An upstream for /upstream: raw net, so that its answers are no server
// response of the app's, read to the end of its one answer per request.
const net = require('node:net');
const upstream = net.createServer((socket) => {
  socket.on('data', (d) => {
    if (d.includes('ping')) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npong');
  });
  socket.on('error', () => {});
});
upstream.listen(0, '127.0.0.1');
const upstreamAgent = new http.Agent({ keepAlive: true });

// A request to the upstream, as a service calling another does: a POST of
// bytes on a keep-alive agent (the client side's head and one write), its
// answer sent back.
function callUpstream(res) {
  const up = http.request({ host: '127.0.0.1', port: upstream.address().port, method: 'POST', path: '/ping',
    agent: upstreamAgent, headers: { 'Content-Type': 'text/plain' } }, (answer) => {
    let body = '';
    answer.setEncoding('utf8');
    answer.on('data', (d) => (body += d));
    answer.on('end', () => res.end(`upstream: ${body}`));
  });
  up.on('error', (err) => res.end(`upstream failed: ${err.code}`));
  up.end(Buffer.from('ping'));
}

// Plain node:http.
function plain(req, res) {
  const url = req.url.split('?')[0];
  if (url === '/upstream') {
    callUpstream(res);
  } else if (url === '/text') {
    res.end('hello');
  } else if (url === '/head') {
    res.writeHead(201, { 'Content-Type': 'text/plain', 'X-Id': '7' });
    res.end('created');
  } else if (url === '/json') {
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify({ id: 7, name: 'seven' }));
  } else if (url === '/chunked') {
    res.setHeader('Content-Type', 'text/plain');
    res.write('one,');
    res.write('two,');
    res.end('three');
  } else if (url === '/fail') {
    res.on('finish', function onFinish() {
      logError(new Error(`failed: ${req.method} ${url} ${res.statusCode}`));
    });
    res.statusCode = 500;
    res.end('failed');
  } else {
    res.statusCode = 404;
    res.end('not found');
  }
}

// Express 5: the same shapes through its own methods, its 404, and an
// error handed to next() (its final handler answers 500).
function express() {
  const e = require('express');
  const app = e();
  app.get('/text', (req, res) => res.send('hello'));
  app.get('/head', (req, res) => {
    res.writeHead(201, { 'Content-Type': 'text/plain', 'X-Id': '7' });
    res.end('created');
  });
  app.get('/json', (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json({ id: 7, name: 'seven' });
  });
  app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
  app.get('/chunked', (req, res) => {
    res.type('text/plain');
    res.write('one,');
    res.write('two,');
    res.end('three');
  });
  app.get('/fail', (req, res) => {
    res.on('finish', function onFinish() {
      logError(new Error(`failed: ${req.method} ${req.path} ${res.statusCode}`));
    });
    res.status(500).send('failed');
  });
  app.get('/error', (req, res, next) => next(new Error('route failed')));
  app.get('/upstream', (req, res) => callUpstream(res));
  return app;
}

// Its own lines on stdout start with MARK (an agent may print there too).
const MARK = 'agents-app: ';
const say = (what) => process.stdout.write(`${MARK}${JSON.stringify(what)}\n`);

const server = SERVER === 'express' ? http.createServer(express()) : http.createServer(plain);
// The upstream agent's connection made first (a GET), so that /upstream's
// POST finds it connected, as a service's calls to another mostly do (its
// bytes then go with the head: not copied before the socket connects).
upstream.on('listening', () => {
  const warm = http.get({ host: '127.0.0.1', port: upstream.address().port, path: '/warm', agent: upstreamAgent,
    headers: { 'X-Ping': 'ping' } }, (answer) => {
    answer.resume();
    answer.on('end', () => server.listen(0, '127.0.0.1', () => say({ port: server.address().port })));
  });
  warm.on('error', (err) => say({ warmFailed: err.code }));
});

// At exit (each agent has flushed by then): where the process connected.
// (stdout is a pipe: written at once.)
process.on('exit', () => say({ connections }));

// 'done' on stdin (or stdin closed): close, report, and run out of work.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  if (input.trim() !== 'done') process.exitCode = 2;
  server.closeAllConnections();
  upstreamAgent.destroy();
  upstream.close();
  server.close(() => {
    const status = process.env.AGENTS_ONEWRITE === '1' ? require(ROOT).status() : null;
    say({ logged, status });
  });
});
