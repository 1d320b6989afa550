'use strict';

// The one module that reads or writes Node's private response state: the
// underscore fields of OutgoingMessage / ServerResponse, their private
// symbols, the socket fields the fast paths depend on, and the few private
// helpers of lib/_http_outgoing.js that lib/outgoing.js needs as Node has
// them (onFinish, queueEndCallback, strictContentLength, connectionCorkNT,
// Node's error classes).  Every access is listed with the Node majors it
// was checked on: the source of lib/_http_outgoing.js, lib/_http_server.js
// and lib/net.js of v20.20.2, v22.23.5, v24.22.3 and v26.12.1, and the tests
// on each.  A major that is not in TESTED is not accelerated: lib/install.js
// leaves Node's own code in place.

const http = require('node:http');
// The objects, not the getters on globalThis (lib/primordials.js).
const process = require('node:process');
const { Buffer } = require('node:buffer');
const net = require('node:net');
const Stream = require('node:stream');
const { OutgoingMessage, ServerResponse } = http;
const slots = require('./slots');
const { tidy } = require('./stack');
const {
  MathFloor, ArrayPrototypeIncludes, FunctionPrototypeCall, ObjectAssign, ObjectCreate, ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor, ObjectGetOwnPropertySymbols, ObjectGetPrototypeOf, ObjectKeys, ReflectApply,
  StringPrototypeSplit, StringPrototypeStartsWith, SymbolPrototypeGetDescription, hasLine, sourceOf, isNative,
  isProxy, newArray, ArrayPrototypeJoin, ObjectFreeze, dataOf,
} = require('./primordials');

const TESTED = [20, 22, 24, 26];
// The oldest release of each line the suite passes on: below it Node's
// http code differs where onewrite does its work (found by running the
// suite down each line, release by release):
//   20.19.5, 22.15.0: before them a string Content-Length stayed a string
//     as _contentLength (nodejs/node#57456), and strictContentLength threw
//     a mismatch onewrite does not;
//   24.22.1, 26.9.0: before them write_() corked the socket, not the
//     message, so the writes of one tick were not merged into one chunk.
const CHECKED_FROM = { 20: '20.19.5', 22: '22.15.0', 24: '24.22.1', 26: '26.9.0' };
// A version's numbers: '20.19.5' -> [20, 19, 5].
function versionNumbers(version) {
  const parts = StringPrototypeSplit('' + version, '.');
  return [+parts[0], +parts[1], +parts[2]];
}
const major = versionNumbers(process.versions.node)[0];

// Why onewrite cannot run on Node `version`, or null.
function versionRefusal(version) {
  const v = versionNumbers(version);
  const maj = v[0];
  if (!ArrayPrototypeIncludes(TESTED, maj)) return `Node ${version} is not a tested version (tested: ${ArrayPrototypeJoin(TESTED, ', ')})`;
  const from = versionNumbers(CHECKED_FROM[maj]);
  if (v[1] < from[1] || (v[1] === from[1] && v[2] < from[2]) || maj !== from[0]) {
    return `Node ${version} is older than the Node ${maj} releases onewrite was checked on (${CHECKED_FROM[maj]} and later)`;
  }
  return null;
}
const supported = versionRefusal(process.versions.node) === null;

// The release lines whose lib/_http_outgoing.js end(), write_() and
// uncork() are written alike: 20; 22; 24 and 26 (maybePrepareFinalChunk,
// end callbacks queued apart from 'finish', kChunkedBuffer merging).
const LINE = major >= 24 ? 24 : major >= 22 ? 22 : 20;
// writeHead() compares statusMessage with the standard phrase first, and
// checks it only when it differs, keeping that phrase's status line in a
// cache (26.12.1, not 26.10.0; 20, 22 and 24 check it always): told from
// Node's own writeHead, which names the cache (see originals below).

function findSymbol(object, description) {
  const symbols = ObjectGetOwnPropertySymbols(object);
  for (let i = 0; i < symbols.length; i++) {
    if (SymbolPrototypeGetDescription(symbols[i]) === description) return symbols[i];
  }
  return undefined;
}

// Symbols are discovered on objects that run no user-visible code when
// built: an OutgoingMessage (no diagnostics channel) and an http.Server
// that never listens.
const probeMessage = new OutgoingMessage();
const probeServer = new http.Server();
const kOutHeaders = findSymbol(probeMessage, 'kOutHeaders'); //             20 22 24 26
const kCorked = findSymbol(probeMessage, 'corked'); //                      20 22 24 26
const kNeedDrain = findSymbol(probeMessage, 'kNeedDrain'); //               20 22 24 26
const kBytesWritten = findSymbol(probeMessage, 'kBytesWritten'); //         20 22 24 26
const kErrored = findSymbol(probeMessage, 'errored'); //                    20 22 24 26
const kHighWaterMark = findSymbol(probeMessage, 'kHighWaterMark'); //       20 22 24 26
const kRejectBody = findSymbol(probeMessage, 'kRejectNonStandardBodyWrites'); // 20 22 24 26
const kChunkedBuffer = findSymbol(probeMessage, 'kChunkedBuffer'); //          22 24 26
const kChunkedLength = findSymbol(probeMessage, 'kChunkedLength'); //          22 24 26
const kEndCallbacks = findSymbol(probeMessage, 'kEndCallbacks'); //               24 26
const kWritableFinished = findSymbol(probeMessage, 'kWritableFinished'); //       24 26
const kFlushError = findSymbol(probeMessage, 'kFlushError'); //                   24 26
const kUniqueHeaders = findSymbol(probeServer, 'kUniqueHeaders'); //        20 22 24 26
// A socket's handle, where net keeps it: its _handle getter reads it, and
// its write path (writeGeneric) reads it itself.  Found on a socket made
// with no handle, which opens nothing.
const kHandle = findSymbol(new net.Socket(), 'kHandle'); //                 20 22 24 26

// What a supported Node must offer; anything missing disables the package.
function missing() {
  const problems = newArray();
  const need = { __proto__: null, kOutHeaders, kCorked, kNeedDrain, kBytesWritten, kErrored, kHighWaterMark,
    kRejectBody, kUniqueHeaders, kHandle };
  if (LINE >= 22) ObjectAssign(need, { __proto__: null, kChunkedBuffer, kChunkedLength, kSocket });
  if (LINE >= 24) ObjectAssign(need, { __proto__: null, kEndCallbacks, kWritableFinished, kFlushError });
  const names = ObjectKeys(need);
  for (let i = 0; i < names.length; i++) if (need[names[i]] === undefined) problems[problems.length] = names[i];
  const methods = ['_storeHeader', '_send', '_writeRaw', '_flushOutput', '_implicitHeader', '_finish', 'end',
    'write', 'uncork', 'writeHead'];
  for (let i = 0; i < methods.length; i++) {
    if (typeof ServerResponse.prototype[methods[i]] !== 'function') problems[problems.length] = methods[i];
  }
  if (LINE >= 24 && nodeNop === undefined) problems[problems.length] = 'nop';
  if (bufferLatin1Write === null) problems[problems.length] = 'Buffer.prototype.latin1Write';
  // Node's functions lib/ takes when it loads and calls itself: one
  // replaced before that (a wrapper loaded first) would run where Node's
  // code does not call it.
  if (!hasLine(dataOf(Buffer, 'allocUnsafe'), "validateNumber(size, 'size', 0, kMaxLength);")) {
    problems[problems.length] = 'Buffer.allocUnsafe (replaced before onewrite loaded)';
  }
  if (!hasLine(dataOf(require('node:timers'), 'setTimeout'), 'insert(timeout, timeout._idleTimeout)')) {
    problems[problems.length] = "node:timers' setTimeout (replaced before onewrite loaded)";
  }
  return problems;
}

// Node's own methods, taken when this module loads: each one only if it is
// Node's function (by a line of its source that a wrapper - shimmer-style,
// an APM agent's - would not have), else null, and what depends on it
// stays off (lib/install.js).  writeHead on 20-24 also has writeHeader, the
// alias Node keeps of its own writeHead, which a wrapper of writeHead
// leaves alone (20 22 24 26).
const SIGNATURES = {
  writeHead: "throw new ERR_HTTP_HEADERS_SENT('write')",
  implicitHeader: 'this.writeHead(this.statusCode)',
  storeHeader: 'processHeader(this, state, ',
  send: 'return this._writeRaw(data, encoding, callback',
  writeRaw: 'conn._httpMessage === this',
  flushOutput: 'const outputLength = this.outputData.length;',
  isLenient: ['isLenientHeaderValidation(this)', 'const serverHttpValidation = this.req?.socket?.server?.httpValidation;'],
  end: 'write_(this, chunk, encoding, ',
  write: 'write_(this, chunk, encoding, callback, false)',
  uncork: LINE >= 22 ? 'this._send(len.toString(16)' : 'this.socket.uncork()',
  addRequest: 'options = { __proto__: null, ...options, ...this.options };', //  20 22 24 26
};
// fn when its source has `line` (it is Node's), else null.  The source is
// read with the untouched realm's Function.prototype.toString
// (lib/primordials.js): a replaced or throwing one here, or a wrapper with
// a toString of its own that answers Node's source, is not believed.
function nodesOnly(fn, line) {
  return hasLine(fn, line) ? fn : null;
}
function nodes(name, fn) {
  return nodesOnly(fn, SIGNATURES[name]);
}
const SR = ServerResponse.prototype;
const OM = OutgoingMessage.prototype;
const originals = {
  storeHeader: nodes('storeHeader', OM._storeHeader),
  send: nodes('send', OM._send),
  writeRaw: nodes('writeRaw', OM._writeRaw),
  flushOutput: nodes('flushOutput', OM._flushOutput),
  isLenient: nodes('isLenient', OM._isLenientHeaderValidation),
  end: nodes('end', OM.end),
  write: nodes('write', OM.write),
  uncork: nodes('uncork', OM.uncork),
  writeHead: nodes('writeHead', SR.writeHead) ?? nodes('writeHead', SR.writeHeader),
  implicitHeader: nodes('implicitHeader', SR._implicitHeader),
  addRequest: nodes('addRequest', http.Agent.prototype.addRequest),
};
const pristine = {};
const SIGNATURE_NAMES = ObjectKeys(SIGNATURES);
for (let i = 0; i < SIGNATURE_NAMES.length; i++) {
  pristine[SIGNATURE_NAMES[i]] = originals[SIGNATURE_NAMES[i]] !== null;
}
const PHRASE_FIRST = originals.writeHead !== null && hasLine(originals.writeHead, 'statusLineCache'); //  26.12

// A socket whose write() is Node's own (not replaced on the instance or
// its class by a spy, an APM agent or a test counting the calls): only
// then may a fast path give it fewer, larger writes than Node would.
// net.Socket's write() is stream.Writable's (through stream.Duplex's copy
// of it); a wrapper put on any of the three before this module loads is
// not Node's (by a line of its source, as writeHead above), and with one
// every response's writes are Node's (20 22 24 26).
const SocketPrototype = net.Socket.prototype;
const socketWrite = SocketPrototype.write === Stream.Writable.prototype.write
  ? nodesOnly(SocketPrototype.write, '_write(this, chunk, encoding, cb) === true') : null;

// What socket.write() calls on its way to the kernel (20 22 24 26):
// Writable's write() calls socket._write() (one chunk) or socket._writev()
// (several, after a cork), both net.Socket's, which call _writeGeneric(),
// which calls _unrefTimer() and then one of the handle's write methods
// (writeGeneric, writevGeneric in lib/internal/stream_base_commons.js).
// A fast path gives the socket fewer, larger writes than Node would: a
// wrapper anywhere there would see other calls (one _write of the whole
// response where Node makes a _writev of five chunks), and would run its
// code inside the fast path's one write.  So each must be Node's own, or
// the call is Node's from the start (socketPathRefusal).
const socketWriteOne = nodesOnly(SocketPrototype._write, 'this._writeGeneric(false, data, encoding, cb);');
const socketWriteMany = nodesOnly(SocketPrototype._writev, "this._writeGeneric(true, chunks, '', cb);");
const socketWriteGeneric = nodesOnly(SocketPrototype._writeGeneric, 'req = writevGeneric(this, data, cb);');
const socketUnrefTimer = nodesOnly(SocketPrototype._unrefTimer, 's = s._parent)');

// The handle's write methods are native (LibuvStreamWrap's, TLSWrap's):
// a function JavaScript wrote never prints as native code with the
// method's name.  The last two sets seen to be so (a server with plain and
// TLS sockets meets two) are kept, so that a response compares six
// methods and reads no source.
const HANDLE_WRITES = ['writev', 'writeBuffer', 'writeLatin1String', 'writeUtf8String',
  'writeAsciiString', 'writeUcs2String'];
let nativeWrites = null;
let nativeWritesBefore = null;
function sameWrites(handle, known) {
  return known !== null && handle.writev === known.writev && handle.writeBuffer === known.writeBuffer &&
    handle.writeLatin1String === known.writeLatin1String && handle.writeUtf8String === known.writeUtf8String &&
    handle.writeAsciiString === known.writeAsciiString && handle.writeUcs2String === known.writeUcs2String;
}
function handleWritesAreNodes(handle) {
  return sameWrites(handle, nativeWrites) || sameWrites(handle, nativeWritesBefore) || learnHandle(handle);
}
// The slow half: each method, read through its descriptor (a getter there
// is not called), native and named as Node calls it.
function learnHandle(handle) {
  const fns = newArray();
  for (let i = 0; i < HANDLE_WRITES.length; i++) {
    const name = HANDLE_WRITES[i];
    const fn = methodOf(handle, name);
    if (!isNative(fn, name)) return false;
    fns[i] = fn;
  }
  nativeWritesBefore = nativeWrites;
  // (A literal of one shape: what sameWrites() reads stays a field load.)
  nativeWrites = {
    writev: fns[0], writeBuffer: fns[1], writeLatin1String: fns[2], writeUtf8String: fns[3],
    writeAsciiString: fns[4], writeUcs2String: fns[5],
  };
  return true;
}
// The data property `name` of o or of the first object on its prototype
// chain that has one, read without running code (a getter or a Proxy
// there: undefined).
function methodOf(o, name) {
  for (let depth = 0; o !== null && depth < 16; depth++) {
    if (isProxy(o)) return undefined;
    const d = ObjectGetOwnPropertyDescriptor(o, name);
    if (d !== undefined) return d.get === undefined && d.set === undefined ? d.value : undefined;
    o = ObjectGetPrototypeOf(o);
  }
  return undefined;
}

// The reason told for a socket with no handle, or a stream that is not one.
const NO_HANDLE = 'socket without a handle';

// Why the socket's write path is not Node's own, from write() to the
// handle, or null (20 22 24 26).  The handle is read last, from net's own
// field (kHandle), which its write path reads too; not through the
// _handle getter: a getter put there runs as often as without onewrite,
// and V8 has seen the getter's load of the symbol on every kind of
// socket (megamorphic: ~200 instructions, Node 20), where this load sees
// only the sockets responses write to.
function socketPathRefusal(socket) {
  if (socketWrite === null || socket.write !== socketWrite) return pathRefusal(socket, 'socket.write replaced');
  if (!socketCorksAreWritables(socket)) return pathRefusal(socket, 'socket.cork or uncork replaced');
  if (socketWriteOne === null || socket._write !== socketWriteOne ||
      socketWriteMany === null || socket._writev !== socketWriteMany ||
      socketWriteGeneric === null || socket._writeGeneric !== socketWriteGeneric ||
      socketUnrefTimer === null || socket._unrefTimer !== socketUnrefTimer) {
    return pathRefusal(socket, 'socket._write, _writev or _writeGeneric replaced');
  }
  const handle = socket[kHandle];
  if (handle == null) return NO_HANDLE;
  if (!handleWritesAreNodes(handle)) return "socket handle's write methods replaced";
  return null;
}
// A stream that is not a net.Socket (a test's Duplex) has other methods and
// no handle: the second is the reason told.
function pathRefusal(socket, why) {
  return socket[kHandle] == null ? NO_HANDLE : why;
}

// Buffer.prototype.latin1Write(string, offset): the bytes of a one-byte
// string into a Buffer, as buf.write(string, offset, 'latin1') writes them
// without its argument checks; taken at load, so that a later change to
// Buffer.prototype is not called.  Undocumented; there on 20 22 24 26.
const bufferLatin1Write = typeof dataOf(Buffer.prototype, 'latin1Write') === 'function'
  ? dataOf(Buffer.prototype, 'latin1Write') : null;

// ---- Node's errors, made by Node ------------------------------------------
// Node's error classes are not reachable (its NodeError factories build a
// plain Error or TypeError and give it a code and a message), so each error
// a fast path must throw or pass on where Node would is made by running
// Node's own code on a scratch message with the same arguments: the same
// class, code and message, a new object each time as Node makes them.

function scratch(fields) {
  return ObjectAssign(new OutgoingMessage(), fields);
}

function thrownBy(fn) {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

// The error Node passes to a callback: fn(cb) calls cb at once or hands it
// to process.nextTick(), which is held while fn runs so that no tick is
// queued.
function passedBy(fn) {
  const { nextTick } = process;
  let error;
  const cb = (err) => {
    error = err;
  };
  process.nextTick = (callback, err) => {
    if (callback === cb) error = err;
  };
  try {
    fn(cb);
  } finally {
    process.nextTick = nextTick;
  }
  return error;
}

const kSocket = findSymbol(probeMessage, 'kSocket'); //                            22 24 26

const errors = {
  // writeHead(): an invalid statusMessage (20 22 24 26)
  invalidStatusMessage: () => thrownBy(() => scratchResponse({}).writeHead(200, '\n')),
  // write_() and end(): strictContentLength (20 22 24 26)
  contentLengthMismatch: (written, expected) => {
    const m = scratch({ _header: 'x', _headerSent: true, strictContentLength: true,
      _contentLength: expected });
    m[kBytesWritten] = written;
    return thrownBy(() => FunctionPrototypeCall(originals.end, m));
  },
  // write_(): a body for HEAD/204/304 with rejectNonStandardBodyWrites (20 22 24 26)
  bodyNotAllowed: () => {
    const m = scratch({ _header: 'x', _hasBody: false });
    m[kRejectBody] = true;
    return thrownBy(() => FunctionPrototypeCall(originals.write, m, 'x'));
  },
  // write_() on a destroyed message (20 22 24 26)
  destroyedWrite: () => passedBy((cb) => FunctionPrototypeCall(originals.write, scratch({ destroyed: true }), 'x', cb)),
  // write_() on a finished and destroyed message: the error goes to the
  // callback, not to onError() (24 26)
  writeAfterEnd: () => passedBy((cb) => FunctionPrototypeCall(originals.write, scratch({ finished: true, destroyed: true }), 'x', cb)),
  // onFinish()'s error for an errored socket without an error of its own (24 26)
  destroyedEnd: () => {
    const m = scratch({ _header: 'x', _headerSent: true });
    let finish;
    const { nextTick } = process;
    process.nextTick = (callback) => {
      finish ??= callback;
    };
    try {
      FunctionPrototypeCall(originals.end, m);
    } finally {
      process.nextTick = nextTick;
    }
    m[kSocket] = { _hadError: true };
    finish();
    return m[kFlushError];
  },
  // queueEndCallback(): end() after 'finish' (24 26)
  alreadyFinished: () => passedBy((cb) => {
    const m = scratch({ finished: true });
    m[kWritableFinished] = true;
    FunctionPrototypeCall(originals.end, m, cb);
  }),
};

// Each maker is run when its error is needed, not at load: running Node's
// end() and write() on scratch messages at load gives V8 objects of other
// shapes at sites every response goes through (EventEmitter and stream
// constructors, write_()), which then stay megamorphic: ~1,600
// instructions a request on Node 26 (npm run bench:instr).  Its code, as
// Node makes it, is checked on every use; a maker whose Node functions are
// not Node's own (wrapped before onewrite loaded) is never run, and
// lib/install.js leaves the fast methods that need it off.  On a Node
// where a maker no longer gives Node's error, the error keeps Node's code
// and says so in its message.
const ERROR_MAKERS = {
  invalidStatusMessage: [['writeHead'], 'ERR_INVALID_CHAR'],
  contentLengthMismatch: [['end'], 'ERR_HTTP_CONTENT_LENGTH_MISMATCH'],
  bodyNotAllowed: [['write'], 'ERR_HTTP_BODY_NOT_ALLOWED'],
  destroyedWrite: [['write'], 'ERR_STREAM_DESTROYED'],
  writeAfterEnd: [['write'], 'ERR_STREAM_WRITE_AFTER_END'],
  destroyedEnd: [['end'], 'ERR_STREAM_DESTROYED'],
  alreadyFinished: [['end'], 'ERR_STREAM_ALREADY_FINISHED'],
};
const errorMakerWorks = {};
const MAKER_NAMES = ObjectKeys(ERROR_MAKERS);
for (let i = 0; i < MAKER_NAMES.length; i++) {
  const name = MAKER_NAMES[i];
  const needs = ERROR_MAKERS[name][0];
  const code = ERROR_MAKERS[name][1];
  const make = errors[name];
  let works = true;
  for (let j = 0; j < needs.length; j++) works &&= pristine[needs[j]];
  errorMakerWorks[name] = works;
  errors[name] = (a, b) => {
    let err;
    try {
      err = make(a, b);
    } catch {
      err = undefined;
    }
    if (typeof err !== 'object' || err === null || err.code !== code) {
      err = new Error(`${code} (onewrite could not have this Node make its own error)`);
      err.code = code;
    }
    // Its frames are where it was made: they are taken again, from where
    // it is thrown or handed on (lib/stack.js).
    return tidy(err, true);
  };
}

// Node's nop, which uncork() (24 26) tells from a real write callback
// (`buf[n] !== nop`) and write_() gives a write without one: the same
// function is what the OutgoingMessage constructor sets as _onPendingData
// (checked on 24.22.3 and 26.12.1), read there so that no method runs - a
// write() wrapped before onewrite was loaded would count one call more.
// (20 22: the constructor's is the same arrow, and write_()'s nop too:
// checked on 20.20.2 and 22.23.5.)
let nodeNop;
let pendingNop = null;
{
  const p = new OutgoingMessage()._onPendingData;
  if (sourceOf(p) === '() => {}') pendingNop = p;
  if (LINE >= 24 && pendingNop !== null) nodeNop = p;
}

// Node's nop: what write_() gives a write without callback (20 22 24 26).
function isNodeNop(fn) {
  return pendingNop !== null && fn === pendingNop;
}

// ---- lib/_http_outgoing.js helpers, as Node has them ------------------------

// function onFinish(outmsg[, err]): the callback of a response's last write,
// which emits 'finish' (and on 24 26 calls the end callbacks first).
// Node's own, where it can be had: a 'finish' listener or an end callback
// then runs under Node's frames, as with stock Node (a stack taken there,
// or an error an end callback gets, shows node:_http_outgoing, not
// onewrite).  It is private to Node's module, and leaves it in one place:
// end()'s `onFinish.bind(undefined, this)`, a call of
// Function.prototype.bind.  So Node's end() runs once here, at load, on a
// scratch message whose _send does nothing, with bind (V8's own, a data
// property) briefly one that notes the function it is called on, and put
// back as it was.  Checked by its source; otherwise (Function.prototype
// frozen, bind replaced before onewrite loaded, end() not Node's) the
// transcription below stands in.
function nodesOnFinish() {
  const FunctionPrototype = ObjectGetPrototypeOf(OM.end);
  const bind = ObjectGetOwnPropertyDescriptor(FunctionPrototype, 'bind');
  if (originals.end === null || bind === undefined || !isNative(bind.value, 'bind') ||
      bind.writable !== true || bind.configurable !== true) return undefined;
  let found;
  const nativeBind = bind.value;
  ObjectDefineProperty(FunctionPrototype, 'bind', {
    __proto__: null,
    ...bind,
    value: function bind() {
      found ??= this;
      return ReflectApply(nativeBind, this, arguments);
    },
  });
  try {
    const m = scratch({ _header: 'x', _headerSent: false, chunkedEncoding: false });
    m._send = () => true;
    FunctionPrototypeCall(originals.end, m);
  } catch {
    found = undefined;
  } finally {
    ObjectDefineProperty(FunctionPrototype, 'bind', bind);
  }
  return typeof found === 'function' && StringPrototypeStartsWith(sourceOf(found), 'function onFinish(outmsg') ? found : undefined;
}

// The transcription: 20 (onFinish), 22 (same, optional chaining), 24 26
// (end callbacks first, an error or an errored socket suppresses
// 'finish').
let onFinish = nodesOnFinish();
if (onFinish !== undefined) {
  // Node's own.
} else if (LINE === 20) {
  onFinish = function onFinish(outmsg) {
    if (outmsg && outmsg.socket && outmsg.socket._hadError) return;
    outmsg.emit('finish');
  };
} else if (LINE === 22) {
  onFinish = function onFinish(outmsg) {
    if (outmsg?.socket?._hadError) return;
    outmsg.emit('finish');
  };
} else {
  onFinish = function onFinish(outmsg, err) {
    if (err ||
        outmsg[kErrored] ||
        outmsg.socket?.errored ||
        outmsg.socket?._hadError) {
      outmsg[kFlushError] = err ?? getEndCallbackError(outmsg);
      flushEndCallbacks(outmsg, outmsg[kFlushError]);
      return;
    }
    outmsg[kWritableFinished] = true;
    flushEndCallbacks(outmsg, null);
    outmsg.emit('finish');
  };
}

function flushEndCallbacks(msg, err) { //                                      24 26
  const callbacks = msg[kEndCallbacks];
  if (callbacks === null) return;
  msg[kEndCallbacks] = null;
  for (let i = 0; i < callbacks.length; i++) callbacks[i](err);
}

function getEndCallbackError(msg) { //                                         24 26
  return msg[kErrored] ?? msg.socket?.errored ?? errors.destroyedEnd();
}

function queueEndCallback(msg, callback) { //                                  24 26
  if (msg[kWritableFinished]) {
    callback(errors.alreadyFinished());
    return;
  }
  if (msg[kFlushError] !== null) {
    process.nextTick(callback, msg[kFlushError]);
    return;
  }
  msg[kEndCallbacks] ??= [];
  msg[kEndCallbacks].push(callback);
}

function strictContentLength(msg) { //                                   20 22 24 26
  return (
    msg.strictContentLength &&
    msg._contentLength != null &&
    msg._hasBody &&
    !msg._removedContLen &&
    !msg.chunkedEncoding &&
    !msg.hasHeader('transfer-encoding')
  );
}

// The cork write_() takes for a write() that is not the last (until the
// next tick): on 20 and 22 the socket's, on 24 and 26 the response's.
function connectionCorkNT(conn) { //                                          20 22
  conn.uncork();
}

function messageCorkNT(msg) { //                                               24 26
  if (msg[kCorked]) msg.uncork();
}

// `cork` (24 26): msg.cork, when the caller has read it already (it is
// read once, as write_() reads it).
function corkForWrite(msg, cork = LINE >= 24 ? msg.cork : undefined) {
  if (LINE >= 24) {
    if (typeof cork === 'function') FunctionPrototypeCall(cork, msg);
    else FunctionPrototypeCall(callCork, { cork }); // Node's TypeError, with no second read
    process.nextTick(messageCorkNT, msg);
  } else {
    msg.socket.cork();
    process.nextTick(connectionCorkNT, msg.socket);
  }
}

// The cork the fast chunked write takes for the rest of the tick, as Node's
// write_() takes the socket's on 20 and 22: the writes of one tick leave in
// one syscall.
function corkSocketForTick(socket) {
  socket.cork();
  process.nextTick(connectionCorkNT, socket);
}

// Make the write() just made its own chunk, without sending it before the
// end of the tick (so that the items of one tick still leave in one
// syscall, one buffer each), for lib/stream.js:
// - 20, 22: each write() already is its own chunk, in a socket corked until
//   the next tick (write_ and connectionCorkNT): nothing to do;
// - 24, 26: write() corked the response (kCorked 1) and buffers the data,
//   to be merged with the tick's other writes; uncork() now frames it as
//   one chunk, into the socket, which is held corked until the next tick
//   here (messageCorkNT then finds kCorked 0 and does nothing).
// A cork the user holds (kCorked > 1) is left alone.
function endChunk(res) {
  if (LINE < 24) return;
  const socket = res.socket;
  if (socket == null || socket._httpMessage !== res || res[kCorked] !== 1) return;
  if (socket.writableCorked === 1) {
    // Only write()'s cork: hold the socket for the rest of the tick.
    corkSocketForTick(socket);
  }
  res.uncork();
}

// end()'s last step on the socket: "Fully uncork connection on end()"
// (20 22 24 26).  When socket.uncork is stream.Writable's own and the
// socket is not corked and holds nothing, the call would only take corked
// from 1 back to 0 (clearBuffer() finds nothing to flush), and is not
// made.  Otherwise corked is set to 1 and socket.uncork read and called,
// as Node does.
// Taken only if it is Node's (a wrapper put there before this module
// loaded is user code: then the socket's uncork() is always called).
const writableUncork = nodesOnly(Stream.Writable.prototype.uncork, 'clearBuffer(this, state)');
function uncorkFully(socket) {
  if (uncorkDoesNothing(socket)) return;
  socket._writableState.corked = 1;
  socket.uncork();
}

// Whether socket.uncork() would do nothing: Writable's own uncork() of a
// socket that is not corked, nothing buffered.  socket.uncork is read last,
// only when the state allows it.
function uncorkDoesNothing(socket) {
  const state = socket._writableState;
  return state.corked === 0 && state.buffered.length === state.bufferedIndex &&
    isWritablesUncork(socket.uncork);
}

// Whether `uncork` (read from a socket) is stream.Writable's own
// (net.Socket's on 20-26): no code of the user's runs in it, so a call of
// it no one can count.
function isWritablesUncork(uncork) {
  return writableUncork !== null && uncork === writableUncork;
}

// Whether the socket's cork() and uncork() are stream.Writable's own: Node's
// end() and write() call them, and a wrapper there (an agent's, a spy) is
// user code running between Node's steps, after which the fast paths would
// have to decide again; with one, the call is Node's from the start.
const writableCork = nodesOnly(Stream.Writable.prototype.cork, 'state.corked++');
function socketCorksAreWritables(socket) {
  return writableCork !== null && writableUncork !== null &&
    socket.cork === writableCork && socket.uncork === writableUncork;
}

// OutgoingMessage.prototype.cork as Node has it (24 26: write_() corks the
// response through it; checked on 24.22.3 and 26.12.1), or null.
const nodeCork = nodesOnly(OM.cork, 'this[kCorked]++');
function isNodesCork(cork) {
  return nodeCork !== null && cork === nodeCork;
}

// end()'s last step on the response's own cork count: 20 sets it to 0; 22,
// 24 and 26 set it to 1 and call this.uncork() (read once), which flushes
// buffered chunks.  `plain(uncork)`: whether that uncork() is Node's own,
// or one that calls Node's own for a response with no chunk buffered
// (onewrite's).  With no chunk buffered, Node's uncork() only takes kCorked
// from 1 to 0 and calls socket.uncork(), which does nothing on a socket
// uncorkFully() left uncorked.  All of it is decided after the read of
// this.uncork, which may be a getter: what it did to the response or the
// socket is seen.
function uncorkMessage(msg, plain) {
  if (LINE === 20) {
    msg[kCorked] = 0;
    return;
  }
  const uncork = msg.uncork;
  const socket = msg[kSocket];
  if (msg[kChunkedBuffer].length === 0 && plain(uncork, msg) &&
      (socket == null || uncorkDoesNothing(socket))) {
    msg[kCorked] = 0;
    return;
  }
  msg[kCorked] = 1;
  if (typeof uncork === 'function') FunctionPrototypeCall(uncork, msg);
  else FunctionPrototypeCall(callUncork, { uncork }); // Node's TypeError, with no second read
}

// `this.uncork()`, as Node's end() spells it: for a value that is not a
// function, V8's TypeError names the call as written ("this.uncork is not
// a function").  Called on a plain holder of the value already read.
function callUncork() {
  this.uncork();
}

// `msg.cork()`, as write_() spells it (24 26), the same way.
function callCork() {
  const msg = this;
  msg.cork();
}

// ---- a ServerResponse without a socket, for buildHead ---------------------

// A ServerResponse with no request and no socket, for running Node's own
// code on chosen inputs (buildHead's reference path).  It is made without
// the ServerResponse constructor, which would announce it on the
// 'http.server.response.created' diagnostics channel; the fields that
// constructor sets are set here instead (20 22 24 26).  Node's own
// _storeHeader, writeHead and end are pinned on the instance, so an
// installed onewrite does not take part.
function scratchResponse({ sendDate, keepAlive, hasBody, keepAliveTimeout, maxRequestsPerSocket }) {
  const res = ObjectCreate(ServerResponse.prototype);
  FunctionPrototypeCall(OutgoingMessage, res);
  res.sendDate = sendDate;
  res.shouldKeepAlive = keepAlive;
  res._hasBody = hasBody;
  res._sent100 = false;
  res._expect_continue = false;
  res._keepAliveTimeout = keepAliveTimeout;
  res._maxRequestsPerSocket = maxRequestsPerSocket;
  // (Where a module wrapped one of them before onewrite loaded, Node's own
  // is not known: the one on the prototype is used.)
  res._storeHeader = originals.storeHeader ?? OM._storeHeader;
  res.writeHead = originals.writeHead ?? SR.writeHead;
  res.end = originals.end ?? OM.end;
  return res;
}

// The bytes a socket-less response queued in outputData, in order, each
// entry encoded the way _writeRaw would hand it to a socket.
function queuedBytes(res) {
  return Buffer.concat(res.outputData.map(({ data, encoding }) =>
    (typeof data === 'string' ? Buffer.from(data, encoding || 'utf8') : data)));
}

// ---- the head ------------------------------------------------------------

// The Keep-Alive line _storeHeader writes, from numbers.  20-24 print the
// raw _maxRequestsPerSocket, 26 the ~~ of it (its cached
// keepAliveHeaderCache).
function keepAliveLine(timeout, max) {
  const timeoutSeconds = MathFloor(timeout / 1000);
  if (major >= 26) {
    const m = ~~max;
    return `Keep-Alive: timeout=${timeoutSeconds}` + (m > 0 ? `, max=${m}` : '') + '\r\n';
  }
  return `Keep-Alive: timeout=${timeoutSeconds}${~~max > 0 ? `, max=${max}` : ''}\r\n`;
}

const {
  SEND_DATE, KEEP_ALIVE, CHUNKED_DEFAULT, HAS_BODY, REMOVED_CONN, REMOVED_CL, REMOVED_TE,
  MAX_REACHED, DEFAULT_KA, AGENT, CHUNKED, LAST,
} = slots;

// The response fields _storeHeader consults, as head.h state bits (20 22 24 26).
function headState(res) {
  let st = 0;
  if (res.sendDate) st |= SEND_DATE;
  if (res.shouldKeepAlive) st |= KEEP_ALIVE;
  if (res.useChunkedEncodingByDefault) st |= CHUNKED_DEFAULT;
  if (res._hasBody) st |= HAS_BODY;
  if (res._removedConnection) st |= REMOVED_CONN;
  if (res._removedContLen) st |= REMOVED_CL;
  if (res._removedTE) st |= REMOVED_TE;
  if (res.maxRequestsOnConnectionReached) st |= MAX_REACHED;
  if (res._defaultKeepAlive) st |= DEFAULT_KA;
  if (res.agent) st |= AGENT;
  if (res.chunkedEncoding) st |= CHUNKED;
  if (res._last) st |= LAST;
  return st;
}

// Copy back what _storeHeader would have changed: only the bits that moved.
function applyState(res, out, changed) {
  if (changed & LAST) res._last = (out & LAST) !== 0;
  if (changed & CHUNKED) res.chunkedEncoding = (out & CHUNKED) !== 0;
  if (changed & KEEP_ALIVE) res.shouldKeepAlive = (out & KEEP_ALIVE) !== 0;
  if (changed & REMOVED_CONN) res._removedConnection = (out & REMOVED_CONN) !== 0;
  if (changed & REMOVED_CL) res._removedContLen = (out & REMOVED_CL) !== 0;
  if (changed & REMOVED_TE) res._removedTE = (out & REMOVED_TE) !== 0;
  if (changed & DEFAULT_KA) res._defaultKeepAlive = (out & DEFAULT_KA) !== 0;
}

// The last thing _storeHeader does (20 22 24 26): _header is a latin1 string.
// _storeHeader()'s first call through the response on 24.22+ and 26:
// this._isLenientHeaderValidation(), which works out and keeps whether the
// server validates header values leniently (its httpValidation option).
// Where it is Node's own it is called as _storeHeader calls it, before
// any header is read; replaced (a wrapper) it is user code that
// _storeHeader runs there, and the head is Node's to build.  Answers
// whether the head may be built here.
const HAS_LENIENT = typeof OM._isLenientHeaderValidation === 'function'; //    24.22 26
function headerValidationIsNodes(res) {
  if (!HAS_LENIENT) return true;
  if (originals.isLenient === null || res._isLenientHeaderValidation !== originals.isLenient) return false;
  FunctionPrototypeCall(originals.isLenient, res);
  return true;
}

function storeHead(res, head) {
  res._header = head;
  res._headerSent = false;
}

function contentLength(res) {
  return res._contentLength;
}

function setContentLength(res, value) {
  res._contentLength = value;
}

function outHeaders(res) {
  return res[kOutHeaders];
}

function isOutHeaders(res, headers) {
  return headers === res[kOutHeaders];
}

function uniqueHeaders(res) {
  return res[kUniqueHeaders];
}

function keepAliveTimeout(res) {
  return res._keepAliveTimeout;
}

function maxRequestsPerSocket(res) {
  return res._maxRequestsPerSocket;
}

// writeHead's steps for 204, 304 and 1xx, and for an unanswered
// Expect: 100-continue (20 22 24 26).
function dropBody(res) {
  res._hasBody = false;
}

function expectPending(res) {
  return res._expect_continue && !res._sent100;
}

function dontKeepAlive(res) {
  res.shouldKeepAlive = false;
}

// What _storeHeader does last when the user set an Expect header (20 22 24 26).
function flushHead(res) {
  res._send('');
}

// ---- the state end(), write() and uncork() read ---------------------------

function headerRendered(res) {
  return !!res._header;
}

// The head has been built (by writeHead or _implicitHeader) but not sent.
function headPending(res) {
  return !res._headerSent && typeof res._header === 'string' && res._header.length > 0;
}

function head(res) {
  return res._header;
}

function headSent(res) {
  return res._headerSent;
}

function markHeadSent(res) {
  res._headerSent = true;
}

function hasBody(res) {
  return res._hasBody;
}

function isChunked(res) {
  return res.chunkedEncoding;
}

function trailer(res) {
  return res._trailer;
}

function rejectsBody(res) {
  return res[kRejectBody];
}

function bytesWritten(res) {
  return res[kBytesWritten];
}

function addBytesWritten(res, n) {
  res[kBytesWritten] += n;
}

function setNeedDrain(res) {
  res[kNeedDrain] = true;
}

function highWaterMark(res) {
  return res[kHighWaterMark];
}

function outputLength(res) {
  return res.outputData.length;
}

// The response's own cork count (res.cork()); 20 counts only while there
// is no socket.
function corked(res) {
  return res[kCorked];
}

function setCorked(res, n) {
  res[kCorked] = n;
}

// The chunks a 22+ response holds back until uncork(): [data, encoding,
// callback, ...] and their byte count; [] on 20.
const NO_CHUNKS = ObjectFreeze(newArray());
function chunkedBuffer(res) {
  return kChunkedBuffer === undefined ? NO_CHUNKS : res[kChunkedBuffer];
}

function chunkedLength(res) {
  return res[kChunkedLength];
}

function pushChunk(res, chunk, encoding, callback, len) {
  res[kChunkedBuffer].push(chunk, encoding, callback);
  if (len !== undefined) res[kChunkedLength] += len;
}

function clearChunked(res) {
  res[kChunkedBuffer].length = 0;
  res[kChunkedLength] = 0;
}

function needDrain(res) {
  return res[kNeedDrain];
}

function clearNeedDrain(res) {
  res[kNeedDrain] = false;
}

// ---- the socket ------------------------------------------------------------

// The server's count of data waiting behind the socket, as _send() and
// _flushOutput() move it (20 22 24 26).
function pendingData(res, delta) {
  res._onPendingData(delta);
}

// The socket's Writable state, read where Writable's getters
// (writableLength, writableCorked, writableHighWaterMark) would read it, for
// the fast paths' own decisions: Node's code does not call those getters
// there, so a getter put on the socket is not run (20 22 24 26).
function socketBuffered(socket) {
  return socket._writableState.length;
}

function socketCorked(socket) {
  return socket._writableState.corked;
}

function socketHighWaterMark(socket) {
  return socket._writableState.highWaterMark;
}

function socketOwner(socket) {
  return socket._httpMessage;
}


// Node's _send, _writeRaw and _flushOutput (which _writeRaw calls to write a
// head queued apart from bytes), not replaced on the response or its class:
// the fast paths do what they would do, so a replacement must see Node's
// calls instead.
function sendIsNodes(res) {
  const flushOutput = res._flushOutput;
  return res._send === originals.send && res._writeRaw === originals.writeRaw &&
    (flushOutput === originals.flushOutput || (flushOutput === ownFlushOutput && flushOutput !== null));
}
// onewrite's _flushOutput (lib/response.js), which does Node's for a
// response: the same as Node's here.
let ownFlushOutput = null;
function setOwnFlushOutput(fn) {
  ownFlushOutput = fn;
}

// The calls end(), write() and uncork() make (20 22 24 26), through the
// response as Node makes them, so that a method replaced on the response
// or its class is the one called.
function send(res, data, encoding, callback, byteLength) {
  return res._send(data, encoding, callback, byteLength);
}

function implicitHeader(res) {
  res._implicitHeader();
}

// What end() checks last, before this._finish() (20 22 24 26): the
// message is the first on its socket, and all of it was sent.  (On 22+
// Node reads the socket from kSocket: here the socket getter.)
function finishes(res) {
  return res.outputData.length === 0 && !!res.socket && res.socket._httpMessage === res;
}

module.exports = {
  TESTED,
  LINE,
  PHRASE_FIRST,
  CHECKED_FROM,
  versionRefusal,
  major,
  supported,
  missing,
  originals,
  pristine,
  errors,
  errorMakerWorks,
  nodeNop,
  isNodeNop,
  setOwnFlushOutput,
  symbols: {
    kOutHeaders, kCorked, kChunkedBuffer, kChunkedLength, kUniqueHeaders, kNeedDrain, kBytesWritten,
    kErrored, kHighWaterMark, kRejectBody, kEndCallbacks, kWritableFinished, kFlushError,
  },
  onFinish,
  bufferLatin1Write,
  queueEndCallback,
  strictContentLength,
  corkForWrite,
  corkSocketForTick,
  endChunk,
  uncorkFully,
  uncorkMessage,
  isWritablesUncork,
  socketCorksAreWritables,
  isNodesCork,
  scratchResponse,
  queuedBytes,
  keepAliveLine,
  headState,
  applyState,
  storeHead,
  headerValidationIsNodes,
  contentLength,
  setContentLength,
  outHeaders,
  isOutHeaders,
  uniqueHeaders,
  keepAliveTimeout,
  maxRequestsPerSocket,
  dropBody,
  expectPending,
  dontKeepAlive,
  flushHead,
  headerRendered,
  headPending,
  head,
  headSent,
  markHeadSent,
  hasBody,
  isChunked,
  trailer,
  rejectsBody,
  bytesWritten,
  addBytesWritten,
  setNeedDrain,
  highWaterMark,
  outputLength,
  corked,
  setCorked,
  chunkedBuffer,
  chunkedLength,
  pushChunk,
  clearChunked,
  needDrain,
  clearNeedDrain,
  socketOwner,
  socketBuffered,
  socketCorked,
  socketHighWaterMark,
  socketPathRefusal,
  pendingData,
  sendIsNodes,
  send,
  implicitHeader,
  finishes,
};
