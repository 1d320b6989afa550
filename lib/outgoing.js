'use strict';

// Node's end(chunk), write(chunk) and uncork() for a ServerResponse,
// transcribed from lib/_http_outgoing.js of each release line (20; 22; 24
// and 26: internals.LINE), with one difference: where Node sends the bytes
// of a response - its head, a chunk's size line, the data, CRLF, the
// last-chunk - in several _send() calls into a corked socket, they go out
// in one socket write (or, for a large body, one corked writev), when that
// is provably the same:
//  - the socket is this response's, writable, with Node's own write(), and
//    nothing is queued before these bytes (outputData, the response's own
//    cork, buffered chunks);
//  - Node's own _send and _writeRaw are the ones the response would call;
//  - the bytes are the same: the head is merged with text only in the
//    encodings Node merges it in.
// Otherwise Node's own _send() calls are made, in Node's order.
//
// Every call Node makes through the response (this._implicitHeader(),
// this._send(), this._finish(), this.emit(), this.once(), this.uncork())
// or the socket is made the same way here, so a method replaced on the
// response or its class is the one that runs; and since such a call can
// run code of the user's, every decision Node takes after it is taken
// after it here too, from the state as it is then.  The callers have made
// sure that nothing before the first such call can run user code.

// The objects, not the getters on globalThis (lib/primordials.js).
const process = require('node:process');
const { Buffer } = require('node:buffer');
const Stream = require('node:stream');
const internals = require('./internals');
const head = require('./head');
const guard = require('./guard');
const { protoOf } = require('./walk');
const S = require('./slots');
const {
  FunctionPrototypeCall, ObjectHasOwn, RegExpPrototypeTest, TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeSet, isUint8Array, newArray, newRegExp,
} = require('./primordials');
const { binding } = require('./native');

const { LINE, onFinish, bufferLatin1Write } = internals;
const nop = internals.nodeNop || (() => {});
const crlf = Buffer.from('\r\n');
const EMPTY = Buffer.alloc(0);
const { allocUnsafe } = Buffer;
const { MAX_STRING_LENGTH } = require('node:buffer').constants;

// The longest head and text joinText() keeps for the next response.
const COPY_LIMIT = 16 * 1024;
// end(bytes) and a chunked write(bytes) copy the bytes next to their head
// or size line up to this size (in all), into one latin1 string.  Larger,
// the copy costs more than the writes it saves: a 12 KB Buffer counted
// 80,374 instructions a request under callgrind against stock's 54,404
// for end(buffer) (Node 20; benchmark/README.md).  Node copies no bytes.
const BUFFER_COPY_LIMIT = 4095;

// ---- the one write ----------------------------------------------------------

// Why the bytes Node would _send() for this response may not go straight
// to its socket, as a reason, or null (20 22 24 26).  Asked before a fast
// path starts and again after the last call that could run user code.
// `flushing`: uncork() is flushing the response's own buffered chunks, so
// its cork and those chunks are what it undoes.
function socketRefusal(res, flushing = false) {
  const socket = res.socket;
  if (socket == null) return 'no socket';
  if (internals.socketOwner(socket) !== res) return 'pipelined';
  if (socket.destroyed) return 'socket destroyed';
  if (!socket.writable) return 'socket not writable';
  const path = internals.socketPathRefusal(socket);
  if (path !== null) return path;
  if (!internals.sendIsNodes(res)) return '_send replaced';
  if (internals.outputLength(res) !== 0) return 'output queued';
  if (flushing) return null;
  if (internals.corked(res) !== 0) return 'corked';
  if (internals.chunkedBuffer(res).length !== 0) return 'chunks buffered';
  return null;
}

// Node merges a pending head into a string write only for these exact
// encodings (OutgoingMessage#_send), and writes the merged string in them.
function mergesWithHead(encoding) {
  return encoding === 'utf8' || encoding === 'latin1' || !encoding;
}

// The head still to send ('' once it is on its way), as Node's _send()
// would prepend it, marking it sent.
function takeHead(msg) {
  if (!internals.headPending(msg)) return '';
  const h = internals.head(msg);
  internals.markHeadSent(msg);
  return h;
}

// A head that is ASCII: '' or one this package rendered.  Text after it may
// then be written with it as UTF-8.
function asciiHead(h) {
  return h === '' || head.isOwnHead(h);
}

// Why the last helper below answered undefined, read by its caller at once.
let refusal = '';

// Text joined here (the head, a chunk's framing, several chunks) must fit in
// one V8 string: where Node sends the parts apart, a join past V8's limit
// would throw a RangeError Node never throws.  `n` is the joined length.
function tooLongToJoin(n) {
  if (n <= MAX_STRING_LENGTH) return false;
  refusal = 'text too long to join';
  return true;
}

// The head (not '') and a string or bytes as one string, what Node's
// _send(chunk) sends, merged or not, in one write; computed with nothing
// written.  Answers the string (its encoding in `joinedAs`), APART (bytes
// too large to copy next to the head, or behind bytes already queued:
// they go in their own write), or undefined (`refusal` set) where the
// bytes cannot be the same; callers read `joinedAs` at once, before any
// other call.  `copy`: small bytes may be copied next to the head (end(),
// whose write may go at once: liftEndCork).
const APART = null;
let joinedAs = 'latin1';
function joinedWithHead(socket, h, chunk, encoding, len, oneByte, copy) {
  if (typeof chunk === 'string') {
    if (tooLongToJoin(h.length + chunk.length)) return undefined;
    if (encoding === 'latin1' || encoding === 'binary' || (oneByte && asciiHead(h))) {
      // The head is latin1; so is this text, byte for byte.
      joinedAs = 'latin1';
      return joinText(h, chunk);
    }
    if (mergesWithHead(encoding) || asciiHead(h)) {
      // As Node merges it; or ('utf-8') the head apart, the same bytes.
      joinedAs = 'utf8';
      return h + chunk;
    }
    refusal = 'latin1 head before utf-8 text';
    return undefined;
  }
  // Small bytes are copied next to the head into one latin1 string.
  // (Behind bytes already queued they would wait, and Node sends what the
  // Buffer holds by then: not copied.)
  if (!copy || h.length + len > BUFFER_COPY_LIMIT || internals.socketBuffered(socket) !== 0) return APART;
  joinedAs = 'latin1';
  return join(h, chunk, 0);
}

// The head (or '') and a string or bytes, unframed: what Node's
// _send(chunk) sends, merged or not.  Returns the socket.write() result,
// or undefined (nothing written, `refusal` set) where one write cannot
// carry it.
// `lift`: end()'s cork may be lifted before a single write (liftEndCork);
// false for write(), whose bytes go into a socket corked for the tick.
function writePlain(msg, socket, h, chunk, encoding, len, oneByte, callback, lift) {
  if (h === '') {
    if (lift) liftEndCork(socket, chunk);
    return socket.write(chunk, typeof chunk === 'string' ? encoding : null, callback);
  }
  const data = joinedWithHead(socket, h, chunk, encoding, len, oneByte, lift);
  if (data === undefined) return undefined;
  const as = joinedAs;
  const apart = headLeaves(msg, h, chunk, encoding);
  let ret;
  if (data !== APART) {
    if (lift) liftEndCork(socket, data);
    ret = socket.write(data, as, callback);
  } else {
    // write(), and larger bytes: the head in a Buffer of its own, then the
    // bytes, not copied, as Node sends them (two chunks; the bytes sent are
    // those the Buffer holds when the socket writes, as with Node).  They
    // leave in one writev of Buffers alone, with end()'s empty Buffer after
    // them when it follows in the tick (sendFinal): Node's writev then takes
    // its path for buffers, with no string to measure and copy and no
    // encoding name to parse for each chunk.
    socket.write(latin1Bytes(h), null);
    headLeft(msg, apart);
    return socket.write(chunk, null, callback);
  }
  headLeft(msg, apart);
  return ret;
}

// The head (or ''), one chunk framed as Node frames it ("hex\r\n" data
// "\r\n") and `after` (the last-chunk, for end(); '' for write()).  The
// head is marked sent before the first write (Node's first _send() is the
// size line, with which it merges the head).
function writeFramed(msg, socket, h, chunk, encoding, len, oneByte, after, callback, lift) {
  // Node's write_() and uncork() make it with len.toString(16) (live).
  const size = len.toString(16) + '\r\n';
  if (typeof chunk === 'string') {
    if (tooLongToJoin(h.length + size.length + chunk.length + 2 + after.length)) return undefined;
    if (oneByte || (asciiHead(h) && !RegExpPrototypeTest(NOT_ASCII, after))) {
      const data = h + size + chunk + '\r\n' + after;
      headGoes(msg, h);
      if (lift) liftEndCork(socket, data);
      return socket.write(data, oneByte ? 'latin1' : 'utf8', callback);
    }
    // A latin1 head or trailer and multibyte text: in their own encodings.
    headGoes(msg, h);
    socket.write(h + size, 'latin1');
    if (after === '') return socket.write(chunk + '\r\n', encoding, callback);
    socket.write(chunk + '\r\n', encoding);
    return socket.write(after, 'latin1', callback);
  }
  if (h.length + len <= BUFFER_COPY_LIMIT && (!lift || internals.socketBuffered(socket) === 0)) {
    if (!lift) {
      // Small bytes that will wait in the socket for what follows them
      // (write(), corked for the tick): one Buffer, so that the socket's
      // writev of them all is of Buffers alone (see writePlain).  (20 22:
      // README, "Where onewrite differs".)
      const data = framedBytes(h + size, chunk, len, '\r\n' + after);
      headGoes(msg, h);
      return socket.write(data, null, callback);
    }
    // end() written at once: one latin1 string.
    let data;
    if (after === LAST_CHUNK) {
      data = join(h, chunk, 1);
    } else {
      const framed = frameBytes(chunk);
      data = framed === undefined ? undefined : h + framed + after;
    }
    if (data === undefined) return undefined;
    headGoes(msg, h);
    liftEndCork(socket, data);
    return socket.write(data, 'latin1', callback);
  }
  // Larger bytes, and end()'s behind bytes already queued (which wait,
  // and go as the Buffer is then), are not copied (as in writePlain): head
  // and size line, the bytes, CRLF and `after`, each a Buffer.
  const first = latin1Bytes(h + size);
  const last = latin1Bytes('\r\n' + after);
  headGoes(msg, h);
  socket.write(first, null);
  socket.write(chunk, null);
  return socket.write(last, null, callback);
}

// The head leaves in the write that follows: Node's _send() marks it sent
// before it writes, so that a write() or end() called from inside the
// socket's write (a wrapper there, an agent's) finds it sent, as with
// Node, and sends no head again.
function headGoes(msg, h) {
  if (h !== '') internals.markHeadSent(msg);
}

// The same for unframed data, where Node's _send() merges the head only
// with text in utf8 or latin1.  Any other data (bytes, text in another
// encoding) it queues the head apart, moving the server's pending-data
// count up by its length before it marks it sent, and down once the head
// is written (_flushOutput): the server's socketOnDrain() runs twice (it
// resumes a socket paused by a pipelined flood once the count allows).
// Answers how far to move it down after the head's write (headLeft), 0
// where Node merges.
function headLeaves(msg, h, chunk, encoding) {
  if (typeof chunk === 'string' && mergesWithHead(encoding)) {
    internals.markHeadSent(msg);
    return 0;
  }
  internals.pendingData(msg, h.length);
  internals.markHeadSent(msg);
  return h.length;
}

function headLeft(msg, apart) {
  if (apart !== 0) internals.pendingData(msg, -apart);
}

const LAST_CHUNK = '0\r\n\r\n';

// h + text, the last one kept: a server answering the same text after the
// same head (a kept head is the same string until the Date changes) writes
// the same string, flattened once.  Strings cannot change, so a kept one is
// always right.  Only a kept head is looked up: one patched or rendered
// for this response is a new string, and === would compare its bytes with
// the last one's to find them different (~250 instructions a response
// with a request id, Node 26).
let joinedHead = null;
let joinedText = null;
let joined = '';
function joinText(h, text) {
  if (head.isKeptHead(h) && h === joinedHead && text === joinedText) return joined;
  const s = h + text;
  if (s.length <= COPY_LIMIT) {
    joinedHead = h;
    joinedText = text;
    joined = s;
  }
  return s;
}
const NOT_ASCII = newRegExp('[^\\x00-\\x7f]');

// Head (latin1) and bytes copied together by the addon into one latin1
// string; framed as one chunk and the last-chunk when `framing`.
function join(h, bytes, framing) {
  head.ints[S.S_TEXT_LEN] = h.length;
  head.ints[S.S_BODY_KIND] = S.BODY_BYTES;
  head.ints[S.S_FRAME] = framing;
  const joined = binding.join(h, bytes);
  if (joined === undefined) refusal = `join: ${S.RESULTS[head.ints[S.S_RESULT]]}`;
  return joined;
}

// A latin1 string (a head, framing) as a Buffer (from Buffer's pool when
// short).
function latin1Bytes(s) {
  const data = allocUnsafe(s.length);
  FunctionPrototypeCall(bufferLatin1Write, data, s, 0);
  return data;
}

// `before` (latin1), `len` bytes and `after` (latin1) copied into one
// Buffer: a chunk framed as Node frames it, with the head in front while it
// has not gone.
function framedBytes(before, bytes, len, after) {
  const data = allocUnsafe(before.length + len + after.length);
  FunctionPrototypeCall(bufferLatin1Write, data, before, 0);
  TypedArrayPrototypeSet(data, bytes, before.length);
  FunctionPrototypeCall(bufferLatin1Write, data, after, before.length + len);
  return data;
}

// "hex\r\n" bytes "\r\n" as a latin1 string.
function frameBytes(bytes) {
  head.ints[S.S_BODY_KIND] = S.BODY_BYTES;
  const framed = binding.chunk(bytes);
  if (framed === undefined) refusal = `chunk: ${S.RESULTS[head.ints[S.S_RESULT]]}`;
  return framed;
}

// What code run in the head (a wrapper of _implicitHeader, say) may have
// done to the response that the one write cannot follow, or null.
function changedInHead(msg) {
  return msg.finished ? 'finished in the head'
    : msg.destroyed ? 'destroyed in the head'
      : msg.strictContentLength ? 'strictContentLength set in the head' : null;
}

// A chunk's bytes as they are now: a string cannot change; bytes can be
// detached or resized by user code between the length Node took and the
// write, and then only Node's own steps are the same.
function sameLength(chunk, len) {
  return typeof chunk === 'string' || typedArrayByteLength(chunk) === len;
}

// The byte length of a typed array as the typed array itself knows it
// (TypedArray.prototype's getter: 0 once detached), whatever a subclass or
// the object says.
function typedArrayByteLength(a) {
  return TypedArrayPrototypeGetByteLength(a);
}

// ---- end(chunk) ---------------------------------------------------------------

// The last bytes of end(chunk) in one write: write_()'s data and end()'s
// last _send ('' or the last-chunk), with `callback` (onFinish) on the
// write; with `callback` null, write_()'s data alone (end()'s last _send()
// is made after, by endTail()).  Returns null when they went out, or why
// Node's steps must be taken (nothing written).
function sendLast(msg, chunk, encoding, len, oneByte, callback) {
  const why = socketRefusal(msg) ?? changedInHead(msg) ??
    (!internals.headerRendered(msg) ? 'no head'
      : !sameLength(chunk, len) ? 'body changed in the head' : null);
  if (why !== null) return why;
  const socket = msg.socket;
  if (!internals.hasBody(msg)) {
    // write_() drops the data (and ticks its callback); end() then sends the
    // head alone.
    if (internals.rejectsBody(msg)) return 'body not allowed';
    process.nextTick(nop);
    // (Data alone: there is none; the head goes with end()'s last _send().)
    if (callback === null) return null;
    const h = takeHead(msg);
    liftEndCork(socket, h);
    socket.write(h, 'latin1', callback);
    return null;
  }
  const h = internals.headPending(msg) ? internals.head(msg) : '';
  let ret;
  if (internals.isChunked(msg)) {
    const trailer = internals.trailer(msg);
    const after = callback === null ? '' : trailer === '' ? LAST_CHUNK : '0\r\n' + trailer + '\r\n';
    ret = writeFramed(msg, socket, h, chunk, encoding, len, oneByte, after, callback ?? nop, callback !== null);
  } else {
    ret = writePlain(msg, socket, h, chunk, encoding, len, oneByte, callback ?? nop, callback !== null);
  }
  return ret === undefined ? refusal : null;
}

// end(chunk) in its most common shape, its checks made once: the head
// rendered and not sent, a body allowed and not chunked, no end callback
// (the caller's), the socket this response's and idle (nothing queued,
// corked or buffered: socketRefusal), and the head and the data one
// string.  All of it is known before anything is done: Node's steps for
// this shape are taken in one line, in Node's order - end()'s cork,
// onFinish bound, write_()'s _send() (the head marked sent, merged or
// beside small bytes: headLeaves, then written), end()'s tail.  Returns
// false, having done nothing, for any other shape (endWithData() takes
// it).
function endFast(msg, chunk, encoding, len, oneByte) {
  if (!internals.headPending(msg) || !internals.hasBody(msg) || internals.isChunked(msg) ||
      socketRefusal(msg) !== null) return false;
  const socket = msg.socket;
  const h = internals.head(msg);
  const data = joinedWithHead(socket, h, chunk, encoding, len, oneByte, true);
  if (data === undefined || data === APART) return false;
  const as = joinedAs;
  socket.cork();
  const finish = onFinish.bind(undefined, msg);
  const apart = headLeaves(msg, h, chunk, encoding);
  liftEndCork(socket, data);
  socket.write(data, as, finish);
  headLeft(msg, apart);
  endTail(msg, false);
  return true;
}

// end() corks the socket before its head, as Node's does.  When that is the
// only cork and nothing waits behind it, a response that goes out in ONE
// socket.write() may go at once rather than through the socket's buffer:
// nothing can tell (end() uncorks the socket fully before it returns, and
// the socket's write path is Node's own: socketRefusal), as long as
// socket.uncork() is Writable's own (one the user wrapped is called as
// often as Node calls it), and `data` is shorter than the socket's
// high-water mark: a corked write of that much sets the socket's
// needDrain (its 'drain' follows), which a write that completes at once
// never does.  Bytes written in several writes stay corked: they leave
// together, in one writev.  (The socket's state is read from its
// _writableState, not through Writable's getters, which Node does not
// call here.)
function liftEndCork(socket, data) {
  if (internals.socketCorked(socket) !== 1 || internals.socketBuffered(socket) !== 0 ||
      data.length >= internals.socketHighWaterMark(socket)) return;
  const uncork = socket.uncork;
  if (internals.isWritablesUncork(uncork)) FunctionPrototypeCall(uncork, socket);
}

// What write_() does after the head is rendered (20 22 24 26): the data,
// as one chunk or as is, through this._send().
// `corked`: write_()'s cork for the tick is taken already (writeDirect).
function writeRest(msg, chunk, encoding, callback, fromEnd, len, corked = false) {
  if (!internals.hasBody(msg)) {
    if (internals.rejectsBody(msg)) throw internals.errors.bodyNotAllowed();
    process.nextTick(callback);
    return true;
  }
  // (24 26: a chunked string in an unknown encoding throws here; the fast
  // paths take only utf8, latin1 and ascii, which Node knows.)
  if (!fromEnd && !corked && msg.socket && !msg.socket.writableCorked) internals.corkForWrite(msg);
  let ret;
  if (internals.isChunked(msg) && chunk.length !== 0) {
    if (LINE === 22 && internals.corked(msg) && internals.headSent(msg)) {
      internals.pushChunk(msg, chunk, encoding, callback, len);
      ret = internals.chunkedLength(msg) < internals.highWaterMark(msg);
    } else if (LINE >= 24 && internals.corked(msg)) {
      if (typeof chunk !== 'string' && !(chunk instanceof Buffer)) {
        chunk = Stream._uint8ArrayToBuffer(chunk);
      }
      internals.pushChunk(msg, chunk, encoding, callback, len);
      ret = msg.writableLength < msg.writableHighWaterMark;
    } else {
      internals.send(msg, len.toString(16), 'latin1', null);
      internals.send(msg, crlf, null, null);
      internals.send(msg, chunk, encoding, null, len);
      ret = internals.send(msg, crlf, null, callback);
    }
  } else if (LINE >= 24 && internals.isChunked(msg) && internals.corked(msg) &&
             internals.chunkedBuffer(msg).length !== 0) {
    internals.pushChunk(msg, chunk, encoding, callback);
    ret = msg.writableLength < msg.writableHighWaterMark;
  } else {
    ret = internals.send(msg, chunk, encoding, callback, len);
  }
  return ret;
}

// write_()'s first checks (24 26), for the write end() makes after its
// maybePrepareFinalChunk(): false when write_() returns there.
function writeChecks24(msg, chunk, encoding, callback) {
  if (msg.finished) {
    if (msg.destroyed) {
      process.nextTick(callback, internals.errors.writeAfterEnd());
    } else {
      // Node's onError(msg, ERR_STREAM_WRITE_AFTER_END, callback), which only
      // Node can schedule as it does: its end() does exactly that for a
      // finished message that is not destroyed, and nothing else.
      FunctionPrototypeCall(internals.originals.end, msg, chunk, null, callback);
    }
    return false;
  }
  if (msg.destroyed) {
    process.nextTick(callback, internals.errors.destroyedWrite());
    return false;
  }
  return true;
}

// The strict Content-Length check of write_() (20 22 24 26).
function strictCheck(msg, len, fromEnd) {
  if (!msg.strictContentLength) return;
  const written = internals.bytesWritten(msg);
  const expected = internals.contentLength(msg);
  if (internals.strictContentLength(msg) &&
      (fromEnd ? written + len !== expected : written + len > expected)) {
    throw internals.errors.contentLengthMismatch(len + written, expected);
  }
  internals.addBytesWritten(msg, len);
}

// end(chunk, encoding, callback) for a truthy chunk of `len` bytes (a
// string in utf8, latin1 or ascii, or a Uint8Array, len > 0), on a
// response that is not finished or destroyed and owns its socket,
// strictContentLength off, nothing run or changed yet (the caller checked
// all of it, running no user code).  Returns null when the last bytes went
// out in one write, else why not (Node's _send()s sent them).
function endWithData(msg, chunk, encoding, callback, len, oneByte) {
  // if (this.socket) this.socket.cork();
  msg.socket.cork();
  let why;
  let tailSends; // end()'s own last _send() is still to come
  if (LINE >= 24) {
    // maybePrepareFinalChunk(): destroyed and strictContentLength are known
    // false here.
    let finishCallback = null;
    if (!internals.headerRendered(msg)) {
      internals.setContentLength(msg, len);
      implicitHeader(msg);
    }
    if (internals.headerRendered(msg) && internals.hasBody(msg) && !internals.isChunked(msg)) {
      if (typeof callback === 'function') {
        internals.queueEndCallback(msg, callback);
        callback = undefined;
      }
      finishCallback = onFinish.bind(undefined, msg);
    }
    // write_(this, chunk, encoding, finishCallback, true)
    const writeCallback = finishCallback ?? nop;
    why = 'finished or destroyed in the head';
    if (writeChecks24(msg, chunk, encoding, writeCallback)) {
      const now = typeof chunk === 'string' ? len : typedArrayByteLength(chunk);
      strictCheck(msg, now, true);
      if (!internals.headerRendered(msg)) {
        internals.setContentLength(msg, now);
        implicitHeader(msg);
      }
      const last = finishCallback ?? onFinish.bind(undefined, msg);
      // The length measured before the head: bytes detached or resized by
      // code run in it are Node's to send (or to throw on, as its socket
      // does for a detached Uint8Array).
      why = sendLast(msg, chunk, encoding, len, oneByte, last);
      if (why !== null) writeRest(msg, chunk, encoding, writeCallback, true, now);
    }
    tailSends = why !== null && finishCallback === null;
    if (typeof callback === 'function') internals.queueEndCallback(msg, callback);
  } else {
    // write_(this, chunk, encoding, null, true): its checks passed (the
    // caller's), then the head.
    if (!internals.headerRendered(msg)) {
      internals.setContentLength(msg, len);
      implicitHeader(msg);
    }
    // With a callback, end() calls this.once('finish', callback) between
    // write_()'s data and its last _send(), and code of the user's can run
    // there (an EventEmitter method wrapped, a 'newListener' listener, and
    // what they write): the data then goes in a write of its own, end()
    // itself adds the callback (from its own frame: lib/response.js), then
    // makes the rest (endTail, its last _send() included), in Node's
    // order.  (The socket is corked: still one syscall.)
    const withCallback = typeof callback === 'function';
    why = sendLast(msg, chunk, encoding, len, oneByte, withCallback ? null : onFinish.bind(undefined, msg));
    if (why !== null) writeRest(msg, chunk, encoding, nop, true, len);
    if (withCallback) return why;
    tailSends = why !== null;
  }
  endTail(msg, tailSends);
  return why;
}

// What end() does after its data: the strict check, (24 26) buffered
// chunks flushed, its last _send() (`tailSends`: unless the one write
// carried it, or 24/26 attached onFinish to the data's write), the socket
// fully uncorked, finished, 'prefinish'.  `hadData`: end() was given data.
function endTail(msg, tailSends, hadData = true) {
  if (internals.strictContentLength(msg) &&
      internals.bytesWritten(msg) !== internals.contentLength(msg)) {
    throw internals.errors.contentLengthMismatch(internals.bytesWritten(msg),
      internals.contentLength(msg));
  }
  if (LINE >= 24 && internals.chunkedBuffer(msg).length !== 0) {
    msg.socket?.cork();
    internals.setCorked(msg, 1);
    callOut(uncorkResponse, msg);
  }
  if (tailSends) {
    const finish = onFinish.bind(undefined, msg);
    if (internals.hasBody(msg) && internals.isChunked(msg)) {
      sendFinal(msg, '0\r\n' + internals.trailer(msg) + '\r\n', finish);
    } else if (!internals.headSent(msg) || msg.writableLength || hadData) {
      // Node's `!this._headerSent || this.writableLength || chunk`, read in
      // that order (the message's writableLength reads the socket's).
      sendFinal(msg, '', finish);
    } else {
      process.nextTick(finish);
    }
  } else if (LINE < 24 && !(internals.hasBody(msg) && internals.isChunked(msg)) && internals.headSent(msg)) {
    // The one write carried end()'s last _send(''), which 20 and 22 make
    // after that same test: its read of writableLength is made here (its
    // answer is not needed: with data the test is true).
    void msg.writableLength;
  }
  const socket = msg.socket;
  if (socket) internals.uncorkFully(socket);
  callOut(uncorkMessage, msg);
  msg.finished = true;
  // (Node's last step, this._finish() for a message all sent, is made by
  // end() itself, from its own frame: lib/response.js.)
}

// The calls Node's own end() and write() make through the response -
// this._implicitHeader(), this.uncork(), this._finish() - made with the
// guard let go (lib/guard.js): at each of them nothing of the call's own
// is kept in the module (what it needs after is in its locals, and it
// decides again from the response's state), and what runs there is what
// Node's method would call, which may take its own fast path (the
// implicit head of end(data) is rendered by onewrite's writeHead).
function callOut(fn, msg) {
  const was = guard.busy;
  guard.busy = false;
  try {
    fn(msg);
  } finally {
    guard.busy = was;
  }
}

function uncorkResponse(msg) {
  msg.uncork();
}

function uncorkMessage(msg) {
  internals.uncorkMessage(msg, uncorkIsPlain);
}

function implicitHeader(msg) {
  callOut(internals.implicitHeader, msg);
}

// end()'s last _send(text, 'latin1', finish): '' or (chunked) the
// last-chunk and trailers.  Where that would go straight to the socket (the
// head gone, so _send() adds nothing; nothing queued; the socket this
// response's, open, with Node's own write(), _send() and _writeRaw()), the
// text is written as a Buffer (an empty one for ''): the same bytes, the
// same callback at the same place in the socket's queue, and the socket's
// buffer stays all Buffers (writePlain, writeFramed), which its writev then
// sends the fast way.  (The response's own cork (24 26) is not what
// _send() looks at.)
function sendFinal(msg, text, finish) {
  if (internals.headSent(msg) && socketRefusal(msg, true) === null) {
    msg.socket.write(text === '' ? EMPTY : latin1Bytes(text), null, finish);
  } else {
    internals.send(msg, text, 'latin1', finish);
  }
}

// end() without data (20 22 24 26) on a response that is not finished and
// whose head is rendered (the caller read both, as Node reads them, and
// nothing else): Node's steps from the end callback on.
// (20 22: with a callback, end() itself adds it to 'finish', then calls
// endTail(): lib/response.js.)
function endEmpty(msg, callback) {
  if (typeof callback === 'function') {
    if (LINE < 24) return;
    internals.queueEndCallback(msg, callback);
  }
  endTail(msg, true, false);
}

// Whether `uncork`, read from a response, is Node's own, or one of
// onewrite's (lib/response.js tells which, and when it calls Node's own for
// a response with no chunk buffered): end() may then do what Node's
// uncork() would (uncorkMessage).
const ownUncorks = newArray();
function uncorkIsPlain(uncork, msg) {
  if (uncork === internals.originals.uncork) return true;
  for (let i = 0; i < ownUncorks.length; i += 2) {
    if (uncork === ownUncorks[i]) return ownUncorks[i + 1](msg);
  }
  return false;
}
function addOwnUncork(fn, callsNodes) {
  const n = ownUncorks.length;
  ownUncorks[n] = fn;
  ownUncorks[n + 1] = callsNodes;
}

// ---- write(chunk) -----------------------------------------------------------------

// write(chunk, encoding, callback) for a chunk of `len` > 0 bytes (as for
// end), on a response that is not finished or destroyed and owns its
// socket, strictContentLength off, nothing run yet: write_(this, chunk,
// encoding, callback, false), with the chunk framed in one socket write
// where Node would send it in four _send()s.  Returns what write_()
// returns; lastHow() then tells whether the chunk was written here
// (WROTE), handed to _send() (SENT, lastRefusal() says why) or buffered
// to be merged (BUFFERED: 24 26, or 22 under res.cork()).
const SENT = 0;
const WROTE = 1;
const BUFFERED = 2;
let how = SENT; // set at the end of writeData(), after its last call out
function writeData(msg, chunk, encoding, callback, len, oneByte) {
  if (typeof callback !== 'function') callback = nop;
  if (!internals.headerRendered(msg)) implicitHeader(msg);
  const why = writeDirect(msg, chunk, encoding, len, oneByte, callback);
  if (why === null) {
    how = WROTE;
    return lastRet;
  }
  const before = internals.chunkedBuffer(msg).length;
  const ret = writeRest(msg, chunk, encoding, callback, false, len, corkTaken);
  how = internals.chunkedBuffer(msg).length !== before ? BUFFERED : SENT;
  refusal = why;
  return ret;
}

// The data of write() in one socket write - framed as one chunk, or as is
// (a Content-Length response), with the head in front while it has not
// gone - as write_()'s own steps would send it after the head, the cork
// for the tick included.  Returns null when written (lastRet: the
// socket's answer), else why not.
let lastRet = true;
let corkTaken = false; // write_()'s cork was taken here (read by writeData() at once)
function writeDirect(msg, chunk, encoding, len, oneByte, callback) {
  corkTaken = false;
  if (!internals.hasBody(msg)) return 'no body (HEAD, 204, 304)';
  const why = socketRefusal(msg) ?? changedInHead(msg) ??
    (!sameLength(chunk, len) ? 'body changed in the head' : null);
  if (why !== null) return why;
  const chunked = internals.isChunked(msg);
  const socket = msg.socket;
  // write_()'s cork for the rest of the tick: the socket's on 20 and 22, the
  // response's on 24 and 26, where a chunk is then buffered to be merged
  // with the tick's other writes (and flushed by uncork()): not a hand-over.
  // (Taken as write_() takes it, it leaves Node's own steps below the same
  // if the bytes cannot go in one write after all.)
  // The socket's cork() may have been wrapped by code run in the head: it is
  // asked again.  res.cork (24 26) is read once, as write_() reads it, and
  // called as it calls it; when it is not Node's, what it did is not
  // followed here: write_()'s steps after the cork are Node's.
  if (!socket.writableCorked) {
    if (!internals.socketCorksAreWritables(socket)) return 'socket.cork or uncork replaced';
    if (LINE < 24) {
      internals.corkSocketForTick(socket);
    } else if (chunked) {
      return 'merged in the tick';
    } else {
      const cork = msg.cork;
      internals.corkForWrite(msg, cork);
      corkTaken = true;
      if (!internals.isNodesCork(cork)) return 'cork replaced';
    }
  }
  const h = internals.headPending(msg) ? internals.head(msg) : '';
  const ret = chunked ? writeFramed(msg, socket, h, chunk, encoding, len, oneByte, '', callback)
    : writePlain(msg, socket, h, chunk, encoding, len, oneByte, callback, false);
  if (ret === undefined) return refusal;
  lastRet = ret;
  return null;
}

function lastHow() {
  return how;
}

function lastRefusal() {
  return refusal;
}

// ---- uncork() (24 26) ------------------------------------------------------------

// uncork() when it flushes the buffered chunks (kCorked 1, chunks there, a
// chunked response owning its socket): Node sends them as ONE chunk in
// _send()s; here that chunk goes out in one write when its data can be one
// string (a single chunk, or one-byte strings).  Returns the number of
// write() calls it carried, or 0 when Node's uncork() must run (nothing
// done).
function flushChunks(msg) {
  const buf = internals.chunkedBuffer(msg);
  if (internals.corked(msg) !== 1 || buf.length === 0) return 0;
  if (msg.destroyed) return flushRefused('destroyed');
  if (!internals.isChunked(msg)) return flushRefused('not chunked');
  const socket = msg.socket;
  // (The response's own cork is 1 here: that is what this flush undoes.)
  const why = socketRefusal(msg, true);
  if (why !== null) return flushRefused(why);
  const len = internals.chunkedLength(msg);
  let data;
  let encoding;
  let oneByte = true;
  if (buf.length === 3) {
    data = buf[0];
    encoding = buf[1];
    if (typeof data === 'string') {
      const n = textLength(data, encoding);
      if (n !== len) return flushRefused('chunk not utf8, latin1 or ascii');
      oneByte = n === data.length || encoding === 'latin1' || encoding === 'binary';
    } else if (!plainBytes(data) || typedArrayByteLength(data) !== len) {
      return flushRefused('Uint8Array subclass or own length');
    }
  } else {
    // Several: one string of them all, when they are one-byte text.
    if (tooLongToJoin(len)) return 0;
    data = '';
    for (let i = 0; i < buf.length; i += 3) {
      const chunk = buf[i];
      if (typeof chunk !== 'string' || textLength(chunk, buf[i + 1]) !== chunk.length) {
        return flushRefused('chunks not all one-byte text');
      }
      data += chunk;
    }
    if (data.length !== len) return flushRefused('chunks not all one-byte text');
    encoding = 'latin1';
  }
  const callbacks = [];
  for (let i = 2; i < buf.length; i += 3) callbacks.push(buf[i]);
  const n = buf.length / 3;
  internals.setCorked(msg, 0);
  try {
    const h = internals.headPending(msg) ? internals.head(msg) : '';
    // Node's callback, for...of included (the array's iterator, live),
    // named as a stack shows Node's (the writev of stock Node calls it as
    // a buffered entry's `callback`).
    const ret = writeFramed(msg, socket, h, data, encoding, len, oneByte, '', function callback(err) {
      for (const each of callbacks) each(err);
    });
    if (ret === undefined) {
      internals.setCorked(msg, 1);
      return 0; // (refusal set by the write helper)
    }
    internals.clearChunked(msg);
  } finally {
    // (On the refusal above the socket is left as it was.)
    if (internals.corked(msg) === 0) socket.uncork();
  }
  // (Node's last step, 'drain' when the buffer it held drained, is made
  // by uncork() itself, from its own frame: lib/response.js.)
  return n;
}

function flushRefused(why) {
  refusal = why;
  return 0;
}

// ---- bodies ------------------------------------------------------------------------

// A Uint8Array whose length and byte length are the typed array's own: a
// Buffer or a plain Uint8Array, no subclass, no property of its own over
// them (Node reads chunk.byteLength and chunk.length, which such a thing
// could answer with code of the user's).
const FastBufferPrototype = Buffer.prototype;
const Uint8ArrayPrototype = Uint8Array.prototype;
const hasOwn = ObjectHasOwn;
function plainBytes(chunk) {
  if (!isUint8Array(chunk)) return false;
  const proto = protoOf(chunk);
  return (proto === FastBufferPrototype || proto === Uint8ArrayPrototype) &&
    !hasOwn(chunk, 'byteLength') && !hasOwn(chunk, 'length');
}

// The byte length Node gives a string in the encodings the fast paths take
// (Buffer.byteLength), or -1: utf8 (and its spellings, and none), latin1,
// and ascii when the text is ASCII (Node writes the low byte of each code
// unit there, which for other text is not what byteLength counts).
const { byteLength } = Buffer;
function textLength(chunk, encoding) {
  if (encoding == null || encoding === 'utf8' || encoding === 'utf-8' || encoding === '') {
    return byteLength(chunk, 'utf8');
  }
  if (encoding === 'latin1' || encoding === 'binary') return chunk.length;
  if (encoding === 'ascii') return byteLength(chunk, 'utf8') === chunk.length ? chunk.length : -1;
  return -1;
}

module.exports = {
  endEmpty, endFast, endWithData, endTail, writeData, lastHow, lastRefusal, flushChunks, textLength, plainBytes, join,
  typedArrayByteLength, BUFFER_COPY_LIMIT, addOwnUncork, liftEndCork, SENT, WROTE, BUFFERED,
};
