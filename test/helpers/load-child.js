'use strict';

// node load-child.js <case> <side>: a builtin or node:vm changed by code
// that runs before onewrite loads (test/builtins-load.js), then a server
// whose answer depends on onewrite's lower-casing (a Cookie array, which
// Node joins by its lower-cased name, and a repeated header), asked once.
// Prints one JSON line: the bytes (Date normalised), how often the
// changed code ran while onewrite loaded and installed, and in all, and
// onewrite's status (side 'onewrite' only).

const [which, side] = process.argv.slice(2);
const ROOT = require('node:path').join(__dirname, '..', '..');

let ran = 0;
let loading = 0;
const counted = () => {
  ran++;
};

// An accessor on `holder[name]` answering `other` to its k-th read, the
// original to the rest: code of the user's that a read runs.
function accessor(holder, name, other, k) {
  const original = holder[name];
  let reads = 0;
  Object.defineProperty(holder, name, {
    configurable: true,
    enumerable: false,
    get() {
      counted();
      reads++;
      return reads === k ? other : original;
    },
    set(v) {
      Object.defineProperty(this, name, { value: v, writable: true, configurable: true, enumerable: true });
    },
  });
}

const vm = require('node:vm');
const toUpper = String.prototype.toUpperCase;
// What the changed vm functions do to what they answer: the table onewrite
// builds there gets toUpperCase for toLowerCase.
function edit(made) {
  counted();
  if (made && made.table && made.table.StringPrototypeToLowerCase) {
    made.table.StringPrototypeToLowerCase = (s) => toUpper.call(s);
  }
  return made;
}

const CASES = {
  'toLowerCase read 1': () => accessor(String.prototype, 'toLowerCase', toUpper, 1),
  'toLowerCase read 2': () => accessor(String.prototype, 'toLowerCase', toUpper, 2),
  'toLowerCase read 3': () => accessor(String.prototype, 'toLowerCase', toUpper, 3),
  'toLowerCase read 4': () => accessor(String.prototype, 'toLowerCase', toUpper, 4),
  // The accessor answers the original (it counts).
  'Object.getOwnPropertyDescriptor, counting': () => accessor(Object, 'getOwnPropertyDescriptor', null, 0),
  'Array.isArray read 1': () => accessor(Array, 'isArray', () => false, 1),
  'Object.keys read 1': () => accessor(Object, 'keys', () => [], 1),
  'String.prototype.slice read 1': () => accessor(String.prototype, 'slice', () => '', 1),
  'vm.runInContext edits what it answers': () => {
    const run = vm.runInContext;
    vm.runInContext = function runInContext(...args) {
      return edit(run.apply(this, args));
    };
  },
  'vm.runInThisContext edits what it answers': () => {
    const run = vm.runInThisContext;
    vm.runInThisContext = function runInThisContext(...args) {
      return edit(run.apply(this, args));
    };
  },
  'vm.Script.prototype.runInContext edits what it answers': () => {
    const run = vm.Script.prototype.runInContext;
    vm.Script.prototype.runInContext = function runInContext(...args) {
      return edit(run.apply(this, args));
    };
  },
  // dd-trace, loaded first, puts there a subclass that publishes the code.
  'vm.Script replaced by a subclass, as dd-trace does': () => {
    const { Script } = vm;
    vm.Script = class extends Script {
      constructor(code) {
        super(...arguments); // eslint-disable-line prefer-rest-params
        counted();
      }
    };
  },
  'vm.Script replaced by a subclass that edits': () => {
    const { Script } = vm;
    vm.Script = class extends Script {
      runInContext(...args) {
        return edit(super.runInContext(...args));
      }
    };
  },
  'vm.createContext counting': () => {
    const create = vm.createContext;
    vm.createContext = function createContext(...args) {
      counted();
      return create.apply(this, args);
    };
  },
};

CASES[which]();
const http = require('node:http');
const net = require('node:net');
let status = null;
if (side === 'onewrite') {
  const before = ran;
  const onewrite = require(ROOT);
  onewrite.install();
  loading = ran - before;
  status = () => {
    const s = onewrite.status();
    return { active: s.active, reason: s.reason, heads: s.counters.heads, refused: s.fallbacks['builtin replaced'] || 0 };
  };
}
// /cookie: a Cookie array (Node joins it, so onewrite hands the head to
// Node once it sees the name); /plain: a head onewrite renders.
const server = http.createServer((req, res) => {
  if (req.url === '/cookie') res.setHeader('Cookie', ['a=1', 'b=2']);
  res.writeHead(200, { 'x-u': ['u1', 'u2'], 'Content-Type': 'text/plain' });
  res.end('ok');
});
function ask(path) {
  return new Promise((resolve) => {
    const socket = net.connect(server.address().port, '127.0.0.1',
      () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    const chunks = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1').replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>')));
  });
}
server.listen(0, '127.0.0.1', async () => {
  const bytes = await ask('/cookie');
  const plain = await ask('/plain');
  server.close();
  process.stdout.write(`${JSON.stringify({ bytes, plain, loading, ran, status: status && status() })}\n`);
});
