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

function resetDate() {
  dateValid = false;
}

function ensureDate() {
  if (dateValid) return;
  const d = new RealDate();
  binding.setDate(d.toUTCString());
  dateValid = true;
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

// The text being assembled and its number of (name, value) pairs.  The
// builder runs synchronously, so module-level accumulators serve.
let text = '';
let count = 0;

function addPair(name, value) {
  if (count === MAX_PAIRS) return false;
  const i = 1 + 2 * count;
  lens[i] = name.length;
  lens[i + 1] = value.length;
  text = text + name + value;
  count++;
  return true;
}

// Values Node turns into header text by plain concatenation with nothing
// to decide: strings, and numbers other than -0 (String(-0) is '0' but Node
// keeps +(-0) as _contentLength).
function addValue(name, value) {
  if (typeof value === 'string') return addPair(name, value);
  if (typeof value === 'number' && (value !== 0 || 1 / value > 0)) return addPair(name, '' + value);
  return false;
}

// One header.  Arrays become one line per element, except where Node joins
// them ('cookie' with two or more values, names in the server's
// uniqueHeaders) or rewrites them in place (Content-Disposition once a
// content length is known); those, and an empty array whose name Node would
// still check, are left to Node.
function addField(res, name, value, validate) {
  if (!Array.isArray(value)) return addValue(name, value);
  const n = value.length;
  if (n === 0) return !validate;
  if (n >= 2 && name.length === 6 && name.toLowerCase() === 'cookie') return false;
  if (name.length === 19 && res !== null && internals.contentLength(res) &&
      name.toLowerCase() === 'content-disposition') return false;
  const unique = res !== null ? internals.uniqueHeaders(res) : null;
  if (unique && unique.has(name.toLowerCase())) return false;
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

// Start a text with its first part (the first line, or the reason phrase)
// and the headers.  Returns FLAT_*.
function begin(res, first, headers) {
  text = first;
  count = 0;
  lens[0] = first.length;
  return flatten(res, headers);
}

// Fill the slots for the text begun.  Returns the state bits sent.
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
  ints[S.S_NFIELDS] = count;
  ints[S.S_TEXT_LEN] = text.length;
  ints[S.S_LINE_MODE] = lineMode;
  ints[S.S_BODY_KIND] = S.BODY_NONE;
  return st;
}

// After a successful build: copy the state changes onto the response.
function apply(res, st, t) {
  const out = ints[S.S_OUT_STATE];
  const changed = out ^ st;
  if (changed !== 0) internals.applyState(res, out, changed);
  const seen = ints[S.S_SEEN];
  if (seen & S.SEEN_CL) {
    internals.setContentLength(res, +t.slice(ints[S.S_CL_START], ints[S.S_CL_END]));
  }
  return seen;
}

// 204 and 304 switch chunked framing off: the only use of the status code
// inside _storeHeader (this.statusCode === 204 || === 304).
function statusRule(res) {
  const code = res.statusCode;
  return code === 204 || code === 304 ? code : 0;
}

// _storeHeader(firstLine, headers) for a ServerResponse.  Returns the seen
// bits (>= 0) after setting _header and the fields Node would set, or -1
// with nothing changed.
function storeHeader(res, firstLine, headers) {
  const kind = begin(res, firstLine, headers);
  if (kind === FLAT_REFUSED) return -1;
  const t = text;
  const st = prepare(internals.headState(res) | (kind === FLAT_CHECK ? S.VALIDATE : 0),
    statusRule(res), 0, internals.contentLength(res), internals.keepAliveTimeout(res),
    internals.maxRequestsPerSocket(res));
  const h = binding.head(t);
  if (h === undefined) return -1;
  const seen = apply(res, st, t);
  internals.storeHead(res, h);
  return seen;
}

module.exports = {
  FLAT_REFUSED,
  FLAT_TRUSTED,
  FLAT_CHECK,
  ints,
  nums,
  begin,
  prepare,
  storeHeader,
  text: () => text,
  result: () => S.RESULTS[ints[S.S_RESULT]] || 'unknown',
};
