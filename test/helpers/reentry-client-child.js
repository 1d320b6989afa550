'use strict';

// Run by test/reentry-client.js, once stock (ONEWRITE=0) and once with
// onewrite preloaded (ONEWRITE=1: `node -r <root>/register.js`), the same
// way on both sides: the client side of test/helpers/reentry-child.js.
// Every builtin, every method on the way from http.request() to the kernel
// (ClientRequest's, OutgoingMessage's, the socket's, its streams', the
// event emitter's, the handle's, http.Agent's) and every index accessor
// Array.prototype could have is wrapped, before onewrite loads
// (WHEN=before) or after (WHEN=after), but for those named in SKIP; or,
// with WHEN=each, the one a scenario names, for that scenario alone.  The
// wrappers pass every call through, count it, and, when the test arms one
// for a scenario, act once on its first call while the request is made:
//   end-other     end another request, held on another connection;
//   write-other   write to that held request;
//   write-same    write to the request being made;
//   end-same      end the request being made;
//   header-same   set a header on the request being made;
//   throw         throw.
// (The *-same modes act once the request exists: a call made inside
// http.request(), before it returned, lets them wait for the next one.)
//
// The servers are the parent's (RECORDER: one port, recording every byte
// of every connection; it answers /warm-* at once and the rest when told).
// On stdin, "run <target> <mode> <shape>": the child makes two keep-alive
// agents, a connection each (a /warm-* request answered), a held request A
// on the first with its socket, then, armed, the scenario's request B on
// the second.  The window is the shape's calls and the ticks after them
// (the request's socket comes on a later tick: its bytes are written
// then); counting goes on for a few turns of the event loop more.  Then
// "release" (the parent's server answers), the requests' ends, the agents
// destroyed, and one JSON line: what the shape threw, the events of both
// requests, what the hostile call did, how many times each target ran,
// the uncaught errors.

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
const PORT = Number(process.env.RECORDER);
const { nextTick } = process; // the harness's own, never wrapped

// ---- what is wrapped ----------------------------------------------------------

const HOLDERS = targetsOf.holders([
  ['http.ClientRequest.prototype', http.ClientRequest.prototype],
  ['http.OutgoingMessage.prototype', http.OutgoingMessage.prototype],
  ['http.Agent.prototype', http.Agent.prototype],
]);

const targets = new R.Map(); // name -> { holder, key, d: the original descriptor }

// ---- the wrappers ---------------------------------------------------------------

const counts = { __proto__: null };
const inWindow = { __proto__: null }; // targets called inside the window
let counting = false;
let windowOpen = false;
let armed = null; //   { name, mode } inside the window
let fired = null; //   what the armed wrapper did
let current = null; // the request being made, once http.request() returned
let held = null; //    request A, held for end-other and write-other
let quiet = 0; //      > 0 while the harness itself calls

function hit(name) {
  if (quiet > 0) return;
  if (counting) counts[name] = (counts[name] | 0) + 1;
  if (windowOpen) inWindow[name] = true;
  if (armed === null || armed.name !== name) return;
  const { mode } = armed;
  if (mode.endsWith('-same') && current === null) return;
  armed = null;
  fired = mode;
  if (mode === 'end-other') {
    if (held !== null && !held.writableEnded) held.end('A');
  } else if (mode === 'write-other') {
    if (held !== null && !held.writableEnded) held.write('A');
  } else if (mode === 'write-same') {
    current.write('late');
  } else if (mode === 'end-same') {
    current.end('late');
  } else if (mode === 'header-same') {
    current.setHeader('X-Late', 'late');
  } else if (mode === 'throw') {
    throw new R.Error(`hostile ${name}`);
  }
}

function wrap(name) {
  const t = targets.get(name);
  if (t.d === null) {
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

// (An element put on Array.prototype makes its length the index + 1, and
// deleting it leaves the length: put back too, else onewrite - which
// reads that length - would stay off for every scenario after.)
const arrayPrototypeLength = Array.prototype.length;
function unwrap(name) {
  const t = targets.get(name);
  if (t.d === null) {
    delete t.holder[t.key];
    Array.prototype.length = arrayPrototypeLength;
  } else {
    define(t.holder, t.key, t.d);
  }
}

// The harness's own calls: not counted, not armed.
function harness(fn) {
  quiet++;
  try {
    return fn();
  } finally {
    quiet--;
  }
}

// ---- the requests ---------------------------------------------------------------

// Each shape makes its values first (unarmed), then, armed, its calls: it
// is given http.request() and the function that tells the harness the
// request it made (the harness then watches it).
const SHAPES = {
  'post-string': (agent) => {
    const options = { method: 'POST', host: '127.0.0.1', port: PORT, path: '/b', agent, headers: { 'Content-Type': 'text/plain' } };
    return (request, made) => made(request(options)).end('hello');
  },
  'post-buffer': (agent) => {
    const options = { method: 'POST', host: '127.0.0.1', port: PORT, path: '/b', agent };
    const body = Buffer.from('hello');
    return (request, made) => made(request(options)).end(body);
  },
  'post-callback': (agent) => {
    const options = { method: 'POST', host: '127.0.0.1', port: PORT, path: '/b', agent };
    const done = () => {};
    return (request, made) => made(request(options)).end('cb', done);
  },
  // Headers as pairs: the head is rendered inside http.request().
  'post-pairs': (agent) => {
    const options = { method: 'PUT', host: '127.0.0.1', port: PORT, path: '/b', agent, headers: [['X-A', 'a'], ['Content-Length', '5']] };
    return (request, made) => made(request(options)).end('hello');
  },
  'write-end': (agent) => {
    const options = { method: 'POST', host: '127.0.0.1', port: PORT, path: '/b', agent };
    return (request, made) => {
      const req = made(request(options));
      req.write('one,');
      req.end();
    };
  },
  'get-end': (agent) => {
    const options = { host: '127.0.0.1', port: PORT, path: '/b?x=1', agent };
    return (request, made) => made(request(options)).end();
  },
};

function describe(err) {
  if (err === undefined) return null;
  return { class: err && err.constructor && err.constructor.name, code: err && err.code, message: String(err && err.message) };
}

// A request's events, in order, into `log` (an array of the harness's
// realm: its push is not a wrapper); `done` once it closed.
function watch(req, log, done) {
  req.on('socket', () => log.push('socket'));
  req.on('prefinish', () => log.push('prefinish'));
  req.on('finish', () => log.push('finish'));
  req.on('error', (err) => log.push(`error ${err && err.code}`));
  req.on('response', (res) => {
    log.push(`response ${res.statusCode}`);
    res.on('data', (d) => log.push(`data ${d}`));
    res.on('end', () => log.push('end'));
  });
  req.on('close', () => {
    log.push('close');
    done();
  });
}

// A keep-alive agent of one socket, connected: a request on it answered.
// Answers the agent and its socket (destroyed at the end of the scenario
// whatever the agent knows of it: a throw inside the agent can leave it
// in neither of its lists).
function warmAgent(name) {
  return new Promise((resolve) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let socket = null;
    agent.once('free', () => setImmediate(() => resolve({ agent, socket })));
    const req = http.request({ host: '127.0.0.1', port: PORT, path: `/warm-${name}`, agent });
    req.on('socket', (s) => {
      socket = s;
    });
    req.on('response', (res) => res.resume());
    req.end();
  });
}

// `then` once the ticks queued by now have run, and `ticks - 1` rounds of
// those they queue (a request's socket comes on a tick, its bytes are
// written then, and 'finish' comes on ticks after).  Not a turn of the
// event loop: what runs between turns (Node's timers' own bookkeeping) is
// not the request's.
function afterTicks(ticks, then) {
  if (ticks === 0) then();
  else nextTick(afterTicks, ticks - 1, then);
}

// `then` `turns` turns of the event loop from now.
function afterTurns(turns, then) {
  if (turns === 0) then();
  else setImmediate(() => afterTurns(turns - 1, then));
}

// Lines from the parent, one at a time.
const waiting = [];
let buffered = '';
process.stdin.on('data', (d) => {
  buffered += d;
  let at;
  while ((at = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    waiting.shift()(line);
  }
});
const line = () => new Promise((resolve) => waiting.push(resolve));

async function scenario(name, mode, shape) {
  for (const k in counts) delete counts[k];
  for (const k in inWindow) delete inWindow[k];
  fired = null;
  current = null;
  const record = { eventsA: new R.Array(), eventsB: new R.Array() };
  const a = await warmAgent('a');
  const b = await warmAgent('b');
  const agentA = a.agent;
  const agentB = b.agent;
  const destroyAll = () => {
    agentA.destroy();
    agentB.destroy();
    a.socket.destroy();
    b.socket.destroy();
  };
  const closed = { a: false, b: false };
  let onClosed = null;
  const closedOne = (which) => () => {
    closed[which] = true;
    if (onClosed !== null) onClosed();
  };
  held = http.request({ method: 'POST', host: '127.0.0.1', port: PORT, path: '/held', agent: agentA });
  watch(held, record.eventsA, closedOne('a'));
  await new Promise((resolve) => held.once('socket', () => setImmediate(resolve)));
  closed.b = true; // until a request B is made
  const run = SHAPES[shape](agentB);
  const made = (req) => harness(() => {
    current = req;
    closed.b = false;
    watch(req, record.eventsB, closedOne('b'));
    return req;
  });
  if (WHEN === 'each' && name !== '') wrap(name);
  // From a turn of its own: the window is the shape's calls and the ticks
  // after them.
  await new Promise((resolve) => setImmediate(resolve));
  let thrown;
  await new Promise((resolve) => {
    counting = true;
    windowOpen = true;
    armed = name === '' || mode === 'count' ? null : { name, mode };
    try {
      run(http.request, made);
    } catch (err) {
      thrown = err;
    }
    afterTicks(8, () => {
      armed = null;
      windowOpen = false;
      resolve();
    });
  });
  record.thrown = describe(thrown);
  if (current !== null && !current.writableEnded && !current.destroyed) {
    try {
      current.end();
    } catch (err) {
      record.cleanup = describe(err);
    }
  }
  // Counting goes on for the request's own ticks (its writes' callbacks,
  // 'finish'); the server says nothing until it is released.
  await new Promise((resolve) => afterTurns(8, resolve));
  counting = false;
  if (WHEN === 'each' && name !== '') unwrap(name);
  if (!held.writableEnded && !held.destroyed) {
    try {
      held.end('A-default');
    } catch (err) {
      record.cleanupA = describe(err);
    }
  }
  // What has not finished by now never will (every write here is to
  // loopback, done at once): destroyed, on both sides alike, before the
  // server answers the rest.
  await new Promise((resolve) => afterTurns(4, resolve));
  for (const [req, key] of [[held, 'A'], [current, 'B']]) {
    if (req !== null && !req.writableFinished && !req.destroyed) {
      record[`unfinished${key}`] = true;
      req.destroy();
      // (Its 'close' may never come: a throw where the socket is given
      // leaves it without the socket's listeners.  A few turns for its
      // events, then not waited for.)
      closed[key.toLowerCase()] = true;
    }
  }
  await new Promise((resolve) => afterTurns(4, resolve));
  // The server answers what it has; a request it has not had all of (what
  // the scenario did lost some of its bytes) is answered never: destroyed,
  // on both sides alike.
  say('release');
  const answered = JSON.parse((await line()).slice('go '.length));
  for (const [req, key] of [[held, 'A'], [current, 'B']]) {
    if (req !== null && !req.destroyed && answered[key] === 0) {
      record[`unanswered${key}`] = true;
      req.destroy();
      closed[key.toLowerCase()] = true;
    }
  }
  await new Promise((resolve) => afterTurns(4, resolve));
  await new Promise((resolve) => {
    // (For what should be answered and is not.  A request whose socket
    // never came - a throw in the tick that gives it one - never closes:
    // 50 ms after it is destroyed is enough.)
    const stuck = setTimeout(() => {
      if (!closed.a) record.stuckA = true;
      if (!closed.b) record.stuckB = true;
      destroyAll();
      held.destroy();
      if (current !== null) current.destroy();
      setTimeout(resolve, 50);
    }, 300);
    onClosed = () => {
      if (closed.a && closed.b) {
        clearTimeout(stuck);
        resolve();
      }
    };
    onClosed();
  });
  onClosed = null;
  destroyAll();
  await new Promise((resolve) => setTimeout(resolve, 5));
  record.fired = fired;
  record.counts = { ...counts };
  record.window = { ...inWindow };
  record.uncaught = uncaught.splice(0);
  say(`R ${stringify(record)}`);
}

const uncaught = new R.Array();
process.on('uncaughtException', (err) => uncaught.push(describe(err)));

async function main() {
  for (;;) {
    const [command, name, mode, shape] = (await line()).split(' ');
    if (command === 'run') {
      await scenario(name === '-' ? '' : name, mode, shape);
    } else if (command === 'status') {
      const onewrite = process.env.ONEWRITE === '1' ? require(process.env.ONEWRITE_ROOT) : null;
      say(`S ${stringify(onewrite && onewrite.status())}`);
    }
  }
}

targetsOf.handleHolders(PORT).then((handle) => {
  targetsOf.collect(targets, [...HOLDERS, ...handle]);
  const bulk = [...targets.keys()].filter((n) => !SKIP.has(n));
  if (WHEN === 'before') for (const n of bulk) wrap(n);
  if (process.env.ONEWRITE === '1' && WHEN === 'before') {
    // onewrite/register, loaded once the wrappers are on (else the parent
    // preloads it: node -r register.js).
    require(`${process.env.ONEWRITE_ROOT}/register.js`);
  }
  if (WHEN === 'after') for (const n of bulk) wrap(n);
  say(`targets ${stringify([...targets.keys()])}`);
  main();
});
