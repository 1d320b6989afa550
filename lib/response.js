'use strict';

// The fast methods of a ServerResponse: writeHead, _storeHeader, end, write
// and (24, 26) uncork.  Each starts by asking, without running any code of
// the user's and without changing anything, whether it can take the call;
// when it cannot, Node's own method runs from the start, and the reason is
// counted (status().fallbacks).  When it can, it does what Node's method
// does, in Node's order (lib/outgoing.js for end/write/uncork; writeHead
// here), with the head rendered by the addon and the bytes sent in one
// write.
//
// The rule kept everywhere here and in lib/outgoing.js and lib/walk.js:
//  - a user value is read once, where Node reads it, and never converted
//    where Node would run its valueOf()/toString(): such a call goes to
//    Node before anything is read;
//  - the only code of the user's these methods run is what Node's method
//    runs at that point (this.setHeader() in writeHead, this._implicitHeader()
//    in end and write, and the methods Node calls through the response);
//    no module state is live across such a call, and everything decided
//    before it is decided again after it.

const { STATUS_CODES, OutgoingMessage } = require('node:http');
const internals = require('./internals');
const head = require('./head');
const outgoing = require('./outgoing');
const { counters, fallback } = require('./stats');
const { SEEN_EXPECT } = require('./slots');
const {
  ArrayBufferIsView, ArrayIsArray, FunctionPrototypeCall, ObjectKeys, RegExpPrototypeTest,
  SetPrototypeHas, StringPrototypeToLowerCase, replacedBuiltin,
} = require('./primordials');

const { originals, LINE, PHRASE_FIRST } = internals;
const OutgoingPrototype = OutgoingMessage.prototype;

const { INVALID_HEADER_CHAR } = head;

// ---- why a call goes to Node --------------------------------------------------

// The body of end(chunk) or write(chunk): its byte length and whether its
// bytes are its latin1 code units, or the reason Node takes it.  Set by
// bodyRefusal(), read by its caller at once.
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
const KNOWN_ENCODINGS = new Set(['hex', 'base64', 'base64url', 'ucs2', 'ucs-2', 'utf16le',
  'utf-16le']);
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

// A builtin Node's own code calls live on this path was replaced since
// onewrite loaded (lib/primordials.js): the call goes to Node, whose code
// runs the replacement where and as often as it always does.
function builtinRefusal(method) {
  if (replacedBuiltin() === null) return false;
  fallback('builtin replaced', method);
  return true;
}

// fn called on self with the first n of a, b, c: what
// ReflectApply(fn, self, arguments) does, for the arguments the method
// declares (Node's own methods declare the same, and read no more).  A
// method that hands its arguments object on, even on a path not taken,
// has V8 allocate it on every call (writeHead and end: ~350 instructions a
// request under callgrind on Node 26, with its GC); the count alone costs
// nothing.  So a wrapper called in Node's place is given the call's
// arguments up to the declared ones (README, "Where onewrite differs").
function declared(n, most) {
  return n > most ? most : n;
}
function forward(fn, self, n, a, b, c) {
  if (n === 0) return FunctionPrototypeCall(fn, self);
  if (n === 1) return FunctionPrototypeCall(fn, self, a);
  if (n === 2) return FunctionPrototypeCall(fn, self, a, b);
  return FunctionPrototypeCall(fn, self, a, b, c);
}

// ---- the methods -------------------------------------------------------------

// The set of fast methods, for one place they are put: `gate.on` false
// makes each of them Node's own (uninstall() leaves a wrapper someone put
// around one of them in place; it then calls Node's method).  `global`,
// for the set put on a subclass: the set on http.ServerResponse.prototype,
// so that a method found there that is neither Node's nor onewrite's (an
// agent's wrapper) is the one called, as it would be without the subclass.
function makeMethods(gate, global = null) {
  const ServerPrototype = require('node:http').ServerResponse.prototype;
  function wrapper(name, node) {
    if (global === null) return null;
    const fn = ServerPrototype[name];
    return fn !== node && fn !== global[name] ? fn : null;
  }

  // The method that runs instead of the fast end, write or uncork (Node's
  // own is `node`), or null: an agent's wrapper (above), Node's own while
  // the gate is off, or the method put on OutgoingMessage.prototype in
  // place of Node's after install (counted, unless `count` is false: a
  // question asked without a call).
  function instead(name, node, count = true) {
    const other = wrapper(name, node);
    if (other !== null) return other;
    if (!gate.on) return node;
    const now = OutgoingPrototype[name];
    if (now === node) return null;
    if (count) fallback(`${name} replaced after install`, name);
    return now;
  }

  // writeHead(statusCode[, statusMessage][, headers]): Node's own steps
  // (lib/_http_server.js), with the head rendered by the addon.  Until the
  // header merge (which calls this.setHeader(), as Node does) everything
  // it does Node's writeHead does again to the same effect, so it may still
  // hand the call over; after it, it finishes as Node would.
  function writeHead(statusCode, reason, obj) {
    const n = declared(arguments.length, 3);
    const other = wrapper('writeHead', originals.writeHead);
    if (other !== null) return forward(other, this, n, statusCode, reason, obj);
    if (!gate.on || internals.headerRendered(this) ||
        (typeof statusCode !== 'number' && typeof statusCode !== 'string') || builtinRefusal('writeHead')) {
      return forward(originals.writeHead, this, n, statusCode, reason, obj);
    }
    const code = statusCode | 0;
    if (code < 100 || code > 999) return forward(originals.writeHead, this, n, statusCode, reason, obj);
    const given = obj;
    if (typeof reason !== 'string') obj ??= reason;
    // Headers given as an array join setHeader()'s differently on 20 and
    // on 22+: Node's writeHead does that merge.  Whether there is one to
    // do is known only after the status is assigned (a setter may call
    // setHeader()), so with an array the call goes to Node unless the
    // assignments below can run no code.
    if (ArrayIsArray(obj) && (internals.outHeaders(this) || !plainStatus(this))) {
      fallback('writeHead array merged', 'writeHead');
      return forward(originals.writeHead, this, n, statusCode, reason, given);
    }
    if (typeof reason === 'string') {
      this.statusMessage = reason;
    } else {
      this.statusMessage ||= STATUS_CODES[code] || 'unknown';
    }
    this.statusCode = code;
    // The headers set so far, read after the status as Node reads them.
    const out = internals.outHeaders(this);
    let headers = obj;
    if (out) {
      if (obj) {
        const keys = ObjectKeys(obj);
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          if (k) this.setHeader(k, obj[k]);
        }
      }
      headers = internals.outHeaders(this);
    }
    // From here on, what Node's writeHead does after the merge.
    const dropBody = code === 204 || code === 304 || (code >= 100 && code <= 199);
    // statusMessage, read as often as Node reads it here, so that an
    // accessor's values are used as Node uses them: for the check, then
    // for the status line (20 22 24); on 26 first to compare it with the
    // standard phrase, then (not that phrase) for the check and the line.
    // (A standard phrase on 26: Node reads it once more when its private
    // status-line cache has no line for the code yet; onewrite does not.)
    const first = this.statusMessage;
    let checked = first;
    let message = first;
    if (!PHRASE_FIRST) {
      message = this.statusMessage;
    } else if (first === STATUS_CODES[code]) {
      checked = null;
    } else {
      checked = this.statusMessage;
      message = this.statusMessage;
    }
    // An unanswered Expect: read after statusMessage, as Node reads it (a
    // getter there may answer it with writeContinue()).
    const noKeepAlive = internals.expectPending(this);
    // Node's _storeHeader, neither replaced nor wrapped, is the one to render.
    const storeOurs = this._storeHeader === ours._storeHeader &&
      OutgoingPrototype._storeHeader === originals.storeHeader &&
      wrapper('_storeHeader', originals.storeHeader) === null;
    if (typeof message === 'string' && (checked === null || checked === message) && storeOurs) {
      // The reason phrase goes to the addon, which checks it first (as
      // Node checks it before _storeHeader) and declines an invalid one.
      const seen = head.storeStatusHeader(this, code, message, headers, dropBody, noKeepAlive);
      if (seen >= 0) {
        counters.heads++;
        if (seen & SEEN_EXPECT) internals.flushHead(this);
        return this;
      }
    }
    // Node's remaining steps: check the message, make the status line, drop
    // the body, keep-alive, _storeHeader through the response.
    if (checked !== null && RegExpPrototypeTest(INVALID_HEADER_CHAR, checked)) throw internals.errors.invalidStatusMessage();
    const statusLine = `HTTP/1.1 ${code} ${message}\r\n`;
    if (dropBody) internals.dropBody(this);
    if (noKeepAlive) internals.dontKeepAlive(this);
    if (storeOurs) {
      counters.headsToNode++;
      FunctionPrototypeCall(originals.storeHeader, this, statusLine, headers);
    } else {
      this._storeHeader(statusLine, headers);
    }
    return this;
  }

  // _storeHeader(firstLine, headers), rendered by the addon: reached from
  // Node's writeHead where onewrite's hands it over, and from writeHeader
  // (20-24).
  function _storeHeader(firstLine, headers) {
    const other = wrapper('_storeHeader', originals.storeHeader);
    if (other !== null) return FunctionPrototypeCall(other, this, firstLine, headers);
    if (!gate.on || OutgoingPrototype._storeHeader !== originals.storeHeader) {
      if (gate.on) fallback('_storeHeader replaced after install', '_storeHeader');
      return FunctionPrototypeCall(OutgoingPrototype._storeHeader, this, firstLine, headers);
    }
    const seen = typeof firstLine === 'string' && !builtinRefusal('_storeHeader')
      ? head.storeHeader(this, firstLine, headers) : -1;
    if (seen < 0) {
      counters.headsToNode++;
      return FunctionPrototypeCall(originals.storeHeader, this, firstLine, headers);
    }
    counters.heads++;
    if (seen & SEEN_EXPECT) internals.flushHead(this);
  }

  function end(chunk, encoding, callback) {
    const n = declared(arguments.length, 3);
    const other = instead('end', originals.end);
    if (other !== null) return forward(other, this, n, chunk, encoding, callback);
    if (builtinRefusal('end')) {
      if (chunk && typeof chunk !== 'function') counters.endsToNode++;
      return forward(originals.end, this, n, chunk, encoding, callback);
    }
    if (typeof chunk === 'function' || !chunk) {
      // end() without data: Node's own until the head is rendered (its
      // implicit head) or once finished; else Node's steps (endEmpty).
      const cb = typeof chunk === 'function' ? chunk : typeof encoding === 'function' ? encoding : callback;
      if (this.finished || !internals.headerRendered(this)) {
        return forward(originals.end, this, n, chunk, encoding, callback);
      }
      outgoing.endEmpty(this, cb);
      return this;
    }
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = null;
    }
    const why = dataRefusal(this, chunk, encoding);
    if (why !== null) {
      fallback(why, 'end');
      counters.endsToNode++;
      return FunctionPrototypeCall(originals.end, this, chunk, encoding, callback);
    }
    if (typeof callback !== 'function' && outgoing.endFast(this, chunk, encoding, bodyLength, bodyOneByte)) {
      counters.ends++;
      return this;
    }
    const missed = outgoing.endWithData(this, chunk, encoding, callback, bodyLength, bodyOneByte);
    if (missed === null) {
      counters.ends++;
    } else {
      fallback(missed, 'end');
      counters.endsToNode++;
    }
    return this;
  }

  function write(chunk, encoding, callback) {
    const n = declared(arguments.length, 3);
    const other = instead('write', originals.write);
    if (other !== null) return forward(other, this, n, chunk, encoding, callback);
    if (builtinRefusal('write')) return nodeWrite(this, chunk, encoding, callback);
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = null;
    }
    const why = dataRefusal(this, chunk, encoding);
    if (why !== null) {
      fallback(why, 'write');
      return nodeWrite(this, chunk, encoding, callback);
    }
    const ret = outgoing.writeData(this, chunk, encoding, callback, bodyLength, bodyOneByte);
    const how = outgoing.lastHow();
    if (how === outgoing.SENT) fallback(outgoing.lastRefusal(), 'write');
    count(this, how);
    if (!ret) internals.setNeedDrain(this);
    return ret;
  }

  // uncork() on 24 and 26: the chunks buffered since the response was
  // corked go out as one chunk, as Node sends them, but in one socket write.
  function uncork() {
    const other = instead('uncork', originals.uncork);
    if (other !== null) return FunctionPrototypeCall(other, this);
    const n = builtinRefusal('uncork') ? 0 : outgoing.flushChunks(this);
    if (n > 0) {
      counters.writes += n;
      return;
    }
    const buffered = internals.chunkedBuffer(this).length;
    if (internals.corked(this) === 1 && buffered !== 0) {
      fallback(outgoing.lastRefusal(), 'uncork');
      counters.writesToNode += buffered / 3;
    }
    FunctionPrototypeCall(originals.uncork, this);
  }

  const ours = LINE >= 24 ? { writeHead, _storeHeader, end, write, uncork } :
    { writeHead, _storeHeader, end, write };
  // With no chunk buffered, this uncork() calls Node's own when instead()
  // finds nothing else to run.
  if (LINE >= 24) {
    outgoing.addOwnUncork(uncork, () => {
      const other = instead('uncork', originals.uncork, false);
      return other === null || other === originals.uncork;
    });
  }
  return ours;
}

// Whether statusCode and statusMessage are the response's own writable
// data properties (as its constructor makes them): assigning them then
// runs no code.
const { getOwnPropertyDescriptor } = Object;
function plainField(res, name) {
  const d = getOwnPropertyDescriptor(res, name);
  return d !== undefined && d.writable === true;
}
function plainStatus(res) {
  return plainField(res, 'statusCode') && plainField(res, 'statusMessage');
}

// Node's write() for a call onewrite does not take, counted: once, as
// Node's, unless Node buffered the chunk to be merged (24, 26), which is
// counted when it is flushed.
function nodeWrite(res, chunk, encoding, callback) {
  const before = internals.chunkedBuffer(res).length;
  const ret = FunctionPrototypeCall(originals.write, res, chunk, encoding, callback);
  count(res, internals.chunkedBuffer(res).length > before ? outgoing.BUFFERED : outgoing.SENT);
  return ret;
}

function count(res, how) {
  if (how === outgoing.WROTE) counters.writes++;
  else if (how === outgoing.SENT || LINE < 24) counters.writesToNode++;
}

module.exports = { makeMethods };
