'use strict';

// Run by test/builtins.js, once stock (ONEWRITE=0) and once with onewrite
// installed (ONEWRITE=1): a server whose handler answers each of
// CASES by its URL.  Once it listens, every builtin function a user could
// patch - the methods of the standard prototypes and namespaces, the typed
// arrays' accessors, process.nextTick - is wrapped to count its calls, as
// a patched builtin would run user code there; but for those named in
// SKIP (comma-separated).  Node's own http code takes most builtins when
// it loads (its primordials) and calls a few live; onewrite must call the
// same ones the same number of times.  The counts, and onewrite's
// status(), are printed (one JSON line) when GET /done comes.

const http = require('node:http');

const { apply, getOwnPropertyDescriptor, defineProperty, ownKeys } = Reflect;
const { stringify } = JSON;
const write = process.stdout.write.bind(process.stdout);

if (process.env.ONEWRITE === '1') {
  const onewrite = require(process.env.ONEWRITE_ROOT);
  if (!onewrite.install()) throw new Error(`onewrite is off: ${onewrite.status().reason}`);
}

const CASES = require('./builtins-cases');

const counts = Object.create(null);
const SKIP = new Set((process.env.SKIP || '').split(',').filter(Boolean));
let counting = false;

// Every function-valued own property of `target` (and every getter of the
// accessors named in `getters`), wrapped.  Constructors are left alone.
function wrapAll(label, target, getters = []) {
  for (const key of ownKeys(target)) {
    const d = getOwnPropertyDescriptor(target, key);
    const name = `${label}${typeof key === 'symbol' ? `[${key.description}]` : `.${key}`}`;
    if (SKIP.has(name)) continue;
    if (d.get && getters.includes(key)) {
      const get = d.get;
      defineProperty(target, key, { ...d, get: countGet(name, get) });
    } else if (typeof d.value === 'function' && key !== 'constructor' && d.writable && d.configurable) {
      const fn = d.value;
      defineProperty(target, key, { ...d, value: countCall(name, fn) });
    }
  }
}

function countCall(name, fn) {
  // A method, so that it cannot be called with new, as builtins.
  const wrapped = {
    [name](...args) {
      if (counting) counts[name] = (counts[name] || 0) + 1;
      return apply(fn, this, args);
    },
  }[name];
  defineProperty(wrapped, 'length', { value: fn.length });
  return wrapped;
}

function countGet(name, get) {
  return function () {
    if (counting) counts[name] = (counts[name] || 0) + 1;
    return apply(get, this, []);
  };
}

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const TARGETS = [
  ['Object', Object], ['Object.prototype', Object.prototype], ['Reflect', Reflect], ['Math', Math],
  ['Number', Number], ['Number.prototype', Number.prototype], ['String', String],
  ['String.prototype', String.prototype], ['Array', Array], ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype], ['RegExp.prototype', RegExp.prototype], ['JSON', JSON],
  ['Symbol', Symbol], ['Map.prototype', Map.prototype], ['Set.prototype', Set.prototype],
  ['WeakMap.prototype', WeakMap.prototype], ['WeakSet.prototype', WeakSet.prototype],
  ['ArrayBuffer', ArrayBuffer], ['TypedArray.prototype', TypedArrayPrototype],
  ['Uint8Array.prototype', Uint8Array.prototype], ['Buffer', Buffer], ['Buffer.prototype', Buffer.prototype],
  ['Promise', Promise], ['Promise.prototype', Promise.prototype], ['Error', Error],
  ['Date.prototype', Date.prototype], ['Date', Date],
];
const onewrite = process.env.ONEWRITE === '1' ? require(process.env.ONEWRITE_ROOT) : null;

const server = http.createServer((req, res) => {
  if (req.url === '/done') {
    counting = false;
    res.end();
    server.close();
    write(`${stringify({ counts, status: onewrite && onewrite.status() })}\n`);
    return;
  }
  const name = req.url.slice(1);
  // Node makes its Date header's text at most once a second, and a timer
  // throws it away: how often both run goes by the clock, not by the
  // requests.  So one case sends it, the last, and the count stops when
  // its response has finished.
  if (name === 'send-date') res.on('finish', () => { counting = false; });
  else res.sendDate = false;
  CASES[name](req, res);
});
// Each connection's close, told to the test (which waits for it before
// the next request), with the count paused.
server.on('connection', (socket) => {
  socket.on('close', () => {
    const was = counting;
    counting = false;
    write('closed\n');
    counting = was;
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  for (const [label, target] of TARGETS) {
    // (Not the typed arrays' length and byteLength getters: Node reads a
    // body's on paths onewrite does not take, and onewrite's own reads
    // are of the getters taken at load; a getter put there runs a
    // different number of times: README, "Where onewrite differs".)
    wrapAll(label, target, label === 'TypedArray.prototype' ? ['byteOffset', 'buffer'] : []);
  }
  if (!SKIP.has('process.nextTick')) {
    const { nextTick } = process;
    process.nextTick = countCall('process.nextTick', nextTick);
  }
  const ab = getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength');
  defineProperty(ArrayBuffer.prototype, 'byteLength', { ...ab, get: countGet('ArrayBuffer.prototype.byteLength', ab.get) });
  counting = true;
  write(`${port}\n`);
});
