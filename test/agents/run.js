'use strict';

// One run of test/agents/app.js under an agent, in one order, for
// test/agents/agents.js: the child started with its preloads, a fake
// collector of the agent's kind on loopback, the routes requested one
// after another on one keep-alive connection, every byte of each response
// kept; then the child told it is done, its exit (and each agent's flush
// at exit) waited for.
//
// run({ agent, server, order, routes }) (order: a key of ORDERS) resolves with
//   { command, responses: [latin1 bytes], requests: [collector requests],
//     logged, status, connections (where the app's process connected, as
//     it said at exit), exit, stderr, collectorDone }

const path = require('node:path');
const net = require('node:net');
const { spawn } = require('node:child_process');
const { collector } = require('./collectors');
const { AGENTS } = require('./config');
const { cleanNode } = require('../helpers/child');

const ROOT = path.join(__dirname, '..', '..');
const APP = path.join(__dirname, 'app.js');
const MARK = 'agents-app: '; // app.js's lines on stdout
const REGISTER = path.join(ROOT, 'register.js');

// The orders: stock (the agent alone: onewrite not loaded), the agent
// first, onewrite first; and onewrite alone (no agent: what onewrite does
// for this app by itself, the measure of what an agent costs it).
const ORDERS = {
  stock: (a) => [a],
  'agent first': (a) => [a, 'onewrite/register'],
  'onewrite first': (a) => ['onewrite/register', a],
  'onewrite alone': () => ['onewrite/register'],
};
const preloadFile = (m, agent) => (m === 'onewrite/register' ? REGISTER : agent.file());

// The command a user types for an order.
function command(agentName, order) {
  const r = ORDERS[order](agentName ? AGENTS[agentName].name : null);
  return `node ${r.map((m) => `-r ${m}`).join(' ')} app.js`;
}

// Every byte of one response, taken off the front of `state.buf` (what the
// connection has sent so far) once it is all there: the head, then a
// Content-Length body or chunks up to the last one.  null until then.
function readResponse(state) {
  const buf = state.buf;
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const head = buf.subarray(0, end).toString('latin1');
  let at = end + 4;
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    for (;;) {
      const eol = buf.indexOf('\r\n', at);
      if (eol === -1) return null;
      const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
      if (size === 0) {
        // The trailers (none here) end with an empty line.
        const close = buf.indexOf('\r\n\r\n', eol);
        if (close === -1) return null;
        at = close + 4;
        break;
      }
      if (buf.length < eol + 2 + size + 2) return null;
      at = eol + 2 + size + 2;
    }
  } else {
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const len = m ? Number(m[1]) : 0;
    if (buf.length < at + len) return null;
    at += len;
  }
  const out = buf.subarray(0, at);
  state.buf = buf.subarray(at);
  return out;
}

// The routes, one after another on one keep-alive connection.
function requestAll(port, routes, timeout = 10000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const state = { buf: Buffer.alloc(0) };
    const responses = [];
    let timer = null;
    const next = () => {
      clearTimeout(timer);
      if (responses.length === routes.length) {
        socket.end();
        return resolve(responses);
      }
      timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no whole response to ${routes[responses.length]} within ${timeout} ms ` +
          `(got: ${JSON.stringify(state.buf.toString('latin1'))})`));
      }, timeout);
      socket.write(`GET ${routes[responses.length]} HTTP/1.1\r\nHost: localhost\r\nUser-Agent: agents-test\r\nAccept: */*\r\n\r\n`);
    };
    socket.on('connect', next);
    socket.on('data', (d) => {
      state.buf = Buffer.concat([state.buf, d]);
      const r = readResponse(state);
      if (r) {
        responses.push(r.toString('latin1'));
        next();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (responses.length < routes.length) reject(new Error(`connection closed after ${responses.length} responses`));
    });
  });
}

// `agent` null: onewrite alone, no collector.
async function run({ agent: agentName, server, order, routes, timeout = 60000 }) {
  const agent = agentName ? AGENTS[agentName] : null;
  const coll = agent ? await collector(agent.collector) : { requests: [], done: async () => true, close: async () => {} };
  const preloads = ORDERS[order](agent && agent.name).map((m) => preloadFile(m, agent));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(agent ? agent.env(coll.url) : {}),
    AGENTS_AGENT: agentName || '',
    AGENTS_SERVER: server,
    AGENTS_ONEWRITE: order === 'stock' ? '0' : '1',
  };
  // A clean environment (env -i): tap's coverage hooks stay out of the
  // app, which runs as a user's does.  It talks on stdin and stdout: lines
  // of its own start with MARK.
  const child = spawn(...cleanNode([...preloads.flatMap((p) => ['-r', p]), APP], env,
    { cwd: __dirname, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => (stderr += d));
  // 'close': exited, and all it wrote read.
  const exited = new Promise((r) => child.on('close', (code, signal) => r(signal || code)));
  const messages = [];
  const waiters = [];
  child.stdout.on('data', (d) => {
    stdout += d;
    let eol;
    while ((eol = stdout.indexOf('\n')) !== -1) {
      const line = stdout.slice(0, eol);
      stdout = stdout.slice(eol + 1);
      if (line.startsWith(MARK)) messages.push(JSON.parse(line.slice(MARK.length)));
    }
    for (const w of waiters.splice(0)) w();
  });
  const message = (what) => new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no ${what} from the child within ${timeout} ms; stderr: ${stderr}`)), timeout);
    const look = () => {
      if (messages.length > 0) {
        clearTimeout(timer);
        return ok(messages.shift());
      }
      waiters.push(look);
    };
    exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`the child exited (${code}) before its ${what}; stderr: ${stderr}`));
    });
    look();
  });
  const kill = setTimeout(() => child.kill('SIGKILL'), timeout);
  try {
    const { port } = await message('port');
    const responses = await requestAll(port, routes);
    child.stdin.end('done\n');
    const { logged, status } = await message('report');
    const { connections } = await message('connections at exit');
    const exit = await exited;
    const collectorDone = await coll.done();
    return {
      command: command(agentName, order), responses, requests: coll.requests, logged, status, connections, exit, stderr, collectorDone,
    };
  } finally {
    clearTimeout(kill);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await coll.close();
  }
}

module.exports = { run, command, AGENTS, ORDERS };
