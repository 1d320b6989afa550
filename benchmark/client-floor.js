'use strict';

// The client floor: a probe for measurement only, NOT identical to stock
// Node and never to be used to send anything.  It sends a request as
// cheaply as a package sitting where onewrite sits (under
// http.request()'s end()) could: the head a constant string, head and
// body in one socket.write() on the agent's socket.  What is left above it
// is Node's own: ClientRequest's constructor (options, setHeader, Host),
// the agent handing out a socket, the parser, the response
// (IncomingMessage), the socket going back to the pool.  Loaded with -r in
// the measured client or proxy (client-instr.js):
//
//   node -r ./benchmark/client-floor.js benchmark/lib/client-loop.js ...
//
// What it does to http.ClientRequest.prototype (and http.Agent.prototype):
//   end(body)  for a request with no head yet, a string body or none, and
//              no callback: the head is the one Node rendered for the
//              first request of the same method, path and body length
//              (cached with the state _storeHeader leaves: _last,
//              chunkedEncoding, shouldKeepAlive; the benchmark sends the
//              same headers for those), head + body one string; if the
//              socket is assigned it is written now (socket.write), else
//              kept for _flush(); then 'finish' as Node emits it.
//   _flush()   writes the kept string with one socket.write() when the
//              agent assigns the socket (onSocketNT), Node's own otherwise.
//   Agent.prototype.addRequest(req, options)
//              Node's own, handed a copy of options in V8's fast layout,
//              made with no check (onewrite's checks each property's
//              descriptor first), so that Node's spread of it is cheap.
// Skipped against stock: _storeHeader (header validation, the loop over
// the headers, the string built), write_/_send/_writeRaw, outputData,
// cork/uncork, end()'s second (empty) write, the Content-Length check.
// Anything else (write() before end(), Buffers, callbacks, Expect,
// chunked bodies) goes to Node's end(): not what this benchmark sends.

const http = require('node:http');

const proto = http.ClientRequest.prototype;
const nodeEnd = proto.end;
const nodeFlush = proto._flush;
const KEPT = Symbol('floor: head and body, not yet written');
const heads = new Map(); // `${method} ${path} ${body length}` -> the head and its state

// Node 26 keeps writableFinished in a symbol of its own, set where it
// emits 'finish': without it a response that ends before 'finish' would
// never give the socket back to the agent.
const FINISHED = Object.getOwnPropertySymbols(new http.OutgoingMessage()).find((s) => s.description === 'kWritableFinished');

function onFinish(req) {
  if (req.socket && req.socket._hadError) return;
  if (FINISHED) req[FINISHED] = true;
  req.emit('finish');
}

proto.end = function end(chunk, encoding, callback) {
  if (this._header !== null || this.finished || (chunk != null && typeof chunk !== 'string') || typeof encoding === 'function' ||
    callback !== undefined) {
    return nodeEnd.apply(this, arguments);
  }
  const body = chunk || '';
  const key = `${this.method} ${this.path} ${body.length}`;
  let h = heads.get(key);
  if (h === undefined) {
    // The first of its shape: Node renders the head.
    this._contentLength = Buffer.byteLength(body);
    this._implicitHeader();
    h = { header: this._header, last: this._last, chunked: this.chunkedEncoding, keepAlive: this.shouldKeepAlive };
    heads.set(key, h);
  }
  this._header = h.header;
  this._last = h.last;
  this.chunkedEncoding = h.chunked;
  this.shouldKeepAlive = h.keepAlive;
  this._headerSent = true;
  this.finished = true;
  const data = body === '' ? h.header : h.header + body;
  const socket = this.socket;
  if (socket !== null && socket._httpMessage === this && socket.writable) {
    socket.write(data, 'latin1', () => onFinish(this));
    this._finish();
  } else {
    this[KEPT] = data;
  }
  return this;
};

const nodeAddRequest = http.Agent.prototype.addRequest;
function Copy() {}
Copy.prototype = Object.freeze(Object.create(null));
http.Agent.prototype.addRequest = function addRequest(req, options, port, localAddress) {
  if (typeof options === 'object' && options !== null) {
    const copy = new Copy();
    for (const key in options) copy[key] = options[key];
    options = copy;
  }
  return nodeAddRequest.call(this, req, options, port, localAddress);
};

proto._flush = function _flush() {
  const data = this[KEPT];
  const socket = this.socket;
  if (data === undefined || !socket || !socket.writable) return nodeFlush.call(this);
  this[KEPT] = undefined;
  socket.write(data, 'latin1', () => onFinish(this));
  this._finish();
};
