'use strict';

// User code in the head (status codes and messages as accessors, getters
// and Proxy traps of header objects, wrappers of _storeHeader, cork and
// uncork): the same bytes, events, errors and counts as stock Node.
// Stock against onewrite, as test/helpers/contract-checks.js says.

const t = require('tap');
const { runPair, same, watch, callback, attempt } = require('./helpers/contract');
const {
  major, GET, CLOSE, A_REQ, B_REQ, check, logs, endedInB, withGetter, withAccessor, logged,
  heldClient, leakHandler,
} = require('./helpers/contract-checks');

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

// An enumerable property put on Object.prototype (a polluted prototype, a
// shim): Node's _storeHeader walks a writeHead() object with for...in and
// passes over the keys it does not own; so does onewrite, which still
// renders the head itself.  An own key of the same name, not enumerable,
// hides the inherited one from both.
t.test('writeHead() object under an enumerable Object.prototype property: inherited keys passed over', async (t) => {
  const before = require('..').status().counters.heads;
  check(t, await runPair({
    request: CLOSE,
    handler(req, res, { log }) {
      watch(res, log);
      const headers = { 'Content-Length': 2, 'X-Own': 'yes' };
      Object.defineProperty(headers, 'X-Hidden', { value: 'own, not enumerable', enumerable: false });
      Object.prototype['X-Inherited'] = 'inherited'; // eslint-disable-line no-extend-native
      Object.prototype['X-Hidden'] = 'inherited'; // eslint-disable-line no-extend-native
      try {
        attempt(log, 'writeHead', () => res.writeHead(200, headers));
      } finally {
        delete Object.prototype['X-Inherited'];
        delete Object.prototype['X-Hidden'];
      }
      log.push(['head', res.headersSent, res.getHeader('X-Own')]);
      res.end('ok');
    },
  }), 'the same bytes and events', logs('"finish"'), 'the response finished');
  t.ok(require('..').status().counters.heads > before, 'onewrite rendered the head');
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
