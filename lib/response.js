'use strict';

// The fast paths.  Each one starts by asking whether it can prove that its
// bytes and events are Node's; when it cannot, Node's own method runs,
// untouched.  After the one socket write, Node's own end() finishes the
// response (finish, close, end callbacks, keep-alive), so the lifecycle is
// Node's on every version.

const { isUint8Array } = require('node:util/types');

const { byteLength } = Buffer;
const internals = require('./internals');
const head = require('./head');
const S = require('./slots');
const { binding } = require('./native');
const { counters } = require('./stats');

const { STATUS_CODES } = require('node:http');

const {
  storeHeader: nodeStoreHeader, end: nodeEnd, writeHead: nodeWriteHead, write: nodeWrite,
  uncork: nodeUncork,
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
    if (obj) {
      // Headers given to writeHead join those set before, as Node merges
      // them: an object through setHeader, key by key (20-26 alike); an
      // array (merged differently since 22) is left to Node.
      if (Array.isArray(obj)) return nodeWriteHead.apply(this, arguments);
      const keys = Object.keys(obj);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (k) this.setHeader(k, obj[k]);
      }
    }
    headers = out;
  }
  const message = this.statusMessage;
  if (typeof message !== 'string') return nodeWriteHead.apply(this, arguments);
  if (code === 204 || code === 304 || (code >= 100 && code <= 199)) internals.dropBody(this);
  if (internals.expectPending(this)) internals.dontKeepAlive(this);
  const seen = head.storeStatusHeader(this, code, message, headers);
  // (Handed over, the head is counted by the _storeHeader Node's reaches.)
  if (seen < 0) return nodeWriteHead.apply(this, arguments);
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
    const len = byteLength(chunk, 'utf8');
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
    oneByte = byteLength(chunk, 'utf8') === chunk.length;
    return oneByte ? chunk.length : -1;
  }
  return -1;
}

// Node merges the head into a string body's write only for these exact
// encodings (OutgoingMessage#_send); the merged string goes out in them.
function mergesAsUtf8(encoding) {
  return encoding == null || encoding === '' || encoding === 'utf8';
}

// The byte length of a body or chunk the fast paths send in one write (a
// Uint8Array, or text that is one-byte or merged as utf8: multibyte text in
// an encoding Node does not merge with the head is left to Node), or -1.
function bodyLength(chunk, encoding) {
  if (typeof chunk === 'string') {
    const len = stringLength(chunk, encoding);
    return len >= 0 && (oneByte || mergesAsUtf8(encoding)) ? len : -1;
  }
  return isUint8Array(chunk) ? chunk.byteLength : -1;
}

// end(chunk) in one socket write.  Returns 0 when Node must do everything,
// 1 when the bytes are out and Node's end() should finish, 2 when, in
// addition, the chunked last-chunk was written (see end()).
function writeLast(res, chunk, encoding) {
  const socket = res.socket;
  if (res.finished || res.destroyed || !internals.canWriteDirect(res, socket)) return 0;

  const len = bodyLength(chunk, encoding);
  if (len < 0) return 0;
  const isString = typeof chunk === 'string';

  if (!internals.headerRendered(res)) {
    // What Node's write_() does for end(data): the length first, then the head.
    internals.setContentLength(res, len);
    res._implicitHeader();
  }
  // A body Node drops or refuses (HEAD, 204, 304): Node's end() takes it.
  if (!internals.hasBody(res)) return 0;
  const chunked = internals.isChunked(res);
  let prefix;
  if (internals.headPending(res)) {
    prefix = internals.head(res);
  } else if (internals.headSent(res) && chunked) {
    prefix = ''; // the last chunk of a stream: the head went out with an earlier write
  } else {
    return 0; // a head already flushed alone (flushHeaders, Expect): Node's end()
  }

  if (chunked) {
    // The data as one chunk, then the last-chunk.  (An empty Buffer gets no
    // frame from Node: left to it.)
    if (len === 0) return 0;
    if (isString || len <= COPY_LIMIT) {
      const framed = isString ? frame(prefix, chunk, encoding, len) : join(prefix, chunk, 1);
      if (framed !== undefined) {
        socket.write(framed + (isString ? '0\r\n\r\n' : ''), isString ? frameEncoding : 'latin1');
      } else {
        // Multibyte text after a head Node rendered: the head and size line
        // as latin1, then the text, as Node sends them, corked together.
        socket.cork();
        socket.write(prefix + len.toString(16) + '\r\n', 'latin1');
        socket.write(chunk + '\r\n0\r\n\r\n', encoding);
      }
    } else {
      // A large body is not copied: out corked, as one writev.
      socket.cork();
      socket.write(prefix + len.toString(16) + '\r\n', 'latin1');
      socket.write(chunk);
      socket.write('\r\n0\r\n\r\n', 'latin1');
    }
    internals.markHeadSent(res);
    internals.setChunked(res, false);
    return 2;
  }

  const h = prefix;
  if (isString) {
    if (mergesAsUtf8(encoding) && !(oneByte && head.isOwnHead(h))) {
      // Node merges head and data into one utf8 string: so do we.  (An
      // all-ASCII head with one-byte data is the same bytes as latin1,
      // which is cheaper to write: the branch below.)
      socket.write(h + chunk, 'utf8');
    } else {
      // Merged as latin1 ('latin1'), or a latin1 head followed by one-byte data.
      socket.write(h + chunk, 'latin1');
    }
  } else if (len <= COPY_LIMIT) {
    const message = join(h, chunk, 0);
    if (message === undefined) return 0;
    socket.write(message, 'latin1');
  } else {
    // A large body is not copied: head and body go out corked, as one writev.
    socket.cork();
    socket.write(h, 'latin1');
    socket.write(chunk);
  }
  internals.markHeadSent(res);
  return 1;
}

// Head (latin1) and bytes copied together by the addon into one latin1
// string; framed as one chunk and the last-chunk when `framing`.
function join(h, bytes, framing) {
  head.ints[S.S_TEXT_LEN] = h.length;
  head.ints[S.S_BODY_KIND] = S.BODY_BYTES;
  head.ints[S.S_FRAME] = framing;
  return binding.join(h, bytes);
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

// ---- chunked write() ------------------------------------------------------

// The bytes of one chunk as a string, with the head in front when it has
// not gone out yet, and the encoding to write it in; or undefined.  Node
// sends the size line merged with a pending head as latin1, then the data
// in its own encoding, then CRLF.
let frameEncoding = 'latin1';
function frame(prefix, chunk, encoding, len) {
  if (typeof chunk !== 'string') {
    head.ints[S.S_BODY_KIND] = S.BODY_BYTES;
    const framed = binding.chunk(chunk); // "hex\r\n" data "\r\n"
    if (framed === undefined) return undefined;
    frameEncoding = 'latin1';
    return prefix + framed;
  }
  if (oneByte) {
    frameEncoding = 'latin1';
  } else {
    // Multibyte utf8 data: one utf8 string is the same bytes only if the
    // prefix is ASCII: empty, or a head this package rendered.
    if (prefix !== '' && !head.isOwnHead(prefix)) return undefined;
    frameEncoding = 'utf8';
  }
  return prefix + len.toString(16) + '\r\n' + chunk + '\r\n';
}

// write(chunk) where Node sends each write as its own chunk, right away,
// in four _send()s (size line, CRLF, data, CRLF): always on 20 and 22; on
// 24 and 26 when the response is not corked but its socket is (Node's
// write_ then takes its direct path; a socket that is not corked makes
// Node 24+ cork the response and merge the tick's writes: left to Node).
// The chunk goes in one socket write instead of four.  Returns undefined
// to leave the call to Node.
function writeChunk(res, chunk, encoding, callback) {
  const socket = res.socket;
  if (res.finished || res.destroyed || !internals.canWriteDirect(res, socket)) return undefined;
  if (internals.chunksMergeInTick && !socket.writableCorked) return undefined;
  const len = bodyLength(chunk, encoding);
  if (len <= 0) return undefined;
  if (!internals.headerRendered(res)) res._implicitHeader();
  if (!internals.hasBody(res) || !internals.isChunked(res)) return undefined;
  const pending = !internals.headSent(res);
  const data = frame(pending ? internals.head(res) : '', chunk, encoding, len);
  if (data === undefined) return undefined;
  if (!socket.writableCorked) internals.corkForTick(socket);
  if (pending) internals.markHeadSent(res);
  return socket.write(data, frameEncoding, callback);
}

function write(chunk, encoding, callback) {
  if (typeof encoding === 'function') {
    callback = encoding;
    encoding = null;
  }
  const ret = writeChunk(this, chunk, encoding, callback);
  if (ret === undefined) {
    counters.writesToNode++;
    return nodeWrite.call(this, chunk, encoding, callback);
  }
  counters.writes++;
  if (!ret) internals.setNeedDrain(this);
  return ret;
}

// uncork() on 24 and 26: the chunks buffered since the response was corked
// go out as one chunk, as Node sends them, but in one socket write.
// Returns false to leave the call to Node.
function flushChunks(res) {
  const buf = internals.chunkedBuffer(res);
  if (internals.corked(res) !== 1 || buf.length === 0) return false;
  const socket = res.socket;
  if (res.destroyed || !internals.isChunked(res) || !internals.ownsWritableSocket(res, socket) ||
      res.outputData.length !== 0) return false;
  let data;
  let callbacks = null;
  const pending = !internals.headSent(res);
  const prefix = pending ? internals.head(res) : '';
  if (buf.length === 3) {
    const chunk = buf[0];
    const len = bodyLength(chunk, buf[1]);
    if (len <= 0) return false;
    data = frame(prefix, chunk, buf[1], len);
    callbacks = buf[2];
  } else {
    // Several strings: one chunk of all of them, when they are one-byte.
    let text = '';
    let len = 0;
    for (let i = 0; i < buf.length; i += 3) {
      const chunk = buf[i];
      if (typeof chunk !== 'string') return false;
      const n = stringLength(chunk, buf[i + 1]);
      if (n < 0 || !oneByte) return false;
      text += chunk;
      len += n;
    }
    if (len === 0) return false;
    data = frame(prefix, text, 'latin1', len); // all one-byte: framed as latin1
    const list = [];
    for (let i = 2; i < buf.length; i += 3) list.push(buf[i]);
    callbacks = (err) => {
      for (const cb of list) cb(err);
    };
  }
  if (data === undefined) return false;
  internals.setCorked(res, 0);
  try {
    if (pending) internals.markHeadSent(res);
    socket.write(data, frameEncoding, callbacks);
    internals.clearChunked(res);
  } finally {
    socket.uncork();
  }
  internals.drainIfDone(res);
  return true;
}

function uncork() {
  if (flushChunks(this)) {
    counters.writes++;
    return;
  }
  if (internals.corked(this) === 1 && internals.chunkedBuffer(this).length !== 0) {
    counters.writesToNode++;
  }
  nodeUncork.call(this);
}

// The methods to put on ServerResponse.prototype for this Node.
const methods = internals.chunksMergeInTick ?
  { writeHead, _storeHeader, end, write, uncork } :
  { writeHead, _storeHeader, end, write };

module.exports = { methods, writeHead, _storeHeader, end };
