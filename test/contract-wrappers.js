'use strict';

// Wrappers inside the implicit head (writeHead, _implicitHeader, the
// socket's cork and uncork) that change the response: child processes,
// as some of them end the process.
// Stock against onewrite, as test/helpers/contract-checks.js says.

const t = require('tap');
const { runPair, watch, callback, attempt } = require('./helpers/contract');
const { childPair, sameChildren } = require('./helpers/child');
const { ACTIONS, WHERE, OPS } = require('./helpers/child-cases');
const { major, CHILD, CLOSE, B_REQ, check, logs, heldClient, holdA } = require('./helpers/contract-checks');

// ---- wrappers inside the implicit head (child processes) -----------------

// Each action x body call x where the wrapper sits (see child-cases.js).
// Some detach or destroy the socket, which could end the process: they
// run in children, one pair of children per place the wrapper sits (its
// cases one after the other, each on a server of its own), the five pairs
// at once.  A child that does not exit 0 fails every case it held.
t.test('wrappers: user code inside the head changes the response', async (t) => {
  const groups = WHERE.map((where) => {
    const names = [];
    for (const action of Object.keys(ACTIONS)) {
      // (A socket detached inside its own cork() or uncork(), in the middle
      // of Node's end(), ends stock Node with an ERR_INTERNAL_ASSERTION.)
      if (where.startsWith('socket.') && action === 'detach') continue;
      for (const op of OPS) names.push(`wrapper/${where}/${action}/${op}`);
    }
    return names;
  });
  const pairs = await Promise.all(groups.map((names) => childPair(CHILD, [names.join(',')])));
  groups.forEach((names, g) => {
    const pair = pairs[g];
    for (const name of names) {
      t.test(name, async (t) => {
        const one = (side) => ({ ...side, result: side.result?.[name] ?? null });
        const it = { stock: one(pair.stock), fast: one(pair.fast) };
        sameChildren(t, it, 'same bytes, events, errors and socket writes; the process lives');
        const log = it.stock.result && it.stock.result.log;
        t.ok(Array.isArray(log) && log.some((e) => e[0] === 'wrapper'), 'with stock Node, the wrapper ran');
      });
    }
  });
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
