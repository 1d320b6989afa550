'use strict';

// The one module that reads or writes Node's private response state: the
// underscore fields of OutgoingMessage / ServerResponse, its private symbols
// and the socket fields the fast paths depend on.  Every access is listed
// with the Node majors it was checked on (the source of lib/_http_outgoing.js
// and lib/_http_server.js of v20.20.2, v22.23.5, v24.22.3 and v26.12.1, and
// test/differential.js on each).  A major that is not in TESTED is not
// accelerated: lib/install.js leaves Node's own code in place.

const http = require('node:http');
const net = require('node:net');
const { OutgoingMessage, ServerResponse } = http;

// A socket whose write() is Node's own (not replaced on the instance by a
// spy, an APM agent or a test counting the calls): only then may a fast
// path give it fewer, larger writes than Node would.
const socketWrite = net.Socket.prototype.write;
const slots = require('./slots');

const TESTED = [20, 22, 24, 26];
const major = Number(process.versions.node.split('.')[0]);
const supported = TESTED.includes(major);

function findSymbol(object, description) {
  return Object.getOwnPropertySymbols(object).find((s) => s.description === description);
}

// Symbols are discovered on objects that run no user-visible code when built:
// an OutgoingMessage (no diagnostics channel) and an http.Server that never
// listens.
const probeMessage = new OutgoingMessage();
const probeServer = new http.Server();
const kOutHeaders = findSymbol(probeMessage, 'kOutHeaders'); //        20 22 24 26
const kCorked = findSymbol(probeMessage, 'corked'); //                 20 22 24 26
const kChunkedBuffer = findSymbol(probeMessage, 'kChunkedBuffer'); //     22 24 26
const kUniqueHeaders = findSymbol(probeServer, 'kUniqueHeaders'); //   20 22 24 26
const kNeedDrain = findSymbol(probeMessage, 'kNeedDrain'); //          20 22 24 26
const kChunkedLength = findSymbol(probeMessage, 'kChunkedLength'); //     22 24 26

// What a supported Node must offer; anything missing disables the package.
function missing() {
  const problems = [];
  if (!kOutHeaders) problems.push('kOutHeaders');
  if (!kCorked) problems.push('corked');
  if (!kUniqueHeaders) problems.push('kUniqueHeaders');
  if (!kNeedDrain) problems.push('kNeedDrain');
  if (major >= 22 && !kChunkedBuffer) problems.push('kChunkedBuffer');
  if (major >= 22 && !kChunkedLength) problems.push('kChunkedLength');
  for (const name of ['_storeHeader', '_send', '_implicitHeader', 'end', 'write', 'uncork']) {
    if (typeof ServerResponse.prototype[name] !== 'function') problems.push(name);
  }
  return problems;
}

// Node's own methods, taken before anything is patched.
const originals = {
  storeHeader: OutgoingMessage.prototype._storeHeader,
  end: OutgoingMessage.prototype.end,
  write: OutgoingMessage.prototype.write,
  uncork: OutgoingMessage.prototype.uncork,
  writeHead: ServerResponse.prototype.writeHead,
};

// How chunked write() goes out (OutgoingMessage#write / write_ / uncork):
// - 20, 22: each write() is its own chunk, sent at once as four _send()s
//   while the socket is corked until the next tick;
// - 24, 26: write() corks the response and buffers the data in
//   kChunkedBuffer; uncork() (next tick, or end()) sends all of it as ONE
//   chunk.
const chunksMergeInTick = major >= 24;

// A ServerResponse with no request and no socket, for running Node's own
// code on chosen inputs (buildHead's reference path).  It is made without
// the ServerResponse constructor, which would announce it on the
// 'http.server.response.created' diagnostics channel; the fields that
// constructor sets are set here instead (20 22 24 26).  Node's own
// _storeHeader and end are pinned on the instance, so an installed
// onewrite does not take part.
function scratchResponse({ sendDate, keepAlive, hasBody, keepAliveTimeout, maxRequestsPerSocket }) {
  const res = Object.create(ServerResponse.prototype);
  OutgoingMessage.call(res);
  res.sendDate = sendDate;
  res.shouldKeepAlive = keepAlive;
  res._hasBody = hasBody;
  res._sent100 = false;
  res._expect_continue = false;
  res._keepAliveTimeout = keepAliveTimeout;
  res._maxRequestsPerSocket = maxRequestsPerSocket;
  res._storeHeader = originals.storeHeader;
  res.end = originals.end;
  return res;
}

// The bytes a socket-less response queued in outputData, in order, each
// entry encoded the way _writeRaw would hand it to a socket.
function queuedBytes(res) {
  return Buffer.concat(res.outputData.map(({ data, encoding }) =>
    (typeof data === 'string' ? Buffer.from(data, encoding || 'utf8') : data)));
}

// The Keep-Alive line _storeHeader writes.  v20-v24 print the raw
// _maxRequestsPerSocket, v26 the ~~ of it (its cached keepAliveHeaderCache).
function keepAliveLine(timeout, max) {
  const timeoutSeconds = Math.floor(timeout / 1000);
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

// A live net.Socket of this response (not queued behind a pipelined
// response), with Node's own write() (20 22 24 26).
function ownsWritableSocket(res, socket) {
  return socket != null && socket._httpMessage === res && socket.write === socketWrite &&
    socket.writable === true && socket.destroyed === false;
}

// May end() write this response's bytes straight to its socket?  Everything
// here must hold, or Node's own end() runs (20 22 24 26):
// - the socket is a live net.Socket owned by this response (not queued
//   behind a pipelined response, not corked by the user, not destroyed),
//   with Node's own write();
// - Node holds nothing back: no queued outputData, no res.cork(), no
//   buffered chunks (kChunkedBuffer, 22+);
// - nothing that changes the last bytes: strictContentLength, trailers,
//   an unanswered Expect: 100-continue.
function canWriteDirect(res, socket) {
  return ownsWritableSocket(res, socket) &&
    socket._handle != null &&
    res.outputData.length === 0 &&
    res[kCorked] === 0 &&
    (kChunkedBuffer === undefined || res[kChunkedBuffer].length === 0) &&
    res.strictContentLength === false &&
    res._trailer === '' &&
    !expectPending(res);
}

// The head has been built (by writeHead or _implicitHeader) but not sent.
function headPending(res) {
  return !res._headerSent && typeof res._header === 'string' && res._header.length > 0;
}

function head(res) {
  return res._header;
}

function headerRendered(res) {
  return !!res._header;
}

function markHeadSent(res) {
  res._headerSent = true;
}

// What _storeHeader does last when the user set an Expect header (20 22 24 26).
function flushHead(res) {
  res._send('');
}

// The head is on the wire (or merged into a write already made).
function headSent(res) {
  return res._headerSent;
}

function setNeedDrain(res) {
  res[kNeedDrain] = true;
}

// The chunks a 24+ response holds back until uncork(): [data, encoding,
// callback, ...] and their byte count.
function corked(res) {
  return res[kCorked];
}

function setCorked(res, n) {
  res[kCorked] = n;
}

function chunkedBuffer(res) {
  return res[kChunkedBuffer];
}

function clearChunked(res) {
  res[kChunkedBuffer].length = 0;
  res[kChunkedLength] = 0;
}

// What OutgoingMessage#uncork (24, 26) does after a flush.
function drainIfDone(res) {
  if (res[kNeedDrain] && res.writableLength === 0) {
    res[kNeedDrain] = false;
    res.emit('drain');
  }
}

// Make the write() just made its own chunk, without sending it before the
// end of the tick (so that the items of one tick still leave in one
// syscall, one buffer each):
// - 20, 22: each write() already is its own chunk, in a socket corked until
//   the next tick (write_ and connectionCorkNT): nothing to do;
// - 24, 26: write() corked the response (kCorked 1) and buffers the data,
//   to be merged with the tick's other writes; uncork() now frames it as
//   one chunk, into the socket, which is held corked until the next tick
//   here (connectionCorkNT then finds kCorked 0 and does nothing).
// A cork the user holds (kCorked > 1) is left alone.
function uncorkSocket(socket) {
  socket.uncork();
}

// Cork the socket until the next tick, as Node's write_ does with
// connectionCorkNT (20 22 24 26): the writes of one tick leave in one
// syscall.
function corkForTick(socket) {
  socket.cork();
  process.nextTick(uncorkSocket, socket);
}

function endChunk(res) {
  if (!chunksMergeInTick) return;
  const socket = res.socket;
  if (socket == null || socket._httpMessage !== res || res[kCorked] !== 1) return;
  if (socket.writableCorked === 1) {
    // Only write()'s cork: hold the socket for the rest of the tick.
    corkForTick(socket);
  }
  res.uncork();
}

function hasBody(res) {
  return res._hasBody;
}

function isChunked(res) {
  return res.chunkedEncoding;
}

function setChunked(res, value) {
  res.chunkedEncoding = value;
}


module.exports = {
  TESTED,
  ownsWritableSocket,
  major,
  supported,
  missing,
  originals,
  scratchResponse,
  queuedBytes,
  chunksMergeInTick,
  symbols: { kOutHeaders, kCorked, kChunkedBuffer, kChunkedLength, kUniqueHeaders, kNeedDrain },
  keepAliveLine,
  headState,
  applyState,
  storeHead,
  contentLength,
  setContentLength,
  outHeaders,
  dropBody,
  expectPending,
  dontKeepAlive,
  isOutHeaders,
  uniqueHeaders,
  keepAliveTimeout,
  maxRequestsPerSocket,
  canWriteDirect,
  headPending,
  head,
  headerRendered,
  markHeadSent,
  headSent,
  setNeedDrain,
  corked,
  setCorked,
  chunkedBuffer,
  clearChunked,
  drainIfDone,
  endChunk,
  corkForTick,
  flushHead,
  hasBody,
  isChunked,
  setChunked,
};
