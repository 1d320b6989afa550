'use strict';

// Turns the `headers` Node's _storeHeader(firstLine, headers) gets into the
// parts the addon renders - the first line (or reason phrase), then name,
// value, name, value... - walking them the way _storeHeader does
// (processHeader, storeHeader), without running any code of the user's.
//
// That is the rule here: this walk reads nothing that could run user code.
// Containers are read through property descriptors (a getter is seen, not
// called), a Proxy is recognised before it is touched, a value that Node
// would convert with its toString() or valueOf() is not converted.  Where
// any of that is met, the walk stops and says why, having run nothing and
// changed nothing: the caller hands the whole call to Node, which reads
// every value exactly once, in its order, as it always does.
//
// The walk's state (below) is the module's, reused from walk to walk: no
// other walk can start while one's parts are in use, because every fast
// method holds lib/guard.js while it runs and a call that meets it held
// is Node's.  The parts array is made in the untouched realm
// (lib/primordials.js): growing it never meets an accessor a user put on
// Array.prototype.

const internals = require('./internals');
const {
  ArrayIsArray, ArrayPrototypeSlice, ObjectGetOwnPropertyDescriptor, ObjectGetProto,
  RegExpPrototypeTest, SetPrototypeHas, StringPrototypeToLowerCase, isProxy, newArray, newRegExp,
} = require('./primordials');

const getOwnPropertyDescriptor = ObjectGetOwnPropertyDescriptor;
const ObjectPrototype = Object.prototype;

// An object's prototype (for a Proxy it runs the getPrototypeOf trap:
// callers ask isProxy() first), through the untouched realm's
// Object.prototype.__proto__ getter, which reads the object's map where
// Object.getPrototypeOf() calls into V8's runtime (about 240 instructions
// a call on Node 26).  Neither --disable-proto nor a getter a user put on
// this realm's __proto__ changes it.
const protoOf = ObjectGetProto;
const ArrayPrototype = Array.prototype;

// The most pairs a head may have to be rendered by the addon (the room
// for their roles and lengths in the shared memory).
const { MAX_PAIRS } = require('./slots');

// What a walk found: parts to render (with or without the builder's checks),
// or why Node must do it.
const TRUSTED = 1; // res[kOutHeaders], which setHeader() already checked
const CHECK = 2; //   the user's own object or array: the builder checks it
const REFUSED = 0;

// The walk's results, read by the caller right after walk() returns.  The
// parts array is reused from walk to walk: its first n entries are this
// walk's.
const state = {
  parts: newArray(), // [first, name, value, ...]
  n: 0, //            how many of them
  length: 0, //       the parts' total length (UTF-16 code units)
  key: 0, //          the names' lengths, hashed: where a head is kept (cache)
  reason: '', //      why REFUSED
  lengthKnown: false, // may _contentLength be truthy at this point? (see addValue)
  chunked: false, //  a Transfer-Encoding value naming chunked (see addValue)
};


// Records why the walk stops; answers REFUSED (falsy).
function refuse(reason) {
  state.reason = reason;
  return REFUSED;
}

function addPair(name, value) {
  const parts = state.parts;
  const n = state.n;
  if (n >= 1 + 2 * MAX_PAIRS) return refuse('too many headers');
  parts[n] = name;
  parts[n + 1] = value;
  state.n = n + 2;
  state.length += name.length + value.length;
  // key * 31 + length, wrapped to 32 bits as Math.imul would, with no call.
  const key = state.key;
  state.key = ((key << 5) - key + name.length) | 0;
  return true;
}

// Whether a name starts with `lower` or `upper`, before it is lowercased:
// for `c` and `t` no other code point lowercases to a string starting with
// one (checked over all of Unicode on Node 20, 22, 24 and 26), and
// toLowerCase() costs ~250 instructions a name, many of which have the
// length of one of the three names below (X-Forwarded-Proto, ...).
// name[0] is the string's own element: no builtin runs.
function startsWith(name, lower, upper) {
  const first = name[0];
  return first === lower || first === upper;
}

function isContentDisposition(name) {
  return name.length === 19 && startsWith(name, 'c', 'C') && StringPrototypeToLowerCase(name) === 'content-disposition';
}

// Node's test for chunked in a Transfer-Encoding value (common.chunkExpression,
// the same on 20-26).
const CHUNKED = newRegExp('(?:^|\\W)chunked(?:$|\\W)', 'i');
function isTransferEncoding(name) {
  return name.length === 17 && startsWith(name, 't', 'T') && StringPrototypeToLowerCase(name) === 'transfer-encoding';
}

// The common spellings without lowercasing.
function isContentLength(name) {
  return name === 'Content-Length' || name === 'content-length' ||
    (name.length === 14 && startsWith(name, 'c', 'C') && StringPrototypeToLowerCase(name) === 'content-length');
}

// A value Node turns into header text by plain concatenation with nothing
// to decide: a string, or a number other than -0 (String(-0) is '0' but
// Node keeps +(-0) as _contentLength).  Node rewrites Content-Disposition
// values through Buffer.from(value, 'latin1') while _contentLength is
// truthy (processHeader); a Content-Length met on the way sets
// _contentLength (matchHeader), so from there on it may be.  A
// Transfer-Encoding value naming chunked turns chunkedEncoding on
// (matchHeader), which decides whether _storeHeader reads statusCode.
function addValue(name, value) {
  if (name.length === 14 && isContentLength(name)) state.lengthKnown = true;
  if (typeof value === 'string') {
    if (isTransferEncoding(name) && RegExpPrototypeTest(CHUNKED, value)) state.chunked = true;
    return addPair(name, value);
  }
  if (typeof value !== 'number' || (value === 0 && 1 / value < 0)) {
    return refuse('header value not a string or number');
  }
  if (state.lengthKnown && isContentDisposition(name)) return refuse('content-disposition rewritten');
  return addPair(name, '' + value);
}

// An array the walk may read element by element: not a Proxy, an ordinary
// Array, and every element read below through its descriptor.
function plainArray(a) {
  return !isProxy(a) && protoOf(a) === ArrayPrototype;
}

// Element i of a plain array, or NOT_PLAIN (with the reason) when reading
// it could run code (a getter), or would read the prototype (a hole).
const NOT_PLAIN = Symbol('not plain');
function element(a, i) {
  const d = getOwnPropertyDescriptor(a, i);
  if (d === undefined || d.get !== undefined || d.set !== undefined) {
    refuse('header getter or proxy');
    return NOT_PLAIN;
  }
  return d.value;
}

// One header.  Arrays become one line per element, except where Node joins
// them ('cookie' with two or more values, names in the server's
// uniqueHeaders) or rewrites them in place (Content-Disposition once a
// content length is known); those, and an empty array whose name Node would
// still check, are left to Node.
function addField(res, name, value, validate) {
  if (typeof value === 'string' || !ArrayIsArray(value)) return addValue(name, value);
  if (!plainArray(value)) return refuse('header getter or proxy');
  const unique = res !== null ? internals.uniqueHeaders(res) : null;
  if (unique && SetPrototypeHas(unique, StringPrototypeToLowerCase(name))) return refuse('unique header joined');
  const n = value.length;
  if (n === 0) return validate ? refuse('empty header array') : true;
  if (n >= 2 && name.length === 6 && StringPrototypeToLowerCase(name) === 'cookie') return refuse('cookie joined');
  if (state.lengthKnown && isContentDisposition(name)) return refuse('content-disposition rewritten');
  for (let i = 0; i < n; i++) {
    const v = element(value, i);
    if (v === NOT_PLAIN || !addValue(name, v)) return REFUSED;
  }
  return true;
}

// res[kOutHeaders]: Node's own object of [name, value] entries, whose
// values are the user's (setHeader() stored them as given).
function walkOutHeaders(res, headers) {
  for (const key in headers) {
    const entry = headers[key];
    if (!addField(res, entry[0], entry[1], false)) return REFUSED;
  }
  return TRUSTED;
}

// A writeHead() object: its own enumerable keys, in for...in order
// (integer-like keys first), each value through its descriptor.  for...in
// reads the keys from the object's enum cache, where Object.keys() would
// copy them into a new array every response; it also names inherited
// enumerable keys (a property added to Object.prototype), which have no
// own descriptor and are passed over, as Node's _storeHeader passes over
// them (ObjectHasOwn).
function walkObject(res, headers) {
  const proto = protoOf(headers);
  if (proto !== ObjectPrototype && proto !== null) return refuse('headers not a plain object');
  for (const name in headers) {
    const d = getOwnPropertyDescriptor(headers, name);
    if (d === undefined) continue;
    if (d.get !== undefined || d.set !== undefined) return refuse('header getter or proxy');
    if (!addField(res, name, d.value, true)) return REFUSED;
  }
  return CHECK;
}

// A writeHead() array: nested [[name, value], ...] when its first element
// is an array, else flat [name, value, ...].
function walkArray(res, headers) {
  if (!plainArray(headers)) return refuse('header getter or proxy');
  const n = headers.length;
  const first = n > 0 ? element(headers, 0) : undefined;
  if (first === NOT_PLAIN) return REFUSED;
  if (n > 0 && ArrayIsArray(first)) {
    for (let i = 0; i < n; i++) {
      const entry = element(headers, i);
      if (entry === NOT_PLAIN) return REFUSED;
      if (!ArrayIsArray(entry) || !plainArray(entry)) return refuse('header getter or proxy');
      const name = element(entry, 0);
      if (name === NOT_PLAIN) return REFUSED;
      if (typeof name !== 'string') return refuse('header name not a string');
      const value = element(entry, 1);
      if (value === NOT_PLAIN || !addField(res, name, value, true)) return REFUSED;
    }
    return CHECK;
  }
  if (n % 2 !== 0) return refuse('odd flat headers array');
  for (let i = 0; i < n; i += 2) {
    const name = element(headers, i);
    if (name === NOT_PLAIN) return REFUSED;
    if (typeof name !== 'string') return refuse('header name not a string');
    const value = element(headers, i + 1);
    if (value === NOT_PLAIN || !addField(res, name, value, true)) return REFUSED;
  }
  return CHECK;
}

// Walk `headers` after `first`.  Returns TRUSTED or CHECK, with the first
// state.n of state.parts filled, or REFUSED with state.reason.  `res` is
// the response (null for buildHead), `contentLength` its _contentLength.
function walk(res, first, headers, contentLength) {
  state.parts[0] = first;
  state.n = 1;
  state.length = first.length;
  state.key = first.length;
  state.reason = '';
  state.lengthKnown = !!contentLength;
  state.chunked = false;
  const kind = walkHeaders(res, headers);
  // No string of an earlier walk is kept beyond this one's parts.
  if (state.parts.length > state.n) state.parts.length = state.n;
  return kind;
}

function walkHeaders(res, headers) {
  if (!headers) return TRUSTED;
  if (res !== null && internals.isOutHeaders(res, headers)) return walkOutHeaders(res, headers);
  if (typeof headers !== 'object') return refuse('headers not a plain object');
  if (isProxy(headers)) return refuse('header getter or proxy');
  if (ArrayIsArray(headers)) return walkArray(res, headers);
  return walkObject(res, headers);
}

// The parts of the last walk, as an array of their own.
function takeParts() {
  return ArrayPrototypeSlice(state.parts, 0, state.n);
}

module.exports = {
  walk, takeParts, protoOf, state, TRUSTED, CHECK, REFUSED, MAX_PAIRS,
};
