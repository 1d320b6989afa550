'use strict';

// end() without data, and user code run inside it.
// Stock against onewrite, as test/helpers/contract-checks.js says.

const t = require('tap');
const { runPair, same, watch, callback, attempt } = require('./helpers/contract');
const { major, CLOSE, check, logs } = require('./helpers/contract-checks');

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
// Each answer of `answers` against stock, to a GET and to a HEAD: the
// bytes, the events and callbacks in their order, and the socket's state
// at each of them and when the handler returns.
const HEAD_CLOSE = 'HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
function compareEnds(title, answers) {
  for (const [name, answer] of Object.entries(answers)) {
    for (const request of [CLOSE, HEAD_CLOSE]) {
      t.test(`${title}: ${name}${request === CLOSE ? '' : ', HEAD'}`, async (t) => {
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
}
compareEnds('end() without data', EMPTY_ENDS);

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

// end(data) on a response whose head is rendered and not sent: the common
// shape (no callback, a body allowed and not chunked, the socket idle, the
// data one string with the head) goes out in one line of Node's steps
// (lib/outgoing.js endFast); each shape beside it goes the longer way.
// Both against stock: bytes, events in their order, and the socket's
// state as a user reads it at each of them and when end() returns.
const LATIN1_HEAD = { 'Content-Length': 2, 'X-Name': Buffer.from('caf\u00e9', 'latin1').toString('latin1') };
const DATA_ENDS = {
  'end(string)': (res) => {
    res.writeHead(200, { 'Content-Length': 5 });
    res.end('hello');
  },
  'end(string, latin1)': (res) => {
    res.writeHead(200, { 'Content-Length': 4 });
    res.end('caf\u00e9', 'latin1');
  },
  'end(multibyte string)': (res) => {
    res.writeHead(200, { 'Content-Length': 5 });
    res.end('caf\u00e9');
  },
  'end(small Buffer)': (res) => {
    res.writeHead(200, { 'Content-Length': BODY.length });
    res.end(BODY);
  },
  'end(8 KiB Buffer): copied no more, written beside the head': (res) => {
    res.writeHead(200, { 'Content-Length': 8192 });
    res.end(Buffer.alloc(8192, 'a'));
  },
  'a latin1 head (Node rendered it) and end(text, utf-8)': (res) => {
    res.writeHead(200, LATIN1_HEAD);
    res.end('\u00e9', 'utf-8');
  },
  'a latin1 head and end(text)': (res) => {
    res.writeHead(200, LATIN1_HEAD);
    res.end('\u00e9');
  },
  'end(string, cb)': (res, log) => {
    res.writeHead(200, { 'Content-Length': 5 });
    res.end('hello', callback(log, 'end-cb'));
  },
  'res.cork() before end(string)': (res) => {
    res.writeHead(200, { 'Content-Length': 5 });
    res.cork();
    res.end('hello');
  },
  'socket.cork() before end(string)': (res) => {
    res.writeHead(200, { 'Content-Length': 5 });
    res.socket.cork();
    res.end('hello');
  },
  'chunked end(string)': (res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('hello');
  },
  'write() then end(string), one tick': (res, log) => {
    res.writeHead(200, { 'Content-Length': 10 });
    res.write('hello', callback(log, 'write-cb'));
    res.end('world');
  },
  'flushHeaders() then end(string)': (res) => {
    res.writeHead(200, { 'Content-Length': 5 });
    res.flushHeaders();
    res.end('hello');
  },
  // User code in the cork end() takes first (an agent's wrapper): it runs
  // before anything is sent, and what it did is what end() goes on from.
  'socket.cork wrapped, it writes to the socket inside end(string)': (res, log, socket) => {
    res.writeHead(200, { 'Content-Length': 5 });
    wrapCork(socket, log, () => socket.write('early '));
    res.end('hello');
  },
  'socket.cork wrapped, it calls write() inside end(string)': (res, log, socket) => {
    res.writeHead(200, { 'Content-Length': 6 });
    wrapCork(socket, log, () => attempt(log, 'inner write', () => log.push(['inner write', res.write('x')])));
    res.end('hello');
  },
};
function wrapCork(socket, log, act) {
  const cork = socket.cork;
  socket.cork = function corkWrapped(...args) {
    log.push(['cork wrapper', this.writableCorked]);
    const ret = cork.apply(this, args);
    act();
    return ret;
  };
}
compareEnds('end(data) after writeHead()', DATA_ENDS);
