'use strict';

// buildHead(statusCode, statusMessage, headers, options) -> Buffer
//
// What Node's ServerResponse renders for
//   res._contentLength = options.contentLength ?? byteLength(options.body);
//   res.writeHead(statusCode, statusMessage, headers);
// on an HTTP/1.1 connection, without a server or a socket: the status line,
// the headers, Date, Connection/Keep-Alive and Content-Length or chunked
// framing (Node's res._header).  With options.body, the whole message Node
// then sends for res.end(options.body): the head, the body (framed as one
// chunk and the last-chunk when the head is chunked; none for HEAD, 204,
// 304, 1xx).  The addon renders it; where it
// declines (a character >= 0x80, a header Node joins, invalid input), Node's
// own code renders it on a socket-less response, and throws Node's own
// errors (ERR_HTTP_INVALID_STATUS_CODE, ERR_INVALID_HTTP_TOKEN,
// ERR_INVALID_CHAR, ...).

const { Buffer } = require('node:buffer');
const { STATUS_CODES } = require('node:http');
const { isUint8Array } = require('node:util/types');
const { binding } = require('./native');
const internals = require('./internals');
const head = require('./head');
const walker = require('./walk');
const guard = require('./guard');
const S = require('./slots');

const ENCODINGS = new Set(['utf8', 'utf-8', 'latin1', 'binary', 'ascii']);

function normalise(statusCode, options) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object') {
    throw new TypeError('The "options" argument must be an object');
  }
  const {
    date = true, keepAlive = true, keepAliveTimeout = 5000, maxRequestsPerSocket = 0,
    head: isHead = false, body, encoding = 'utf8',
  } = options;
  if (!ENCODINGS.has(encoding)) {
    throw new TypeError(`The "encoding" option must be one of ${[...ENCODINGS].join(', ')}`);
  }
  if (body !== undefined && typeof body !== 'string' && !isUint8Array(body)) {
    throw new TypeError('The "body" option must be a string, Buffer or Uint8Array');
  }
  let { contentLength } = options;
  if (contentLength === undefined && body !== undefined) {
    contentLength = typeof body === 'string' ? Buffer.byteLength(body, encoding) : body.byteLength;
  }
  if (contentLength !== undefined && typeof contentLength !== 'number') {
    throw new TypeError('The "contentLength" option must be a number');
  }
  const code = statusCode | 0;
  const noBody = code === 204 || code === 304 || (code >= 100 && code <= 199);
  return {
    sendDate: !!date,
    keepAlive: !!keepAlive,
    hasBody: !isHead && !noBody,
    keepAliveTimeout,
    maxRequestsPerSocket,
    contentLength: contentLength === undefined ? null : contentLength,
    body,
    encoding,
  };
}

// Node's own code on a socket-less response.
function reference(statusCode, statusMessage, headers, o) {
  const res = internals.scratchResponse(o);
  internals.setContentLength(res, o.contentLength);
  if (typeof statusMessage === 'string') {
    internals.originals.writeHead.call(res, statusCode, statusMessage, headers);
  } else {
    internals.originals.writeHead.call(res, statusCode, headers);
  }
  if (o.body === undefined) return Buffer.from(internals.head(res), 'latin1');
  res.end(o.body, o.encoding);
  return internals.queuedBytes(res);
}

// The addon answers latin1 strings (see csrc/binding.c): their bytes are
// the message's bytes.
function toBuffer(s) {
  return s === undefined ? undefined : Buffer.from(s, 'latin1');
}

// The addon alone: a Buffer, or undefined where it declines.
function render(statusCode, statusMessage, headers, o) {
  if (binding === null) return undefined;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) ||
      statusCode < 100 || statusCode > 999) return undefined;
  if (typeof o.keepAliveTimeout !== 'number' || typeof o.maxRequestsPerSocket !== 'number') {
    return undefined;
  }
  const reason = typeof statusMessage === 'string' ? statusMessage
    : (STATUS_CODES[statusCode] || 'unknown');
  // The walk and the memory shared with the addon are a fast call's
  // (lib/guard.js): asked for from inside one (a getter a fast method
  // reached), the head is Node's.
  if (guard.busy) return undefined;
  guard.busy = true;
  try {
    return renderTaken(statusCode, reason, headers, o);
  } finally {
    guard.busy = false;
  }
}

function renderTaken(statusCode, reason, headers, o) {
  if (walker.walk(null, reason, headers, o.contentLength) === walker.REFUSED) return undefined;
  const { length } = walker.state;
  const parts = walker.takeParts();
  let st = S.VALIDATE | S.CHUNKED_DEFAULT | S.DEFAULT_KA;
  if (o.sendDate) st |= S.SEND_DATE;
  if (o.keepAlive) st |= S.KEEP_ALIVE;
  if (o.hasBody) st |= S.HAS_BODY;
  head.prepare(st, statusCode, 1, parts.length, length,
    o.contentLength === null ? undefined : o.contentLength, o.keepAliveTimeout, o.maxRequestsPerSocket);
  head.ints[S.S_WANT_ROLES] = 0;

  const all = head.text(parts);
  let body = o.body;
  if (body === undefined) return toBuffer(binding.head(all));
  if (typeof body === 'string') {
    const oneByte = o.encoding === 'latin1' || o.encoding === 'binary' ||
      Buffer.byteLength(body, 'utf8') === body.length;
    if (oneByte) {
      head.ints[S.S_BODY_KIND] = S.BODY_ONE_BYTE;
      head.nums[S.D_BODY_LEN] = body.length;
    } else if (o.encoding === 'ascii') {
      return undefined;
    } else {
      body = Buffer.from(body, 'utf8');
      head.ints[S.S_BODY_KIND] = S.BODY_BYTES;
    }
  } else {
    head.ints[S.S_BODY_KIND] = S.BODY_BYTES;
  }
  return toBuffer(binding.message(all, body));
}

function buildHead(statusCode, statusMessage, headers, options) {
  const o = normalise(statusCode, options);
  return render(statusCode, statusMessage, headers, o) ||
    reference(statusCode, statusMessage, headers, o);
}

module.exports = { buildHead, render, reference, normalise };
