'use strict';

// The fast paths' contract with user code: wherever they read a user value
// or call a method - getters, Proxy traps, toString / valueOf /
// Symbol.toPrimitive, wrappers that APM agents and middleware put around
// writeHead, _implicitHeader, setHeader, end and socket.write - user code
// can run in the middle of them, and what follows must still be stock
// Node's.  Each subtest runs one handler on a stock server and on a
// onewrite server (on loopback, the same Node) and compares the bytes on
// the wire (the Date value normalised), the errors thrown, the events and
// callbacks in their order, the state the handler reads, and how many
// times the user's code ran (counters logged on each side).  Cases that
// can end the process run in child processes (test/helpers/child-run.js,
// test/helpers/apm-child.js).

const t = require('tap');
const path = require('node:path');
const { exchange, normalise } = require('./helpers/wire');
const { runPair, same, watch, callback, attempt, sleep } = require('./helpers/contract');
const { childPair, sameChildren } = require('./helpers/child');
const { ACTIONS, WHERE, OPS } = require('./helpers/child-cases');

const major = Number(process.versions.node.split('.')[0]);
const CHILD = path.join(__dirname, 'helpers', 'child-run.js');
const APM = path.join(__dirname, 'helpers', 'apm-child.js');

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

// ---- one response's head goes out in another's ---------------------------

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

t.test('leak: a getter of a writeHead() header object ends another response', async (t) => {
  check(t, await runPair({
    client: heldClient(A_REQ, B_REQ),
    handler: leakHandler((res, counter, endA) => {
      res.writeHead(200, withGetter({}, 'X-From-B', counter, 'b-value', endA));
      res.end('B');
    }),
  }), 'B keeps its own status line and headers; A its own', endedInB, 'the getter ended A');
});

t.test('leak: a getter in a setHeader() array value ends another response', async (t) => {
  check(t, await runPair({
    client: heldClient(A_REQ, B_REQ),
    handler: leakHandler((res, counter, endA) => {
      let armed = false;
      const value = withGetter(['one'], 1, counter, 'b-value', () => armed && endA());
      res.setHeader('X-From-B', value);
      armed = true; // from here on: while end() renders B's head
      res.end('B');
    }),
  }), 'B keeps its own status line and headers; A its own', endedInB, 'the getter ended A');
});

t.test('leak: a Proxy header object\'s get trap ends another response', async (t) => {
  check(t, await runPair({
    client: heldClient(A_REQ, B_REQ),
    handler: leakHandler((res, counter, endA) => {
      const headers = new Proxy({ 'X-From-B': 'b-value' }, {
        get(target, key) {
          counter.n++;
          endA();
          return target[key];
        },
      });
      res.writeHead(200, headers);
      res.end('B');
    }),
  }), 'B keeps its own status line and headers; A its own', endedInB, 'the trap ended A');
});

t.test('leak: maxRequestsPerSocket.valueOf renders another head in the middle of one', async (t) => {
  // B's text ('OK', 'X-From-B', 13 chars) is as long as A's ('Not Found',
  // 'X-From-A', 'secret'): lengths taken from the wrong head cut it
  // without a mismatch to notice.
  check(t, await runPair({
    client: heldClient(A_REQ, 'GET /b HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    set: (ctx) => ({
      maxRequestsPerSocket: {
        valueOf() {
          ctx.log.push('max.valueOf');
          if (ctx.armed) {
            ctx.armed = false;
            endHeld(ctx);
          }
          return 3;
        },
        toString() {
          ctx.log.push('max.toString');
          return '3';
        },
      },
    }),
    handler(req, res, ctx) {
      if (req.url === '/a') {
        ctx.held = res;
        return;
      }
      if (req.url === '/bye') {
        res.end('bye');
        return;
      }
      watch(res, ctx.log);
      ctx.armed = true;
      attempt(ctx.log, 'B', () => {
        res.writeHead(200, { 'X-From-B': 'bbbbbbbbbbbbb' });
        res.end('B');
      });
      ctx.log.push(['B calls', 'done']);
      endHeld(ctx);
    },
  }), 'B\'s head is cut by its own lengths', endedInB, 'valueOf ended A inside B\'s calls');
});

// A getter defined on the response's own state, which _storeHeader reads
// after the headers: it ends A while B's head is half built.
for (const field of ['sendDate', 'shouldKeepAlive']) {
  t.test(`leak: a getter of the response's ${field} ends another response`, async (t) => {
    check(t, await runPair({
      client: heldClient(A_REQ, B_REQ),
      handler: leakHandler((res, counter, endA) => {
        withAccessor(res, field, counter, { effect: endA });
        // The same length as A's head text: only B's own lengths cut it right.
        res.writeHead(200, { 'X-From-B': 'bbbbbbbbbbbbb' });
        res.end('B');
      }),
    }), 'B keeps its own status line and headers; A its own', endedInB, 'the getter ended A');
  });
}

// buildHead() is onewrite's too, with a walk of its own: called from a
// getter read while a response's head is built, it must leave that head's
// parts alone (the same number of parts, the same length: only the outer
// head's own text renders it right).
for (const field of ['sendDate', 'shouldKeepAlive']) {
  t.test(`leak: a getter of the response's ${field} calls buildHead()`, async (t) => {
    const { buildHead } = require('..');
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        watch(res, log);
        const counter = { n: 0 };
        withAccessor(res, field, counter, {
          effect: () => log.push(['nested', buildHead(200, 'OK', { 'X-Nestd': 'bbbb' },
            { date: false }).toString('latin1')]),
        });
        attempt(log, 'answer', () => {
          res.writeHead(200, { 'X-Outer': 'aaaa' });
          res.end('hello');
        });
        log.push(['getter', counter.n]);
      },
    }), 'the response keeps its own headers; buildHead() answers its own', logs('X-Nestd: bbbb'),
    'the getter built the other head');
  });
}

// ---- the socket's needDrain and 'drain' --------------------------------------

// A response as long as the socket's high-water mark or longer: Node's
// end() writes it into the corked socket, which sets needDrain (the socket
// then emits 'drain', and the server's socketOnDrain runs); the one write
// must leave the socket in that state too, whatever the body.
const LONG = {
  'a long string body': (res, n) => res.end('x'.repeat(n)),
  'a long Buffer body': (res, n) => res.end(Buffer.alloc(n, 'x')),
  'a long head, a short body': (res, n) => {
    res.setHeader('X-Long', 'v'.repeat(n));
    res.end('short');
  },
  'a long chunked string body': (res, n) => {
    res.setHeader('Transfer-Encoding', 'chunked');
    res.end('x'.repeat(n));
  },
};
for (const [name, answer] of Object.entries(LONG)) {
  for (const above of [false, true]) {
    t.test(`drain: ${name}, ${above ? 'over' : 'under'} the socket's high-water mark`, async (t) => {
      check(t, await runPair({
        request: CLOSE,
        handler(req, res, { log }) {
          const socket = res.socket;
          socket.on('drain', () => log.push(['socket drain', socket.writableLength]));
          const mark = socket.writableHighWaterMark;
          answer(res, above ? mark + 1024 : mark - 2048);
          log.push(['after end', socket.writableNeedDrain, socket.writableLength]);
        },
      }), 'needDrain and the socket\'s drain as in Node',
      (stock) => logs('socket drain')(stock) === above, `the socket drained${above ? '' : ' not'}`);
    });
  }
}

// The same at the mark itself: a response of exactly the socket's mark
// sets needDrain in Node's corked write, one a byte (or code unit) shorter
// does not.  A first response on the connection finds the length of what
// the answer adds around its own n (head, framing), so that the second
// one's write is exactly mark + delta long.  HEAD: the head alone.
const EDGE = {
  'a string body': ['GET', (res, n) => res.end('x'.repeat(n))],
  'a Buffer body': ['GET', (res, n) => res.end(Buffer.alloc(n, 'x'))],
  'a chunked string body': ['GET', (res, n) => {
    res.setHeader('Transfer-Encoding', 'chunked');
    res.end('x'.repeat(n));
  }],
  'the head of a HEAD response': ['HEAD', (res, n) => {
    res.setHeader('X-Long', 'v'.repeat(n));
    res.end('dropped');
  }],
};
for (const [name, [method, answer]] of Object.entries(EDGE)) {
  for (const delta of [-1, 0]) {
    t.test(`drain: ${name}, ${delta === 0 ? 'exactly' : 'one short of'} the socket's high-water mark`, async (t) => {
      check(t, await runPair({
        request: `${method} /probe HTTP/1.1\r\nHost: x\r\n\r\n${method} /edge HTTP/1.1\r\nHost: x\r\n\r\n`,
        wait: 300,
        handler(req, res, ctx) {
          const socket = req.socket;
          const mark = socket.writableHighWaterMark;
          if (req.url === '/probe') {
            socket.on('drain', () => ctx.log.push(['socket drain', socket.writableLength]));
            const n = mark - 600;
            const before = socket.bytesWritten;
            answer(res, n);
            ctx.around = socket.bytesWritten - before - n;
            return;
          }
          // (Pipelined: the socket is this response's once the first is done.)
          const run = () => {
            const before = socket.bytesWritten;
            answer(res, mark + delta - ctx.around);
            ctx.log.push(['edge', socket.bytesWritten - before - mark, socket.writableNeedDrain]);
          };
          if (res.socket) run();
          else res.once('socket', run);
        },
      }), 'needDrain and the socket\'s drain as in Node',
      (stock) => stock.log.some((e) => e[0] === 'edge' && e[1] === delta) && logs('socket drain')(stock) === (delta === 0),
      `the write is mark ${delta === 0 ? '' : '- 1 '}long, and the socket drained${delta === 0 ? '' : ' not'}`);
    });
  }
}

// ---- the server's pending-data count ----------------------------------------

// A head Node does not merge into the data is queued and flushed at once:
// the server's count moves (socketOnDrain runs, which can resume a paused
// socket).  The calls of res._onPendingData, wrapped by the handler, are
// the same with onewrite.
// name -> [answer, whether stock Node moves the count: a head not merged
// into the data (bytes, or text in another encoding) is queued apart].
const PENDING = {
  'end(Buffer) after writeHead': [(res) => {
    res.writeHead(200, { 'Content-Length': '4' });
    res.end(Buffer.from('data'));
  }, true],
  "end(string, 'ascii'), implicit head": [(res) => res.end('data', 'ascii'), true],
  'end(string), implicit head (merged)': [(res) => res.end('data'), false],
  'write(Buffer) with a Content-Length, then end()': [(res) => {
    res.setHeader('Content-Length', '4');
    res.write(Buffer.from('data'));
    res.end();
  }, true],
  'chunked write(Buffer), then end()': [(res) => {
    res.write(Buffer.from('data'));
    res.end();
  }, false],
};
for (const [name, [answer, moves]] of Object.entries(PENDING)) {
  t.test(`pending data: ${name}`, async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        const update = res._onPendingData;
        res._onPendingData = function counted(delta) {
          log.push(['pending', delta]);
          return update.call(this, delta);
        };
        attempt(log, 'answer', () => answer(res));
        log.push(['answered']);
      },
    }), 'the count moves as in Node', (stock) => stock.log.some((e) => e[0] === 'answered') &&
      stock.log.some((e) => e[0] === 'pending') === moves,
    'the handler ran; with stock Node the count moved where the head is not merged');
  });
}

// ---- the process aborts where stock Node goes on ---------------------------
// (the wrappers that detach or destroy the socket: in the wrapper matrix below)

// name -> [the child case, what stock Node does and onewrite must too]
const BIG = {
  "a head over V8's maximum string length (stock: a RangeError the app catches)":
    ['big/head', 'the app catches the error and answers 500, as with stock Node'],
  'a 512 MiB head rendered by Node, then end() with an 8 KiB Buffer':
    ['big/join', 'head and body sent, as stock Node sends them'],
  "chunked end() with text just under V8's maximum string length":
    ['big/chunked-end', 'no RangeError: the text sent, as stock Node sends it'],
  "two chunked write()s in one tick, over V8's maximum string length together":
    ['big/chunked-writes', 'no RangeError from the tick: both sent, as stock Node sends them'],
};
for (const [name, [which, message]] of Object.entries(BIG)) {
  t.test(`abort: ${name}`, async (t) => {
    sameChildren(t, await childPair(CHILD, [which], { sequential: true }), message);
  });
}

// (ArrayBuffer.prototype.transfer exists from Node 21 on.)
const DETACH = typeof ArrayBuffer.prototype.transfer === 'function' ? ['keep', 'collected', 'transfer']
  : ['keep', 'collected'];
for (const how of DETACH) {
  t.test(`shared memory: the addon's ArrayBuffer detached by user code (${how})`, async (t) => {
    // What a user relies on: no crash, no wrong bytes.  Either the memory
    // cannot be detached, or responses after the detach are still stock's.
    sameChildren(t, await childPair(CHILD, [`shared/${how}`], { nodeArgs: ['--expose-gc'] }),
      'every response after the detach is stock Node\'s, and the process lives');
  });
}

// ---- different bytes, events or errors ---------------------------------------

// An invalid statusMessage with a status that has no body: Node throws
// before it marks the response bodiless; the app answers 500 on the same
// keep-alive connection, and a second request follows.
const BAD_MESSAGES = { 'CR LF': 'Bad\r\nReason', NUL: 'Bad\u0000', DEL: 'Bad\u007f', '\u20ac': 'Bad \u20ac' };
for (const code of [103, 204, 304]) {
  for (const [label, message] of Object.entries(BAD_MESSAGES)) {
    t.test(`statusMessage with ${label}, status ${code}: the 500 after the error keeps its body`, async (t) => {
      check(t, await runPair({
        request: GET + CLOSE,
        handler(req, res, { log }) {
          watch(res, log);
          attempt(log, 'writeHead', () => res.writeHead(code, message));
          log.push(['state', res.statusCode, res.statusMessage, res.headersSent]);
          attempt(log, '500', () => {
            res.writeHead(500, 'Internal Server Error');
            res.end('error');
          });
        },
      }), 'same bytes (body and framing of the 500), errors and events',
        logs('Invalid character in statusMessage'), 'writeHead threw');
    });
  }
  t.test(`statusMessage property with CR LF, status ${code}, implicit head`, async (t) => {
    check(t, await runPair({
      request: GET + CLOSE,
      handler(req, res, { log }) {
        watch(res, log);
        res.statusCode = code;
        res.statusMessage = 'Bad\r\nReason';
        attempt(log, 'end', () => res.end('first'));
        log.push(['state', res.statusCode, res.headersSent, res.writableEnded]);
        attempt(log, '500', () => {
          res.writeHead(500, 'Internal Server Error');
          res.end('error');
        });
      },
    }), 'same bytes, errors and events', logs('Invalid character in statusMessage'), 'end() threw');
  });
}

t.test('end(data) throwing in its implicit head leaves the socket corked (HTTP/1.0 + a pipelined request)', async (t) => {
  // Stock Node corks the socket in end() before the head throws, and
  // nothing uncorks it.  The bytes that show it: an HTTP/1.0 request (not
  // keep-alive) with a second request right behind it - the parser
  // refuses data after a message that closes the connection, and Node
  // answers '400 Bad Request' with socket.write() before destroying the
  // socket: into the cork (nothing sent) with stock Node.
  check(t, await runPair({
    request: 'GET /1 HTTP/1.0\r\nHost: x\r\n\r\nGET /2 HTTP/1.0\r\nHost: x\r\n\r\n',
    settle: 50,
    handler(req, res, { log }) {
      watch(res, log);
      log.push(['request', req.url]);
      res.statusCode = 99;
      attempt(log, 'end', () => res.end('x'));
      log.push(['state', res.headersSent, res.writableEnded, res.socket && res.socket.writableCorked]);
    },
  }), 'same bytes (no 400) and events', logs('ERR_HTTP_INVALID_STATUS_CODE'), 'end() threw');
});

// User code run once by Node runs once with onewrite, wherever onewrite
// hands over to Node.
t.test('counts: a getter of a writeHead() object, a value Node must render (latin1)', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const counter = { n: 0 };
      attempt(log, 'writeHead', () => res.writeHead(200, withGetter({}, 'X-G', counter, (n) => `call-${n}-caf\u00e9`)));
      log.push(['calls', counter.n]);
      res.end('x');
    },
  }), 'the getter ran as often as in Node (the value sent says which call)',
    logs('["calls",1]'), 'the getter ran');
});

t.test('counts: a getter of a writeHead() object returning an invalid value', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const counter = { n: 0 };
      attempt(log, 'writeHead', () => res.writeHead(200, withGetter({}, 'X-G', counter, (n) => `call-${n}\r\n`)));
      log.push(['calls', counter.n]);
      res.end('x');
    },
  }), 'the getter ran as often as in Node, same error', logs('ERR_INVALID_CHAR'), 'writeHead threw');
});

t.test('counts: a getter of a writeHead() object after setHeader() (headers merged)', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const counter = { n: 0 };
      res.setHeader('X-Before', '1');
      attempt(log, 'writeHead', () => res.writeHead(200, withGetter({}, 'X-G', counter, (n) => `call-${n}-caf\u00e9`)));
      log.push(['calls', counter.n]);
      res.end('x');
    },
  }), 'the getter ran as often as in Node', logs('["calls",1]'), 'the getter ran');
});

t.test('counts: a getter in a setHeader() array value, the head rendered by Node', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const counter = { n: 0 };
      res.setHeader('X-G', withGetter(['first'], 1, counter, (n) => `call-${n}-caf\u00e9`));
      log.push(['calls after setHeader', counter.n]);
      attempt(log, 'end', () => res.end('x'));
      log.push(['calls', counter.n]);
    },
  }), 'the getter ran as often as in Node',
  (stock) => stock.log.some((e) => e[0] === 'calls' && e[1] > 0), 'the getter ran');
});

for (const [label, make] of Object.entries({
  'object, a value Node renders': () => ({ 'X-P': 'caf\u00e9' }),
  'object': () => ({ 'X-P': 'v', 'Content-Type': 'text/plain' }),
  'flat array': () => ['X-P', 'v', 'Content-Type', 'text/plain'],
  'flat array, a value Node renders': () => ['X-P', 'caf\u00e9'],
  'nested arrays': () => [['X-P', 'v'], ['Content-Type', 'text/plain']],
})) {
  t.test(`counts: Proxy traps of a writeHead() header ${label}`, async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        attempt(log, 'writeHead', () => res.writeHead(200, logged(make(), log, 'trap')));
        res.end('x');
      },
    }), 'the same traps, in the same order, as in Node', logs('"trap","get"'), 'the traps ran');
  });
}

// An accessor statusMessage whose value changes from read to read: Node
// reads it for its check and for the status line (26: first against the
// standard phrase), and the line says which read it used.
for (const [label, first] of [['a standard phrase first', 'OK'], ['a phrase of its own', 'Fine']]) {
  t.test(`counts: statusMessage as an accessor, ${label}`, async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        const values = [first, 'Checked', 'Line', 'Later'];
        let reads = 0;
        Object.defineProperty(res, 'statusMessage', {
          configurable: true,
          get: () => values[reads++] ?? 'Past',
          set() {},
        });
        attempt(log, 'writeHead', () => res.writeHead(200, { 'X-A': '1' }));
        log.push(['reads', reads]);
        res.end('x');
      },
    }), 'read as often as in Node, each value used where Node uses it', (stock) => stock.log.some((e) => e[0] === 'reads' && e[1] > 1), 'Node read it more than once');
  });
}

// An Expect: 100-continue answered from inside writeHead: a statusMessage
// getter calls writeContinue() on its second read.  Node reads the Expect
// state after statusMessage, so the response keeps its connection.
t.test('user code in writeHead: a statusMessage getter answers Expect: 100-continue', async (t) => {
  check(t, await runPair({
    request: 'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n',
    wait: 300,
    // Node's server answers the Expect itself unless this is listened to.
    setup: (server) => server.on('checkContinue', (req, res) => server.emit('request', req, res)),
    handler(req, res, { log }) {
      let reads = 0;
      let kept = 'OK';
      Object.defineProperty(res, 'statusMessage', {
        configurable: true,
        get() {
          if (++reads === 2) {
            res.writeContinue();
            log.push(['continued']);
          }
          return kept;
        },
        set(v) {
          kept = v;
        },
      });
      attempt(log, 'writeHead', () => res.writeHead(200, { 'Content-Length': '2' }));
      log.push(['keep-alive', res.shouldKeepAlive]);
      res.end('ok');
    },
  }), 'the connection kept, as with Node', logs('continued'), 'the getter answered the Expect');
});

// A statusCode or statusMessage setter that calls setHeader(): Node's
// writeHead assigns the status first, then reads the headers set so far
// and merges the given ones into them (an object through setHeader(), an
// array its own way): the setter's header is in the head.
for (const field of ['statusCode', 'statusMessage']) {
  for (const [label, headers] of [['an object', { 'X-Given': '1' }], ['an array', ['X-Given', '1']], ['none', undefined]]) {
    t.test(`user code in writeHead: a ${field} setter calls setHeader(), headers as ${label}`, async (t) => {
      check(t, await runPair({
        request: CLOSE,
        handler(req, res, { log }) {
          let kept = res[field];
          Object.defineProperty(res, field, {
            configurable: true,
            get: () => kept,
            set(v) {
              log.push(['set', field]);
              kept = v;
              res.setHeader('X-From-Setter', '1');
            },
          });
          attempt(log, 'writeHead', () => res.writeHead(200, headers));
          res.end('x');
          log.push(['header', res.getHeader('X-From-Setter') ?? null]);
        },
      }), 'the setter\'s header is sent as with Node', logs('"set"'), 'the setter ran');
    });
  }
}

// statusCode as an accessor, the head stored through _storeHeader (Node's
// writeHead takes an array after setHeader()): _storeHeader reads it only
// when chunkedEncoding is already true, which it is not before the head.
for (const [label, headers] of [['chunked', ['X-B', '1']], ['with a Content-Length', ['Content-Length', '1']]]) {
  t.test(`counts: statusCode as an accessor, _storeHeader's head, ${label}`, async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        const reads = { n: 0 };
        withAccessor(res, 'statusCode', reads);
        res.setHeader('X-A', '1');
        const before = reads.n;
        attempt(log, 'writeHead', () => res.writeHead(200, headers));
        log.push(['statusCode reads in the head', reads.n - before]);
        log.push(['statusCode read by the handler', res.statusCode, reads.n - before]);
        res.end('x');
      },
    }), 'read as often as in Node',
    (stock) => stock.log.some((e) => e[0] === 'statusCode reads in the head' && e[1] === 0) &&
      stock.log.some((e) => e[0] === 'statusCode read by the handler' && e[2] === 1),
    'Node did not read it, and the accessor counts reads');
  });
}

// A Transfer-Encoding naming chunked among the headers turns chunkedEncoding
// on inside _storeHeader, which then reads statusCode (and once more for a
// debug message): a 204 or 304 closes the connection (found by the
// differential test, seed 1368506096).  The head through Node's writeHead
// (headers merged) and through onewrite's; statusCode an accessor that
// returns what was set, or one that always says 200.
// The name in upper case too: lib/walk.js tells it from its first character
// before lowercasing it.
for (const via of ['merged', 'writeHead', 'writeHead upper case']) {
  for (const lies of [false, true]) {
    // (At 200 an accessor that always says 200 is the truthful one.)
    for (const code of lies ? [204, 304] : [204, 304, 200]) {
      const object = via === 'writeHead upper case' ? 'an object, TRANSFER-ENCODING' : 'an object';
      const label = `${via === 'merged' ? 'setHeader() + an array' : object}, status ${code}${lies ? ', statusCode reads 200' : ''}`;
      t.test(`Transfer-Encoding chunked in the headers: ${label}`, async (t) => {
        check(t, await runPair({
          request: GET + CLOSE,
          handler(req, res, { log }) {
            const reads = { n: 0 };
            withAccessor(res, 'statusCode', reads, { read: (v) => (lies ? 200 : v) });
            if (via === 'merged') res.appendHeader('transfer-encoding', 'gzip, chunked');
            const before = reads.n;
            attempt(log, 'writeHead', () => {
              if (via === 'merged') res.writeHead(code, []);
              else if (via === 'writeHead') res.writeHead(code, { 'Transfer-Encoding': 'chunked', 'X-A': '1' });
              else res.writeHead(code, { 'TRANSFER-ENCODING': 'chunked', 'X-A': '1' });
            });
            log.push(['statusCode reads in the head', reads.n - before]);
            log.push(['state', res.shouldKeepAlive, res.chunkedEncoding, res._last]);
            res.end(code === 200 ? 'x' : undefined);
          },
        }), 'the same framing and reads as in Node',
        (stock) => stock.log.some((e) => e[0] === 'statusCode reads in the head' && e[1] >= 1),
        'Node read statusCode');
      });
    }
  }
}

// A wrapper of _storeHeader put by an agent loaded after onewrite, on
// either prototype, is called by writeHead as it is in Node.
for (const where of ['OutgoingMessage', 'ServerResponse']) {
  t.test(`wrappers: ${where}.prototype._storeHeader wrapped after onewrite is loaded`, async (t) => {
    const target = require('node:http')[where].prototype;
    const own = Object.getOwnPropertyDescriptor(target, '_storeHeader');
    const original = target._storeHeader;
    let calls = 0;
    target._storeHeader = function wrapped(line, headers) {
      calls++;
      return original.call(this, line, headers);
    };
    t.teardown(() => {
      if (own) Object.defineProperty(target, '_storeHeader', own);
      else delete target._storeHeader;
    });
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        const before = calls;
        res.setHeader('X-A', '1');
        res.writeHead(200, { 'X-B': '2' });
        log.push(['wrapper calls', calls - before]);
        res.end('x');
      },
    }), 'the wrapper runs once per head, as in Node', logs('["wrapper calls",1]'), 'the wrapper ran');
  });
}

t.test('counts: valueOf of a status code, the head rendered by Node', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const code = { valueOf: () => (log.push('code.valueOf'), 201) };
      attempt(log, 'writeHead', () => res.writeHead(code, { 'X-A': 'caf\u00e9' }));
      res.end('x');
    },
  }), 'valueOf ran as often as in Node', logs('code.valueOf'), 'valueOf ran');
});

for (const [field, value] of [['maxRequestsPerSocket', 3], ['keepAliveTimeout', 5000]]) {
  t.test(`counts: server.${field} with valueOf, a response that closes its connection`, async (t) => {
    same(t, await runPair({
      request: CLOSE,
      set: ({ log }) => ({
        [field]: {
          valueOf: () => (log.push(`${field}.valueOf`), value),
          toString: () => (log.push(`${field}.toString`), String(value)),
        },
      }),
      handler(req, res) {
        res.end('x');
      },
    }), `${field} is read only where Node reads it`);
  });
}

t.test('prefinish: chunkedEncoding as Node leaves it', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      watch(res, log, (r) => [r.chunkedEncoding, r.headersSent, r.writableEnded]);
      res.writeHead(200);
      res.end('hello', callback(log, 'end-cb'));
      log.push(['after end', res.chunkedEncoding]);
    },
  }), 'chunkedEncoding is true in the prefinish listener, as in Node', logs('["prefinish",true'), 'prefinish saw it');
});

// socket.cork() / socket.uncork() wrapped on the instance (an agent
// timing the writes): called as often as Node calls them, with the same
// corked count and bytes queued seen inside, in end() after writeHead(),
// in end() with its implicit head, and with a response.uncork() wrapper.
for (const [label, answer] of [
  ['end(data) after writeHead()', (res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('hello');
  }],
  ['end(data), implicit head', (res) => res.end('hello')],
  ['end(data), res.uncork wrapped', (res, log) => {
    const uncork = res.uncork;
    res.uncork = function () {
      log.push(['res.uncork', this.writableCorked]);
      return uncork.apply(this, arguments);
    };
    res.end('hello');
  }],
]) {
  t.test(`wrappers: socket.cork and socket.uncork wrapped, ${label}`, async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        watch(res, log);
        const socket = res.socket;
        for (const name of ['cork', 'uncork']) {
          const fn = socket[name];
          socket[name] = function () {
            log.push([`socket.${name}`, this.writableCorked, this.writableLength]);
            return fn.apply(this, arguments);
          };
        }
        answer(res, log);
        log.push(['after end', socket.writableCorked]);
      },
    }), 'the same calls, in the same order, seeing the same socket state', logs('socket.uncork'), 'the uncork wrapper ran');
  });
}

// res.uncork as an accessor: end() reads it as often as Node does (20:
// never; 22 24 26: once, and calls what it read).
t.test('counts: res.uncork as an accessor returning a wrapper, end(data)', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const counter = { gets: 0, calls: 0 };
      const uncork = res.uncork;
      const wrapped = function () {
        counter.calls++;
        return uncork.apply(this, arguments);
      };
      Object.defineProperty(res, 'uncork', { configurable: true, get() { counter.gets++; return wrapped; } });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('hello');
      log.push(['uncork', counter.gets, counter.calls]);
    },
  }), 'read and called as often as with stock Node', (stock) =>
    stock.log.some((e) => e[0] === 'uncork' && e[1] === (major >= 22 ? 1 : 0)),
  `with stock Node ${major}, read ${major >= 22 ? 'once' : 'never'}`);
});

// User code in end()'s last step (22 24 26: this.uncork is read and
// called), which onewrite may skip when it would do nothing: a getter that
// corks the socket there, and a wrapper that ends another response (a
// second end() through onewrite inside the first).
t.test('user code in end()\'s uncork: a res.uncork getter corks the socket', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const counter = { gets: 0 };
      const uncork = res.uncork;
      Object.defineProperty(res, 'uncork', {
        configurable: true,
        get() {
          counter.gets++;
          res.socket.cork();
          return uncork;
        },
      });
      watch(res, log);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('hello');
      log.push(['after end', counter.gets, res.socket.writableCorked]);
    },
  }), 'the socket is left corked or not as with Node', (stock) =>
    stock.log.some((e) => e[0] === 'after end' && e[1] === (major >= 22 ? 1 : 0)),
  major >= 22 ? 'the getter ran' : "the getter did not run (Node 20's end() does not read it)");
});

// A res.uncork getter that returns no function (22 24 26): Node's end()
// throws its own TypeError from `this.uncork()`, having read it once.
t.test('user code in end()\'s uncork: a res.uncork getter returns no function', async (t) => {
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      const counter = { gets: 0 };
      Object.defineProperty(res, 'uncork', { configurable: true, get: () => (counter.gets++, 5) });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const socket = res.socket;
      const threw = attempt(log, 'end', () => res.end('hello'));
      log.push(['after end', counter.gets, res.finished, res.writableEnded, socket.writableCorked]);
      // The response never finishes where end() threw: close the connection.
      if (threw) setImmediate(() => socket.destroy());
    },
  }), 'the same error, after the same reads, in the same state', (stock) => (major >= 22
    ? stock.log.some((e) => e[0] === 'throw' && e[2].message === 'this.uncork is not a function') &&
      stock.log.some((e) => e[0] === 'after end' && e[1] === 1)
    : stock.log.some((e) => e[0] === 'after end' && e[1] === 0)),
  major >= 22 ? 'end() threw Node\'s TypeError after one read' : "the getter did not run (Node 20's end() does not read it)");
});

t.test('user code in end()\'s uncork: a res.uncork wrapper ends another response', async (t) => {
  check(t, await runPair({
    client: heldClient(A_REQ, B_REQ),
    handler: leakHandler((res, counter, endA) => {
      const uncork = res.uncork;
      res.uncork = function () {
        counter.n++;
        endA();
        return uncork.apply(this, arguments);
      };
      res.writeHead(200, { 'X-From-B': 'b-value' });
      res.end('B');
    }),
  }), 'A and B each keep their own head and body', (stock) => (major >= 22 ? endedInB(stock) :
    stock.log.some((e) => Array.isArray(e) && e[0] === 'B calls' && e[1] === 0)),
  major >= 22 ? 'the wrapper ended A inside B\'s end()' : "the wrapper did not run (Node 20's end() does not call it)");
});

// uncork() replaced on OutgoingMessage.prototype after onewrite is loaded
// (a second agent, or a test double): end() still calls it as often as
// Node's end() does (22 24 26: once; 20's end() does not call it).
t.test('wrappers: OutgoingMessage.prototype.uncork replaced, end(data) calls it', async (t) => {
  const { OutgoingMessage } = require('node:http');
  const original = OutgoingMessage.prototype.uncork;
  const log = [];
  OutgoingMessage.prototype.uncork = function () {
    log.push('uncork');
    return original.apply(this, arguments);
  };
  let result;
  try {
    result = await runPair({
      request: CLOSE,
      handler(req, res, ctx) {
        watch(res, ctx.log);
        const before = log.length;
        res.end('hello');
        ctx.log.push(['uncork calls', log.length - before]);
      },
    });
  } finally {
    OutgoingMessage.prototype.uncork = original;
  }
  check(t, result, 'the replacement is called as often as with stock Node', (stock) =>
    stock.log.some((e) => e[0] === 'uncork calls' && (major >= 22 ? e[1] > 0 : e[1] === 0)),
  major >= 22 ? 'end() called uncork()' : "end() did not call uncork() (Node 20's does not)");
});

// One string body answered again in another encoding: its byte length is
// the one of this encoding, not the one measured for the last response
// (onewrite keeps the last string's length, by string and encoding).
t.test('the same string body in latin1, utf8, latin1, one response after another', async (t) => {
  const text = 'caf\u00e9 \u00e0 la cr\u00e8me';
  const encodings = ['latin1', undefined, 'latin1', 'utf8', 'binary'];
  check(t, await runPair({
    async client(port) {
      const out = [];
      for (let i = 0; i < encodings.length; i++) {
        out.push(normalise((await exchange(port, `GET /${i} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).bytes));
      }
      return { responses: out };
    },
    handler(req, res) {
      res.end(text, encodings[Number(req.url.slice(1))]);
    },
  }), 'each response has its own Content-Length and bytes', (stock) =>
    stock.responses[0].includes(`Content-Length: ${text.length}\r\n`) &&
    stock.responses[1].includes(`Content-Length: ${Buffer.byteLength(text)}\r\n`), 'the lengths differ by encoding');
});

// Bodies whose bytes are not what their length says.
function detachedBytes(n) {
  const u = new Uint8Array(n).fill(0x61);
  structuredClone(u.buffer, { transfer: [u.buffer] });
  return u;
}
class LongByteLength extends Uint8Array {
  get byteLength() {
    return 100;
  }
}
class ShortByteLength extends Uint8Array {
  get byteLength() {
    return 2;
  }
}
class LongLength extends Uint8Array {
  get length() {
    return 100;
  }
}
class ZeroLength extends Uint8Array {
  get length() {
    return 0;
  }
}
const BODIES = {
  'a detached Uint8Array': () => detachedBytes(5),
  'a Uint8Array subclass whose byteLength is too long': () => new LongByteLength(5).fill(0x62),
  'a Uint8Array subclass whose byteLength is too short': () => new ShortByteLength(5).fill(0x62),
  'a Uint8Array subclass whose length is too long': () => new LongLength(5).fill(0x63),
  'a Uint8Array subclass whose length is 0': () => new ZeroLength(5).fill(0x63),
};
for (const [label, make] of Object.entries(BODIES)) {
  for (const op of ['end(body)', 'writeHead, end(body)', 'write(body)']) {
    t.test(`body: ${label}, ${op}`, async (t) => {
      same(t, await runPair({
        request: CLOSE,
        handler(req, res, { log }) {
          watch(res, log);
          const body = make();
          attempt(log, op, () => {
            if (op === 'write(body)') log.push(['write', res.write(body, callback(log, 'write-cb'))]);
            else {
              if (op !== 'end(body)') res.writeHead(200);
              res.end(body, callback(log, 'end-cb'));
            }
          });
          log.push(['after', res.headersSent, res.writableEnded]);
          if (!res.writableEnded) {
            if (attempt(log, 'end()', () => res.end())) res.destroy();
          }
        },
      }), 'same bytes, errors and events as Node');
    });
  }
}

// A Buffer changed right after a chunked write().  Node 20 and 22 send a
// written Buffer when the socket uncorks (end of tick), so they send the
// changed bytes; onewrite copies it at write() time - a documented
// difference that the one write costs.  The test keeps that documentation
// true: on 20/22 onewrite sends what stock Node sends for a copy of the
// Buffer taken at write() time; on 24/26 it sends what stock Node sends.
for (const prior of [false, true]) {
  const expected = major <= 22 ? 'the bytes at write() time (documented)' : 'stock\'s bytes';
  t.test(`a Buffer changed after write()${prior ? ' (after writeHead)' : ''}: ${expected}`, async (t) => {
    const handler = (copy) => (req, res) => {
      if (prior) res.writeHead(200);
      const b = Buffer.from('before');
      res.write(copy ? Buffer.from(b) : b);
      b.write('AFTER!');
      setImmediate(() => res.end());
    };
    const changed = await runPair({ request: CLOSE, handler: handler(false) });
    if (major <= 22) {
      const copied = await runPair({ request: CLOSE, handler: handler(true) });
      same(t, { stock: copied.stock, fast: changed.fast },
        'onewrite sends the bytes the Buffer had at write() time');
      t.not(changed.stock.bytes, copied.stock.bytes,
        'stock Node sends the changed bytes (the difference is real)');
    } else {
      same(t, changed, 'the bytes stock Node sends');
    }
  });
}

// The same after the first write() of a Content-Length response, which
// carries the head: onewrite puts the head in a Buffer of its own before
// the bytes and copies none of them, so on every Node it sends what Node
// sends, the bytes as they are when the socket writes (small, and large).
for (const size of [6, 6000]) {
  t.test(`a Buffer changed after a Content-Length write() of ${size} bytes: stock's bytes`, async (t) => {
    const result = await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        res.writeHead(200, { 'Content-Length': size });
        const b = Buffer.alloc(size, 'b');
        log.push(['write', res.write(b)]);
        b.write('AFTER!');
        setImmediate(() => res.end());
      },
    });
    same(t, result, 'the bytes stock Node sends');
    t.match(result.stock.bytes, /AFTER!/, 'stock Node sends the changed bytes');
  });
}

// ---- wrappers inside the implicit head (child processes) -----------------

// Each action x body call x where the wrapper sits (see child-cases.js).
// Some detach or destroy the socket, which can end the process: each runs
// in a child, two at a time.
t.test('wrappers: user code inside the head changes the response', async (t) => {
  const names = [];
  for (const where of WHERE) {
    for (const action of Object.keys(ACTIONS)) {
      // (A socket detached inside its own cork() or uncork(), in the middle
      // of Node's end(), ends stock Node with an ERR_INTERNAL_ASSERTION.)
      if (where.startsWith('socket.') && action === 'detach') continue;
      for (const op of OPS) names.push(`wrapper/${where}/${action}/${op}`);
    }
  }
  const results = new Map();
  let next = 0;
  async function worker() {
    while (next < names.length) {
      const name = names[next++];
      results.set(name, await childPair(CHILD, [name]));
    }
  }
  await Promise.all([worker(), worker()]);
  for (const name of names) {
    t.test(name, async (t) => {
      const pair = results.get(name);
      sameChildren(t, pair, 'same bytes, events, errors and socket writes; the process lives');
      const log = pair.stock.result && pair.stock.result.log;
      t.ok(Array.isArray(log) && log.some((e) => e[0] === 'wrapper'), 'with stock Node, the wrapper ran');
    });
  }
});

// 24 and 26: write() on a response whose socket is not corked corks the
// response through res.cork() (20 and 22 cork the socket: the matrix above
// covers that); a wrapper there destroys the socket.  Node's _writeRaw then
// finds it destroyed and drops the data.
if (major >= 24) {
  t.test('wrappers: res.cork wrapped, it destroys the socket inside write(data)', async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        watch(res, log);
        const cork = res.cork;
        res.cork = function wrapped(...args) {
          log.push(['wrapper', 'cork']);
          const ret = cork.apply(this, args);
          this.socket?.destroy();
          return ret;
        };
        res.setHeader('Content-Length', '4');
        attempt(log, 'write', () => log.push(['write', res.write('data', callback(log, 'write-cb'))]));
        log.push(['after', res.headersSent, res.writableEnded, res.destroyed]);
      },
    }), 'the data dropped and the callbacks as in Node', logs('"wrapper","cork"'), 'the wrapper ran');
  });
}

// 24 and 26: a res.cork wrapper that does not cork, and writes to another
// response (a HEAD, held: its write() returns before any cork).  The
// other write() runs inside this one's cork step, and must leave what this
// one decided there (its cork is taken) as it was: Node's write_() goes on
// to send the data, with no second read of res.cork and no second cork.
if (major >= 24) {
  t.test('wrappers: res.cork wrapped, it writes to another response inside write(data)', async (t) => {
    check(t, await runPair({
      client: heldClient('HEAD /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', B_REQ),
      handler(req, res, ctx) {
        const { log } = ctx;
        if (req.url === '/a') {
          holdA(res, ctx);
          return;
        }
        watch(res, log);
        let reads = 0;
        Object.defineProperty(res, 'cork', {
          configurable: true,
          get() {
            reads++;
            return function wrapped() {
              log.push(['wrapper', 'cork', reads, this.socket.writableCorked]);
              log.push(['A write', ctx.held.write('A', callback(log, 'A-cb'))]);
            };
          },
        });
        res.setHeader('Content-Length', '8');
        attempt(log, 'write', () => log.push(['write', res.write('data', callback(log, 'write-cb'))]));
        log.push(['cork reads', reads]);
        setImmediate(() => {
          attempt(log, 'end', () => res.end('data', callback(log, 'end-cb')));
          ctx.held.end();
          log.push(['after', res.writableEnded, res.headersSent, reads]);
        });
      },
    }), 'one read of res.cork, one call, the data after it as in Node',
    logs('"wrapper","cork"'), 'the wrapper ran');
  });
}

// A wrapper of _implicitHeader that wraps the socket's cork(): write()
// corks the socket (20 22) or the response, whose cork() corks the socket
// (24 26), after the head, and the wrapper's code runs there.  What Node's
// write_() does after that cork is what follows.
for (const action of ['destroy', 'end', 'resEnd', 'strict']) {
  for (const framing of ['Content-Length', 'chunked']) {
    t.test(`wrappers: socket.cork wrapped inside the head (it does ${action}), write(data), ${framing}`, async (t) => {
      check(t, await runPair({
        request: CLOSE,
        wait: 300,
        handler(req, res, { log }) {
          watch(res, log);
          if (framing === 'Content-Length') res.setHeader('Content-Length', 8);
          const implicit = res._implicitHeader;
          res._implicitHeader = function wrapped(...args) {
            const ret = implicit.apply(this, args);
            const socket = this.socket;
            const cork = socket.cork;
            socket.cork = function corkWrapped(...a) {
              log.push(['cork wrapper', this.writableCorked]);
              const r = cork.apply(this, a);
              if (action === 'destroy') socket.destroy();
              else if (action === 'end') socket.end();
              else if (action === 'resEnd') res.end();
              else res.strictContentLength = true;
              return r;
            };
            return ret;
          };
          attempt(log, 'write', () => log.push(['write', res.write('data', callback(log, 'write-cb'))]));
          setImmediate(() => {
            attempt(log, 'end', () => res.end('data', callback(log, 'end-cb')));
            log.push(['after', res.writableEnded, res.headersSent]);
          });
        },
      }), 'the write after the cork as in Node', logs('cork wrapper'), 'the wrapper ran');
    });
  }
}

// res.cork as an accessor (24 26: write() reads it once, to cork the
// response): read as often as Node reads it.
if (major >= 24) {
  t.test('counts: res.cork as an accessor, write(data) then end(data)', async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        const cork = require('node:http').OutgoingMessage.prototype.cork;
        const counter = { n: 0 };
        Object.defineProperty(res, 'cork', { configurable: true, get: () => (counter.n++, cork) });
        res.setHeader('Content-Length', 8);
        res.write('data');
        log.push(['cork reads after write', counter.n]);
        setImmediate(() => {
          res.end('data');
          log.push(['cork reads after end', counter.n]);
        });
      },
    }), 'read once per write(), as in Node', (stock) => stock.log.some((e) => e[0] === 'cork reads after write' && e[1] > 0),
    'Node read it');
  });
}

// ---- instrumentation (child processes: install() is global) ---------------

t.test('instrumentation', async (t) => {
  // Each scenario's stock side must show the instrumentation at work
  // (wrapper calls, spans), or the comparison would be empty.
  const run = async (t, name) => {
    const pair = await childPair(APM, [name]);
    const r = pair.stock.result || {};
    const seen = (r.calls || r.spans || []).length;
    t.ok(seen >= (r.bytes || []).length && seen > 0,
      `${name}: with stock Node, the instrumentation saw every response (${seen} calls or spans)`);
    return pair;
  };
  t.test('a shimmer-style wrapper of ServerResponse.prototype.writeHead, put before onewrite is loaded', async (t) => {
    sameChildren(t, await run(t, 'writeHead-before-require'),
      'the wrapper runs once per response, with the same arguments, as in Node');
  });
  t.test('shimmer-style wrappers of OutgoingMessage.prototype.write and end, put before onewrite is loaded', async (t) => {
    const pair = await run(t, 'write-end-before-require');
    sameChildren(t, pair, 'each wrapper runs once per call of the app, as in Node');
    t.equal(pair.fast.result?.callsAtLoad, 0, 'loading onewrite called neither wrapper');
    t.equal(pair.fast.result?.available, true, 'and onewrite is available');
  });
  for (const [name, what] of [['socket-write-before-require', 'net.Socket.prototype.write'],
    ['duplex-write-before-require', 'stream.Duplex.prototype.write'],
    ['duplex-cork-before-require', 'stream.Duplex.prototype.cork and uncork']]) {
    t.test(`a shimmer-style wrapper of ${what}, put before onewrite is loaded`, async (t) => {
      sameChildren(t, await run(t, name),
        'the wrapper is called as often, with the same bytes, as in Node');
    });
  }
  t.test('a shimmer-style wrapper of ServerResponse.prototype.writeHead, put before install()', async (t) => {
    sameChildren(t, await run(t, 'writeHead-before-install'),
      'the wrapper runs once per response, with the same arguments, as in Node');
  });
  t.test('a shimmer-style wrapper of OutgoingMessage.prototype.end, put after install()', async (t) => {
    // Either the wrapper works (runs as in Node), or status() reports it
    // (a string in status() naming OutgoingMessage.prototype.end): a user
    // must not lose an agent's instrumentation silently.
    const pair = await run(t, 'end-after-install');
    const bytesAndExit = (side) => ({ exit: side.exit, bytes: side.result && side.result.bytes });
    same(t, { stock: bytesAndExit(pair.stock), fast: bytesAndExit(pair.fast) }, 'the bytes are stock Node\'s');
    const calls = (side) => JSON.stringify(side.result && side.result.calls);
    const reported = pair.fast.result && JSON.stringify(pair.fast.result.status).includes('OutgoingMessage.prototype.end');
    if (calls(pair.stock) === calls(pair.fast) || reported) t.pass('the wrapper runs as in Node, or status() reports it');
    else t.fail('the wrapper is skipped and status() says nothing', { stock: pair.stock.result, onewrite: pair.fast.result });
  });
  t.test('instance wrappers of res.end and res.writeHead (as @opentelemetry/instrumentation-http does)', async (t) => {
    sameChildren(t, await run(t, 'instance-wrap'),
      'each wrapper runs once per response, as in Node');
  });
  t.test('uninstall() restores the prototypes\' own properties exactly, wrappers put before install() included', async (t) => {
    sameChildren(t, await run(t, 'uninstall-restores'),
      'descriptors as before install(); responses as in Node');
  });
  t.test('a wrapper put on top of onewrite\'s after install() is still there, and called, after uninstall()', async (t) => {
    sameChildren(t, await run(t, 'wrapper-survives-uninstall'),
      'the wrapper stays and runs; Node\'s code answers');
  });
  t.test('@opentelemetry/instrumentation-http records the same spans (install())', async (t) => {
    sameChildren(t, await run(t, 'otel'),
      'one span per request, same status codes, same bytes');
  });
  t.test('@opentelemetry/instrumentation-http records the same spans (ServerResponse option)', async (t) => {
    sameChildren(t, await run(t, 'otel-subclass'),
      'one span per request, same status codes, same bytes');
  });
});

// end() without data after the head is rendered: Node's steps (endEmpty),
// its last empty write made as an empty Buffer where it goes straight to the
// socket.  The bytes, the events and callbacks in their order, and the
// socket's state as a user reads it (what is queued, what is written, the
// corks) at each of them, against stock: after write() in the same tick (a
// writev of both), in a later tick, with no write() (the head alone),
// chunked, and a HEAD request.
const BODY = Buffer.from('0123456789');
const state = (res, socket) => [res.writableLength, socket.writableLength, socket.writableCorked,
  socket.bytesWritten, res.writableFinished, res.headersSent];
const EMPTY_ENDS = {
  'write(Buffer) then end(cb), one tick': (res, log, socket) => {
    res.writeHead(200, { 'Content-Length': BODY.length });
    res.write(BODY, callback(log, 'write-cb'));
    log.push(['after write', ...state(res, socket)]);
    res.end(callback(log, 'end-cb'));
  },
  'write(Buffer), end(null, cb) a tick later': (res, log, socket) => {
    res.writeHead(200, { 'Content-Length': BODY.length });
    res.write(BODY, callback(log, 'write-cb'));
    setImmediate(() => {
      log.push(['before end', ...state(res, socket)]);
      res.end(null, callback(log, 'end-cb'));
      log.push(['after end', ...state(res, socket)]);
    });
  },
  'write(string) then end()': (res, log) => {
    res.writeHead(200, { 'Content-Length': 5 });
    res.write('hello', callback(log, 'write-cb'));
    res.end();
  },
  'two write(Buffer) then end(undefined, undefined, cb)': (res, log) => {
    res.writeHead(200, { 'Content-Length': BODY.length * 2 });
    res.write(BODY);
    res.write(BODY, callback(log, 'write-cb'));
    res.end(undefined, undefined, callback(log, 'end-cb'));
  },
  'writeHead() then end(cb): the head alone': (res, log) => {
    res.writeHead(302, { Location: '/elsewhere', 'Content-Length': 0 });
    res.end(callback(log, 'end-cb'));
  },
  'chunked write(Buffer) then end()': (res, log) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write(BODY, callback(log, 'write-cb'));
    res.end(callback(log, 'end-cb'));
  },
  'a write() callback ends the response': (res, log) => {
    res.writeHead(200, { 'Content-Length': BODY.length });
    res.write(BODY, () => {
      log.push('write-cb');
      res.end(callback(log, 'end-cb'));
    });
  },
};
for (const [name, answer] of Object.entries(EMPTY_ENDS)) {
  for (const request of [CLOSE, 'HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']) {
    const label = `${name}${request === CLOSE ? '' : ', HEAD'}`;
    t.test(`end() without data: ${label}`, async (t) => {
      check(t, await runPair({
        request,
        handler(req, res, { log }) {
          const socket = res.socket;
          watch(res, log, (r) => state(r, socket));
          answer(res, log, socket);
          log.push(['returned', ...state(res, socket)]);
        },
      }), 'the same bytes, events, callbacks and socket state', logs('"finish"'), 'the response finished');
    });
  }
}

// User code in end() without data: on 20 and 22 end(cb) adds its 'finish'
// listener with this.once(), which runs a 'newListener' listener (and a
// once() of the user's).  What it does there - destroy the response or its
// socket, cork the socket, write more - is what the rest of end() finds,
// as with Node.  (Ending the response there trips an assertion of Node's
// own server, with or without onewrite.)
const IN_ONCE = {
  'destroys the response': (res) => res.destroy(),
  'destroys the socket': (res) => res.socket.destroy(),
  'corks the socket': (res) => res.socket.cork(),
  'writes more': (res, log) => log.push(['inner write', attempt(log, 'write', () => res.write('x'))]),
  'sets strictContentLength': (res) => {
    res.strictContentLength = true;
  },
};
for (const [name, effect] of Object.entries(IN_ONCE)) {
  for (const how of ['newListener', 'once']) {
    t.test(`user code in end() without data: res.${how === 'once' ? 'once()' : "on('newListener')"} ${name}`, async (t) => {
      check(t, await runPair({
        request: CLOSE,
        handler(req, res, { log }) {
          watch(res, log, (r) => [r.writableEnded, r.destroyed]);
          res.writeHead(200, { 'Content-Length': BODY.length });
          res.write(BODY);
          let ran = 0;
          const run = () => {
            if (ran++ === 0) {
              log.push('user code');
              effect(res, log);
            }
          };
          if (how === 'newListener') {
            res.on('newListener', (ev) => {
              if (ev === 'finish') run();
            });
          } else {
            const once = res.once;
            res.once = function (ev, fn) {
              if (ev === 'finish') run();
              return once.call(this, ev, fn);
            };
          }
          attempt(log, 'end', () => res.end(callback(log, 'end-cb')));
          log.push(['returned', res.writableEnded, res.destroyed]);
        },
      }), 'the same events, errors and bytes', (stock) => major >= 24 || logs('user code')(stock),
      major >= 24 ? 'the case ran (24+ queue the callback without a listener)' : 'the user code ran');
    });
  }
}
