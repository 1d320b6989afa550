'use strict';

// node reentry-cases.js <case> <side>: one side ('stock' or 'fast') of one
// of issue 34's hostile callers, set up before onewrite loads where the
// case says so, then served and asked on loopback by this process; prints
// what it saw as one JSON line: each answer's bytes (Date normalised), what
// the handlers threw, the events, the counts of the hostile code, and the
// process's uncaught errors.  test/reentry-cases.js runs both sides and
// compares.

const [name, side] = process.argv.slice(2);
const fast = side === 'fast';
const ROOT = require('node:path').join(__dirname, '..', '..');
const out = { answers: {}, thrown: {}, events: {}, counts: {}, uncaught: [] };
process.on('uncaughtException', (err) => out.uncaught.push(`${err && err.code} ${err && err.message}`));

// ---- before onewrite loads ----------------------------------------------------

let held = null; // a response held for the hostile code to end
const endHeld = () => {
  if (held === null) return;
  const a = held;
  held = null;
  a.statusCode = 404;
  a.setHeader('X-From-A', 'secret-of-A');
  a.end('A');
};
// Counted while serving (onewrite's own load, which stock does not have,
// is not what is compared).
let counting = false;
const count = (key) => {
  if (counting) out.counts[key] = (out.counts[key] || 0) + 1;
};

// Builtins replaced before load, each ending the held response once.
const BEFORE = {
  'toLowerCase-ends-held': () => replace(String.prototype, 'toLowerCase'),
  'charCodeAt-ends-held': () => replace(String.prototype, 'charCodeAt'),
  'exec-ends-held': () => replace(RegExp.prototype, 'exec'),
  'getOwnPropertyDescriptor-ends-held': () => replace(Object, 'getOwnPropertyDescriptor'),
  'isProxy-ends-held': () => replace(require('node:util').types, 'isProxy'),
};
function replace(holder, key) {
  const original = holder[key];
  holder[key] = function (...args) {
    count(key);
    endHeld();
    return original.apply(this, args);
  };
}

// Counting replacements of builtins, before load (item 6).
const COUNTED = [[Array, 'isArray'], [Object, 'getOwnPropertyDescriptor'], [Array.prototype, 'slice'],
  [Math, 'floor'], [String.prototype, 'toLowerCase'], [RegExp.prototype, 'exec'], [Function.prototype, 'call']];
function countBefore() {
  for (const [holder, key] of COUNTED) {
    const original = holder[key];
    const apply = Reflect.apply;
    holder[key] = function (...args) {
      if (counting) out.counts[key] = (out.counts[key] || 0) + 1;
      return apply(original, this, args);
    };
  }
}

// A transparent accessor at an index of Array.prototype, whose setter
// ends the held response once (item 3).
function indexAccessor(index) {
  Object.defineProperty(Array.prototype, index, {
    configurable: true,
    get() {
      return undefined;
    },
    set(v) {
      count(`Array.prototype[${index}]`);
      Object.defineProperty(this, index, { value: v, writable: true, enumerable: true, configurable: true });
      endHeld();
    },
  });
}

// Function.prototype.toString throwing for Node's method names (item 5).
function toStringThrows() {
  const original = Function.prototype.toString;
  Function.prototype.toString = function () {
    if (['writeHead', 'end', 'write', 'cork', 'uncork'].includes(this.name)) throw new Error('no source for you');
    return original.call(this);
  };
}

const net = require('node:net');
const stream = require('node:stream');
// A wrapper of Writable's write() (and Duplex's copy) that says it is
// Node's: its own toString answers Node's source, or Function.prototype's
// does for it (item 9).
function lyingWrappers(how) {
  const source = Function.prototype.toString.call(stream.Writable.prototype.write);
  const original = stream.Writable.prototype.write;
  const wrapper = function write(...args) {
    count('write');
    return original.apply(this, args);
  };
  if (how === 'own') {
    wrapper.toString = () => source;
  } else {
    const toString = Function.prototype.toString;
    Function.prototype.toString = function () {
      return this === wrapper ? source : toString.call(this);
    };
  }
  stream.Writable.prototype.write = wrapper;
  stream.Duplex.prototype.write = wrapper;
  net.Socket.prototype.write = wrapper;
}

const setups = {
  ...BEFORE,
  'counted-before-load': countBefore,
  'index-5-accessor': () => indexAccessor(5),
  'index-3-accessor': () => indexAccessor(3),
  'tostring-throws': toStringThrows,
  'write-wrapper-own-tostring': () => lyingWrappers('own'),
  'write-wrapper-tostring-lies': () => lyingWrappers('global'),
};
if (setups[name]) setups[name]();

// ---- onewrite, the server, the client ----------------------------------------------

const http = require('node:http');
if (fast) {
  const onewrite = require(ROOT);
  out.installed = onewrite.install();
}
const status = () => (fast ? require(ROOT).status() : null);

// Everything a connection receives until it closes (or 1 s passes).
function ask(port, path) {
  return new Promise((resolve) => {
    const chunks = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    socket.setTimeout(1000, () => socket.destroy());
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1').replace(/Date: [^\r]*\r\n/, 'Date: <date>\r\n')));
  });
}

function watch(res, key) {
  const log = [];
  out.events[key] = log;
  for (const e of ['prefinish', 'finish', 'close']) res.on(e, () => log.push(e));
}

// A server whose handler runs `handle(req, res)` for every request but
// /a, which it holds.  `requests`: the paths asked, in order, after /a.
async function serve(handle, requests, { holdA = true } = {}) {
  const server = http.createServer((req, res) => {
    watch(res, req.url);
    if (req.url === '/a') {
      held = res;
      return;
    }
    try {
      handle(req, res);
    } catch (err) {
      out.thrown[req.url] = `${err && err.constructor && err.constructor.name} ${err && err.code} ${err && err.message}`;
      if (!res.writableEnded) res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  counting = true;
  const a = holdA ? ask(port, '/a') : null;
  if (holdA) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const path of requests) out.answers[path] = await ask(port, path);
  if (held !== null) held.end('A-default');
  if (a !== null) out.answers['/a'] = await a;
  counting = false;
  server.close();
}

// The six shapes of item 6 (and of the builtins replaced before load).
function shapes(req, res) {
  switch (req.url) {
    case '/end-string': return res.end('hello');
    case '/write-head': {
      res.writeHead(201, { 'Content-Type': 'text/plain', 'X-B1': 'b1' });
      return res.end('created');
    }
    case '/set-header': {
      res.setHeader('X-B1', 'b1');
      res.setHeader('Content-Type', 'text/plain');
      return res.end(Buffer.from('B'));
    }
    case '/chunked': {
      res.write('one,');
      return res.end('two');
    }
    case '/flat': {
      res.writeHead(200, ['X-B1', 'b1', 'X-B2', 'b2']);
      return res.end('flat', () => {});
    }
    default: {
      res.writeHead(200, 'Fine', { 'X-B1': 'b1' });
      return res.end('fine');
    }
  }
}
const SHAPES = ['/end-string', '/write-head', '/set-header', '/chunked', '/flat', '/message'];

// Item 1: a wrapper put after load on the socket's instance _write or
// _writev, on its handle's write methods, or on
// net.Socket.prototype._writeGeneric, which writes to or ends the same
// response from inside res.end('hello').
function socketWrapper(where, act) {
  return (req, res) => {
    const socket = res.socket;
    let done = false;
    const hostile = () => {
      if (done) return;
      done = true;
      count(`${where} ${act}`);
      if (act === 'write') res.write('late');
      else res.end('late');
    };
    const wrap = (holder, key) => {
      const original = holder[key];
      holder[key] = function (...args) {
        hostile();
        return original.apply(this, args);
      };
      return () => {
        holder[key] = original;
      };
    };
    let undo;
    if (where === '_write' || where === '_writev') undo = wrap(socket, where);
    else if (where === '_writeGeneric') undo = wrap(net.Socket.prototype, '_writeGeneric');
    else undo = [wrap(socket._handle, 'writev'), wrap(socket._handle, 'writeLatin1String'),
      wrap(socket._handle, 'writeUtf8String'), wrap(socket._handle, 'writeBuffer')];
    res.on('close', () => (Array.isArray(undo) ? undo.forEach((u) => u()) : undo()));
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '5' });
    if (req.url.endsWith('-cb')) res.end('hello', () => count('end callback'));
    else res.end('hello');
  };
}

// Item 11: res.write('late') from inside the socket's _writev, after a
// chunked write() (Node 20 loses it).
function writevAfterChunked(req, res) {
  const socket = res.socket;
  const original = socket._writev;
  let done = false;
  socket._writev = function (...args) {
    if (!done) {
      done = true;
      count('_writev');
      res.write('late');
    }
    return original.apply(this, args);
  };
  res.write('first');
  setImmediate(() => res.end('last'));
}

async function main() {
  if (BEFORE[name] || name === 'index-5-accessor' || name === 'index-3-accessor') {
    // B's head is built while the hostile code ends A.
    await serve(shapes, SHAPES);
  } else if (name === 'counted-before-load') {
    await serve(shapes, SHAPES, { holdA: false });
  } else if (name === 'tostring-throws' || name.startsWith('write-wrapper-')) {
    await serve(shapes, SHAPES, { holdA: false });
  } else if (name === 'socket-wrappers') {
    const paths = [];
    for (const where of ['_write', '_writev', 'handle', '_writeGeneric']) {
      for (const act of ['write', 'end']) for (const cb of ['', '-cb']) paths.push(`/${where}/${act}${cb}`);
    }
    await serve((req, res) => {
      const [, where, act] = req.url.split('/');
      socketWrapper(where, act.replace('-cb', ''))(req, res);
    }, paths, { holdA: false });
  } else if (name === 'writev-after-chunked') {
    await serve(writevAfterChunked, ['/chunked'], { holdA: false });
  } else {
    throw new Error(`unknown case ${name}`);
  }
  // The counters only: a side's reason and binary differ by design.
  const s = status();
  out.status = s && { heads: s.counters.heads, ends: s.counters.ends, reason: s.reason };
  setTimeout(() => process.stdout.write(JSON.stringify(out) + '\n'), 50);
}

main();
