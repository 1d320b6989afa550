'use strict';

// Random http.request() scenarios for test/client-differential.js, generated
// from a seed (ONEWRITE_SEED) so that a difference can be replayed.  A
// scenario is plain data (printable, JSON): the agent, one or more requests
// made one after the other (each with its options and the calls made on it)
// and the answer the recording server gives each request it receives.
// helpers/client-child.js plays them; this file only describes them.

const { makeRandom } = require('./scenarios');

// ---- headers ----------------------------------------------------------------

const NAMES = ['Content-Type', 'content-type', 'X-Request-Id', 'Accept', 'accept', 'Cookie',
  'cookie', 'Authorization', 'User-Agent', 'Host', 'host', 'Connection', 'connection',
  'Transfer-Encoding', 'transfer-encoding', 'Content-Length', 'content-length', 'Expect',
  'expect', 'Keep-Alive', 'Trailer', 'Date', 'X-Unique', 'x-unique', 'X-A', 'x-a', 'X-Latin',
  '1', 'X-Empty', 'TE', 'Accept-Encoding', 'Set-Cookie'];
const BAD_NAMES = ['', 'a b', 'x:y', 'bad\r\nname', 'caf\u00e9', 'x\u0000', '(paren)', 'x"y',
  'x\u0100', 'tab\tname'];
const SPECIAL = {
  connection: ['close', 'keep-alive', 'Keep-Alive', 'CLOSE', 'Upgrade, close', 'foo, close ,bar',
    'x-close', ''],
  'transfer-encoding': ['chunked', 'chunked', 'Chunked', 'gzip', 'gzip, chunked', 'chunkedx', ''],
  'content-length': ['0', '3', '5', '11', 'abc', ' 5', '4294967296', 5, 0],
  expect: ['100-continue', '100-continue', '100-Continue', 'foo', ''],
  host: ['example.com', 'Example.COM:8080', '', '[::1]:81', 'h\u00e9st'],
  cookie: ['a=1', 'b=2; c=3'],
  'x-latin': ['caf\u00e9', '\u00ff\u00fe', '\u0080', 'na\u00efve \u00e0 la'],
  'x-empty': [''],
  date: ['Thu, 01 Jan 1970 00:00:00 GMT'],
  te: ['trailers', 'chunked'],
  trailer: ['X-Checksum'],
};
const VALUE_CHARS = 'abcXYZ019 -_.;=,/"\'()[]{}:@?!#$%&*+|~^`<>\\\t';
const BAD_CHARS = ['\r', '\n', '\r\n', '\u0000', '\u0001', '\u007f', '\u0100', '\u20ac',
  '\ud83d\ude00'];
// Characters >= 0x80 Node accepts in a header value and sends as latin1.
const LATIN1 = ['\u00e9', '\u00ff', '\u0080', '\u00a0', '\u00fc'];

function value(rnd, name, badRate) {
  const special = SPECIAL[String(name).toLowerCase()];
  if (special && rnd.chance(0.75)) return rnd.pick(special);
  const roll = rnd.float();
  if (roll < 0.06) return rnd.int(100000);
  if (roll < 0.075) return rnd.pick([0, 1.5, NaN, true, null, -1]);
  if (roll < 0.085) return undefined;
  let s = '';
  const len = rnd.chance(0.03) ? 200 + rnd.int(3000) : rnd.int(30);
  for (let i = 0; i < len; i++) s += VALUE_CHARS[rnd.int(VALUE_CHARS.length)];
  if (rnd.chance(0.1)) {
    const at = rnd.int(s.length + 1);
    s = s.slice(0, at) + rnd.pick(LATIN1) + s.slice(at);
  }
  if (rnd.chance(badRate)) {
    const at = rnd.int(s.length + 1);
    s = s.slice(0, at) + rnd.pick(BAD_CHARS) + s.slice(at);
  }
  return s;
}

function headerValue(rnd, name, badRate) {
  if (rnd.chance(0.1)) {
    const n = rnd.int(4);
    const out = [];
    for (let i = 0; i < n; i++) out.push(value(rnd, name, badRate));
    return out;
  }
  return value(rnd, name, badRate);
}

function headerName(rnd, badRate) {
  return rnd.chance(badRate) ? rnd.pick(BAD_NAMES) : rnd.pick(NAMES);
}

function headerPairs(rnd, badRate) {
  const n = rnd.int(6);
  const pairs = [];
  for (let i = 0; i < n; i++) {
    const k = headerName(rnd, badRate);
    pairs.push([k, headerValue(rnd, k, badRate)]);
  }
  return pairs;
}

// ---- bodies -----------------------------------------------------------------

const TEXTS = ['hello', '', 'x', '\u20ac', 'caf\u00e9 \u00fc\u00f1\u00ee', '\ud83d\ude00 emoji',
  'line\r\nbreak', 'a'.repeat(100), '0\r\n\r\n'];

function body(rnd) {
  const roll = rnd.float();
  if (roll < 0.5) {
    const enc = rnd.chance(0.7) ? undefined
      : rnd.pick(['utf8', 'utf-8', 'latin1', 'ascii', 'binary', 'hex', 'base64', 'ucs2', 'utf16le']);
    if (enc === 'hex') return { kind: 'string', text: rnd.pick(['68656c6c6f', '', 'zz', '4142']), enc };
    if (enc === 'base64') return { kind: 'string', text: rnd.pick(['aGVsbG8=', '', 'YQ', '!!']), enc };
    const text = rnd.chance(0.04) ? 'z'.repeat(5000 + rnd.int(30000)) : rnd.pick(TEXTS);
    return { kind: 'string', text, enc };
  }
  if (roll < 0.75) {
    return { kind: 'buffer', len: rnd.chance(0.05) ? 5000 + rnd.int(30000) : rnd.int(30), high: rnd.chance(0.4) };
  }
  if (roll < 0.88) return { kind: 'uint8', len: rnd.int(20) };
  if (roll < 0.9) return { kind: 'bad', value: rnd.pick(['number', 'null', 'object']) };
  return { kind: 'none' };
}

// ---- requests ---------------------------------------------------------------

const METHODS = ['GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH',
  'get', 'post', 'M-SEARCH', 'PROPFIND', 'X_CUSTOM', 'TRACE', undefined, '', 'B@D', 'GE T'];
const PATHS = ['/', '/', '/a', '/search?q=1&r=caf%C3%A9', '/p?x=1&x=2#frag', '*',
  "/odd~!$&'()*+,;=:@/", '/caf\u00e9', '/%zz', '/a/../b', '//double', undefined, '',
  '<ABS>', '/x y', '/\u0100', '/' + 'l'.repeat(300)];

// The answers the recording server gives, one per request it receives, in
// order (helpers/client-child.js, answer()).
//   normal/chunked/close/s204/s404: a whole response
//   cutBody, cutHead: part of one, then the server closes the connection
//   hangup: no response, the connection closed
//   silent: no response, the connection kept (the client times out or aborts)
// cont: a 100 Continue first when the request asks for it; early: a 103 first.
function plan(rnd, last, silent) {
  if (silent) return { kind: 'silent', cont: rnd.chance(0.5), early: false };
  const kind = rnd.pick(['normal', 'normal', 'normal', 'chunked', 'chunked', 'close', 's204',
    's404', last ? rnd.pick(['cutBody', 'cutHead', 'hangup']) : 'normal']);
  return { kind, cont: rnd.chance(0.7), early: rnd.chance(0.08) };
}

function options(rnd, badRate) {
  const o = {};
  const m = rnd.pick(METHODS);
  if (m !== undefined || rnd.chance(0.5)) o.method = m;
  const p = rnd.pick(PATHS);
  if (p !== undefined) o.path = p;
  o.host = rnd.pick(['127.0.0.1', '127.0.0.1', 'localhost', '[::1]', '::1']);
  if (rnd.chance(0.15)) o.hostKey = 'hostname';
  if (rnd.chance(0.1)) o.defaultPortIsPort = true; // Host without the port
  if (rnd.chance(0.1)) o.setHost = rnd.pick([false, true, 0]);
  if (rnd.chance(0.1)) o.url = true; // http.request(url, options)
  if (rnd.chance(0.1)) o.callback = true;
  if (rnd.chance(0.05)) o.auth = rnd.pick(['user:pass', 'caf\u00e9:x', '']);
  if (rnd.chance(0.1)) o.joinDuplicateHeaders = rnd.pick([true, false]);
  if (rnd.chance(0.1)) o.uniqueHeaders = rnd.pick([['x-unique', 'Cookie'], ['X-A'], []]);
  const shape = rnd.int(6);
  const pairs = headerPairs(rnd, badRate);
  if (shape === 1 || shape === 2) o.headers = ['object', pairs];
  else if (shape === 3) o.headers = ['pairs', pairs];
  else if (shape === 4) o.headers = ['flat', pairs];
  // Arrays of headers get no Host from Node: often one of the user's.
  if ((shape === 3 || shape === 4) && rnd.chance(0.7)) pairs.unshift([rnd.pick(['Host', 'host']), 'localhost']);
  if (shape === 4 && rnd.chance(0.03)) o.oddFlat = true; // an odd-length flat array
  return o;
}

function headerOps(rnd, n, badRate, out, appendOk = true) {
  for (let i = 0; i < n; i++) {
    const k = headerName(rnd, badRate);
    const op = rnd.pick(['setHeader', 'setHeader', appendOk ? 'appendHeader' : 'setHeader', 'removeHeader']);
    out.push(op === 'removeHeader' ? [op, k] : [op, k, headerValue(rnd, k, badRate)]);
  }
}

function writes(rnd, out, ticks) {
  const n = rnd.chance(0.35) ? 1 + rnd.int(4) : 0;
  for (let i = 0; i < n; i++) {
    if (ticks && rnd.chance(0.3)) out.push(['tick']);
    out.push(['write', body(rnd), rnd.chance(0.3)]);
  }
}

function hasExpect(o) {
  return o.headers && o.headers[0] !== undefined && o.headers[1].some(([k, v]) =>
    String(k).toLowerCase() === 'expect' && typeof v === 'string' && v.toLowerCase() === '100-continue');
}

// The calls made on one request.  Until the request's socket is connected
// everything is done in one go (what Node does then does not depend on how
// fast the connection is made); ticks (setImmediate) come after.  Then an
// end, or an abort of some kind.  `silent`: the server will not answer it.
function steps(rnd, o, pl, silent) {
  // A request the server will not answer times out in the end, whatever
  // else is done to it: after 200 ms of silence where that is how it ends,
  // 1 s where a destroy or an abort ends it first (or does not, the
  // request having ended in an error already).
  const timeout = ['setTimeout', 1000];
  const out = silent ? [timeout] : [];
  const badRate = 0.02;
  headerOps(rnd, rnd.chance(0.4) ? 1 + rnd.int(3) : 0, badRate, out);
  if (rnd.chance(0.04)) out.push(['strict']);
  if (rnd.chance(0.1)) out.push(['flushHeaders']);
  // Where the body and the end go: at once, in the 'socket' event's tick,
  // or once the socket is connected (where onewrite can write it directly).
  const when = rnd.pick(['now', 'now', 'socket', 'connect', 'connect', 'connect']);
  const waitsForContinue = hasExpect(o) && pl.cont && !silent && rnd.chance(0.6);
  if (waitsForContinue) {
    out.push(['waitContinue']);
    writes(rnd, out, true);
    out.push(['end', body(rnd), rnd.chance(0.3)]);
  } else {
    if (when === 'socket') out.push(['waitSocket']);
    if (when === 'connect') out.push(['waitConnect']);
    const ticks = when === 'connect';
    if (when !== 'now') headerOps(rnd, rnd.chance(0.3) ? 1 + rnd.int(2) : 0, badRate, out);
    if (when !== 'now' && rnd.chance(0.1)) out.push(['flushHeaders']);
    if (ticks && rnd.chance(0.2)) out.push(['tick']);
    const abort = silent ? rnd.pick(['timeout', 'destroy-after', 'signal-after']) : rnd.chance(0.12)
      ? rnd.pick(['destroy-before', 'destroy-after', 'destroyErr-before', 'signal-before',
        'signal-after', 'signal-already', 'abort-before', 'destroy-response']) : null;
    if (abort === 'timeout') timeout[1] = 200;
    if (abort && abort.startsWith('signal')) o.signal = abort === 'signal-already' ? 'aborted' : 'live';
    writes(rnd, out, ticks);
    if (abort && abort.endsWith('-before')) {
      if (ticks && rnd.chance(0.5)) out.push(['tick']);
      out.push([abort.slice(0, -'-before'.length)]);
      if (rnd.chance(0.3)) out.push(['end', body(rnd), rnd.chance(0.5)]);
    } else {
      out.push(['end', body(rnd), rnd.chance(0.3)]);
      if (rnd.chance(0.05)) out.push(['end', body(rnd), true]); // a second end
      if (rnd.chance(0.05)) out.push(['write', body(rnd), true]); // write after end
    }
    if (rnd.chance(0.06)) out.push(['setHeader', 'X-Late', 'late']); // after the head: throws (or not yet)
    if (abort === 'destroy-after' || abort === 'signal-after') {
      if (ticks || silent) out.push(['tick']);
      if (silent) out.push(['waitConnect'], ['tick']);
      out.push([abort === 'destroy-after' ? 'destroy' : 'signal']);
    }
    if (abort === 'destroy-response') out.push(['waitResponse'], ['destroy']);
  }
  return out;
}

const AGENTS = ['global', 'global', 'keepAlive', 'keepAlive', 'plain', 'false'];

function clientScenario(seed, index) {
  const rnd = makeRandom((seed ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
  const agent = rnd.pick(AGENTS);
  const n = agent === 'keepAlive' || agent === 'global' ? 1 + rnd.int(3) : 1 + (rnd.chance(0.2) ? 1 : 0);
  const requests = [];
  const plans = [];
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    const silent = last && rnd.chance(0.05);
    const pl = plan(rnd, last, silent);
    const o = options(rnd, 0.02);
    requests.push({ options: o, steps: steps(rnd, o, pl, silent) });
    plans.push(pl);
  }
  return { index, agent, requests, plans };
}

// ---- the hostile family -----------------------------------------------------
//
// Values that run user code where Node reads them: getters on the options
// and on header objects, Proxy header objects and arrays, header values
// whose toString/valueOf log (Node converts a value more than once), values
// that, when read, end, write or destroy another request (a sibling, already
// connected, so that its end() can take onewrite's one write while this
// request's head is being built), make a new request, or end this same
// request; and a socket.write wrapper put on in the 'socket' event.  Each
// call of that code is logged, in order, in the request's log.

const ACTIONS = ['end-sibling', 'write-sibling', 'destroy-sibling', 'flush-sibling', 'new-request',
  'end-self', 'write-self', 'setHeader-self', 'removeHeader-self', 'flush-self', 'destroy-self',
  'none', 'none'];

function hostileValue(rnd) {
  const roll = rnd.float();
  const s = rnd.pick(['v', 'caf\u00e9', '', '5', 'close', 'chunked', '100-continue', 'a\r\nb']);
  if (roll < 0.35) return { h: 'toString', s, action: rnd.pick(ACTIONS) };
  if (roll < 0.55) return { h: 'valueOf', s, action: rnd.pick(ACTIONS) };
  if (roll < 0.7) return { h: 'array', items: [{ h: 'toString', s, action: rnd.pick(ACTIONS) }, 'plain'] };
  if (roll < 0.8) return { h: 'getterArray', s, action: rnd.pick(ACTIONS) };
  return s;
}

function hostileScenario(seed, index) {
  const rnd = makeRandom((seed ^ Math.imul(index + 1, 0xc2b2ae35) ^ 0x5bd1e995) >>> 0);
  const o = options(rnd, 0.01);
  if (!o.headers) o.headers = [rnd.pick(['object', 'pairs', 'flat']), []];
  const pairs = o.headers[1];
  const extra = 1 + rnd.int(3);
  for (let i = 0; i < extra; i++) {
    pairs.push([rnd.pick(['X-H', 'x-h', 'Content-Type', 'Connection', 'Content-Length',
      'Transfer-Encoding', 'Expect', 'Cookie', 'X-Unique']), hostileValue(rnd)]);
  }
  const st = [];
  const when = rnd.pick(['now', 'socket', 'connect', 'connect']);
  if (when === 'socket') st.push(['waitSocket']);
  if (when === 'connect') st.push(['waitConnect']);
  for (let i = 0; i < rnd.int(3); i++) {
    st.push([rnd.pick(['setHeader', 'appendHeader']), rnd.pick(['X-S', 'x-h', 'Vary', 'Cookie']),
      hostileValue(rnd)]);
  }
  if (rnd.chance(0.15)) st.push(['flushHeaders']);
  if (rnd.chance(0.3)) st.push(['write', body(rnd), true]);
  st.push(['end', body(rnd), rnd.chance(0.5)]);
  const kind = rnd.pick(['normal', 'chunked', 'close']);
  return {
    index,
    hostile: true,
    agent: rnd.pick(['global', 'keepAlive', 'false']),
    // The sibling: a request made first, connected, given a head (or not),
    // held open until a hostile value acts on it (or ended at the close).
    sibling: rnd.chance(0.7) ? { method: rnd.pick(['POST', 'GET', 'PUT']), flush: rnd.chance(0.5) } : null,
    optionGetters: rnd.chance(0.4),
    headersProxy: rnd.chance(0.4),
    socketWrap: rnd.chance(0.4),
    requests: [{ options: o, steps: st }],
    plans: [{ kind, cont: true, early: false }],
  };
}

module.exports = { clientScenario, hostileScenario };
