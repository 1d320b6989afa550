'use strict';

// The JavaScript half of the head builder.  It concatenates the first line
// and the header names and values into one string (no separators: their
// lengths go to shared memory), fills the shared slots with the response
// state, calls the addon once and reads the results back.  Every function
// answers -1 / undefined where the addon declines, or where a header has a
// shape Node treats specially; the caller then runs Node's own code.

const { binding } = require('./native');
const internals = require('./internals');
const S = require('./slots');

const MAX_PAIRS = binding ? binding.maxPairs : 0;
const ints = binding ? new Int32Array(binding.shared, 0, 16) : null;
const nums = binding ? new Float64Array(binding.shared, S.DOUBLES_OFFSET, 8) : null;
const lens = binding ? new Int32Array(binding.shared, S.LENGTHS_OFFSET, 1 + 2 * MAX_PAIRS) : null;

// The Date value, cached per second like Node's internal utcDate().  The
// real Date and setTimeout are taken now, so fake timers installed later by
// a test framework leave it alone, as they leave Node's own cache alone.
const RealDate = Date;
const { setTimeout: realSetTimeout } = require('node:timers');
let dateValid = false;
let dateGeneration = 0; // moves with every new Date value

function resetDate() {
  dateValid = false;
}

function ensureDate() {
  if (dateValid) return;
  const d = new RealDate();
  binding.setDate(d.toUTCString());
  dateValid = true;
  dateGeneration++;
  realSetTimeout(resetDate, 1000 - d.getMilliseconds()).unref();
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

// The parts of the head being assembled: the first line (or reason
// phrase), then name, value, name, value...  The builder runs
// synchronously, so module-level accumulators serve.
const parts = [];
let nparts = 0;
let partsLength = 0;
let namesKey = 0; // the names' lengths, hashed: where a head is kept (cache)

function addPair(name, value) {
  if (nparts >= 2 * MAX_PAIRS) return false;
  parts[nparts++] = name;
  parts[nparts++] = value;
  partsLength += name.length + value.length;
  namesKey = (Math.imul(namesKey, 31) + name.length) | 0;
  return true;
}

// Whether the response's _contentLength may be truthy while its headers are
// walked: Node rewrites Content-Disposition values through
// Buffer.from(value, 'latin1') when it is (processHeader), which throws for
// a number and changes arrays in place.  A Content-Length header met on the
// way sets _contentLength (matchHeader), so from there on it may be.
let lengthKnown = false;

function isContentDisposition(name) {
  return name.length === 19 && name.toLowerCase() === 'content-disposition';
}

// The common spellings without lowercasing.
function isContentLength(name) {
  return name === 'Content-Length' || name === 'content-length' ||
    (name.length === 14 && name.toLowerCase() === 'content-length');
}

// A value Node turns into header text by plain concatenation with nothing
// to decide: a string, or a number other than -0 (String(-0) is '0' but
// Node keeps +(-0) as _contentLength).
function addValue(name, value) {
  if (name.length === 14 && isContentLength(name)) lengthKnown = true;
  if (typeof value === 'string') return addPair(name, value);
  if (typeof value !== 'number' || (value === 0 && 1 / value < 0)) return false;
  if (lengthKnown && isContentDisposition(name)) return false;
  return addPair(name, '' + value);
}

// One header.  Arrays become one line per element, except where Node joins
// them ('cookie' with two or more values, names in the server's
// uniqueHeaders) or rewrites them in place (Content-Disposition once a
// content length is known); those, and an empty array whose name Node would
// still check, are left to Node.
function addField(res, name, value, validate) {
  if (!Array.isArray(value)) return addValue(name, value);
  const unique = res !== null ? internals.uniqueHeaders(res) : null;
  if (unique && unique.has(name.toLowerCase())) return false;
  const n = value.length;
  if (n === 0) return !validate;
  if (n >= 2 && name.length === 6 && name.toLowerCase() === 'cookie') return false;
  if (lengthKnown && isContentDisposition(name)) return false;
  for (let i = 0; i < n; i++) {
    if (!addValue(name, value[i])) return false;
  }
  return true;
}

// What flatten() found.
const FLAT_REFUSED = 0; // a shape Node handles specially: Node must run
const FLAT_TRUSTED = 1; // res[kOutHeaders], which setHeader() already checked
const FLAT_CHECK = 2; //   the user's own object or array: the builder checks it

// Walk `headers` the way _storeHeader does.
function flatten(res, headers) {
  if (!headers) return FLAT_TRUSTED;
  if (res !== null && internals.isOutHeaders(res, headers)) {
    for (const key in headers) {
      const entry = headers[key];
      if (!addField(res, entry[0], entry[1], false)) return FLAT_REFUSED;
    }
    return FLAT_TRUSTED;
  }
  if (Array.isArray(headers)) {
    const n = headers.length;
    if (n > 0 && Array.isArray(headers[0])) {
      for (let i = 0; i < n; i++) {
        const entry = headers[i];
        if (!Array.isArray(entry) || typeof entry[0] !== 'string' ||
            !addField(res, entry[0], entry[1], true)) return FLAT_REFUSED;
      }
    } else {
      if (n % 2 !== 0) return FLAT_REFUSED;
      for (let i = 0; i < n; i += 2) {
        const name = headers[i];
        if (typeof name !== 'string' || !addField(res, name, headers[i + 1], true)) {
          return FLAT_REFUSED;
        }
      }
    }
    return FLAT_CHECK;
  }
  if (typeof headers !== 'object') return FLAT_REFUSED;
  for (const key in headers) {
    if (Object.hasOwn(headers, key) && !addField(res, key, headers[key], true)) {
      return FLAT_REFUSED;
    }
  }
  return FLAT_CHECK;
}

// Start with the first part (the first line, or the reason phrase) and
// walk the headers.  Returns FLAT_*.
function begin(res, first, headers, contentLength) {
  parts[0] = first;
  nparts = 1;
  partsLength = first.length;
  namesKey = first.length;
  lengthKnown = !!contentLength;
  return flatten(res, headers);
}

// The parts as one string, their lengths in shared memory.
function text() {
  let t = parts[0];
  lens[0] = t.length;
  for (let i = 1; i < nparts; i++) {
    const p = parts[i];
    lens[i] = p.length;
    t += p;
  }
  return t;
}

// Fill the slots for the parts begun.  Returns the state bits sent.
function prepare(st, status, lineMode, contentLength, timeout, max) {
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
  ints[S.S_NFIELDS] = (nparts - 1) >> 1;
  ints[S.S_TEXT_LEN] = partsLength;
  ints[S.S_LINE_MODE] = lineMode;
  ints[S.S_BODY_KIND] = S.BODY_NONE;
  return st;
}

// 204 and 304 switch chunked framing off: the only use of the status code
// inside _storeHeader (this.statusCode === 204 || === 304).
function statusRule(res) {
  const code = res.statusCode;
  return code === 204 || code === 304 ? code : 0;
}

// +s, as matchHeader() computes _contentLength; plain digits (the usual
// Content-Length) without the general conversion.
function toNumber(s) {
  const n = s.length;
  if (n === 0 || n > 15) return +s;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return +s;
    v = v * 10 + d;
  }
  return v;
}

// Rendered heads, kept for the next responses.  A head is a pure function
// of its parts (strings, compared by content), the state bits, the 204/304
// rule, the content length, the keep-alive settings and the Date value
// (dateGeneration), so an entry whose inputs are all equal holds exactly
// the bytes the addon would render.  When only header values
// differ, and only values that change nothing but their own bytes, the new
// head is the kept one with those values replaced (patch): each line of a
// head is `name: value\r\n`, so where a value sits follows from the
// lengths.  A small direct-mapped table, indexed by the number of parts and
// the names' lengths; heads with large parts are not kept.
const CACHE_SLOTS = 16;
const CACHE_MAX_LENGTH = 2048;
const cache = new Array(CACHE_SLOTS).fill(null);
const cacheStats = { hits: 0, patches: 0, renders: 0 }; // for the tests and benchmarks
function slotOf() {
  return (nparts * 7 + namesKey) & (CACHE_SLOTS - 1);
}

// What a header's value does besides appearing (matchHeader): nothing, or
// it sets _contentLength (the last Content-Length), or more (Connection,
// Transfer-Encoding, Date, Expect, Trailer, Keep-Alive, an earlier
// Content-Length): such a value is never patched.
const PLAIN = 0;
const LENGTH = 1;
const SPECIAL = 2;
function valueRole(name) {
  const n = name.length;
  if (n !== 4 && n !== 6 && n !== 7 && n !== 10 && n !== 14 && n !== 17) return PLAIN;
  if (isContentLength(name)) return LENGTH;
  switch (name.toLowerCase()) {
    case 'date': case 'expect': case 'trailer': case 'connection': case 'keep-alive':
    case 'transfer-encoding': return SPECIAL;
    default: return PLAIN;
  }
}

function sameInputs(e, st, status, cl, timeout, max) {
  return e !== null && e.nparts === nparts && e.st === st && e.status === status &&
    e.cl === cl && e.timeout === timeout && e.max === max && e.date === dateGeneration;
}

function sameParts(e) {
  const kept = e.parts;
  for (let i = 0; i < nparts; i++) {
    if (kept[i] !== parts[i]) return false;
  }
  return true;
}

// Values the addon would decline: a byte >= 0x80 anywhere; with VALIDATE,
// also what Node's headerCharRegex rejects.
const NOT_ASCII = /[^\x00-\x7f]/;
const NOT_VALID = /[^\t\x20-\x7e]/;

let cacheSize = CACHE_SLOTS;
function keep(e) {
  if (partsLength > CACHE_MAX_LENGTH || cacheSize === 0) return e;
  e.parts = parts.slice(0, nparts);
  cache[slotOf()] = e;
  return e;
}

// The head for the parts, made from the kept entry e (same names, same
// inputs) by replacing the values that differ; or null.  The entry itself
// is left as the addon rendered it: a flat string, whose slices cost
// nothing to take (a head patched again and again would become a chain of
// concatenations that every slice flattens).  patchedLength: the
// _contentLength the new values give.
let patchedLength = 0;
function patch(e) {
  const kept = e.parts;
  if (kept[0] !== parts[0]) return null;
  const bad = (e.st & S.VALIDATE) !== 0 ? NOT_VALID : NOT_ASCII;
  const roles = e.roles;
  const h = e.head;
  let out = '';
  let from = 0; // copied from the kept head up to here
  let at = e.firstLength; // start of the current line in the kept head
  patchedLength = e.userLength;
  for (let i = 1; i < nparts; i += 2) {
    const name = parts[i];
    if (name !== kept[i]) return null;
    const value = parts[i + 1];
    const old = kept[i + 1];
    const valueAt = at + name.length + 2;
    if (value !== old) {
      const role = roles[i >> 1];
      if (role === SPECIAL || bad.test(value)) return null;
      if (role === LENGTH) patchedLength = toNumber(value);
      out += h.slice(from, valueAt) + value;
      from = valueAt + old.length;
    }
    at = valueAt + old.length + 2;
  }
  return from === 0 ? null : out + h.slice(from);
}

// Render with the addon; returns an entry, or null where it declines.
function render(st, status, lineMode, cl, timeout, max) {
  const t = text();
  const sent = prepare(st, status % 1000, lineMode, cl, timeout, max);
  const head = binding.head(t);
  if (head === undefined) return null;
  const seen = ints[S.S_SEEN];
  // Each pair's role; the last Content-Length is the one that counts.
  const roles = [];
  let lastLength = -1;
  for (let i = 1; i < nparts; i += 2) {
    const role = valueRole(parts[i]);
    if (role === LENGTH) {
      if (lastLength >= 0) roles[lastLength] = SPECIAL;
      lastLength = i >> 1;
    }
    roles.push(role);
  }
  return keep({
    parts: null, nparts, partsLength, st, status, cl, timeout, max, date: dateGeneration,
    head, sent, out: ints[S.S_OUT_STATE], seen,
    userLength: (seen & S.SEEN_CL) !== 0 ? toNumber(t.slice(ints[S.S_CL_START], ints[S.S_CL_END])) : 0,
    roles,
    // The first line: as given (line mode 0), or "HTTP/1.1 NNN <reason>\r\n".
    firstLength: lineMode === 0 ? parts[0].length : 15 + parts[0].length,
  });
}

// Build and store the head of `res`: sets _header and the fields Node's
// _storeHeader would set, and returns the seen bits (>= 0); or returns -1
// with nothing changed.  `first` is the whole first line (from Node's
// writeHead) or, with `code`, the reason phrase (from ours).
function store(res, first, headers, code) {
  const cl = internals.contentLength(res);
  const kind = begin(res, first, headers, cl);
  if (kind === FLAT_REFUSED) return -1;
  const st = internals.headState(res) | (kind === FLAT_CHECK ? S.VALIDATE : 0);
  // The status and the line mode, as one key: the code itself when the
  // line is made here, else only what _storeHeader reads of it (204/304).
  const lineMode = code === 0 ? 0 : 1;
  const status = code === 0 ? statusRule(res) : 1000 + code;
  const timeout = internals.keepAliveTimeout(res);
  const max = internals.maxRequestsPerSocket(res);
  if (st & S.SEND_DATE) ensureDate();
  // A kept head with the same inputs: the same, or patched, or none.
  let e = cacheSize === 0 ? null : cache[slotOf()];
  let h = null;
  let userLength = 0;
  if (sameInputs(e, st, status, cl, timeout, max)) {
    if (e.partsLength === partsLength && sameParts(e)) {
      h = e.head;
      userLength = e.userLength;
      cacheStats.hits++;
    } else if (partsLength <= CACHE_MAX_LENGTH && (h = patch(e)) !== null) {
      userLength = patchedLength;
      cacheStats.patches++;
    }
  }
  if (h === null) {
    e = render(st, status, lineMode, cl, timeout, max);
    if (e === null) return -1;
    h = e.head;
    userLength = e.userLength;
    cacheStats.renders++;
  }
  const changed = e.out ^ e.sent;
  if (changed !== 0) internals.applyState(res, e.out, changed);
  if (e.seen & S.SEEN_CL) internals.setContentLength(res, userLength);
  internals.storeHead(res, h);
  lastHead = h;
  return e.seen;
}

// The last head this module stored: all ASCII, as every head it renders.
let lastHead = null;
function isOwnHead(h) {
  return h === lastHead;
}

// Node's _storeHeader(firstLine, headers), for a ServerResponse.
function storeHeader(res, firstLine, headers) {
  return store(res, firstLine, headers, 0);
}

// The head for writeHead(code, ...) once Node's checks are done: the status
// line is made from the code and res.statusMessage.
function storeStatusHeader(res, code, reason, headers) {
  return store(res, reason, headers, code);
}

module.exports = {
  FLAT_REFUSED,
  FLAT_TRUSTED,
  FLAT_CHECK,
  ints,
  nums,
  begin,
  text,
  prepare,
  storeHeader,
  storeStatusHeader,
  isOwnHead,
  cacheStats,
  setCacheSize: (n) => {
    // For the benchmarks: 0 turns the cache off (every head rendered by the addon).
    cacheSize = n;
  },
  result: () => S.RESULTS[ints[S.S_RESULT]] || 'unknown',
};
