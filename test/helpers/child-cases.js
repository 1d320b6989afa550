'use strict';

// The contract cases that run in a child process (test/helpers/child-run.js),
// each as a spec for runSide() (test/helpers/contract.js), by name:
//
//   wrapper/<where>/<action>/<op>   user code inside the head of end(data)
//                                   or write(data) changes the response
//   big/head, big/join              strings at V8's maximum length
//   big/chunked-end, big/chunked-writes   chunked text Node never joins,
//                                   together past that length
//   shared/<how>                    the addon's shared memory, detached

const path = require('node:path');
const { MAX_STRING_LENGTH } = require('node:buffer').constants;
const { watch, callback, attempt, rawClient, digestClient, sleep } = require('./contract');

const ROOT = path.join(__dirname, '..', '..');
const CLOSE = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

// ---- wrappers inside the implicit head ----------------------------------

// What the wrapper does once the head is made (an APM agent's "after"
// hook, a middleware's last word).
const ACTIONS = {
  trailers: (res) => res.addTrailers({ 'X-Sum': '42' }),
  strictContentLength: (res) => {
    res.strictContentLength = true;
  },
  // A spy on the socket's writes, as agents and tests put there: it must
  // see the writes Node makes.
  socketWrite: (res, log) => {
    const socket = res.socket;
    const write = socket.write;
    socket.write = function spied(data, encoding, cb) {
      log.push(['socket.write', typeof data, data.length, typeof encoding === 'string' ? encoding : null]);
      return write.apply(this, arguments);
    };
  },
  halfClose: (res) => res.socket.end(),
  destroy: (res) => res.socket.destroy(),
  detach: (res) => res.detachSocket(res.socket),
  // A wrapper that marks the response done (as a guard against double
  // answers might): finished, and finished and destroyed.
  finished: (res) => {
    res.finished = true;
  },
  finishedDestroyed: (res) => {
    res.finished = true;
    res.destroyed = true;
  },
};

// Where the wrapper sits: `writeHead` and `_implicitHeader` are wrapped
// on the instance and reached from end()/write()'s implicit head; `prior`
// wraps writeHead and the handler calls it itself before end()/write();
// `socket.cork` and `socket.uncork` are wrapped on the response's socket,
// which Node's end() and write() cork and uncork around their sends.
const WHERE = ['writeHead', '_implicitHeader', 'prior', 'socket.cork', 'socket.uncork'];

// The body call: end(data) with a Content-Length, end(data) chunked (a
// Transfer-Encoding header set first, so trailers count), or a chunked
// write(data) followed by end().
const OPS = ['end', 'endChunked', 'write'];

function wrapperCase(where, action, op) {
  const act = ACTIONS[action];
  if (!act || !WHERE.includes(where) || !OPS.includes(op)) return null;
  return {
    request: CLOSE,
    wait: 400,
    handler(req, res, { log }) {
      watch(res, log);
      const onSocket = where.startsWith('socket.');
      const target = onSocket ? res.socket : res;
      const name = onSocket ? where.slice(7) : where === '_implicitHeader' ? '_implicitHeader' : 'writeHead';
      const original = target[name];
      target[name] = function wrapped(...args) {
        log.push(['wrapper', name, args.length]);
        const ret = original.apply(this, args);
        act(res, log);
        return ret;
      };
      const headers = op === 'endChunked' ? { 'Transfer-Encoding': 'chunked' } : {};
      attempt(log, 'handler', () => {
        if (where === 'prior') res.writeHead(200, headers);
        else if (op === 'endChunked') res.setHeader('Transfer-Encoding', 'chunked');
        if (op === 'write') {
          log.push(['write', res.write('data', callback(log, 'write-cb'))]);
          res.end(callback(log, 'end-cb'));
        } else {
          res.end('data', callback(log, 'end-cb'));
        }
      });
      log.push(['after', res.headersSent, res.writableEnded, res.writableFinished,
        res.strictContentLength]);
    },
  };
}

// ---- strings at V8's maximum length --------------------------------------

// A head just over MAX_STRING_LENGTH whose parts still fit a string: eight
// headers sharing one value of an eighth of the limit (one value of the
// whole limit is the same failure, with 3 GiB in the child instead of
// about 2.5).  Stock Node's head concatenation throws a RangeError the
// handler catches; it then answers 500.
const BIG_HEADERS = 8;
const BIG_VALUE = Math.floor((MAX_STRING_LENGTH - 2) / BIG_HEADERS) - 'X-Big-0'.length;

const bigHead = {
  request: CLOSE,
  wait: 60000,
  timeout: 60000,
  handler(req, res, ctx) {
    const { log } = ctx;
    watch(res, log);
    const value = 'v'.repeat(BIG_VALUE);
    const names = Array.from({ length: BIG_HEADERS }, (_, i) => `X-Big-${i}`);
    const threw = attempt(log, 'end', () => {
      for (const n of names) res.setHeader(n, value);
      res.end('x');
    });
    if (threw) {
      for (const n of names) res.removeHeader(n);
      res.statusCode = 500;
      attempt(log, 'end 500', () => res.end('head too large'));
    }
    log.push(['after', res.headersSent, res.writableEnded]);
  },
};

// A response at V8's maximum string length, read by a client that keeps
// only a digest of it: `answer(res, log)` makes it.
const bigDigest = (answer) => ({
  request: CLOSE,
  wait: 60000,
  timeout: 60000,
  client: digestClient(CLOSE),
  handler(req, res, { log }) {
    watch(res, log);
    res.sendDate = false; // the Date line is not where the digest normalises it
    attempt(log, 'answer', () => answer(res, log));
    log.push(['after', res.headersSent, res.writableEnded]);
  },
});

// A head Node renders (a Cookie array, which Node joins: onewrite hands
// it over) of 4 KiB under the limit, then end() with an 8 KiB Buffer:
// stock Node sends the head and the body (a writev); one string of both
// would be over the limit.
const bigJoin = bigDigest((res) => {
  res.setHeader('Cookie', ['a=1', 'v'.repeat(MAX_STRING_LENGTH - 4096)]);
  res.end(Buffer.alloc(8192, 'b'));
});

// Chunked text Node sends in _send()s of their own, and so never joins:
// end() with text just under V8's limit (the head and the framing would
// take it over), and two write()s in one tick whose text is over it
// together (Node 24+ buffers them to the tick's uncork(), which sends each
// one).  Stock Node sends all of it.
const bigChunkedEnd = bigDigest((res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('x'.repeat(MAX_STRING_LENGTH - 100));
});
const bigChunkedWrites = bigDigest((res, log) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  const half = Math.ceil(MAX_STRING_LENGTH / 2) + 16;
  res.write('a'.repeat(half), callback(log, 'write a'));
  res.write('b'.repeat(half), callback(log, 'write b'));
  setImmediate(() => res.end());
});

// ---- the shared memory, detached ------------------------------------------

// Heads whose text (reason phrase, names, values) has the same length but
// is cut differently, then others: whatever lengths and state the addon
// reads, only the current response's may count.
const SHARED_HEADS = [
  { 'X-A': 'bb' }, { 'X-AB': 'b' }, { 'X-ABC': '' }, { 'X-A': 'cc' }, { 'Content-Length': '1' },
  { 'X-Long-Name': 'and a longer value' },
];

// The addon as a user reaches it: require() of the binary the package
// loaded (status().binary) returns the very exports object onewrite uses.
// Detach every ArrayBuffer found on it, as a property or under a view
// ('keep': holding the clone, which then owns the memory; 'collected':
// dropping it and collecting garbage; 'transfer':
// ArrayBuffer.prototype.transfer, where this Node has it).  Logs what happened; a buffer that cannot be
// detached is as good as any.
function detachAddonMemory(how, log, ctx) {
  const binding = require(require(ROOT).status().binary);
  for (const own of Reflect.ownKeys(binding)) {
    const key = String(own);
    let ab;
    try {
      ab = binding[own];
      if (ArrayBuffer.isView(ab)) ab = ab.buffer;
    } catch {
      continue;
    }
    if (!(ab instanceof ArrayBuffer)) continue;
    try {
      if (how === 'transfer') {
        if (typeof ab.transfer !== 'function') {
          log.push(['detach', key, 'no ArrayBuffer.prototype.transfer on this Node']);
          continue;
        }
        ab.transfer();
      } else {
        const clone = structuredClone(ab, { transfer: [ab] });
        if (how === 'keep') (ctx.kept ??= []).push(clone);
      }
      log.push(['detach', key, 'detached']);
    } catch (err) {
      log.push(['detach', key, 'refused']);
    }
  }
  if (how !== 'keep' && typeof global.gc === 'function') {
    global.gc();
    global.gc();
  }
}

function sharedCase(how) {
  if (!['keep', 'collected', 'transfer'].includes(how)) return null;
  let next = 0;
  return {
    async client(port, ctx) {
      const one = () => rawClient(CLOSE)(port).then((r) => r.bytes);
      const seen = [await one()];
      detachAddonMemory(how, ctx.log, ctx);
      for (let i = 0; i < SHARED_HEADS.length + 2; i++) {
        seen.push(await one());
        await sleep(1);
      }
      return { bytes: seen };
    },
    handler(req, res, { log }) {
      attempt(log, 'end', () => {
        res.writeHead(200, SHARED_HEADS[next++ % SHARED_HEADS.length]);
        res.end('x');
      });
    },
  };
}

function spec(name) {
  const [kind, ...rest] = name.split('/');
  if (kind === 'wrapper') return wrapperCase(...rest);
  if (kind === 'big') {
    return { head: bigHead, join: bigJoin, 'chunked-end': bigChunkedEnd, 'chunked-writes': bigChunkedWrites }[rest[0]] ?? null;
  }
  if (kind === 'shared') return sharedCase(rest[0]);
  return null;
}

module.exports = { spec, ACTIONS, WHERE, OPS };
