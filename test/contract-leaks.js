'use strict';

// One response's head or body goes out in another's: user code run in the
// middle of response B's head (a getter, a Proxy trap, valueOf) ends or
// renders response A, and each must still go out as with stock Node.
// Stock against onewrite, as test/helpers/contract-checks.js says.

const t = require('tap');
const { runPair, same, watch, attempt } = require('./helpers/contract');
const {
  CLOSE, A_REQ, B_REQ, check, logs, endedInB, withGetter, withAccessor, heldClient, endHeld,
  leakHandler,
} = require('./helpers/contract-checks');

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
