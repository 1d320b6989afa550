'use strict';

// The JavaScript half of the head builder: the parts of a head (lib/walk.js)
// and the response state go to the addon in one call, and what it rendered
// is stored on the response as Node's _storeHeader would store it.  Recent
// heads are kept and reused or patched (the cache below).  Every function
// answers -1 where the addon declines or the walk refuses, having changed
// nothing; the caller then runs Node's own code.
//
// The walk (lib/walk.js) runs no user code.  The one place a build can
// run some is the read of the response's own fields (headState(): a getter
// defined on the response).  A build is only ever started by a fast method
// holding lib/guard.js (or buildHead(), which takes it too): a head asked
// for from inside that getter (another response's, or buildHead()) meets
// the guard and is Node's, so the module state here, the walk's and the
// memory shared with the addon are never used by two builds at once.

const native = require('./native');
const internals = require('./internals');
const S = require('./slots');
const walker = require('./walk');
const { fallback } = require('./stats');
const {
  ArrayPrototypeSlice, DatePrototypeGetMilliseconds, DatePrototypeToUTCString, RegExpPrototypeTest,
  StringPrototypeCharCodeAt, StringPrototypeSlice, newArray, newDate, newRegExp, newUint8Array,
} = require('./primordials');

const { binding, ints, nums, roles, lens } = native;
const { MAX_STRING_LENGTH } = require('node:buffer').constants;

// The Date value, cached per second like Node's internal utcDate().  The
// untouched realm's Date (lib/primordials.js) and the setTimeout of
// node:timers, taken now: fake timers installed later by a test framework
// leave it alone, as they leave Node's own cache alone.
const { setTimeout: realSetTimeout } = require('node:timers');
let dateValid = false;
let dateGeneration = 0; // moves with every new Date value

function resetDate() {
  dateValid = false;
}

function ensureDate() {
  if (dateValid) return;
  const d = newDate();
  binding.setDate(DatePrototypeToUTCString(d));
  dateValid = true;
  dateGeneration++;
  realSetTimeout(resetDate, 1000 - DatePrototypeGetMilliseconds(d)).unref();
}

// The Keep-Alive line, rendered again only when the server's settings change.
let kaTimeout;
let kaMax;
function ensureKeepAlive(timeout, max) {
  if (timeout === kaTimeout && max === kaMax) return;
  binding.setKeepAlive(internals.keepAliveLine(timeout, max));
  kaTimeout = timeout;
  kaMax = max;
}

// _keepAliveTimeout and _maxRequestsPerSocket come from the server, where
// the user set them.  Node converts them (Math.floor(t / 1000), ~~max)
// only when it writes a Keep-Alive line; a value whose conversion could run
// code of the user's (an object's valueOf) is left to Node, before anything.
function plainNumber(v) {
  return typeof v === 'number' || v === undefined || v === null;
}

// Fill the slots for one render.  Returns the state bits sent.
function prepare(st, status, lineMode, nparts, length, contentLength, timeout, max) {
  if (typeof contentLength === 'number') {
    st |= S.HAS_CL;
    nums[S.D_CONTENT_LENGTH] = contentLength;
  }
  if (timeout) {
    st |= S.KA_TIMEOUT;
    ensureKeepAlive(timeout, max);
  }
  if (st & S.SEND_DATE) ensureDate();
  ints[S.S_STATE] = st;
  ints[S.S_STATUS] = status;
  ints[S.S_NPARTS] = nparts;
  ints[S.S_TEXT_LEN] = length;
  ints[S.S_LINE_MODE] = lineMode;
  ints[S.S_BODY_KIND] = S.BODY_NONE;
  return st;
}

// 204 and 304 switch chunked framing off: the only use of the status code
// inside _storeHeader, read as it reads it once chunkedEncoding is true
// (this.statusCode === 204 || this.statusCode === 304), and once more for
// its debug() message when the rule applies.
function statusRule(res) {
  const rule = res.statusCode === 204 ? 204 : res.statusCode === 304 ? 304 : 0;
  if (rule !== 0) void (res.statusCode + '');
  return rule;
}

// Node's headerCharRegex (checkInvalidHeaderChar): what writeHead rejects
// in a reason phrase before _storeHeader.
const INVALID_HEADER_CHAR = newRegExp('[^\\t\\x20-\\x7e\\x80-\\xff]');

// +s, as matchHeader() computes _contentLength; plain digits (the usual
// Content-Length) without the general conversion.
function toNumber(s) {
  const n = s.length;
  if (n === 0 || n > 15) return +s;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = StringPrototypeCharCodeAt(s, i) - 48;
    if (d < 0 || d > 9) return +s;
    v = v * 10 + d;
  }
  return v;
}

// Rendered heads, kept for the next responses.  A head is a pure function
// of its parts (strings, compared by content), the state bits, the 204/304
// rule, the content length, the keep-alive settings and the Date value
// (dateGeneration), so an entry whose inputs are all equal holds exactly
// the bytes the addon would render.  When only header values differ, and
// only values that change nothing but their own bytes (OW_ROLE_PLAIN, or
// the one that gives _contentLength), the new head is the kept one with
// those values replaced (patch): each line of a head is `name: value\r\n`,
// so where a value sits follows from the lengths.  A small direct-mapped
// table, indexed by the number of parts and the names' lengths; heads with
// large parts are not kept.
const CACHE_SLOTS = 16;
const CACHE_MAX_LENGTH = 2048;
const cache = newArray(CACHE_SLOTS);
const cacheStats = { hits: 0, patches: 0, renders: 0 }; // for the tests and benchmarks
let cacheSize = CACHE_SLOTS;

function slotOf(n, key) {
  return (n * 7 + key) & (CACHE_SLOTS - 1);
}

function sameInputs(e, n, st, status, cl, timeout, max) {
  return e !== null && e.parts.length === n && e.st === st && e.status === status &&
    e.cl === cl && e.timeout === timeout && e.max === max && e.date === dateGeneration;
}

// The index of the first of `parts` (the walk's) that differs from the
// entry's, or n when all n are equal.  patch() starts there: a value
// that changes every response (a request id) is compared once.
function firstDifference(e, parts, n) {
  const kept = e.parts;
  let i = 0;
  while (i < n && kept[i] === parts[i]) i++;
  return i;
}

// Values the addon would decline: a byte >= 0x80 anywhere; with VALIDATE,
// also what Node's headerCharRegex rejects.
const NOT_ASCII = newRegExp('[^\\x00-\\x7f]');
const NOT_VALID = newRegExp('[^\\t\\x20-\\x7e]');

// The head for `parts`, made from the kept entry e (same names, same
// inputs) by replacing the values that differ from part d on (the
// first that differs); or null.  The entry itself
// is left as the addon rendered it: a flat string, whose slices cost
// nothing to take (a head patched again and again would become a chain of
// concatenations that every slice flattens).  patchedLength: the
// _contentLength the new values give.
let patchedLength = 0;
function patch(e, parts, n, d) {
  // Part 0 is the first line, odd parts are names: only a value may differ.
  if (d === 0 || (d & 1) === 1) return null;
  const kept = e.parts;
  const bad = (e.st & S.VALIDATE) !== 0 ? NOT_VALID : NOT_ASCII;
  const roleOf = e.roles;
  const h = e.head;
  let out = '';
  let from = 0; // copied from the kept head up to here
  let at = e.firstLength; // start of the current line in the kept head
  patchedLength = e.userLength;
  // The lines before part d's are the kept ones: "name: value\r\n".
  let i = 1;
  for (; i < d - 1; i += 2) at += kept[i].length + kept[i + 1].length + 4;
  for (; i < n; i += 2) {
    const name = parts[i];
    if (name !== kept[i]) return null;
    const value = parts[i + 1];
    const old = kept[i + 1];
    const valueAt = at + name.length + 2;
    if (value !== old) {
      const role = roleOf[i >> 1];
      if (role === S.ROLE_SPECIAL || RegExpPrototypeTest(bad, value)) return null;
      if (role === S.ROLE_LENGTH) patchedLength = toNumber(value);
      out += StringPrototypeSlice(h, from, valueAt) + value;
      from = valueAt + old.length;
    }
    at = valueAt + old.length + 2;
  }
  return from === 0 ? null : out + StringPrototypeSlice(h, from);
}

// The _contentLength the user's last Content-Length gives, from the
// addon's answer.
function userLengthOf(parts, seen) {
  if ((seen & S.SEEN_CL) === 0) return 0;
  if (ints[S.S_CL_SIMPLE] === 1) return nums[S.D_USER_CL];
  return +parts[2 + 2 * ints[S.S_CL_PAIR]];
}

// The parts as one string, their lengths in shared memory: the addon reads
// one string (a read costs about as much as a short header) and cuts it.
function text(parts) {
  let t = parts[0];
  lens[0] = t.length;
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i];
    lens[i] = p.length;
    t += p;
  }
  return t;
}

// What the last render answered (read by store() at once).
const rendered = { head: '', sent: 0, out: 0, seen: 0, userLength: 0 };

// The first n roles the addon wrote, in an array of their own.
function copyRoles(n) {
  const kept = newUint8Array(n);
  for (let i = 0; i < n; i++) kept[i] = roles[i];
  return kept;
}

// Render the walk's parts with the addon: fills `rendered` and keeps an
// entry when it may; answers false where the addon declines, with the
// reason recorded.  (The walk's parts array is exactly its parts, and is
// reused by the next walk: a kept entry gets a copy.)
function render(length, key, st, status, lineMode, cl, timeout, max, method) {
  const parts = walker.state.parts;
  const keepable = cacheSize !== 0 && length <= CACHE_MAX_LENGTH;
  const sent = prepare(st, status % 1000, lineMode, parts.length, length, cl, timeout, max);
  ints[S.S_WANT_ROLES] = keepable ? 1 : 0;
  const head = binding.head(text(parts));
  if (head === undefined) {
    fallback(S.RESULTS[ints[S.S_RESULT]] || 'head shape', method);
    return false;
  }
  const seen = ints[S.S_SEEN];
  rendered.head = head;
  rendered.sent = sent;
  rendered.out = ints[S.S_OUT_STATE];
  rendered.seen = seen;
  rendered.userLength = userLengthOf(parts, seen);
  if (keepable) {
    cache[slotOf(parts.length, key)] = {
      parts: ArrayPrototypeSlice(parts), st, status, cl, timeout, max, date: dateGeneration,
      head, sent, out: rendered.out, seen, userLength: rendered.userLength,
      roles: copyRoles((parts.length - 1) >> 1),
      // The first line: as given (line mode 0), or "HTTP/1.1 NNN <reason>\r\n".
      firstLength: lineMode === 0 ? parts[0].length : 15 + parts[0].length,
    };
  }
  return true;
}

// Build and store the head of `res`: sets _header and the fields Node's
// _storeHeader would set, and returns the seen bits (>= 0); or returns -1
// with nothing changed and the reason recorded.  `first` is the whole first
// line (code 0: from Node's writeHead) or, with `code`, the reason phrase
// (from onewrite's writeHead); `dropBody` and `noKeepAlive` are writeHead's
// last two steps (204/304/1xx, an unanswered Expect), applied only once the
// head is rendered.
function store(res, first, headers, code, dropBody, noKeepAlive, method) {
  if (!internals.headerValidationIsNodes(res)) {
    fallback('_isLenientHeaderValidation replaced', method);
    return -1;
  }
  const timeout = internals.keepAliveTimeout(res);
  const max = internals.maxRequestsPerSocket(res);
  if (!plainNumber(timeout) || !plainNumber(max)) {
    fallback('keep-alive settings not numbers', method);
    return -1;
  }
  const cl = internals.contentLength(res);
  const kind = walker.walk(res, first, headers, cl);
  if (kind === walker.REFUSED) {
    fallback(walker.state.reason, method);
    return -1;
  }
  const { parts, n, key, chunked } = walker.state;
  let { length } = walker.state;
  if (length > MAX_STRING_LENGTH / 2) {
    fallback('head too large', method);
    return -1;
  }
  // The response's own fields, read after its headers as _storeHeader
  // reads them.  A getter among them is user code, and the walk's parts
  // are live: a head built from inside it (another response's) meets the
  // guard and goes to Node's code, and leaves this one's parts alone.
  // The status and the line mode, as one key: the code itself when the
  // line is made here, else only what _storeHeader reads of it (204/304),
  // where it reads it: chunkedEncoding on before the headers, or turned on
  // by one of them.
  let st;
  let status = code !== 0 ? 1000 + code : 0;
  let lineMode = code === 0 ? 0 : 1;
  st = internals.headState(res);
  if (st & S.CHUNKED || chunked) {
    if (code === 0) {
      status = statusRule(res);
    } else if (RegExpPrototypeTest(INVALID_HEADER_CHAR, first)) {
      // Node throws before _storeHeader reads statusCode.
      fallback('invalid status message', method);
      return -1;
    } else {
      const rule = statusRule(res);
      if (rule !== (code === 204 || code === 304 ? code : 0)) {
        // statusCode reads back other than the code just set (an
        // accessor): the line is the code's, the rule what was read.
        parts[0] = `HTTP/1.1 ${code} ${first}\r\n`;
        length += parts[0].length - first.length;
        status = rule;
        lineMode = 0;
      }
    }
  }
  if (kind === walker.CHECK) st |= S.VALIDATE;
  if (dropBody) st &= ~S.HAS_BODY;
  if (noKeepAlive) st &= ~S.KEEP_ALIVE;
  if (st & S.SEND_DATE) ensureDate();
  // A kept head with the same inputs: the same, or patched, or none.
  const e = cacheSize === 0 ? null : cache[slotOf(n, key)];
  let h = null;
  let userLength = 0;
  let kept = false;
  if (sameInputs(e, n, st, status, cl, timeout, max)) {
    const d = firstDifference(e, parts, n);
    if (d === n) {
      h = e.head;
      userLength = e.userLength;
      kept = true;
      cacheStats.hits++;
    } else if (length <= CACHE_MAX_LENGTH && (h = patch(e, parts, n, d)) !== null) {
      userLength = patchedLength;
      cacheStats.patches++;
    }
  }
  let sent;
  let out;
  let seen;
  if (h !== null) {
    ({ sent, out, seen } = e);
  } else {
    if (!render(length, key, st, status, lineMode, cl, timeout, max, method)) return -1;
    ({ head: h, sent, out, seen, userLength } = rendered);
    cacheStats.renders++;
  }
  if (dropBody) internals.dropBody(res);
  if (noKeepAlive) internals.dontKeepAlive(res);
  const changed = out ^ sent;
  if (changed !== 0) internals.applyState(res, out, changed);
  if (seen & S.SEEN_CL) internals.setContentLength(res, userLength);
  internals.storeHead(res, h);
  lastHead = h;
  lastKept = kept;
  return seen;
}

// The last head this module stored: all ASCII, as every head it renders;
// lastKept: it is a kept entry's head, the string an earlier response
// stored too (not one patched or rendered for this response).
let lastHead = null;
let lastKept = false;
function isOwnHead(h) {
  return h === lastHead;
}
function isKeptHead(h) {
  return lastKept && h === lastHead;
}

// The head for writeHead(code, ...) once Node's checks are done: the
// status line is made from the code and the reason phrase.
function storeStatusHeader(res, code, reason, headers, dropBody, noKeepAlive) {
  return store(res, reason, headers, code, dropBody, noKeepAlive, 'writeHead');
}

// Node's _storeHeader(firstLine, headers), for a ServerResponse.
function storeHeader(res, firstLine, headers) {
  return store(res, firstLine, headers, 0, false, false, '_storeHeader');
}

module.exports = {
  INVALID_HEADER_CHAR,
  ints,
  nums,
  text,
  ensureDate,
  ensureKeepAlive,
  prepare,
  storeHeader,
  storeStatusHeader,
  isOwnHead,
  isKeptHead,
  cacheStats,
  setCacheSize: (n) => {
    // For the benchmarks: 0 turns the cache off (every head rendered by the addon).
    cacheSize = n;
  },
};
