'use strict';

// Run by test/reentry.js, once stock (ONEWRITE=0) and once with onewrite
// installed (ONEWRITE=1), the same way on both sides: a server whose every
// builtin, every method on the way from a response to the kernel (the
// response's, the socket's, the stream's, the event emitter's, the
// handle's) and every index accessor Array.prototype could have is
// wrapped, before onewrite loads (WHEN=before) or after (WHEN=after), but
// for those named in SKIP.  The wrappers pass every call through, count
// it, and, when the test arms one for a request, act once on its first
// call inside that request's handler:
//   end-other   end another response, held on the same server;
//   write-same  write to the response being made;
//   end-same    end the response being made;
//   throw       throw.
// The test sends "GET /hold" (held until the next request is done), then
// "GET /run?t=<target>&m=<mode>&s=<shape>": the handler makes the response
// of that shape with the target armed.  Once both have closed, one JSON
// line tells what the handler threw, the events of both responses, what
// the hostile call did and how many times each target ran.
//
// WHEN=each: nothing wrapped at first; every /run wraps its target alone
// for the request, and takes the wrapper off after (the targets onewrite
// refuses or hands to Node when they are replaced, one at a time).

// The targets, and the realm the harness calls (loaded before anything is
// wrapped: test/helpers/reentry-targets.js).
const targetsOf = require('./reentry-targets');
const { R } = targetsOf;
const { apply, construct, define, stringify } = R;
const fs = require('node:fs');
const http = require('node:http');
const { Buffer } = require('node:buffer');

const say = (line) => fs.writeSync(1, `${line}\n`);
const WHEN = process.env.WHEN;
const SKIP = new Set((process.env.SKIP || '').split(',').filter(Boolean));

// ---- what is wrapped ----------------------------------------------------------

const HOLDERS = targetsOf.holders([
  ['http.ServerResponse.prototype', http.ServerResponse.prototype],
  ['http.OutgoingMessage.prototype', http.OutgoingMessage.prototype],
]);

const targets = new R.Map(); // name -> { holder, key, d: the original descriptor }

// ---- the wrappers ---------------------------------------------------------------

const counts = { __proto__: null };
const inWindow = { __proto__: null }; // targets called while a handler ran
let counting = false;
let windowOpen = false;
let armed = null; //   { name, mode } while a handler runs
let fired = null; //   what the armed wrapper did
let current = null; // the response the handler makes
let held = null; //    the response held for end-other

function hit(name) {
  if (counting) counts[name] = (counts[name] | 0) + 1;
  if (windowOpen) inWindow[name] = true;
  if (armed === null || armed.name !== name) return;
  const { mode } = armed;
  armed = null;
  fired = mode;
  if (mode === 'end-other') {
    if (held !== null && !held.writableEnded) held.end('A');
  } else if (mode === 'write-same') {
    current.write('late');
  } else if (mode === 'end-same') {
    current.end('late');
  } else if (mode === 'throw') {
    throw new R.Error(`hostile ${name}`);
  }
}

function wrap(name) {
  const t = targets.get(name);
  if (t.d === null) {
    // An index accessor that changes nothing: a hole reads undefined, and a
    // write makes the element the receiver's own, as it would be without
    // it.
    const { key } = t;
    define(t.holder, key, {
      configurable: true,
      get() {
        hit(name);
        return undefined;
      },
      set(v) {
        hit(name);
        define(this, key, { value: v, writable: true, enumerable: true, configurable: true });
      },
    });
    return;
  }
  const original = t.d.value;
  const wrapper = function (...args) {
    hit(name);
    return new.target === undefined ? apply(original, this, args) : construct(original, args, new.target);
  };
  define(wrapper, 'length', { value: original.length });
  define(wrapper, 'name', { value: original.name });
  define(t.holder, t.key, { ...t.d, value: wrapper });
}

function unwrap(name) {
  const t = targets.get(name);
  if (t.d === null) {
    delete t.holder[t.key];
    // An index defined on Array.prototype grew its length, which delete
    // leaves: onewrite stays off while it is not 0 (lib/primordials.js),
    // and every scenario after would compare stock with stock.
    if (t.holder === Array.prototype) Array.prototype.length = 0;
  } else {
    define(t.holder, t.key, t.d);
  }
}

// `then` once counting has stopped.
function whenCounted(then) {
  if (!counting) then();
  else setImmediate(() => whenCounted(then));
}

// Counting stops `turns` turns of the event loop from now.
function stopCountingAfter(turns) {
  if (turns === 0) {
    counting = false;
    return;
  }
  setImmediate(() => stopCountingAfter(turns - 1));
}

// ---- the responses ---------------------------------------------------------------

// Each shape makes its values first (unarmed), then its calls (armed).
const SHAPES = {
  'head-end': () => {
    const headers = { 'Content-Type': 'text/plain', 'X-A': 'a' };
    return (res) => {
      res.writeHead(200, headers);
      res.end('hello');
    };
  },
  // writeHead() with a length, then end(text): the one-write end() of the
  // common case (lib/outgoing.js endFast).
  'head-length-end': () => {
    const headers = { 'Content-Type': 'text/plain', 'Content-Length': '5' };
    return (res) => {
      res.writeHead(200, headers);
      res.end('hello');
    };
  },
  'set-end-buffer': () => {
    const body = Buffer.from('hello');
    return (res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.setHeader('X-Id', '1');
      res.end(body);
    };
  },
  'chunked': () => {
    const two = Buffer.from('two,');
    return (res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.write('one,');
      res.write(two);
      res.end('three');
    };
  },
  'end-callback': () => {
    const headers = [['X-B', 'b']];
    const done = () => {};
    return (res) => {
      res.writeHead(200, headers);
      res.end('cb', done);
    };
  },
};

function describe(err) {
  if (err === undefined) return null;
  return { class: err && err.constructor && err.constructor.name, code: err && err.code, message: String(err && err.message) };
}

// The response's events, in order, into `log` (an array of the harness's
// realm: its push is not a wrapper).
function watch(res, log) {
  res.on('prefinish', () => log.push('prefinish'));
  res.on('finish', () => log.push('finish'));
  res.on('close', () => log.push('close'));
  res.on('error', (err) => log.push(`error ${err && err.code}`));
}

function main() {
  if (process.env.ONEWRITE === '1') {
    // (Off where what it relies on was replaced before it loaded: the
    // test reads status().)
    require(process.env.ONEWRITE_ROOT).install();
  }
  const uncaught = new R.Array();
  process.on('uncaughtException', (err) => uncaught.push(describe(err)));
  let record = null;
  let heldClosed = null; // null, or a function to call once the held response closed (true once it has)
  const server = http.createServer((req, res) => {
    if (req.url === '/hold') {
      for (const k in counts) delete counts[k];
      for (const k in inWindow) delete inWindow[k];
      fired = null;
      record = { eventsA: new R.Array(), eventsB: new R.Array() };
      held = res;
      res.sendDate = false;
      heldClosed = null;
      watch(res, record.eventsA);
      res.on('close', () => {
        const then = heldClosed;
        heldClosed = true;
        if (typeof then === 'function') then();
      });
      say('held');
      return;
    }
    if (req.url === '/status') {
      const onewrite = process.env.ONEWRITE === '1' ? require(process.env.ONEWRITE_ROOT) : null;
      res.end(stringify(onewrite && onewrite.status()));
      return;
    }
    const q = new URL(req.url, 'http://x').searchParams;
    const name = q.get('t');
    const mode = q.get('m');
    const run = SHAPES[q.get('s')]();
    // Node makes its Date header's text at most once a second, and a timer
    // throws it away: how often toUTCString() runs goes by the clock, not
    // by the scenario.  No scenario sends one.
    res.sendDate = false;
    watch(res, record.eventsB);
    if (WHEN === 'each' && name !== '') wrap(name);
    current = res;
    let thrown;
    counting = true;
    windowOpen = true;
    armed = name === '' || mode === 'count' ? null : { name, mode };
    try {
      run(res);
    } catch (err) {
      thrown = err;
    }
    armed = null;
    windowOpen = false;
    record.thrown = describe(thrown);
    if (!res.writableEnded) {
      try {
        res.end();
      } catch (err) {
        record.cleanup = describe(err);
      }
    }
    // Counting goes on for the response's own ticks (its writes'
    // callbacks, 'finish') and stops a fixed number of event-loop turns
    // after the handler: what follows depends on the client and the clock
    // (when the connection closes, whether a stuck one had to be closed),
    // not on the scenario.
    stopCountingAfter(8);
    // A response left open by what the scenario did (a throw inside end(),
    // say) is closed after a while, on both sides alike.  (Every shape
    // writes all it writes inside the handler: by then its bytes are with
    // the kernel, and closing a connection that only waits for the client
    // changes none of them.)
    const socketB = res.socket;
    const stuckB = setTimeout(() => {
      record.stuckB = true;
      socketB.destroy();
    }, 250);
    const finish = () => whenCounted(() => {
      clearTimeout(stuckB);
      if (WHEN === 'each' && name !== '') unwrap(name);
      const socketA = held.socket;
      if (!held.writableEnded) {
        try {
          held.end('A-default');
        } catch (err) {
          record.cleanupA = describe(err);
        }
      }
      const stuckA = setTimeout(() => {
        record.stuckA = true;
        if (socketA !== null) socketA.destroy();
      }, 250);
      // (A few milliseconds for the closed connections' parsers to go back
      // to Node's free list: the next request then finds one, on both sides.)
      const report = () => setTimeout(() => {
        clearTimeout(stuckA);
        record.fired = fired;
        record.counts = { ...counts };
        record.window = { ...inWindow };
        record.uncaught = uncaught.splice(0);
        say(`R ${stringify(record)}`);
      }, 5);
      if (heldClosed === true) report();
      else heldClosed = report;
    });
    if (socketB === null || socketB.destroyed) setImmediate(finish);
    else socketB.once('close', () => setImmediate(finish));
  });
  server.listen(0, '127.0.0.1', () => {
    say(`port ${server.address().port}`);
    say(`targets ${stringify([...targets.keys()])}`);
  });
}

targetsOf.handleHolders().then((handle) => {
  targetsOf.collect(targets, [...HOLDERS, ...handle]);
  const bulk = [...targets.keys()].filter((n) => !SKIP.has(n));
  if (WHEN === 'before') for (const n of bulk) wrap(n);
  main();
  if (WHEN === 'after') for (const n of bulk) wrap(n);
});
