'use strict';

// Starting the user's app, as it is (stock) or with onewrite preloaded,
// finding the port it listens on, asking it for onewrite's status, and
// stopping it.
//
// The port: --port when given (and passed in PORT too); otherwise a free
// one is picked here and passed in PORT; an app that listens elsewhere is
// found by the port it prints (a URL such as http://localhost:3000,
// "listening on port 3000", or a bare number on a line of its own), on
// stdout or stderr, or else, where /proc tells (Linux), by the one port its
// own process listens on (listening.js).  The stock run has no preload and
// ONEWRITE_DISABLE unset; the onewrite run preloads this package's own
// register.js and reporter.js, by absolute path.

const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { pinned, SERVER_CPU } = require('./cpu');
const { listeningSockets } = require('./listening');

const REGISTER = path.join(__dirname, '..', '..', 'register.js');
const REPORTER = path.join(__dirname, 'reporter.js');
const TAG = 'onewrite-compare'; // reporter.js has the same
const TAIL = 4000; //               characters of the app's output kept for error messages
const ANNOUNCED = 64 * 1024; //     and searched for a port until it is found
const POLL = 50; //                 ms between two looks for the port
const SETTLE = 300; //              ms an unannounced port must stay the only one (it may print another yet)
const AMBIGUOUS = 2000; //          ms several unannounced ports must stay so before the app is given up on
const LOOPBACK = ['127.0.0.1', '::1'];

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

// The first of `ports` that accepts a connection: { port, host } or null.
// A port the app's own sockets (`own`; null without /proc) listen on is
// tried where they listen, any other on the loopback (so a server run by a
// process the app starts is found too).
async function firstAccepting(ports, own) {
  for (const port of ports) {
    const mine = own ? own.filter((s) => s.port === port) : [];
    const hosts = mine.length > 0 ? [...new Set(mine.flatMap((s) => s.hosts))] : LOOPBACK;
    for (const host of hosts) {
      if (await accepts(port, host)) return { port, host };
    }
  }
  return null;
}

// The ports the app's own process listens on, once they have stayed the
// same for a while (an app that prints its port after listening gets the
// time to print it): one to take, several to give up on; null while they
// change, or while there are none.  `seen` keeps the last set and since when.
function settledPorts(own, seen, now = Date.now()) {
  const ports = [...new Set(own.map((s) => s.port))].sort((a, b) => a - b);
  const key = ports.join(' ');
  if (key !== seen.key) Object.assign(seen, { key, since: now });
  const wait = ports.length > 1 ? AMBIGUOUS : SETTLE;
  return ports.length > 0 && now - seen.since >= wait ? ports : null;
}

const listOf = (ports) => ports.join(', ').replace(/, (\d+)$/, ' and $1');

// Why no port was found within `seconds`, and what the user can do.
function notFound({ fixedPort, port, own, seconds }) {
  if (fixedPort) return `did not listen on --port=${fixedPort} within ${seconds} s`;
  const tried = `neither listened on PORT=${port} nor printed a port it listens on`;
  if (own === null) {
    return `${tried} within ${seconds} s, and without /proc the port it listens on cannot be found: ` +
      'pass it with --port=N';
  }
  if (own.length > 0) {
    return `${tried}; its process listens on ${listOf([...new Set(own.map((s) => s.port))])}, ` +
      `but no connection there was accepted within ${seconds} s; pass the port to load with --port=N`;
  }
  return `${tried}, and its process listened on no TCP port, within ${seconds} s; ` +
    'if a process it starts listens, pass that port with --port=N';
}

// Start `script` (with `args`) on `node`; `onewrite` preloads the fast
// paths and the reporter; `fixedPort` (--port) is the port the app listens
// on.  Resolves once the app accepts connections, with
// { pid, port, host, status, query(), stop(), failure(why), exited }.
async function startApp({ script, args = [], node = process.execPath, onewrite = false, fixedPort = null, timeout = 30000 }) {
  const label = onewrite ? 'the app with onewrite' : 'the app (stock)';
  // Another server already there would be measured in the app's place.
  if (fixedPort && await firstAccepting([fixedPort], null)) {
    throw new Error(`${label}: something already listens on --port=${fixedPort} before the app starts ` +
      '(an app left running?): stop it, or run the app on another port');
  }
  const port = fixedPort || await freePort();
  const env = { ...process.env, PORT: String(port) };
  delete env.ONEWRITE_DISABLE;
  const nodeArgs = [...(onewrite ? ['-r', REGISTER, '-r', REPORTER] : []), script, ...args];
  const [cmd, argv] = pinned(SERVER_CPU, node, nodeArgs);
  const child = spawn(cmd, argv, {
    env,
    stdio: ['ignore', 'pipe', 'pipe', ...(onewrite ? ['ipc'] : [])],
  });

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

  // Wait for a listening port: --port alone when given; else the one
  // passed in PORT first, then those the app printed, then the one its own
  // process listens on.
  const deadline = Date.now() + timeout;
  const seen = { key: null, since: 0 };
  for (;;) {
    if (exited) {
      await app.stop();
      if (spawnError) throw failure(`could not be started with ${node}: ${spawnError.message}`);
      throw failure(`exited (${exited.signal || `code ${exited.code}`}) before it listened`);
    }
    const own = listeningSockets(child.pid);
    // A port it printed that is not its own (its database's, say) is not
    // the app's, where /proc can tell.
    const printed = announcedPorts(announced).filter((p) => p !== port && (own === null || own.some((s) => s.port === p)));
    const candidates = fixedPort ? [fixedPort] : [port, ...printed];
    let found = await firstAccepting(candidates, own);
    if (!found && !fixedPort && own) {
      const ports = settledPorts(own, seen);
      if (ports && ports.length > 1) {
        await app.stop();
        throw failure(`listens on ports ${listOf(ports)} (not on PORT=${port}) and printed none of them: ` +
          'say which one to load with --port=N');
      }
      if (ports) found = await firstAccepting(ports, own);
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
      throw failure(notFound({ fixedPort, port, own, seconds: timeout / 1000 }));
    }
    await new Promise((resolve) => setTimeout(resolve, POLL));
  }
}

// Stop every app still running (the comparison is interrupted).
function stopAll() {
  return Promise.all([...running].map((app) => app.stop()));
}

module.exports = { startApp, stopAll };
