'use strict';

// What the test/contract-*.js files share.  They hold the fast paths'
// contract with user code: wherever they read a user value or call a
// method - getters, Proxy traps, toString / valueOf / Symbol.toPrimitive,
// wrappers that APM agents and middleware put around writeHead,
// _implicitHeader, setHeader, end and socket.write - user code can run in
// the middle of them, and what follows must still be stock Node's.  Each
// subtest runs one handler on a stock server and on a onewrite server (on
// loopback, the same Node) and compares the bytes on the wire (the Date
// value normalised), the errors thrown, the events and callbacks in their
// order, the state the handler reads, and how many times the user's code
// ran (counters logged on each side).  Cases that can end the process run
// in child processes (test/helpers/child-run.js, test/helpers/apm-child.js).

const path = require('node:path');
const { exchange, normalise } = require('./wire');
const { same, watch, attempt, sleep } = require('./contract');

const major = Number(process.versions.node.split('.')[0]);
const CHILD = path.join(__dirname, 'child-run.js');
const APM = path.join(__dirname, 'apm-child.js');

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
const CLOSE = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

// same(), and that what the case is about does happen with stock Node
// (the getter ran, the error was thrown...): no comparison passes empty.
function check(t, result, message, happened, what) {
  same(t, result, message);
  t.ok(happened(result.stock), `with stock Node, ${what}`);
}
const logs = (entry) => (stock) => stock.log.some((e) => JSON.stringify(e).includes(entry));
// A was ended by user code inside B's calls (not by the handler after them).
const endedInB = (stock) => {
  const ended = stock.log.indexOf('A ended');
  const calls = stock.log.findIndex((e) => Array.isArray(e) && e[0] === 'B calls');
  return ended >= 0 && calls > ended;
};

// An object whose property `name` is a getter counting its calls, and
// running `effect` (if any) on each.
function withGetter(target, name, counter, value, effect) {
  Object.defineProperty(target, name, {
    enumerable: true,
    configurable: true,
    get() {
      counter.n++;
      if (effect) effect();
      return typeof value === 'function' ? value(counter.n) : value;
    },
  });
  return target;
}

// Turns target[name] into an accessor that counts its reads in counter.n
// (running `effect`, if any, on each) and keeps what is set; a read
// answers read(the value kept).
function withAccessor(target, name, counter, { read = (v) => v, effect } = {}) {
  let kept = target[name];
  Object.defineProperty(target, name, {
    configurable: true,
    get() {
      counter.n++;
      if (effect) effect();
      return read(kept);
    },
    set(v) {
      kept = v;
    },
  });
}

// A Proxy that logs every trap run on it, with the key.
function logged(target, log, label) {
  return new Proxy(target, new Proxy({}, {
    get(_, trap) {
      return (...args) => {
        const key = args[1];
        log.push([label, trap, typeof key === 'symbol' ? String(key) : key]);
        return Reflect[trap](...args);
      };
    },
  }));
}


// Client A's request is held by the handler; once it is, client B's
// request comes, and user code running in the middle of B's head ends A.
function heldClient(rawA, rawB) {
  return async (port, ctx) => {
    const a = exchange(port, rawA);
    for (let i = 0; i < 1000 && !ctx.held; i++) await sleep(2);
    const b = await exchange(port, rawB);
    return { a: normalise((await a).bytes), b: normalise(b.bytes) };
  };
}

// End the held response A, once.
function endHeld(ctx) {
  const a = ctx.held;
  if (!a || ctx.heldEnded) return;
  ctx.heldEnded = true;
  a.writeHead(404, { 'X-From-A': 'secret' });
  a.end('A');
  ctx.log.push('A ended');
}

// Hold response A (the request of /a) for B's handler, its 'finish' logged.
function holdA(res, ctx) {
  ctx.held = res;
  res.on('finish', () => ctx.log.push('A finish'));
}

// A handler for /a (held) and /b (`answer`, which gets a function that
// ends A from the middle of B's head); A is ended last if nothing did.
function leakHandler(answer) {
  return (req, res, ctx) => {
    if (req.url === '/a') {
      holdA(res, ctx);
      return;
    }
    watch(res, ctx.log);
    const counter = { n: 0 };
    attempt(ctx.log, 'B', () => answer(res, counter, () => endHeld(ctx)));
    ctx.log.push(['B calls', counter.n]);
    endHeld(ctx);
  };
}

const A_REQ = 'GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
const B_REQ = 'GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';


module.exports = {
  major, CHILD, APM, GET, CLOSE, A_REQ, B_REQ,
  check, logs, endedInB, withGetter, withAccessor, logged,
  heldClient, endHeld, holdA, leakHandler,
};
