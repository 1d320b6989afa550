'use strict';

// Random response scenarios, generated from a seed so that a failure can be
// replayed (ONEWRITE_SEED=<seed> with the case number printed by the test).
// A scenario is the request a client sends and the list of calls the
// handler makes on the response; runSteps() plays the calls and records
// every error thrown and every event seen, so that two servers given the
// same scenario can be compared on bytes, errors and events.

function prng(seed) {
  // mulberry32
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeRandom(seed) {
  const r = prng(seed);
  const rnd = {
    float: r,
    int: (n) => Math.floor(r() * n),
    chance: (p) => r() < p,
    pick: (xs) => xs[Math.floor(r() * xs.length)],
  };
  return rnd;
}

const NAMES = ['Content-Type', 'content-type', 'X-Request-Id', 'Cache-Control', 'ETag', 'Vary',
  'X-Powered-By', 'Set-Cookie', 'set-cookie', 'Cookie', 'Content-Disposition', 'Date', 'date',
  'Connection', 'connection', 'Transfer-Encoding', 'transfer-encoding', 'Content-Length',
  'content-length', 'Keep-Alive', 'Trailer', 'Location', 'X-Unique', '1', '22', 'X-A', 'x-a',
  'Server', 'Last-Modified', 'Access-Control-Allow-Origin', 'X-Num'];
const BAD_NAMES = ['', 'a b', 'x:y', 'bad\r\nname', 'caf\u00e9', 'x\u0000', '(paren)', 'x"y',
  'x\u0100', 'tab\tname'];
const SPECIAL_VALUES = {
  connection: ['close', 'keep-alive', 'Upgrade, Close', 'closed', 'CLOSE', 'foo, close ,bar',
    'x-close'],
  'transfer-encoding': ['chunked', 'gzip', 'gzip, chunked', 'chunked;foo=bar', 'Chunked',
    'chunkedx'],
  'content-length': ['0', '3', '5', '11', ' 5', '4294967296', 'abc', '-1', '1e3'],
  'keep-alive': ['timeout=9', 'max=3'],
  trailer: ['X-Checksum'],
  date: ['Thu, 01 Jan 1970 00:00:00 GMT'],
  'content-disposition': ['attachment; filename="a.txt"', 'attachment; filename="caf\u00e9.txt"',
    'inline'],
};
const VALUE_CHARS = 'abcXYZ019 -_.;=,/"\'()[]{}:@?!#$%&*+|~^`<>\\\t';
const BAD_CHARS = ['\r', '\n', '\r\n', '\u0000', '\u0001', '\u007f', '\u00e9', '\u00ff', '\u20ac',
  '\u0100', '\ud83d\ude00', '\u0085'];

function value(rnd, name) {
  const special = SPECIAL_VALUES[String(name).toLowerCase()];
  if (special && rnd.chance(0.7)) return rnd.pick(special);
  const roll = rnd.float();
  if (roll < 0.08) return rnd.int(100000); // a number
  if (roll < 0.1) return rnd.pick([0, -0, 1.5, NaN, Infinity, 2 ** 53, true, null]);
  if (roll < 0.12) return undefined;
  let s = '';
  const len = rnd.chance(0.05) ? 200 + rnd.int(2000) : rnd.int(40);
  for (let i = 0; i < len; i++) s += VALUE_CHARS[rnd.int(VALUE_CHARS.length)];
  if (rnd.chance(0.12)) {
    const at = rnd.int(s.length + 1);
    s = s.slice(0, at) + rnd.pick(BAD_CHARS) + s.slice(at);
  }
  return s;
}

function headerValue(rnd, name) {
  if (rnd.chance(0.12)) {
    const n = rnd.int(4);
    const arr = [];
    for (let i = 0; i < n; i++) arr.push(value(rnd, name));
    return arr;
  }
  return value(rnd, name);
}

function name(rnd) {
  if (rnd.chance(0.04)) return rnd.pick(BAD_NAMES);
  return rnd.pick(NAMES);
}

function headerShape(rnd) {
  const n = rnd.int(6);
  const pairs = [];
  for (let i = 0; i < n; i++) {
    const k = name(rnd);
    pairs.push([k, headerValue(rnd, k)]);
  }
  const shape = rnd.int(5);
  if (shape === 0) return undefined;
  if (shape === 1) return ['object', pairs];
  if (shape === 2) return ['flat', pairs];
  if (shape === 3) return ['nested', pairs];
  return ['object', pairs];
}

// Turn a described header shape into the value writeHead gets.
function materialise(shape) {
  if (shape === undefined) return undefined;
  const [kind, pairs] = shape;
  if (kind === 'object') {
    const o = {};
    for (const [k, v] of pairs) o[k] = v;
    return o;
  }
  if (kind === 'flat') return pairs.flatMap(([k, v]) => [k, v]);
  return pairs.map(([k, v]) => [k, v]);
}

const TEXTS = ['hello', '', 'x', '\u20ac', 'caf\u00e9 \u00fc\u00f1\u00ee', '\ud83d\ude00 emoji',
  'line\r\nbreak', 'a'.repeat(100)];

function body(rnd) {
  const roll = rnd.float();
  if (roll < 0.5) {
    const t = rnd.chance(0.05) ? 'z'.repeat(20000 + rnd.int(5000)) : rnd.pick(TEXTS);
    const enc = rnd.chance(0.8) ? undefined
      : rnd.pick(['utf8', 'utf-8', 'latin1', 'ascii', 'binary', 'hex', 'base64', 'ucs2']);
    if (enc === 'hex') return { kind: 'string', text: '68656c6c6f', enc };
    return { kind: 'string', text: t, enc };
  }
  if (roll < 0.75) {
    const len = rnd.chance(0.05) ? 20000 + rnd.int(5000) : rnd.int(30);
    return { kind: 'buffer', len };
  }
  if (roll < 0.85) return { kind: 'uint8', len: rnd.int(20) };
  return { kind: 'none' };
}

function materialiseBody(b) {
  if (b.kind === 'string') return b.text;
  if (b.kind === 'buffer') return Buffer.alloc(b.len, 0x41 + (b.len % 26));
  if (b.kind === 'uint8') return new Uint8Array(b.len).fill(0x61);
  return undefined;
}

// The calls the handler makes.
function steps(rnd) {
  const out = [];
  if (rnd.chance(0.2)) out.push(['statusCode', rnd.pick([200, 201, 204, 304, 404, 500, 599, 999,
    1000, 99, '200', 302])]);
  if (rnd.chance(0.1)) out.push(['statusMessage', rnd.pick(['Fine', '', 'Caf\u00e9', 'Bad\r\n',
    'Custom Reason'])]);
  if (rnd.chance(0.08)) out.push(['sendDate', false]);
  const sets = rnd.int(5);
  for (let i = 0; i < sets; i++) {
    const k = name(rnd);
    const op = rnd.pick(['setHeader', 'setHeader', 'appendHeader', 'removeHeader']);
    out.push(op === 'removeHeader' ? [op, k] : [op, k, headerValue(rnd, k)]);
  }
  if (rnd.chance(0.05)) out.push(['removeHeader', rnd.pick(['Date', 'Connection',
    'Content-Length', 'Transfer-Encoding'])]);
  if (rnd.chance(0.55)) {
    const code = rnd.pick([200, 200, 200, 201, 204, 304, 404, 103, 500, 999, 1000, 99]);
    const reason = rnd.chance(0.2) ? rnd.pick(['OK', '', 'Custom', 'Bad\nReason', '\u00e9t\u00e9'])
      : undefined;
    out.push(['writeHead', code, reason, headerShape(rnd)]);
  }
  if (rnd.chance(0.03)) out.push(['flushHeaders']);
  if (rnd.chance(0.03)) out.push(['addTrailers', { 'X-Checksum': 'abc' }]);
  if (rnd.chance(0.03)) out.push(['strictContentLength']);
  if (rnd.chance(0.04)) out.push(['cork']);
  const writes = rnd.chance(0.3) ? 1 + rnd.int(4) : 0;
  for (let i = 0; i < writes; i++) {
    if (rnd.chance(0.3)) out.push(['tick']);
    out.push(['write', body(rnd)]);
    if (rnd.chance(0.05)) out.push(['uncork']);
  }
  if (rnd.chance(0.2)) out.push(['tick']);
  out.push(['end', body(rnd), rnd.chance(0.3)]);
  if (rnd.chance(0.02)) out.push(['end', body(rnd), false]);
  return out;
}

const REQUESTS = [
  { method: 'GET', version: '1.1' },
  { method: 'GET', version: '1.1' },
  { method: 'GET', version: '1.1' },
  { method: 'HEAD', version: '1.1' },
  { method: 'POST', version: '1.1', body: 'request body' },
  { method: 'GET', version: '1.0' },
  { method: 'GET', version: '1.0', headers: { Connection: 'keep-alive' } },
  { method: 'GET', version: '1.0', headers: { TE: 'chunked' } },
  { method: 'GET', version: '1.1', headers: { Connection: 'close' } },
  { method: 'GET', version: '1.1', pipelined: true },
  { method: 'GET', version: '1.1' }, // (kept, so that a seed picks what it picked before)
];

function scenario(seed, index) {
  const rnd = makeRandom((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  return {
    index,
    config: rnd.int(4),
    request: rnd.pick(REQUESTS),
    steps: steps(rnd),
  };
}

function describeError(err) {
  return {
    name: err && err.constructor ? err.constructor.name : typeof err,
    code: err && err.code,
    message: err && err.message,
  };
}

// How runSteps turns a step's arguments into the values given to the
// response: as they are, header shapes through materialise().  The hostile
// family (hostile.js) passes its own: values that run user code, and
// steps of its own (`op` returns whether it played the step).
const PLAIN = { value: (v) => v, headers: materialise, op: () => false };

// Play the steps on `res`, recording what happens in `log` (an array).
// A 'tick' step waits for setImmediate: writes on both sides of it go out
// in different ticks.
async function runSteps(res, list, log, hooks = PLAIN) {
  res.on('prefinish', () => log.push('prefinish'));
  res.on('finish', () => log.push('finish'));
  res.on('close', () => log.push('close'));
  res.on('error', (e) => log.push(['error', describeError(e)]));
  for (let i = 0; i < list.length; i++) {
    const [op, a, b, c] = list[i];
    try {
      switch (op) {
        case 'statusCode': res.statusCode = hooks.value(a); break;
        case 'statusMessage': res.statusMessage = hooks.value(a); break;
        case 'sendDate': res.sendDate = a; break;
        case 'setHeader': res.setHeader(a, hooks.value(b)); break;
        case 'appendHeader': res.appendHeader(a, hooks.value(b)); break;
        case 'removeHeader': res.removeHeader(a); break;
        case 'writeHead':
          if (b === undefined) res.writeHead(hooks.value(a), hooks.headers(c));
          else res.writeHead(hooks.value(a), hooks.value(b), hooks.headers(c));
          break;
        case 'flushHeaders': res.flushHeaders(); break;
        case 'addTrailers': res.addTrailers(a); break;
        case 'strictContentLength': res.strictContentLength = true; break;
        case 'cork': res.cork(); break;
        case 'uncork': res.uncork(); break;
        case 'tick': await new Promise((resolve) => setImmediate(resolve)); break;
        case 'write': {
          const data = materialiseBody(a);
          const cb = (err) => log.push(['write-cb', err ? describeError(err) : null]);
          const ret = data === undefined ? null : res.write(data, a.enc, cb);
          log.push(['write', ret]);
          break;
        }
        case 'end': {
          const data = materialiseBody(a);
          const cb = b ? (err) => log.push(['end-cb', err ? describeError(err) : null]) : undefined;
          if (data === undefined) res.end(cb);
          else if (a.enc !== undefined) res.end(data, a.enc, cb);
          else res.end(data, cb);
          log.push(['ended', res.writableEnded, res.headersSent]);
          break;
        }
        default:
          if (!hooks.op(list[i], res)) throw new Error(`unknown step ${op}`);
      }
    } catch (err) {
      log.push(['throw', i, op, describeError(err)]);
    }
  }
  log.push(['state', res.statusCode, res.statusMessage, res.headersSent, res.writableEnded,
    res.getHeaderNames().join(','), res.hasHeader('content-length')]);
  // A response the steps left open (an error on the way) is ended, or, if
  // even that throws, its connection is destroyed, so every client finishes.
  if (!res.writableEnded) {
    try {
      res.end();
    } catch (err) {
      log.push(['final-throw', describeError(err)]);
      res.destroy();
    }
  }
}

module.exports = { scenario, runSteps, makeRandom, materialise, describeError, materialiseBody };
