'use strict';

// buildHead() against Node's own bytes.  For every vector the expected
// bytes are produced here, by Node's own ServerResponse code (writeHead,
// then end) on a response with no socket, whose queued output is exactly
// what Node would write; the addon's answer must match byte for byte, and
// for a valid vector it must come from the addon itself, not the fallback.

const t = require('tap');
const http = require('node:http');
const { buildHead } = require('..');
const build = require('../lib/build');
const { normalise } = require('./helpers/wire');
const { describeError } = require('./helpers/scenarios');

const kOutHeaders = Object.getOwnPropertySymbols(new http.OutgoingMessage())
  .find((s) => s.description === 'kOutHeaders');

// Node's bytes for the vector, as buildHead documents them: the head
// (res._header) alone, or with a body what end(body) queues.
function nodeBytes(statusCode, statusMessage, headers, options = {}) {
  const req = { method: options.head ? 'HEAD' : 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} };
  const res = new http.ServerResponse(req);
  res.sendDate = options.date !== false;
  res.shouldKeepAlive = options.keepAlive !== false;
  res._keepAliveTimeout = options.keepAliveTimeout ?? 5000;
  res._maxRequestsPerSocket = options.maxRequestsPerSocket ?? 0;
  const body = options.body;
  if (options.contentLength !== undefined) res._contentLength = options.contentLength;
  else if (body !== undefined) res._contentLength = Buffer.byteLength(body, options.encoding);
  if (typeof statusMessage === 'string') res.writeHead(statusCode, statusMessage, headers);
  else res.writeHead(statusCode, headers);
  if (body === undefined) return Buffer.from(res._header, 'latin1');
  res.end(body, options.encoding);
  return Buffer.concat(res.outputData.map(({ data, encoding }) =>
    (typeof data === 'string' ? Buffer.from(data, encoding || 'utf8') : data)));
}

const STATUSES = [[100, undefined], [103, undefined], [200, undefined], [200, 'OK'], [200, ''],
  [201, 'Created Fine'], [204, undefined], [304, undefined], [404, undefined], [418, undefined],
  [500, 'Oops'], [599, undefined], [999, 'Nine Nine Nine']];

const HEADERS = [
  ['none', undefined],
  ['object', { 'Content-Type': 'text/plain', 'X-Request-Id': 'abc-123', 'Cache-Control': 'no-store' }],
  ['object with numbers', { 'X-Count': 42, 'X-Float': 1.5, 'X-Big': 2 ** 40, 'X-Neg': -7 }],
  ['object with arrays', { 'Set-Cookie': ['a=1', 'b=2; Path=/'], Vary: ['Accept', 'Origin'], 'X-One': ['x'] }],
  ['integer-like names first', { b: '1', 2: 'two', a: '2', 1: 'one' }],
  ['flat array', ['Content-Type', 'text/html', 'X-Dup', '1', 'X-Dup', '2', 'x-dup', '3']],
  ['nested arrays', [['Content-Type', 'application/json'], ['Link', '</a>; rel=preload'], ['Link', '</b>']]],
  ['mixed case', { 'cOnTeNt-TyPe': 'a/b', 'x-lower': 'l', 'X-UPPER': 'U' }],
  ['user content-length', { 'Content-Length': '5' }],
  ['user content-length number', { 'Content-Length': 5 }],
  ['user transfer-encoding', { 'Transfer-Encoding': 'chunked' }],
  ['transfer-encoding gzip', { 'Transfer-Encoding': 'gzip' }],
  // The names Node lowercases to tell, in other cases, and names of their
  // lengths that are not they (lib/walk.js looks at the first character
  // before it lowercases).
  ['transfer-encoding upper case', { 'TRANSFER-ENCODING': 'chunked' }],
  ['content-length mixed case', { 'CONTENT-length': '5' }],
  ['content-length mixed case number', { 'cOnTeNt-LeNgTh': 5 }],
  ['lengths of the special names, other names', { 'X-Forwarded-Proto': 'chunked', 'Accept-Charset': 7,
    'X-Content-Disposed': 1, 'X-Forwarded-Protocol': 2 }],
  ['connection close', { Connection: 'close' }],
  ['connection keep-alive', { connection: 'keep-alive' }],
  ['user keep-alive', { 'Keep-Alive': 'timeout=10' }],
  ['user date', { Date: 'Thu, 01 Jan 1970 00:00:00 GMT' }],
  ['value with tab and quotes', { 'X-Q': '"quoted"\tvalue\\with (all) <sorts> of {chars}' }],
  ['empty value', { 'X-Empty': '' }],
  ['long value', { 'X-Long': 'v'.repeat(5000) }],
  ['many headers', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`X-H-${i}`, `v${i}`]))],
];

const OPTIONS = [
  ['defaults', {}],
  ['no date', { date: false }],
  ['no keep-alive', { keepAlive: false }],
  ['keep-alive timeout 0', { keepAliveTimeout: 0 }],
  ['keep-alive timeout 999', { keepAliveTimeout: 999 }],
  ['keep-alive 1500 max 100', { keepAliveTimeout: 1500, maxRequestsPerSocket: 100 }],
  ['HEAD', { head: true, body: 'ignored' }],
  ['string body', { body: 'hello world' }],
  ['multibyte body', { body: '\u20ac caf\u00e9 \ud83d\ude00' }],
  ['latin1 body', { body: 'caf\u00e9', encoding: 'latin1' }],
  ['buffer body', { body: Buffer.from([0, 1, 2, 254, 255]) }],
  ['uint8array body', { body: new Uint8Array([104, 105]) }],
  ['empty body', { body: '' }],
  ['content length, no body', { contentLength: 0 }],
  ['content length above 2^32', { contentLength: 2 ** 32 + 5 }],
];

t.test('buildHead renders what Node sends, natively', async (t) => {
  let vectors = 0;
  for (const [code, reason] of STATUSES) {
    for (const [hname, headers] of HEADERS) {
      for (const [oname, options] of OPTIONS) {
        const label = `${code} ${reason === undefined ? '(default reason)' : JSON.stringify(reason)}, ${hname}, ${oname}`;
        const expected = normalise(nodeBytes(code, reason, headers, options));
        const o = build.normalise(code, options);
        const native = build.render(code, reason, headers, o);
        if (native === undefined) {
          t.fail(`the addon declined a valid vector: ${label}`);
          continue;
        }
        const got = normalise(native);
        if (got !== expected) t.equal(got, expected, label);
        const pub = normalise(buildHead(code, reason, headers, options));
        if (pub !== expected) t.equal(pub, expected, `buildHead: ${label}`);
        vectors++;
      }
    }
  }
  t.equal(vectors, STATUSES.length * HEADERS.length * OPTIONS.length, `${vectors} vectors`);
});

t.test('what the addon declines is rendered by Node, with the same bytes', async (t) => {
  const cases = [
    ['latin1 value', 200, undefined, { 'X-Caf': 'caf\u00e9' }, {}],
    ['latin1 reason', 200, 'D\u00e9j\u00e0', undefined, {}],
    ['cookie joined', 200, undefined, { Cookie: ['a=1', 'b=2'] }, {}],
    ['content-disposition with length', 200, undefined, { 'Content-Disposition': 'attachment; filename="\u00e9.txt"' }, { contentLength: 4 }],
    ['content-disposition number with length', 200, undefined, { 'CONTENT-DISPOSITION': 5 }, { contentLength: 4 }],
    ['content-disposition number after a content-length', 200, undefined, { 'content-LENGTH': '4', 'Content-Disposition': 5 }, {}],
    ['status code as string', '204', undefined, undefined, {}],
    ['negative zero', 200, undefined, { 'X-Zero': -0 }, {}],
  ];
  // Bytes, or the error thrown (Node throws for some of these).
  const outcome = (fn) => {
    try {
      return normalise(fn());
    } catch (err) {
      return describeError(err);
    }
  };
  for (const [label, code, reason, headers, options] of cases) {
    const o = build.normalise(code, options);
    t.equal(build.render(code, reason, headers, o), undefined, `declined: ${label}`);
    t.same(outcome(() => buildHead(code, reason, headers, options)),
      outcome(() => nodeBytes(code, reason, headers, options)), `Node's outcome: ${label}`);
  }
});

t.test('buildHead options are checked', async (t) => {
  t.throws(() => buildHead(200, undefined, undefined, { encoding: 'hex' }), TypeError);
  t.throws(() => buildHead(200, undefined, undefined, { body: 42 }), TypeError);
  t.throws(() => buildHead(200, undefined, undefined, { contentLength: '5' }), TypeError);
  t.throws(() => buildHead(200, undefined, undefined, 'nope'), TypeError);
});

t.test('the headers object given is not changed', async (t) => {
  const headers = { 'Set-Cookie': ['a=1', 'b=2'], 'X-A': 'b' };
  buildHead(200, undefined, headers, { body: 'x' });
  t.same(headers, { 'Set-Cookie': ['a=1', 'b=2'], 'X-A': 'b' });
  t.equal(headers[kOutHeaders], undefined);
});
