'use strict';

// Starting the user's app, as it is (stock) or with onewrite preloaded,
// finding the port it listens on, asking it for onewrite's status, and
// stopping it.
//
// The port: a free one is picked here and passed in PORT; an app that
// listens elsewhere is found by the port it prints (a URL such as
// http://localhost:3000, "listening on port 3000", or a bare number on a
// line of its own), on stdout or stderr.  The stock run has no preload and
// ONEWRITE_DISABLE unset; the onewrite run preloads this package's own
// register.js and reporter.js, by absolute path.

const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { pinned, SERVER_CPU } = require('./cpu');

const REGISTER = path.join(__dirname, '..', '..', 'register.js');
const REPORTER = path.join(__dirname, 'reporter.js');
const TAG = 'onewrite-compare'; // reporter.js has the same
const TAIL = 4000; //               characters of the app's output kept for error messages
const ANNOUNCED = 64 * 1024; //     and searched for a port until it is found

// The apps running now, for stopAll().
const running = new Set();

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Resolves true when something accepts a connection on host:port.
function accepts(port, host) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

// The ports a piece of the app's output announces, in order.
const PORT_PATTERNS = [
  /\bhttps?:\/\/(?:\[[^\]\s]*\]|[^\s/:'"]+):(\d{1,5})\b/gi, // http://localhost:3000
  /\b(?:listen\w*|port)\b[^\d\r\n]{0,20}?(\d{2,5})\b/gi, //    listening on port 3000, port: 3000
  /^\s*(\d{2,5})\s*$/gm, //                                   3000
];
function announcedPorts(text) {
  const ports = [];
  for (const re of PORT_PATTERNS) {
    for (const m of text.matchAll(re)) {
      const port = Number(m[1]);
      if (port > 0 && port < 65536 && !ports.includes(port)) ports.push(port);
    }
  }
  return ports;
}

// Start `script` (with `args`) on `node`; `onewrite` preloads the fast
// paths and the reporter.  Resolves once the app accepts connections, with
// { pid, port, host, status, query(), stop(), failure(why), exited }.
async function startApp({ script, args = [], node = process.execPath, onewrite = false, timeout = 30000 }) {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port) };
  delete env.ONEWRITE_DISABLE;
  const nodeArgs = [...(onewrite ? ['-r', REGISTER, '-r', REPORTER] : []), script, ...args];
  const [cmd, argv] = pinned(SERVER_CPU, node, nodeArgs);
  const child = spawn(cmd, argv, {
    env,
    stdio: ['ignore', 'pipe', 'pipe', ...(onewrite ? ['ipc'] : [])],
  });
  const label = onewrite ? 'the app with onewrite' : 'the app (stock)';

  let output = ''; // the tail, for error messages
  let announced = ''; // what it printed until the port is known (the last ANNOUNCED characters)
  let portKnown = false;
  const onData = (d) => {
    const s = String(d);
    output = (output + s).slice(-TAIL);
    if (!portKnown) announced = (announced + s).slice(-ANNOUNCED);
  };
  child.stdout.on('data', onData); // read to the end: an app that logs must never block
  child.stderr.on('data', onData);

  let exited = null;
  let spawnError = null;
  const exit = new Promise((resolve) => {
    child.on('error', (err) => {
      spawnError = err;
      exited = { code: null, signal: null };
      resolve();
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
  });

  // onewrite's status, from the reporter: the first one on its own, the
  // others on request.
  const pending = new Map();
  let hello = null;
  let nextId = 1;
  if (onewrite) {
    child.on('message', (m) => {
      if (!m || m[TAG] !== true) return; // the app's own
      if (m.type === 'hello') hello = m.status;
      else if (m.type === 'status' && pending.has(m.id)) {
        pending.get(m.id)(m.status);
        pending.delete(m.id);
      }
    });
  }

  // An error saying what went wrong with the app, with the last lines it
  // printed (for this module and for the load, cli/compare/load.js).
  const failure = (why) => {
    const tail = output.trim() ? `\n--- its output (last lines) ---\n${output.trim().split('\n').slice(-20).join('\n')}` : ' (it printed nothing)';
    return new Error(`${label}: ${why}${tail}`);
  };

  const app = {
    pid: child.pid,
    port: null,
    host: null,
    label,
    status: null,
    get exited() {
      return exited;
    },
    failure,
    query() {
      if (exited) return Promise.reject(new Error(`${label} has exited`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${label} did not answer a status query within 5 s`));
        }, 5000);
        pending.set(id, (status) => {
          clearTimeout(timer);
          resolve(status);
        });
        child.send({ [TAG]: true, type: 'status', id });
      });
    },
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exit;
        clearTimeout(timer);
      }
      running.delete(app);
    },
  };
  running.add(app);

  // Wait for a listening port: the one passed in PORT first, then those
  // the app announced; on IPv4 loopback, then IPv6.
  const deadline = Date.now() + timeout;
  for (;;) {
    if (exited) {
      await app.stop();
      if (spawnError) throw failure(`could not be started with ${node}: ${spawnError.message}`);
      throw failure(`exited (${exited.signal || `code ${exited.code}`}) before it listened`);
    }
    const candidates = [port, ...announcedPorts(announced).filter((p) => p !== port)];
    let found = null;
    for (const p of candidates) {
      for (const host of ['127.0.0.1', '::1']) {
        if (found === null && await accepts(p, host)) found = { port: p, host };
      }
    }
    if (found && (!onewrite || hello)) {
      portKnown = true;
      announced = '';
      Object.assign(app, found, { status: hello });
      return app;
    }
    if (Date.now() > deadline) {
      await app.stop();
      if (found) throw failure('listened, but onewrite\'s reporter never spoke (was the preload refused?)');
      throw failure(`neither listened on PORT=${port} nor printed a port it listens on within ${timeout / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Stop every app still running (the comparison is interrupted).
function stopAll() {
  return Promise.all([...running].map((app) => app.stop()));
}

module.exports = { startApp, stopAll };
