'use strict';

// Every case the fast paths refuse: Node's own code must run (its counter
// in status().counters moves, the fast one does not), the reason must be
// counted under its name in status().fallbacks, and the bytes must be
// stock Node's.  Then the cases that once went to Node and that the fast
// paths now take, with Node's bytes.

const t = require('tap');
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { Duplex } = require('node:stream');
const onewrite = require('..');
const { normalise, measuredExchange } = require('./helpers/wire');

const counters = () => onewrite.status().counters;
const reasons = () => onewrite.status().fallbacks;
const major = Number(process.versions.node.split('.')[0]);
const FAST = { headsToNode: 'heads', endsToNode: 'ends', writesToNode: 'writes' };

// name -> [handler, the counter of Node's path that must move, the reason
// counted, server options, raw request].  The fast counter of the same kind
// must not move.  Where the case is not a refusal on this Node, the counter
// named is the fast one that must move instead ('ends'), and no reason.
const CASES = {
  'latin1 Content-Disposition': [(req, res) => {
    res.setHeader('Content-Disposition', 'attachment; filename="caf\u00e9.txt"');
    res.end('x');
  }, 'headsToNode', 'non-ascii head'],
  'latin1 value in writeHead': [(req, res) => {
    res.writeHead(200, { 'X-Name': 'Jos\u00e9' });
    res.end('x');
  }, 'headsToNode', 'non-ascii head'],
  'Set-Cookie array in uniqueHeaders': [(req, res) => {
    res.setHeader('Set-Cookie', ['a=1', 'b=2']);
    res.end('x');
  }, 'headsToNode', 'unique header joined', { uniqueHeaders: ['set-cookie'] }],
  'Cookie array joined': [(req, res) => {
    res.setHeader('Cookie', ['a=1', 'b=2']);
    res.end('x');
  }, 'headsToNode', 'cookie joined'],
  'a header getter': [(req, res) => {
    res.writeHead(200, { get 'X-Lazy'() { return 'v'; } });
    res.end('x');
  }, 'headsToNode', 'header getter or proxy'],
  'a header object value': [(req, res) => {
    res.setHeader('X-Obj', { toString: () => 'v' });
    res.end('x');
  }, 'headsToNode', 'header value not a string or number'],
  'maxRequestsPerSocket an object': [(req, res) => {
    res.end('x');
  }, 'headsToNode', 'keep-alive settings not numbers', { maxRequestsPerSocket: { valueOf: () => 3 } }],
  'hex encoding': [(req, res) => res.end('68656c6c6f', 'hex'), 'endsToNode', 'encoding hex'],
  'base64 encoding': [(req, res) => res.end('aGVsbG8=', 'base64'), 'endsToNode', 'encoding base64'],
  'utf16le encoding': [(req, res) => res.end('hi', 'utf16le'), 'endsToNode', 'encoding utf16le'],
  'ascii encoding of text that is not ascii': [(req, res) => res.end('caf\u00e9', 'ascii'),
    'endsToNode', 'ascii text not ascii'],
  // On 20 res.cork() corks the socket alone (kCorked counts only without a
  // socket): a write into a corked socket is Node's own behaviour there, and
  // end() flushes it; 22+ count it and the fast path refuses.
  'corked response': [(req, res) => {
    res.cork();
    res.end('x');
  }, major >= 22 ? 'endsToNode' : 'ends', major >= 22 ? 'corked' : null],
  'strictContentLength': [(req, res) => {
    res.strictContentLength = true;
    res.setHeader('Content-Length', '1');
    res.end('x');
  }, 'endsToNode', 'strictContentLength'],
  'socket destroyed': [(req, res) => {
    res.socket.destroy();
    res.end('x');
  }, 'endsToNode', 'socket destroyed'],
  // A spy (or an APM agent) on socket.write must see Node's calls.
  'socket.write replaced on the instance': [(req, res) => {
    const write = res.socket.write;
    res.socket.write = function spied(...args) {
      return write.apply(this, args);
    };
    res.writeHead(200, { 'X-A': 'b' });
    res.end('spied');
  }, 'endsToNode', 'socket.write replaced'],
  // So must a spy on the response's _send.
  '_send replaced on the instance': [(req, res) => {
    const send = res._send;
    res._send = function spied(...args) {
      return send.apply(this, args);
    };
    res.end('spied');
  }, 'endsToNode', '_send replaced'],
  'write() of a string in base64': [(req, res) => {
    res.write('aGk=', 'base64');
    res.end();
  }, 'writesToNode', 'encoding base64'],
};

// name -> [handler, server options, raw request, the fast counter]: once
// handed to Node, now Node's steps with the bytes in one write; that fast
// path ('ends' unless named) must run, and its Node counter must not move.
const ACCELERATED = {
  'write() of a Content-Length response (head and data in one write)': [(req, res) => {
    res.writeHead(200, { 'Content-Length': '2' });
    res.write('a');
    res.end('b');
  }, {}, undefined, 'writes'],
  'the same with a Buffer, then end() in a later tick': [(req, res) => {
    res.writeHead(200, { 'Content-Length': '4' });
    res.write(Buffer.from('ab'));
    setImmediate(() => res.end('cd'));
  }, {}, undefined, 'writes'],
  'trailers': [(req, res) => {
    res.writeHead(200, { Trailer: 'X-Sum' });
    res.addTrailers({ 'X-Sum': '42' });
    res.end('data');
  }],
  'multibyte text as utf-8 spelled with a dash': [(req, res) => res.end('\u20ac', 'utf-8')],
  'flushHeaders first, then a Content-Length body': [(req, res) => {
    res.setHeader('Content-Length', '1');
    res.flushHeaders();
    res.end('x');
  }],
  'Expect: 100-continue not answered': [(req, res) => res.end('no continue'),
    { checkContinue: true }, 'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'],
  'HEAD request body dropped': [(req, res) => res.end('dropped'), {},
    'HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
};

const CLOSE = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

// Both servers of a pair with the same handler and options; the counters
// and reasons around the onewrite side's exchange.
async function refusedPair(t, handler, options = {}, raw = CLOSE) {
  const { checkContinue, maxRequestsPerSocket, ...serverOptions } = options;
  const { a, b, before, after } = await measuredExchange(t, handler, {
    raw,
    serverOptions,
    setup(server) {
      // Answer without sending 100 Continue: the response is final while
      // the client still waits to send its body.
      if (checkContinue) server.on('checkContinue', handler);
      if (maxRequestsPerSocket !== undefined) server.maxRequestsPerSocket = maxRequestsPerSocket;
    },
    snapshot: () => ({ counters: counters(), reasons: reasons() }),
  });
  return {
    a, b, before: before.counters, after: after.counters,
    beforeReasons: before.reasons, afterReasons: after.reasons,
  };
}

t.test('each refused case runs Node\'s code, names its reason and sends Node\'s bytes', async (t) => {
  for (const [name, [handler, counter, reason, options, raw]] of Object.entries(CASES)) {
    await t.test(name, async (t) => {
      const { a, b, before, after, beforeReasons, afterReasons } = await refusedPair(t, handler, options, raw);
      t.equal(normalise(b.bytes), normalise(a.bytes), `${name}: Node's bytes`);
      if (counter === 'ends') {
        t.ok(after.ends > before.ends, `${name}: not a refusal on Node ${major}: the fast end ran`);
      } else {
        t.ok(after[counter] > before[counter], `${name}: ${counter} moved`);
        t.equal(after[FAST[counter]], before[FAST[counter]], `${name}: ${FAST[counter]} did not`);
        t.ok((afterReasons[reason] || 0) > (beforeReasons[reason] || 0),
          `${name}: counted as '${reason}' (${JSON.stringify(afterReasons)})`);
      }
    });
  }
});

t.test('cases once handed to Node now take a fast path, with Node\'s bytes', async (t) => {
  for (const [name, [handler, options, raw, fast = 'ends']] of Object.entries(ACCELERATED)) {
    await t.test(name, async (t) => {
      const { a, b, before, after } = await refusedPair(t, handler, options, raw);
      t.equal(normalise(b.bytes), normalise(a.bytes), `${name}: Node's bytes`);
      t.ok(after[fast] > before[fast], `${name}: the fast ${fast} ran`);
      t.equal(after[`${fast}ToNode`], before[`${fast}ToNode`], `${name}: not handed to Node`);
    });
  }
});

t.test('a pipelined response that does not own the socket yet is left to Node', async (t) => {
  // /slow answers later; /fast, pipelined behind it, ends while queued.
  const handler = (req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('slow'), 30);
    else res.end('fast');
  };
  const raw = 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  const { a, b, before, after } = await measuredExchange(t, handler, { raw, snapshot: counters });
  t.equal(normalise(b.bytes), normalise(a.bytes), 'same bytes, in request order');
  t.equal(after.endsToNode - before.endsToNode, 1, 'the queued response went to Node');
  t.equal(after.ends - before.ends, 1, 'the first one did not');
  t.equal(reasons()['no socket'], 1, "counted as 'no socket'");
});

t.test('an invalid header value goes to Node, which throws its own error', async (t) => {
  const handler = (req, res) => {
    try {
      res.writeHead(200, { 'X-Bad': 'a\rb' });
    } catch (err) {
      res.end(`${err.name} ${err.code} ${err.message}`);
    }
  };
  const { a, b, beforeReasons, afterReasons } = await refusedPair(t, handler);
  t.equal(normalise(b.bytes), normalise(a.bytes), "Node's bytes, its error's class, code and message in them");
  t.match(a.bytes.toString('latin1'), /TypeError ERR_INVALID_CHAR/, 'the error is the one Node throws');
  const name = 'invalid header value';
  t.equal((afterReasons[name] || 0) - (beforeReasons[name] || 0), 1, `counted as '${name}'`);
});

// README ("Counters and fallbacks") names reasons a user will see in
// status().fallbacks: each one must be one that the cases above made the
// fast paths count (this test runs last, after all of them).
t.test("every reason the README names is one status().fallbacks counts", async (t) => {
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const from = readme.indexOf('`fallbacks` counts every hand-over');
  const to = readme.indexOf('on\nNode 22+ also', from);
  const end = readme.indexOf('\n\n', to);
  t.ok(from > 0 && to > from && end > to, 'the README lists the reasons');
  const names = (text) => [...text.matchAll(/`'([^']+)'`/g)].map((m) => m[1]);
  const every = names(readme.slice(from, to));
  const from22 = names(readme.slice(to, end));
  t.ok(every.length >= 8 && from22.length >= 1, `the list is read (${every.join(', ')}; 22+: ${from22.join(', ')})`);
  const seen = reasons();
  for (const name of every) t.ok(seen[name] > 0, `'${name}' is counted by a case here`);
  // On 20 res.cork() corks the socket, and no case can make the reason.
  for (const name of from22) {
    t.equal(seen[name] > 0, major >= 22, `'${name}' counted here on Node ${major} only if 22+`);
  }
});

t.test('a socket that is not a real net.Socket is left to Node', async (t) => {
  // A ServerResponse on a plain Duplex (no handle), as some tests and
  // frameworks build them.
  function run(Response) {
    const written = [];
    const socket = new Duplex({
      write(chunk, encoding, callback) {
        written.push(Buffer.from(chunk, encoding));
        callback();
      },
      read() {},
    });
    const req = { method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} };
    const res = new Response(req);
    res.sendDate = false;
    res.assignSocket(socket);
    res.setHeader('Content-Type', 'text/plain');
    res.end('on a duplex');
    return new Promise((resolve) => setImmediate(() => resolve(Buffer.concat(written).toString('latin1'))));
  }
  const before = counters();
  const why = 'socket without a handle';
  const reasonBefore = reasons()[why] || 0;
  const fast = await run(onewrite.ServerResponse);
  const after = counters();
  t.equal(fast, await run(http.ServerResponse), 'same bytes as stock');
  t.equal(after.ends, before.ends, 'no fast end');
  t.ok(after.endsToNode > before.endsToNode, 'Node ended it');
  // Its write() is Writable's, as a net.Socket's, its _write() its own:
  // the reason told is the missing handle.
  t.ok((reasons()[why] || 0) > reasonBefore, `counted as '${why}'`, { fallbacks: reasons() });
});
