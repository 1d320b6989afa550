'use strict';

// The socket's needDrain and 'drain', and the server's count of pending
// data, as stock Node leaves them.
// Stock against onewrite, as test/helpers/contract-checks.js says.

const t = require('tap');
const { runPair, same, attempt } = require('./helpers/contract');
const { CLOSE, check, logs } = require('./helpers/contract-checks');

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

// ---- the socket's _handle getter ----------------------------------------------

// An accessor an agent puts on the socket's _handle (counting, answering
// the handle) runs as often as with stock Node: the fast paths read the
// handle where net's write path reads it, from its own field, and not
// through the getter.  Shapes whose end() writes in one socket write.
const net = require('node:net');
const nodeHandle = Object.getOwnPropertyDescriptor(net.Socket.prototype, '_handle');
const HANDLE_READS = {
  'writeHead, end(string)': (res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '4' });
    res.end('data');
  },
  'end(string), implicit head': (res) => res.end('data'),
  'writeHead, end(Buffer)': (res) => {
    res.writeHead(200, { 'Content-Length': '4' });
    res.end(Buffer.from('data'));
  },
  'chunked write(string), then end()': (res) => {
    res.write('data');
    res.end();
  },
};
for (const [name, answer] of Object.entries(HANDLE_READS)) {
  t.test(`the socket's _handle getter: ${name}`, async (t) => {
    check(t, await runPair({
      request: CLOSE,
      handler(req, res, { log }) {
        const socket = res.socket;
        const reads = { n: 0 };
        Object.defineProperty(socket, '_handle', {
          configurable: true,
          get() {
            reads.n++;
            return nodeHandle.get.call(this);
          },
          set(v) {
            nodeHandle.set.call(this, v);
          },
        });
        answer(res);
        log.push(['after end', reads.n]);
        res.on('finish', () => log.push(['finish', reads.n]));
      },
    }), 'the getter ran as often as in Node', (stock) => stock.log.some((e) => e[0] === 'finish' && e[1] > 0),
    'with stock Node the getter ran');
  });
}

// ---- the socket's writableLength getter ----------------------------------------

// A getter put on the socket's writableLength runs as often as with stock
// Node, and what it answers changes no byte: the fast paths' own decisions
// (may small bytes be copied next to the head) read the socket's
// _writableState, not Writable's getter.  One getter counts and forwards;
// one answers a length the socket does not hold (1) and, when first read,
// writes into the socket itself (the buffer it describes changes).
const nodeLength = Object.getOwnPropertyDescriptor(require('node:stream').Writable.prototype, 'writableLength');
const LENGTH_GETTERS = {
  counting: () => function get() {
    return nodeLength.get.call(this);
  },
  'answering 1, writing when first read': (log) => {
    let first = true;
    return function get() {
      if (first) {
        first = false;
        log.push(['wrote from the getter', this.write('')]);
      }
      return 1;
    };
  },
};
const LENGTH_READS = {
  'writeHead, end(Buffer)': (res) => {
    res.writeHead(200, { 'Content-Length': '10' });
    res.end(Buffer.from('0123456789'));
  },
  'end(Buffer), implicit head': (res) => res.end(Buffer.from('0123456789')),
  'writeHead, end(string)': (res) => {
    res.writeHead(200, { 'Content-Length': '10' });
    res.end('0123456789');
  },
  'chunked end(Buffer)': (res) => {
    res.setHeader('Transfer-Encoding', 'chunked');
    res.end(Buffer.from('0123456789'));
  },
  'write(Buffer) with a Content-Length, then end()': (res) => {
    res.setHeader('Content-Length', '10');
    res.write(Buffer.from('0123456789'));
    res.end();
  },
};
for (const [getterName, makeGetter] of Object.entries(LENGTH_GETTERS)) {
  for (const [name, answer] of Object.entries(LENGTH_READS)) {
    t.test(`the socket's writableLength getter, ${getterName}: ${name}`, async (t) => {
      check(t, await runPair({
        request: CLOSE,
        handler(req, res, { log }) {
          const socket = res.socket;
          const get = makeGetter(log);
          const reads = { n: 0 };
          Object.defineProperty(socket, 'writableLength', {
            configurable: true,
            get() {
              reads.n++;
              return get.call(this);
            },
          });
          attempt(log, 'answer', () => answer(res));
          log.push(['after end', reads.n]);
          res.on('finish', () => log.push(['finish', reads.n]));
        },
      }), 'the bytes, and the getter\'s runs, as in Node', (stock) => stock.log.some((e) => e[0] === 'finish'),
      'with stock Node the response finished');
    });
  }
}
