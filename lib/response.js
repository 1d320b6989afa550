'use strict';

// The fast paths.  Each one starts by asking whether it can prove that its
// bytes and events are Node's; when it cannot, Node's own method runs,
// untouched.  After the one socket write, Node's own end() finishes the
// response (finish, close, end callbacks, keep-alive), so the lifecycle is
// Node's on every version.

const { isUint8Array } = require('node:util/types');
const internals = require('./internals');
const head = require('./head');
const S = require('./slots');
const { binding } = require('./native');
const { counters } = require('./stats');

const { STATUS_CODES } = require('node:http');

const {
  storeHeader: nodeStoreHeader, end: nodeEnd, writeHead: nodeWriteHead,
} = internals.originals;

// Bodies above this size are not copied next to their head: they go out as
// a corked pair of writes (one writev), as Node does.
const COPY_LIMIT = 16 * 1024;

// writeHead(statusCode[, statusMessage][, headers]): Node's own steps, in
// Node's order (lib/_http_server.js, the same on 20-26 for what is done
// here), with the head rendered by the addon.  Whatever this does not do
// itself - the errors, merging headers into setHeader()'s, an unusual
// statusMessage, a head the addon declines - goes to Node's writeHead with
// the original arguments.  The assignments made before that point are the
// ones Node's writeHead starts with, with the same values, so it repeats
// them to the same effect.
function writeHead(statusCode, reason, obj) {
  if (internals.headerRendered(this)) return nodeWriteHead.apply(this, arguments);
  const code = statusCode | 0;
  if (code < 100 || code > 999) return nodeWriteHead.apply(this, arguments);
  if (typeof reason === 'string') {
    this.statusMessage = reason;
  } else {
    if (!this.statusMessage) this.statusMessage = STATUS_CODES[code] || 'unknown';
    obj ??= reason;
  }
  this.statusCode = code;
  let headers = obj;
  const out = internals.outHeaders(this);
  if (out) {
    if (obj) return nodeWriteHead.apply(this, arguments);
    headers = out;
  }
  const message = this.statusMessage;
  if (typeof message !== 'string') return nodeWriteHead.apply(this, arguments);
  if (code === 204 || code === 304 || (code >= 100 && code <= 199)) internals.dropBody(this);
  if (internals.expectPending(this)) internals.dontKeepAlive(this);
  const seen = head.storeStatusHeader(this, code, message, headers);
  if (seen < 0) {
    counters.headsToNode++;
    return nodeWriteHead.apply(this, arguments);
  }
  counters.heads++;
  // Node flushes the head at once when the user set an Expect header.
  if (seen & S.SEEN_EXPECT) internals.flushHead(this);
  return this;
}

// _storeHeader(firstLine, headers), rendered by the addon: reached from
// Node's own writeHead where ours hands over, and from writeHeader (v20-v24).
function _storeHeader(firstLine, headers) {
  const seen = head.storeHeader(this, firstLine, headers);
  if (seen < 0) {
    counters.headsToNode++;
    return nodeStoreHeader.call(this, firstLine, headers);
  }
  counters.heads++;
  if (seen & S.SEEN_EXPECT) internals.flushHead(this);
}

// How a string body's bytes relate to its characters, for the encodings
// the fast path takes.  Returns its byte length, or -1 to leave it to Node.
// `oneByte` tells whether those bytes are the latin1 code units.
let oneByte = false;
function stringLength(chunk, encoding) {
  if (encoding == null || encoding === 'utf8' || encoding === 'utf-8') {
    const len = Buffer.byteLength(chunk, 'utf8');
    oneByte = len === chunk.length;
    return len;
  }
  if (encoding === 'latin1' || encoding === 'binary') {
    oneByte = true;
    return chunk.length;
  }
  if (encoding === 'ascii') {
    // Node's 'ascii' writes the low byte of each code unit; for ASCII text
    // that is the latin1 byte, and anything else is left to Node.
    oneByte = Buffer.byteLength(chunk, 'utf8') === chunk.length;
    return oneByte ? chunk.length : -1;
  }
  return -1;
}

// Node merges the head into a string body's write only for these exact
// encodings (OutgoingMessage#_send); the merged string goes out in them.
function mergesAsUtf8(encoding) {
  return encoding == null || encoding === '' || encoding === 'utf8';
}

// end(chunk) in one socket write.  Returns 0 when Node must do everything,
// 1 when the bytes are out and Node's end() should finish, 2 when, in
// addition, the chunked last-chunk was written (see end()).
function writeLast(res, chunk, encoding) {
  const socket = res.socket;
  if (res.finished || res.destroyed || !internals.canWriteDirect(res, socket)) return 0;

  let len;
  const isString = typeof chunk === 'string';
  if (isString) {
    len = stringLength(chunk, encoding);
    // Multibyte text in an encoding Node does not merge with the head.
    if (len < 0 || (!oneByte && !mergesAsUtf8(encoding))) return 0;
  } else if (isUint8Array(chunk)) {
    len = chunk.byteLength;
  } else {
    return 0;
  }

  if (!internals.headerRendered(res)) {
    // What Node's write_() does for end(data): the length first, then the head.
    internals.setContentLength(res, len);
    res._implicitHeader();
  }
  // A head already on the wire (flushHeaders, Expect), or a body Node
  // drops or refuses (HEAD, 204, 304): Node's end() takes it from here.
  if (!internals.headPending(res) || !internals.hasBody(res)) return 0;

  const h = internals.head(res);
  const chunked = internals.isChunked(res);
  if (isString) {
    if (chunked) {
      // Node sends the size line merged with the head, as latin1, then the data.
      const line = h + len.toString(16) + '\r\n';
      if (oneByte) {
        socket.write(line + chunk + '\r\n0\r\n\r\n', 'latin1');
      } else {
        socket.cork();
        socket.write(line, 'latin1');
        socket.write(chunk + '\r\n0\r\n\r\n', encoding);
      }
    } else if (mergesAsUtf8(encoding) && !(oneByte && head.isOwnHead(h))) {
      // Node merges head and data into one utf8 string: so do we.  (An
      // all-ASCII head with one-byte data is the same bytes as latin1,
      // which is cheaper to write: the branch below.)
      socket.write(h + chunk, 'utf8');
    } else {
      // Merged as latin1 ('latin1'), or a latin1 head followed by one-byte data.
      socket.write(h + chunk, 'latin1');
    }
  } else if (len <= COPY_LIMIT) {
    // Head and bytes copied together by the addon into one latin1 string.
    head.ints[S.S_TEXT_LEN] = h.length;
    head.ints[S.S_BODY_KIND] = S.BODY_BYTES;
    head.ints[S.S_FRAME] = chunked ? 1 : 0;
    const message = binding.join(h, chunk);
    if (message === undefined) return 0;
    socket.write(message, 'latin1');
  } else {
    // A large body is not copied: head and body go out corked, as one writev.
    socket.cork();
    socket.write(chunked ? h + len.toString(16) + '\r\n' : h, 'latin1');
    socket.write(chunk);
    if (chunked) socket.write('\r\n0\r\n\r\n', 'latin1');
  }
  internals.markHeadSent(res);
  if (chunked) {
    internals.setChunked(res, false);
    return 2;
  }
  return 1;
}

function end(chunk, encoding, callback) {
  if (typeof encoding === 'function') {
    callback = encoding;
    encoding = undefined;
  }
  if (chunk && typeof chunk !== 'function') {
    const done = writeLast(this, chunk, encoding);
    if (done !== 0) {
      counters.ends++;
      // The data is out; Node's end() with no data does the rest.  It would
      // send the chunked last-chunk again, so chunkedEncoding is off while
      // it runs and back on afterwards, as Node leaves it.
      nodeEnd.call(this, callback);
      if (done === 2) internals.setChunked(this, true);
      return this;
    }
    counters.endsToNode++;
  }
  return nodeEnd.call(this, chunk, encoding, callback);
}

module.exports = { writeHead, _storeHeader, end };
