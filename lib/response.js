'use strict';

// The fast methods of a ServerResponse: writeHead, _storeHeader, end, write
// and (24, 26) uncork, one function each, as in Node's _http_outgoing.js.
// Each starts by asking, without changing anything, whether it can take
// the call; when it cannot, Node's own method runs from the start, and the
// reason is counted (status().fallbacks).  When it can, it does what
// Node's method does, in Node's order (lib/outgoing.js for end, write and
// uncork; writeHead here), with the head rendered by the addon and the
// bytes sent in one write.
//
// The rules kept here and in lib/outgoing.js, lib/head.js and lib/walk.js:
//  - one fast call at a time (lib/guard.js): a fast method called while
//    another runs (from a getter, a wrapper, a replaced builtin the outer
//    one reached) is Node's own, so the state the outer one builds is
//    never reached by another;
//  - a user value is read once, where Node reads it, and never converted
//    where Node would run its valueOf()/toString(): such a call goes to
//    Node before anything is read;
//  - everything decided before a call that can run user code is decided
//    again after it, from the state as it is then;
//  - builtins are the untouched realm's (lib/primordials.js);
//  - what a user sees in a stack is one frame of onewrite's, named as the
//    method: each method calls Node's own method, an agent's wrapper,
//    this._finish() and this.emit('drain') from its own frame, and an
//    error thrown through it has onewrite's other frames taken out
//    (lib/stack.js).

const { STATUS_CODES, ServerResponse, ClientRequest } = require('node:http');
const internals = require('./internals');
const head = require('./head');
const outgoing = require('./outgoing');
const request = require('./request');
const guard = require('./guard');
const { counters, fallback } = require('./stats');
const { tidy } = require('./stack');
const { SEEN_EXPECT } = require('./slots');
const {
  ArrayBufferIsView, ArrayIsArray, FunctionPrototypeCall, ObjectGetOwnPropertyDescriptor, ObjectGetPrototypeOf, ObjectKeys,
  RegExpPrototypeTest, SetPrototypeHas, StringPrototypeToLowerCase, newSet, replacedBuiltin,
  replacedForHead,
} = require('./primordials');

const { originals, LINE, PHRASE_FIRST } = internals;
const ServerPrototype = ServerResponse.prototype;
const ClientPrototype = ClientRequest.prototype;

const { INVALID_HEADER_CHAR } = head;

// ---- why a call goes to Node --------------------------------------------------

// The body of end(chunk) or write(chunk): its byte length and whether its
// bytes are its latin1 code units, or the reason Node takes it.  Set by
// bodyRefusal(), read by its caller at once (under the guard).
let bodyLength = 0;
let bodyOneByte = false;
// The last string body measured (not empty, not large), in its encoding:
// a server that answers the same text again (a fixed body) has it
// measured once.  A string cannot change, so what was measured holds.
const MEASURED_MAX = 16 * 1024;
let measuredText = null;
let measuredEncoding;
let measuredLength = 0;
let measuredOneByte = false;
const KNOWN_ENCODINGS = newSet('hex', 'base64', 'base64url', 'ucs2', 'ucs-2', 'utf16le', 'utf-16le');
function bodyRefusal(chunk, encoding) {
  if (typeof chunk === 'string') {
    if (chunk === measuredText && encoding === measuredEncoding) {
      bodyLength = measuredLength;
      bodyOneByte = measuredOneByte;
      return null;
    }
    const len = outgoing.textLength(chunk, encoding);
    if (len < 0) {
      if (encoding === 'ascii') return 'ascii text not ascii';
      if (typeof encoding !== 'string') return 'encoding unknown';
      const lower = StringPrototypeToLowerCase(encoding);
      return SetPrototypeHas(KNOWN_ENCODINGS, lower) ? `encoding ${lower}` : 'encoding unknown';
    }
    bodyLength = len;
    bodyOneByte = len === chunk.length || encoding === 'latin1' || encoding === 'binary';
    if (len !== 0 && chunk.length <= MEASURED_MAX) {
      measuredText = chunk;
      measuredEncoding = encoding;
      measuredLength = len;
      measuredOneByte = bodyOneByte;
    }
  } else if (outgoing.plainBytes(chunk)) {
    bodyLength = outgoing.typedArrayByteLength(chunk);
    bodyOneByte = true;
  } else {
    return typeof chunk === 'object' && chunk !== null && ArrayBufferIsView(chunk)
      ? 'Uint8Array subclass or own length' : 'body not a string or Uint8Array';
  }
  if (bodyLength === 0) return 'empty body';
  return null;
}

// end(chunk) and write(chunk): can the call be taken at all?  (What the
// bytes need of the socket is asked once, when they are about to go:
// lib/outgoing.js; until then what runs is Node's own steps.)
function dataRefusal(res, chunk, encoding) {
  if (res.finished) return 'finished';
  if (res.destroyed) return 'destroyed';
  if (res.strictContentLength) return 'strictContentLength';
  const socket = res.socket;
  if (socket == null) return 'no socket';
  // Node's steps call them, and the fast paths go on after them.
  if (!internals.socketCorksAreWritables(socket)) return 'socket.cork or uncork replaced';
  return bodyRefusal(chunk, encoding);
}

// A builtin Node's own code calls live on this path was replaced
// (lib/primordials.js): the call goes to Node, whose code runs the
// replacement where and as often as it always does.  `replaced`: the
// check for the method (replacedForHead where it only builds a head).
function builtinRefusal(method, replaced = replacedBuiltin) {
  if (replaced() === null) return false;
  fallback('builtin replaced', method);
  return true;
}

// What a fast half answers when the call is not its own: the function to
// call in its place (Node's method, an agent's wrapper), which the method
// calls from its own frame with the arguments it was given, up to the ones
// it declares (Node's own methods declare the same, and read no more).  A
// method that hands its arguments object on, even on a path not taken,
// has V8 allocate it on every call (writeHead and end: ~350 instructions a
// request under callgrind on Node 26, with its GC); the count alone costs
// nothing.  So a wrapper called in Node's place is given the call's
// arguments up to the declared ones (README, "Where onewrite differs").
// Otherwise the fast half answers what the method returns, or TAKEN.
const TAKEN = { taken: true };

// A fast method called while another runs (lib/guard.js): Node's own.
function nested(method) {
  fallback('called inside another fast call', method);
}

// ---- which method runs --------------------------------------------------------

// Where a set of fast methods is put, and what it defers to: `gate.on`
// false makes each of them Node's own (uninstall() leaves a wrapper
// someone put around one of them in place; it then calls Node's method).
// `global`: for the set put on a subclass, the set put on Node's
// prototypes (null for that set itself), so that a method found on
// http.ServerResponse.prototype that is neither Node's nor onewrite's (an
// agent's wrapper, there or on OutgoingMessage.prototype) is the one
// called, as it would be without the subclass.  `ours`: the set's own
// methods.  The set on Node's prototypes puts end, write, uncork and
// _storeHeader where Node has them, on OutgoingMessage.prototype, which
// ClientRequest shares: what is not a ServerResponse gets Node's own.
function makeSet(gate, global) {
  return { gate, global, ours: null };
}

// An agent's wrapper on http.ServerResponse.prototype (or on
// OutgoingMessage.prototype, where SR inherits it) to call instead of the
// subclass's method, or null.
function wrapper(set, name, node) {
  if (set.global === null) return null;
  const fn = ServerPrototype[name];
  return fn !== node && fn !== set.global[name] ? fn : null;
}

// The method to run instead of the fast end, write, uncork or
// _storeHeader (Node's own is `node`), or null: an agent's wrapper
// (above), or Node's own while the gate is off or for what is not a
// ServerResponse.
function instead(set, res, name, node) {
  const other = wrapper(set, name, node);
  if (other !== null) return other;
  if (!set.gate.on) return node;
  if (set.global === null) {
    const kind = kindOf(res);
    if (kind === CLIENT) return set.gate.client && CLIENT_TAKES[name] === true ? AS_REQUEST : node;
    if (kind !== SERVER) return node;
  }
  return null;
}
// What instead() answers for a ClientRequest whose call the client side
// takes (lib/request.js's part of it).
const AS_REQUEST = { request: true };

// What a message is, by ServerResponse.prototype or ClientRequest.prototype
// on its chain (Express's response too, whose prototype's prototype is).
const OTHER = 0;
const SERVER = 1;
const CLIENT = 2;
// The client side's fast methods: the request head, end()'s one write
// (its socket there), the queued bytes' (lib/request.js).
const CLIENT_TAKES = { __proto__: null, _storeHeader: true, end: true, _flushOutput: true };

// Whether `o` is a ServerResponse (Express's response too, whose
// prototype's prototype is): ServerResponse.prototype on its chain.
// (Object.getPrototypeOf called as itself: V8's optimising compiler turns
// it into a load of the object's map, where the __proto__ getter, called
// through primordials, is a call into the runtime: ~130 instructions a
// level on Node 26.  A response wrapped in a Proxy has its getPrototypeOf
// trap run here, as its get traps run for every field the fast path
// reads: docs/differences.md.  Asking util.types.isProxy first cost a
// call into Node's C++ on every end() and write().)
function kindOf(o) {
  if (typeof o !== 'object' || o === null) return OTHER;
  let p = ObjectGetPrototypeOf(o);
  for (let depth = 0; p !== null && depth < 8; depth++) {
    if (p === ServerPrototype) return SERVER;
    if (p === ClientPrototype) return CLIENT;
    p = ObjectGetPrototypeOf(p);
  }
  return OTHER;
}
function isServerResponse(o) {
  return kindOf(o) === SERVER;
}

// ---- the methods -------------------------------------------------------------

// writeHead(statusCode[, statusMessage][, headers]): Node's own steps
// (lib/_http_server.js), with the head rendered by the addon.  Until the
// header merge (which calls this.setHeader(), as Node does) everything
// it does Node's writeHead does again to the same effect, so it may still
// hand the call over; after it, it finishes as Node would.
function fastWriteHead(set, res, statusCode, reason, obj) {
  const other = wrapper(set, 'writeHead', originals.writeHead);
  if (other !== null) return other;
  if (guard.busy) {
    nested('writeHead');
    return originals.writeHead;
  }
  if (!set.gate.on || internals.headerRendered(res) ||
      (typeof statusCode !== 'number' && typeof statusCode !== 'string') ||
      builtinRefusal('writeHead', replacedForHead)) {
    return originals.writeHead;
  }
  const code = statusCode | 0;
  if (code < 100 || code > 999) return originals.writeHead;
  if (typeof reason !== 'string') obj ??= reason;
  // Headers given as an array join setHeader()'s differently on 20 and
  // on 22+: Node's writeHead does that merge.  Whether there is one to
  // do is known only after the status is assigned (a setter may call
  // setHeader()), so with an array the call goes to Node unless the
  // assignments below can run no code.
  if (ArrayIsArray(obj) && (internals.outHeaders(res) || !plainStatus(res))) {
    fallback('writeHead array merged', 'writeHead');
    return originals.writeHead;
  }
  guard.busy = true;
  try {
    return writeHeadTaken(set, res, code, reason, obj);
  } finally {
    guard.busy = false;
  }
}

// The rest of writeHead(), the call taken (under the guard).
function writeHeadTaken(set, res, code, reason, obj) {
  if (typeof reason === 'string') {
    res.statusMessage = reason;
  } else {
    res.statusMessage ||= STATUS_CODES[code] || 'unknown';
  }
  res.statusCode = code;
  // The headers set so far, read after the status as Node reads them.
  const out = internals.outHeaders(res);
  let headers = obj;
  if (out) {
    if (obj) {
      const keys = ObjectKeys(obj);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (k) res.setHeader(k, obj[k]);
      }
    }
    headers = internals.outHeaders(res);
  }
  // From here on, what Node's writeHead does after the merge.
  const dropBody = code === 204 || code === 304 || (code >= 100 && code <= 199);
  // statusMessage, read as often as Node reads it here, so that an
  // accessor's values are used as Node uses them: for the check, then
  // for the status line (20 22 24); on 26 first to compare it with the
  // standard phrase, then (not that phrase) for the check and the line.
  // (A standard phrase on 26: Node reads it once more when its private
  // status-line cache has no line for the code yet; onewrite does not.)
  const first = res.statusMessage;
  let checked = first;
  let message = first;
  if (!PHRASE_FIRST) {
    message = res.statusMessage;
  } else if (first === STATUS_CODES[code]) {
    checked = null;
  } else {
    checked = res.statusMessage;
    message = res.statusMessage;
  }
  // An unanswered Expect: read after statusMessage, as Node reads it (a
  // getter there may answer it with writeContinue()).
  const noKeepAlive = internals.expectPending(res);
  // onewrite's _storeHeader, neither replaced nor wrapped, is the one the
  // response would call: the addon renders.
  const storeOurs = res._storeHeader === set.ours._storeHeader &&
    wrapper(set, '_storeHeader', originals.storeHeader) === null;
  if (typeof message === 'string' && (checked === null || checked === message) && storeOurs) {
    // The reason phrase goes to the addon, which checks it first (as
    // Node checks it before _storeHeader) and declines an invalid one.
    const seen = head.storeStatusHeader(res, code, message, headers, dropBody, noKeepAlive);
    if (seen >= 0) {
      counters.heads++;
      if (seen & SEEN_EXPECT) internals.flushHead(res);
      return res;
    }
  }
  // Node's remaining steps: check the message, make the status line, drop
  // the body, keep-alive, _storeHeader through the response.
  if (checked !== null && RegExpPrototypeTest(INVALID_HEADER_CHAR, checked)) {
    throw internals.errors.invalidStatusMessage();
  }
  const statusLine = `HTTP/1.1 ${code} ${message}\r\n`;
  if (dropBody) internals.dropBody(res);
  if (noKeepAlive) internals.dontKeepAlive(res);
  if (storeOurs) {
    counters.headsToNode++;
    FunctionPrototypeCall(originals.storeHeader, res, statusLine, headers);
  } else {
    res._storeHeader(statusLine, headers);
  }
  return res;
}

// _storeHeader(firstLine, headers), rendered by the addon: reached from
// Node's writeHead where onewrite's hands it over, and from writeHeader
// (20-24).
function fastStoreHeader(set, res, firstLine, headers) {
  const other = instead(set, res, '_storeHeader', originals.storeHeader);
  if (other !== null && other !== AS_REQUEST) return other;
  // A request's head is built as a response's: Node's _storeHeader is one
  // function for both, and reads the same fields of either.
  const request = other === AS_REQUEST;
  if (guard.busy) {
    nested('_storeHeader');
    countHead(request, false);
    return originals.storeHeader;
  }
  let seen = -1;
  guard.busy = true;
  try {
    if (typeof firstLine === 'string' && !builtinRefusal('_storeHeader', replacedForHead)) {
      seen = head.storeHeader(res, firstLine, headers);
    }
  } finally {
    guard.busy = false;
  }
  if (seen < 0) {
    countHead(request, false);
    return originals.storeHeader;
  }
  countHead(request, true);
  if (seen & SEEN_EXPECT) internals.flushHead(res);
  return TAKEN;
}

function fastEnd(set, res, chunk, encoding, callback) {
  const other = instead(set, res, 'end', originals.end);
  if (other !== null && other !== AS_REQUEST) return other;
  const request = other === AS_REQUEST;
  const hasData = typeof chunk !== 'function' && !!chunk;
  // A request's end() is a response's once it has its socket (Node's
  // end() is one function for both).  Until then Node queues its bytes,
  // and they leave when the socket comes (_flushOutput: lib/request.js).
  if (request && (!hasData || res.socket == null)) return originals.end;
  if (guard.busy || builtinRefusal('end')) {
    if (guard.busy) nested('end');
    if (hasData) countEnd(request, false);
    return originals.end;
  }
  guard.busy = true;
  try {
    return hasData ? endData(res, chunk, encoding, callback, request) : endEmpty(res, chunk, encoding, callback);
  } finally {
    guard.busy = false;
  }
}

// end() without data: Node's own until the head is rendered (its implicit
// head) or once finished; else Node's steps (outgoing.endEmpty).
function endEmpty(res, chunk, encoding, callback) {
  const cb = typeof chunk === 'function' ? chunk : typeof encoding === 'function' ? encoding : callback;
  if (res.finished || !internals.headerRendered(res)) return originals.end;
  outgoing.endEmpty(res, cb);
  return LINE < 24 && typeof cb === 'function' ? ONCE : TAKEN;
}

// end(chunk[, encoding][, callback]) with data (`request`: a request's).
function endData(res, chunk, encoding, callback, request) {
  if (typeof encoding === 'function') {
    callback = encoding;
    encoding = null;
  }
  const why = dataRefusal(res, chunk, encoding);
  if (why !== null) {
    fallback(why, 'end');
    countEnd(request, false);
    return originals.end;
  }
  if (typeof callback !== 'function' && outgoing.endFast(res, chunk, encoding, bodyLength, bodyOneByte)) {
    countEnd(request, true);
    return TAKEN;
  }
  const missed = outgoing.endWithData(res, chunk, encoding, callback, bodyLength, bodyOneByte);
  if (missed === null) {
    countEnd(request, true);
  } else {
    fallback(missed, 'end');
    countEnd(request, false);
  }
  return LINE < 24 && typeof callback === 'function' ? ONCE : TAKEN;
}

function countEnd(request, here) {
  if (request) {
    if (here) counters.requestEnds++;
    else counters.requestEndsToNode++;
  } else if (here) {
    counters.ends++;
  } else {
    counters.endsToNode++;
  }
}

// _flushOutput(socket): a request's queued bytes in one write
// (lib/request.js); everything else's, Node's.  What the write answered
// is in `flushed` (read at once).
const FLUSHED = { flushed: true };
const NOTHING = { nothing: true };
let flushed;
function fastFlushOutput(set, msg, socket) {
  // Node's first steps, which end it where nothing is queued (every
  // response as its socket is assigned): (20: no cork of its own to
  // carry over,) `if (this.outputData.length <= 0) return undefined`,
  // read as Node reads them.
  let length = -1;
  if (set.gate.on && (LINE >= 22 || !internals.corked(msg))) {
    length = msg.outputData.length;
    if (length <= 0) return NOTHING;
    // One entry is one write already (a GET's head): Node's, or a wrapper
    // found in its place.
    if (length === 1) return wrapper(set, '_flushOutput', originals.flushOutput) ?? originals.flushOutput;
  }
  const other = instead(set, msg, '_flushOutput', originals.flushOutput);
  if (other !== AS_REQUEST) return other ?? originals.flushOutput;
  if (guard.busy || builtinRefusal('_flushOutput')) {
    if (guard.busy) nested('_flushOutput');
    return originals.flushOutput;
  }
  guard.busy = true;
  try {
    const r = request.flush(msg, socket, length);
    if (r === request.NODES) {
      if (request.counted()) counters.requestFlushesToNode++;
      return originals.flushOutput;
    }
    counters.requestFlushes++;
    flushed = r;
    return FLUSHED;
  } finally {
    guard.busy = false;
  }
}

// A head counted as a response's or a request's; by Node or here.
function countHead(request, here) {
  if (request) {
    if (here) counters.requestHeads++;
    else counters.requestHeadsToNode++;
  } else if (here) {
    counters.heads++;
  } else {
    counters.headsToNode++;
  }
}

// end() on 20 and 22 with a callback: its data (or none) sent, the
// callback is added to 'finish' by end() itself (this.once(), from its
// own frame, where a 'newListener' listener sees Node's end() call it),
// then the rest of Node's end() (`hadData`: it was given data).
const ONCE = { once: true };
function endAfterOnce(res, hadData) {
  guard.busy = true;
  try {
    outgoing.endTail(res, true, hadData);
  } finally {
    guard.busy = false;
  }
  return TAKEN;
}

// write(): what the call returns when taken, NODE_WRITE for Node's own
// write() (which the method calls and counts), or another function to
// call.
const NODE_WRITE = { write: true };
function fastWrite(set, res, chunk, encoding, callback) {
  const other = instead(set, res, 'write', originals.write);
  if (other !== null) return other;
  if (guard.busy || builtinRefusal('write')) {
    if (guard.busy) nested('write');
    return NODE_WRITE;
  }
  if (typeof encoding === 'function') {
    callback = encoding;
    encoding = null;
  }
  guard.busy = true;
  try {
    return writeTaken(res, chunk, encoding, callback);
  } finally {
    guard.busy = false;
  }
}

// The rest of write(), under the guard.
function writeTaken(res, chunk, encoding, callback) {
  const why = dataRefusal(res, chunk, encoding);
  if (why !== null) {
    fallback(why, 'write');
    return NODE_WRITE;
  }
  const ret = outgoing.writeData(res, chunk, encoding, callback, bodyLength, bodyOneByte);
  const how = outgoing.lastHow();
  if (how === outgoing.SENT) fallback(outgoing.lastRefusal(), 'write');
  count(res, how);
  if (!ret) internals.setNeedDrain(res);
  return ret;
}

// uncork() on 24 and 26: the chunks buffered since the response was
// corked go out as one chunk, as Node sends them, but in one socket write.
// TAKEN when they went, else the function to call (Node's uncork(),
// counted here).
function fastUncork(set, res) {
  const other = instead(set, res, 'uncork', originals.uncork);
  if (other !== null) return other;
  if (guard.busy) {
    nested('uncork');
    countNodeUncork(res, null);
    return originals.uncork;
  }
  let flushed = 0;
  guard.busy = true;
  try {
    if (!builtinRefusal('uncork')) flushed = outgoing.flushChunks(res);
  } finally {
    guard.busy = false;
  }
  if (flushed > 0) {
    counters.writes += flushed;
    return TAKEN;
  }
  countNodeUncork(res, outgoing.lastRefusal());
  return originals.uncork;
}

// Node's uncork(), about to run, counted: what it flushes, it sends (for
// `why`, where not counted already).
function countNodeUncork(res, why) {
  const buffered = internals.chunkedBuffer(res).length;
  if (internals.corked(res) === 1 && buffered !== 0) {
    if (why !== null) fallback(why, 'uncork');
    counters.writesToNode += buffered / 3;
  }
}

// The set of fast methods for one place they are put (makeSet above):
// each hands `this` and its arguments to its fast half above, and calls
// from its own frame what that answers when the call is not its own
// (Node's method, an agent's wrapper), with the arguments it was given up
// to the ones it declares, and what Node's method calls through `this`
// at its end (this._finish(), this.emit('drain')).  An error thrown
// through it leaves with one frame of onewrite's (lib/stack.js).
function makeMethods(gate, global = null) {
  const set = makeSet(gate, global);
  function writeHead(statusCode, reason, obj) {
    const n = arguments.length;
    try {
      const r = fastWriteHead(set, this, statusCode, reason, obj);
      if (typeof r !== 'function') return r;
      return n === 0 ? FunctionPrototypeCall(r, this) : n === 1 ? FunctionPrototypeCall(r, this, statusCode)
        : n === 2 ? FunctionPrototypeCall(r, this, statusCode, reason) : FunctionPrototypeCall(r, this, statusCode, reason, obj);
    } catch (err) {
      throw tidy(err, false, isServerResponse(this));
    }
  }
  function _storeHeader(firstLine, headers) {
    try {
      const r = fastStoreHeader(set, this, firstLine, headers);
      if (r !== TAKEN) return FunctionPrototypeCall(r, this, firstLine, headers);
    } catch (err) {
      throw tidy(err, false, isServerResponse(this));
    }
  }
  function end(chunk, encoding, callback) {
    const n = arguments.length;
    try {
      let r = fastEnd(set, this, chunk, encoding, callback);
      if (r === ONCE) {
        this.once('finish', typeof chunk === 'function' ? chunk : typeof encoding === 'function' ? encoding : callback);
        r = endAfterOnce(this, typeof chunk !== 'function' && !!chunk);
      }
      if (r === TAKEN) {
        // Node's end() last: its first message, all of it sent.
        if (internals.finishes(this)) this._finish();
        return this;
      }
      return n === 0 ? FunctionPrototypeCall(r, this) : n === 1 ? FunctionPrototypeCall(r, this, chunk)
        : n === 2 ? FunctionPrototypeCall(r, this, chunk, encoding) : FunctionPrototypeCall(r, this, chunk, encoding, callback);
    } catch (err) {
      throw tidy(err, false, isServerResponse(this));
    }
  }
  function write(chunk, encoding, callback) {
    const n = arguments.length;
    try {
      const r = fastWrite(set, this, chunk, encoding, callback);
      if (r === NODE_WRITE) {
        // Node's write(), counted: once, as Node's, unless Node buffered
        // the chunk to be merged (24, 26), which is counted when flushed.
        const before = internals.chunkedBuffer(this).length;
        const ret = FunctionPrototypeCall(originals.write, this, chunk, encoding, callback);
        count(this, internals.chunkedBuffer(this).length > before ? outgoing.BUFFERED : outgoing.SENT);
        return ret;
      }
      if (typeof r !== 'function') return r;
      return n === 0 ? FunctionPrototypeCall(r, this) : n === 1 ? FunctionPrototypeCall(r, this, chunk)
        : n === 2 ? FunctionPrototypeCall(r, this, chunk, encoding) : FunctionPrototypeCall(r, this, chunk, encoding, callback);
    } catch (err) {
      throw tidy(err, false, isServerResponse(this));
    }
  }
  function uncork() {
    try {
      const r = fastUncork(set, this);
      if (r !== TAKEN) return FunctionPrototypeCall(r, this);
      // Node's uncork() last: the buffer it held drained.
      if (internals.needDrain(this) && this.writableLength === 0) {
        internals.clearNeedDrain(this);
        this.emit('drain');
      }
    } catch (err) {
      throw tidy(err, false, isServerResponse(this));
    }
  }
  function _flushOutput(socket) {
    try {
      const r = fastFlushOutput(set, this, socket);
      if (r === NOTHING) return undefined;
      if (r !== FLUSHED) return FunctionPrototypeCall(r, this, socket);
      const ret = flushed;
      flushed = undefined;
      return ret;
    } catch (err) {
      throw tidy(err, false, isServerResponse(this));
    }
  }
  const ours = LINE >= 24 ? { writeHead, _storeHeader, end, write, uncork } :
    { writeHead, _storeHeader, end, write };
  if (global === null) {
    // (A request's: on OutgoingMessage.prototype alone, not the subclass.)
    ours._flushOutput = _flushOutput;
    internals.setOwnFlushOutput(_flushOutput);
  }
  // With no chunk buffered, this uncork() calls Node's own when instead()
  // finds nothing else to run for the response.
  if (LINE >= 24) {
    outgoing.addOwnUncork(uncork, (res) => {
      const other = instead(set, res, 'uncork', originals.uncork);
      return other === null || other === originals.uncork;
    });
  }
  set.ours = ours;
  return ours;
}

// Whether statusCode and statusMessage are the response's own writable
// data properties (as its constructor makes them): assigning them then
// runs no code.
function plainField(res, name) {
  const d = ObjectGetOwnPropertyDescriptor(res, name);
  return d !== undefined && d.writable === true;
}
function plainStatus(res) {
  return plainField(res, 'statusCode') && plainField(res, 'statusMessage');
}

function count(res, how) {
  if (how === outgoing.WROTE) counters.writes++;
  else if (how === outgoing.SENT || LINE < 24) counters.writesToNode++;
}

module.exports = { makeMethods };
