'use strict';

// node apm-child.js <scenario> <side>: what an APM agent (or any library
// wrapping http's prototypes) sees of the responses of one server, with
// stock Node ('stock': onewrite loaded, never installed) or with onewrite
// ('fast': install(), or the ServerResponse option where the scenario says
// so).  Prints one JSON line: the bytes of each response, every wrapper
// call (with the URL and the arguments), and what the scenario checks.
// Only what must be equal on both sides is printed, except `status`
// (end-after-install), which the test reads on its own.

const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const [scenario, side] = process.argv.slice(2);
const fast = side === 'fast';
const calls = [];

// shimmer's wrap(), as APM agents use it: the wrapper replaces the
// property, keeps its enumerability, and remembers the original.
function wrap(obj, name, wrapper) {
  const original = obj[name];
  const wrapped = wrapper(original, name);
  const define = (o, key, value) => Object.defineProperty(o, key, {
    configurable: true, writable: true, value,
    enumerable: !!o[key] && Object.prototype.propertyIsEnumerable.call(o, key),
  });
  define(wrapped, '__original', original);
  define(wrapped, '__wrapped', true);
  define(obj, name, wrapped);
  return wrapped;
}

// Arguments as they can be compared: functions and Buffers by kind.
function describeArgs(args) {
  return args.map((a) => {
    if (typeof a === 'function') return 'function';
    if (Buffer.isBuffer(a)) return ['Buffer', a.toString('latin1')];
    return a;
  });
}

// A wrapper that logs each call, then calls what it wraps.
function counting(label) {
  return (original) => function counted(...args) {
    calls.push([label, this.req ? this.req.url : null, describeArgs(args)]);
    return original.apply(this, args);
  };
}

// A wrapper of a socket's write(), cork() or uncork() that logs each call
// of a server socket (one with a response) with what it was given (the
// Date value normalised), then calls what it wraps.
function socketCounting(label) {
  const { normalise } = require('./wire');
  return (original) => function counted(...args) {
    if (this._httpMessage !== undefined || this.server) {
      const what = args.map((a) => {
        if (typeof a === 'function') return 'function';
        if (Buffer.isBuffer(a)) return ['Buffer', normalise(a)];
        if (typeof a === 'string') return normalise(Buffer.from(a, 'latin1'));
        return a;
      });
      calls.push([label, what]);
    }
    return original.apply(this, args);
  };
}

// The responses the server gives: a head with headers, an implicit head,
// a chunked write, a Buffer body.
function handler(req, res) {
  if (req.url === '/a') {
    res.writeHead(200, { 'X-A': '1' });
    res.end('a');
  } else if (req.url === '/b') {
    res.end('b');
  } else if (req.url === '/c') {
    res.write('c');
    res.end();
  } else {
    res.statusCode = 404;
    res.end(Buffer.from('d'));
  }
}

async function exchangeAll(http, options, respond = handler) {
  const { exchange, normalise, listen, close } = require('./wire');
  const server = http.createServer(options, respond);
  const port = await listen(server);
  const bytes = [];
  const one = async (raw) => bytes.push(normalise((await exchange(port, raw)).bytes));
  const req = (p, last = true) => `GET ${p} HTTP/1.1\r\nHost: x\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
  for (const p of ['/a', '/b', '/c', '/d']) await one(req(p));
  await one(req('/a', false) + req('/b')); // keep-alive, pipelined
  await new Promise((resolve) => setTimeout(resolve, 20));
  await close(server);
  return bytes;
}

// The own property descriptors of the two prototypes, comparable by
// identity: each as [flags, value/get/set].
function descriptors(http) {
  const snap = {};
  for (const [label, proto] of [['ServerResponse', http.ServerResponse.prototype],
    ['OutgoingMessage', http.OutgoingMessage.prototype]]) {
    for (const key of Reflect.ownKeys(proto)) {
      snap[`${label}.${String(key)}`] = Object.getOwnPropertyDescriptor(proto, key);
    }
  }
  return snap;
}

function differing(a, b) {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out = [];
  for (const k of keys) {
    const x = a[k];
    const y = b[k];
    if (!x || !y || x.value !== y.value || x.get !== y.get || x.set !== y.set ||
        x.writable !== y.writable || x.enumerable !== y.enumerable || x.configurable !== y.configurable) {
      out.push(k);
    }
  }
  return out.sort();
}

const fastPaths = (onewrite) => {
  const c = onewrite.status().counters;
  return c.heads + c.ends + c.writes;
};

// The answers of a server after `wrapAll()` put its wrappers, before
// onewrite is loaded (installed on the fast side), and every call they saw.
async function beforeLoad(wrapAll) {
  wrapAll();
  const http = require('node:http');
  const onewrite = require(ROOT);
  if (fast) onewrite.install();
  return { bytes: await exchangeAll(http), calls };
}

const SCENARIOS = {
  // A wrapper put on the prototype before onewrite is even loaded.
  'writeHead-before-require': () => beforeLoad(() => {
    wrap(require('node:http').ServerResponse.prototype, 'writeHead', counting('writeHead'));
  }),
  // An agent's wrappers of write() and end(), put before onewrite is
  // loaded: loading it calls neither (each runs only when the app calls
  // it), and onewrite stays available, with those two left to the agent.
  async 'write-end-before-require'() {
    const http = require('node:http');
    wrap(http.OutgoingMessage.prototype, 'write', counting('write'));
    wrap(http.OutgoingMessage.prototype, 'end', counting('end'));
    const onewrite = require(ROOT);
    const callsAtLoad = calls.length;
    if (fast) onewrite.install();
    return { callsAtLoad, available: onewrite.status().available, bytes: await exchangeAll(http), calls };
  },
  // A wrapper of the sockets' write(), put before onewrite is loaded, on
  // net.Socket.prototype or on stream.Duplex.prototype (which holds a copy
  // of stream.Writable's methods, net.Socket's by inheritance): it is not
  // Node's own, and every response's writes go through Node's code, which
  // calls it as it calls it without onewrite.
  'socket-write-before-require': () => beforeLoad(() => {
    wrap(require('node:net').Socket.prototype, 'write', socketCounting('socket.write'));
  }),
  'duplex-write-before-require': () => beforeLoad(() => {
    wrap(require('node:stream').Duplex.prototype, 'write', socketCounting('Duplex.write'));
  }),
  // The same of cork() and uncork(), which Node's end() and write() call.
  'duplex-cork-before-require': () => beforeLoad(() => {
    const { Duplex } = require('node:stream');
    wrap(Duplex.prototype, 'cork', socketCounting('Duplex.cork'));
    wrap(Duplex.prototype, 'uncork', socketCounting('Duplex.uncork'));
  }),
  // Loaded first, wrapped, then installed.
  async 'writeHead-before-install'() {
    const http = require('node:http');
    const onewrite = require(ROOT);
    wrap(http.ServerResponse.prototype, 'writeHead', counting('writeHead'));
    if (fast) onewrite.install();
    return { bytes: await exchangeAll(http), calls };
  },
  // An agent loaded after install() wraps OutgoingMessage.prototype.end.
  async 'end-after-install'() {
    const http = require('node:http');
    const onewrite = require(ROOT);
    if (fast) onewrite.install();
    wrap(http.OutgoingMessage.prototype, 'end', counting('OutgoingMessage.end'));
    const bytes = await exchangeAll(http);
    return { bytes, calls, status: onewrite.status() };
  },
  // Wrappers put after install() on OutgoingMessage.prototype's end and
  // write, called in Node's place by onewrite's: each sees the arguments
  // of each call, their number included (on-headers and its users read
  // arguments.length), for calls of up to the three Node declares.
  async 'arity-after-install'() {
    const http = require('node:http');
    const onewrite = require(ROOT);
    if (fast) onewrite.install();
    wrap(http.OutgoingMessage.prototype, 'end', counting('OutgoingMessage.end'));
    wrap(http.OutgoingMessage.prototype, 'write', counting('OutgoingMessage.write'));
    const bytes = await exchangeAll(http, {}, (req, res) => {
      if (req.url === '/a') {
        res.writeHead(200);
        res.write('a', undefined);
        res.end(undefined);
      } else if (req.url === '/b') {
        res.end('b', undefined);
      } else if (req.url === '/c') {
        res.write('c', 'latin1', undefined);
        res.end('c', 'utf8', undefined);
      } else {
        res.end();
      }
    });
    return { bytes, calls };
  },
  // What @opentelemetry/instrumentation-http does for each incoming
  // request: the response's end (and here writeHead) wrapped on the instance.
  async 'instance-wrap'() {
    const http = require('node:http');
    const onewrite = require(ROOT);
    if (fast) onewrite.install();
    const emit = http.Server.prototype.emit;
    http.Server.prototype.emit = function patched(event, req, res) {
      if (event === 'request') {
        wrap(res, 'end', counting('res.end'));
        wrap(res, 'writeHead', counting('res.writeHead'));
      }
      return emit.apply(this, arguments);
    };
    return { bytes: await exchangeAll(http), calls };
  },
  // uninstall() puts back exactly the descriptors there were before
  // install(), those of wrappers put before it included; the wrappers
  // then run as in Node.
  async 'uninstall-restores'() {
    const http = require('node:http');
    const onewrite = require(ROOT);
    wrap(http.ServerResponse.prototype, 'writeHead', counting('writeHead'));
    wrap(http.ServerResponse.prototype, 'end', counting('end')); // inherited: now an own property
    const before = descriptors(http);
    if (fast) {
      onewrite.install();
      onewrite.uninstall();
    }
    const changed = differing(before, descriptors(http));
    return { changed, bytes: await exchangeAll(http), calls };
  },
  // Wrappers put after install() - one on top of onewrite's writeHead, one
  // on OutgoingMessage.prototype.end - are left in place by uninstall()
  // (it takes away onewrite's methods, not other people's), they keep
  // running, and what answers after uninstall() is Node's own code: no
  // fast path runs, the bytes are Node's.
  async 'wrapper-survives-uninstall'() {
    const http = require('node:http');
    const onewrite = require(ROOT);
    if (fast) onewrite.install();
    const w1 = wrap(http.ServerResponse.prototype, 'writeHead', counting('writeHead'));
    const w2 = wrap(http.OutgoingMessage.prototype, 'end', counting('OutgoingMessage.end'));
    if (fast) onewrite.uninstall();
    const stillThere = [http.ServerResponse.prototype.writeHead === w1,
      http.OutgoingMessage.prototype.end === w2];
    const ownNames = Object.getOwnPropertyNames(http.ServerResponse.prototype).sort();
    const from = fastPaths(onewrite);
    const bytes = await exchangeAll(http);
    return { stillThere, ownNames, bytes, calls, fastPathsAfterUninstall: fastPaths(onewrite) - from };
  },
  otel: () => otel(false),
  'otel-subclass': () => otel(true),
};

// The real thing: @opentelemetry/instrumentation-http with an in-memory
// exporter, registered before http is loaded, as its documentation says.
async function otel(subclass) {
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
  const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });
  const http = require('node:http');
  const onewrite = require(ROOT);
  if (fast && !subclass) onewrite.install();
  const options = fast && subclass ? { ServerResponse: onewrite.ServerResponse } : {};
  const bytes = await exchangeAll(http, options);
  const spans = exporter.getFinishedSpans().map((s) => [
    s.name, s.kind, s.status.code,
    s.attributes['http.status_code'] ?? s.attributes['http.response.status_code'],
    s.attributes['http.target'] ?? s.attributes['url.path'],
  ]);
  await provider.shutdown();
  return { bytes, spans };
}

if (!SCENARIOS[scenario] || (side !== 'stock' && side !== 'fast')) {
  process.stderr.write(`usage: apm-child.js <scenario> stock|fast (unknown: ${scenario} ${side})\n`);
  process.exit(2);
}
SCENARIOS[scenario]().then((result) => process.stdout.write(JSON.stringify(result) + '\n'));
