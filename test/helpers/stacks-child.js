'use strict';

// node stacks-child.js <limit> [-r onewrite/register]: every error a
// response method throws or hands on, and a stack taken inside each of a
// response's events, on a real server; one JSON line: for each case, the
// stack's frame lines.  The cases' functions are named user* (the user's
// own frames); `limit` is Error.stackTraceLimit ('default' leaves it).

const http = require('node:http');
const net = require('node:net');

const limit = process.argv[2];
if (limit !== 'default') Error.stackTraceLimit = Number(limit);

const frames = (stack) => String(stack).split('\n').filter((l) => l.startsWith('    at '));
const out = {};
function thrown(name, fn) {
  try {
    fn();
    out[name] = ['no error'];
  } catch (err) {
    out[name] = frames(err.stack);
  }
}

// The user's own frames, n of them deep: stacks long enough to reach the
// limit.
function userDeep(n, fn) {
  return n === 0 ? fn() : userDeep(n - 1, fn);
}

// Each case: [method, answer(req, res, done)], `done` called when its stack
// is in.
const CASES = {
  'writeHead: invalid status message': ['GET', function userInvalidMessage(req, res, done) {
    thrown('writeHead: invalid status message', () => res.writeHead(200, 'a\nb'));
    done(res);
  }],
  'writeHead: invalid header value': ['GET', function userInvalidValue(req, res, done) {
    thrown('writeHead: invalid header value', () => res.writeHead(200, { 'x-a': 'a\nb' }));
    done(res);
  }],
  'writeHead: invalid header name': ['GET', function userInvalidName(req, res, done) {
    thrown('writeHead: invalid header name', () => res.writeHead(200, { 'bad name': 'x' }));
    done(res);
  }],
  'writeHead: status 99': ['GET', function userStatus(req, res, done) {
    thrown('writeHead: status 99', () => res.writeHead(99));
    done(res);
  }],
  'writeHead: twice': ['GET', function userTwice(req, res, done) {
    res.writeHead(200);
    thrown('writeHead: twice', () => res.writeHead(200));
    done(res);
  }],
  'end: status 99 in the implicit head': ['GET', function userImplicit(req, res, done) {
    res.statusCode = 99;
    thrown('end: status 99 in the implicit head', () => res.end('x'));
    done(res);
  }],
  'end: strict Content-Length mismatch': ['GET', function userStrict(req, res, done) {
    res.strictContentLength = true;
    res.setHeader('Content-Length', '2');
    thrown('end: strict Content-Length mismatch', () => res.end('abc'));
    done(res);
  }],
  'end: a number': ['GET', function userNumber(req, res, done) {
    thrown('end: a number', () => res.end(5));
    done(res);
  }],
  'end: an unknown encoding': ['GET', function userEncoding(req, res, done) {
    thrown('end: an unknown encoding', () => res.end('x', 'bogus'));
    done(res);
  }],
  'write: a body for HEAD (rejectNonStandardBodyWrites)': ['HEAD', function userBody(req, res, done) {
    thrown('write: a body for HEAD (rejectNonStandardBodyWrites)', () => res.write('x'));
    done(res);
  }],
  // Code of the user's that throws inside the method, called from deep
  // in the user's code: every frame between the throw and the call.
  'end: an on-headers wrapper of writeHead throws in the implicit head': ['GET', function userOnHeaders(req, res, done) {
    const writeHead = res.writeHead;
    res.writeHead = function userWriteHead() {
      this.setHeader('X-Response-Time', 'bad\nvalue');
      return writeHead.apply(this, arguments);
    };
    userDeep(6, () => thrown('end: an on-headers wrapper of writeHead throws in the implicit head', () => res.end('x')));
    done(res);
  }],
  "end: a 'prefinish' listener throws": ['GET', function userPrefinishThrows(req, res, done) {
    res.on('prefinish', function userListener() {
      throw new Error('from prefinish');
    });
    userDeep(6, () => thrown("end: a 'prefinish' listener throws", () => res.end('x')));
    done(null);
  }],
  "write after end: the 'error'": ['GET', function userAfterEnd(req, res, done) {
    res.on('error', (err) => {
      out["write after end: the 'error'"] = frames(err.stack);
      done(null);
    });
    res.end('x');
    res.write('y');
  }],
  "'prefinish'": ['GET', function userPrefinish(req, res, done) {
    res.on('prefinish', function userListener() {
      out["'prefinish'"] = frames(new Error().stack);
    });
    res.on('finish', () => done(null));
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('x');
  }],
  "'finish'": ['GET', function userFinish(req, res, done) {
    res.on('finish', function userListener() {
      out["'finish'"] = frames(new Error().stack);
      done(null);
    });
    res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end('x');
  }],
  "'close'": ['GET', function userClose(req, res, done) {
    res.on('close', function userListener() {
      out["'close'"] = frames(new Error().stack);
      done(null);
    });
    res.end('x');
  }],
  'end callback': ['GET', function userEndCallback(req, res, done) {
    res.end('x', function userCallback() {
      out['end callback'] = frames(new Error().stack);
      done(null);
    });
  }],
  'write callback': ['GET', function userWriteCallback(req, res, done) {
    res.write('x', function userCallback() {
      out['write callback'] = frames(new Error().stack);
      res.end();
      done(null);
    });
  }],
  // 20 22: end() adds its callback with this.once('finish') (24 26 keep it
  // apart: no 'newListener' there).
  "'newListener' of end(data, callback)": ['GET', function userNewListener(req, res, done) {
    res.on('newListener', function userListener(event) {
      if (event === 'finish') out["'newListener' of end(data, callback)"] ??= frames(new Error().stack);
    });
    res.end('x', () => done(null));
  }],
  "'newListener' of end(callback)": ['GET', function userNewListenerEmpty(req, res, done) {
    res.writeHead(200, { 'Content-Length': '0' });
    res.on('newListener', function userListener(event) {
      if (event === 'finish') out["'newListener' of end(callback)"] ??= frames(new Error().stack);
    });
    res.end(() => done(null));
  }],
  // An end callback after 'finish' gets ERR_STREAM_ALREADY_FINISHED.
  'end(callback) after finish: the error': ['GET', function userLate(req, res, done) {
    res.on('finish', () => {
      res.end(function userCallback(err) {
        out['end(callback) after finish: the error'] = err ? frames(err.stack) : ['no error'];
        done(null);
      });
    });
    res.end('x');
  }],
};

const names = Object.keys(CASES);
const server = http.createServer({ rejectNonStandardBodyWrites: true }, (req, res) => {
  const name = names[Number(req.url.slice(1))];
  CASES[name][1](req, res, (r) => {
    if (r !== null && !r.writableEnded) r.socket.destroy();
  });
});
server.listen(0, '127.0.0.1', async () => {
  for (let i = 0; i < names.length; i++) {
    await new Promise((resolve) => {
      const socket = net.connect(server.address().port, '127.0.0.1',
        () => socket.write(`${CASES[names[i]][0]} /${i} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      socket.on('data', () => {});
      socket.on('close', resolve);
      socket.on('error', resolve);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // A request's methods (ClientRequest shares end() and write() with the
  // response, on OutgoingMessage.prototype).
  const request = () => http.request({ host: '127.0.0.1', port: server.address().port, method: 'POST', agent: false });
  const thrownBy = request();
  thrownBy.on('error', () => {});
  thrown('request end: a number', function userRequestEnd() {
    thrownBy.end(5);
  });
  thrownBy.destroy();
  await new Promise((resolve) => {
    const afterEnd = request();
    afterEnd.on('error', (err) => {
      if (err.code === 'ERR_STREAM_WRITE_AFTER_END') out["request write after end: the 'error'"] = frames(err.stack);
      afterEnd.destroy();
      resolve();
    });
    afterEnd.on('response', (res) => res.resume());
    afterEnd.end();
    (function userRequestWrite() {
      afterEnd.write('y');
    })();
  });
  server.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
});
