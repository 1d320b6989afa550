'use strict';

// The floor: a probe for measurement only, NOT identical to stock Node and
// never to be used to serve anything.  It answers as cheaply as a package
// sitting where onewrite sits could (inside Node's own http server, under
// the handler's writeHead()/end()), so that what onewrite costs above it
// and what Node costs around it (parser, IncomingMessage, the finish path)
// can be read apart.  Loaded with -r in front of a server script:
//
//   node -r ./benchmark/floor.js benchmark/simple.js
//   ONEWRITE_FLOOR_DRAIN=0 node -r ./benchmark/floor.js benchmark/simple.js
//
// What it does to http.ServerResponse.prototype:
//   writeHead(status)  stores the status; given headers are merged with
//                      this.setHeader() into those set before, as Node's
//                      writeHead() merges them (nothing is rendered), and
//                      are otherwise ignored, as is a reason phrase;
//   write(chunk)       keeps the chunk (a string or bytes), and returns true;
//                      nothing is written, its callback is not called;
//   end(body)          writes one precomputed response straight to
//                      socket._handle: status line, Content-Type: text/plain
//                      (simple.js's header), Content-Length, the Date value
//                      (cached until the second changes, as Node does),
//                      Connection: keep-alive, Keep-Alive: timeout=5, the
//                      body (the chunks kept by write(), then end()'s own);
//                      then emits 'finish' on the next tick, so that
//                      Node's server runs its own finish path and reuses
//                      the connection.
// For simple.js (chunkedEnc=0) the bytes are those stock Node sends.  For
// another server that answers with writeHead(), write() and end()
// (a framework, realistic, write-end) it sends that server's status and
// body behind
// this head, its headers dropped: what is left above it is the server's own
// work, setHeader() included, and Node's around the response.  Nothing else
// is the same: setHeader() values, other status codes' reason
// phrases, Connection: close, HTTP/1.0, HEAD, pipelining, backpressure,
// 'prefinish', end() callbacks, errors, socket.bytesWritten, timeouts
// refreshed by writes, ... are ignored or left undone.
//
// ONEWRITE_FLOOR_DRAIN=0: the request is not drained either (its
// `_consuming` is set, so Node's finish path skips req._dump() and the
// request's data, 'end' and 'close' are left as they are): the difference
// between the two floors is what draining the request costs.
//
// The write: on the first response the probe lets net write it (the
// socket's own _writeGeneric) and watches the handle call it makes, then
// makes the same call itself: on Node 20/22 a handle write needs a real
// WriteWrap (a plain object aborts the process when the write goes async),
// so it takes the class of the one net made; on Node 24+ the handle makes
// its own when the write goes async.  Where neither exists it falls back to
// socket.write().  It says which on stderr, in one line starting "floor:".

const http = require('node:http');
const util = require('node:util');

const DRAIN = process.env.ONEWRITE_FLOOR_DRAIN !== '0';
const { ServerResponse, STATUS_CODES } = http;
const nodeEnd = ServerResponse.prototype.end;

// The Date value, until the second changes.
let date = null;
function utcDate() {
  if (date === null) {
    const d = new Date();
    date = d.toUTCString();
    setTimeout(() => {
      date = null;
      text = null;
    }, 1000 - d.getMilliseconds()).unref();
  }
  return date;
}

// The last response made, for the same status and body.
let text = null;
let lastStatus = 0;
let lastBody = null;
function response(status, body) {
  if (text !== null && status === lastStatus && body === lastBody) return text;
  const data = body == null ? '' : Buffer.from(body).toString('latin1');
  text = `HTTP/1.1 ${status} ${STATUS_CODES[status] || 'unknown'}\r\nContent-Type: text/plain\r\n` +
    `Content-Length: ${data.length}\r\nDate: ${utcDate()}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n${data}`;
  lastStatus = status;
  lastBody = body;
  return text;
}

function onComplete(status) {
  if (status < 0) this.socket.destroy(new Error(`write ${util.getSystemErrorName(status)}`));
}

function failed(socket, err) {
  if (err !== 0) socket.destroy(new Error(`write ${util.getSystemErrorName(err)}`));
}

// Node 20/22: handle.writeLatin1String(req, string) with a WriteWrap made
// as net's createWriteWrap makes one; returns an error code.
function viaWriteWrap(WriteWrap) {
  return (socket, string) => {
    const req = new WriteWrap();
    req.handle = socket._handle;
    req.oncomplete = onComplete;
    req.async = false;
    req.bytes = 0;
    req.buffer = null;
    req.callback = null;
    req.socket = socket;
    failed(socket, socket._handle.writeLatin1String(req, string));
  };
}

// Node 24+: handle.writeLatin1String(null, string) returns an error code
// when the write is done (or failed) at once, else the WriteWrap it made,
// whose status may already be in when the write completed during the call.
function viaHandleReq(socket, string) {
  const handle = socket._handle;
  const ret = handle.writeLatin1String(null, string);
  if (typeof ret === 'number') return failed(socket, ret);
  ret.handle = handle;
  ret.oncomplete = onComplete;
  ret.socket = socket;
  const status = ret.writeStatus;
  if (status !== null && status !== undefined) {
    ret.writeStatus = null;
    ret.oncomplete(status);
  }
}

function viaSocketWrite(socket, string) {
  socket.write(string, 'latin1');
}

// The first response: written by net, watched; returns the route for the
// others.
let write = (socket, string) => {
  const handle = socket._handle;
  if (typeof socket._writeGeneric !== 'function' || !handle || typeof handle.writeLatin1String !== 'function') {
    process.stderr.write('floor: writes with socket.write() (this Node has no socket._writeGeneric or handle.writeLatin1String)\n');
    write = viaSocketWrite;
    return viaSocketWrite(socket, string);
  }
  const own = handle.writeLatin1String;
  let seen;
  handle.writeLatin1String = function (req, s) {
    seen = req;
    return own.call(this, req, s);
  };
  try {
    socket._writeGeneric(false, string, 'latin1', () => {});
  } finally {
    delete handle.writeLatin1String;
  }
  if (seen === null) {
    process.stderr.write('floor: writes with socket._handle.writeLatin1String(null, response) (the handle makes the WriteWrap when a write goes async)\n');
    write = viaHandleReq;
  } else if (seen && typeof seen.constructor === 'function') {
    process.stderr.write(`floor: writes with socket._handle.writeLatin1String(new ${seen.constructor.name}(), response) (the class of net's own write request)\n`);
    write = viaWriteWrap(seen.constructor);
  } else {
    process.stderr.write('floor: writes with socket.write() (net\'s handle call was not recognised)\n');
    write = viaSocketWrite;
  }
  return undefined;
};

function emitFinish(res) {
  res.emit('finish');
}

// Node's writeHead() merges the headers it is given into those set before
// with setHeader(), by calling this.setHeader() for each: calls an identical
// package must make too (they may be wrapped), so the floor makes them
// (realistic).  Without headers set before, nothing is merged or rendered.
const kOutHeaders = Object.getOwnPropertySymbols(new http.OutgoingMessage())
  .find((s) => String(s) === 'Symbol(kOutHeaders)');
ServerResponse.prototype.writeHead = function writeHead(statusCode, reason, obj) {
  this.statusCode = statusCode;
  if (typeof reason !== 'string') obj ??= reason;
  if (obj && this[kOutHeaders] && !Array.isArray(obj)) {
    const keys = Object.keys(obj);
    for (let i = 0; i < keys.length; i++) if (keys[i]) this.setHeader(keys[i], obj[keys[i]]);
  }
  return this;
};

// The chunks write() kept, by response: a response that writes once keeps
// its chunk as it is (a body the same object every time is rendered once).
const kept = new WeakMap();
function bytesOf(chunk) {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}
ServerResponse.prototype.write = function write(chunk) {
  const before = kept.get(this);
  kept.set(this, before === undefined ? chunk : Buffer.concat([bytesOf(before), bytesOf(chunk)]));
  return true;
};

ServerResponse.prototype.end = function end(body) {
  const socket = this.socket;
  if (!socket || !socket._handle || typeof body === 'function') return nodeEnd.apply(this, arguments);
  const before = kept.get(this);
  if (before !== undefined) {
    body = body ? Buffer.concat([bytesOf(before), bytesOf(body)]) : before;
  }
  write(socket, response(this.statusCode, body));
  this.finished = true;
  if (!DRAIN) this.req._consuming = true;
  process.nextTick(emitFinish, this);
  return this;
};

process.stderr.write(`floor: a measurement probe, not identical to stock Node (${DRAIN ? 'the request drained' : 'the request not drained'})\n`);
