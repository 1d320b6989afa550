'use strict';

// A request's queued bytes in one socket write (the client side).
//
// A request ended before it has its socket - the usual case: an agent
// hands a socket over on the next tick - has its bytes queued by Node in
// req.outputData, and Node's _flushOutput(socket) writes the entries
// when the socket comes, corked: a writev of them.  Node 20 and 22 queue
// a request's data (the head merged with text), then an empty string
// carrying onFinish; every line queues the head apart from bytes.  Where
// the entries are one of those shapes, flush() writes them as one: the
// text as it is, or the head and bytes of up to 4 KiB copied into one
// latin1 string, with the last entry's callback; the rest of the steps
// are _flushOutput()'s.  end() itself stays Node's, and so does what it
// queued until the socket takes it.
//
// The bytes and the callbacks are the same (an earlier entry's callback
// is Node's nop), and so is what the socket's write() answers (the empty
// string adds nothing to the socket's length).  It is decided at the
// flush, where the socket is known: one whose write path is not Node's
// own (a wrapper on its write(), _write(), _writev(), its handle's
// methods) gets Node's writes, each of them.  The entries are read without
// running code (a descriptor, or a getter looked up): a getter there is
// seen, not run, and leaves the flush to Node.  No code of the user's runs
// before the one write.

const internals = require('./internals');
const { BUFFER_COPY_LIMIT, join, liftEndCork, plainBytes, typedArrayByteLength } = require('./outgoing');
const { fallback } = require('./stats');
const {
  ArrayIsArray, ArrayPrototype, ObjectGetOwnPropertyDescriptor, ObjectGetPrototypeOf, ObjectPrototype,
  ObjectPrototypeLookupGetter, isProxy,
} = require('./primordials');

const { LINE, isNodeNop } = internals;

// An own data property's value, or NOT_DATA (absent: Node's read would
// reach the prototype; an accessor: it would run code).
const NOT_DATA = { notData: true };
function dataOf(o, key) {
  const d = ObjectGetOwnPropertyDescriptor(o, key);
  return d === undefined || d.get !== undefined || d.set !== undefined ? NOT_DATA : d.value;
}

// An entry of outputData ({ data, encoding, callback }, as _writeRaw()
// and _send() queue them), its fields read once; or null.  queue[i] is
// read plainly where no getter stands for it on the array or its
// prototypes (Array.prototype, Object.prototype: no Proxy there, checked
// by refusal()): a data property, or none (undefined), runs no code.  (Its
// descriptor costs ~1,000 instructions an entry more: an index goes to
// V8's runtime.)
const entries = [
  { entry: null, data: null, encoding: null, callback: null },
  { entry: null, data: null, encoding: null, callback: null },
  { entry: null, data: null, encoding: null, callback: null },
];
function readEntry(queue, i) {
  if (ObjectPrototypeLookupGetter(queue, i) !== undefined) return null;
  const entry = queue[i];
  if (typeof entry !== 'object' || entry === null || isProxy(entry)) return null;
  const d = ObjectGetOwnPropertyDescriptor(entry, 'data');
  if (d === undefined || d.writable !== true) return null; // (Node sets it to null)
  const encoding = dataOf(entry, 'encoding');
  const callback = dataOf(entry, 'callback');
  if (encoding === NOT_DATA || callback === NOT_DATA) return null;
  const e = entries[i];
  e.entry = entry;
  e.data = d.value;
  e.encoding = encoding;
  e.callback = callback;
  return e;
}

// A callback Node's writes of these entries would not call with effect.
function noCallback(cb) {
  return cb === null || cb === undefined || isNodeNop(cb);
}

// The empty string 20 and 22 queue last, carrying onFinish.
function emptyLast(e) {
  return e.data === '' && e.encoding === 'latin1' && typeof e.callback === 'function';
}

// What flush() writes: one chunk, its encoding and callback; or the reason
// Node's writes are made.  `connecting`: the socket has not connected yet,
// and would send bytes as they are at 'connect': they are not copied now.
const one = { data: null, encoding: null, callback: null };
function shape(n, connecting) {
  const a = entries[0];
  const b = entries[1];
  if (!noCallback(a.callback)) return 'callback on an early entry';
  // Text (the head merged with it, as _send() merges it), then ''.
  if (n === 2 && typeof a.data === 'string' && emptyLast(b)) {
    one.data = a.data;
    one.encoding = a.encoding;
    one.callback = b.callback;
    return null;
  }
  // The head, bytes, and (20 22) ''.
  if (typeof a.data !== 'string' || a.encoding !== 'latin1' || !plainBytes(b.data)) return 'entries of another shape';
  let last = b;
  if (n === 3) {
    last = entries[2];
    if (!noCallback(b.callback) || !emptyLast(last)) return 'entries of another shape';
  }
  if (connecting) return 'bytes before the socket connected';
  const len = typedArrayByteLength(b.data);
  // (0: detached too, which Node's socket.write() throws on.)
  if (len === 0) return 'no bytes';
  if (a.data.length + len > BUFFER_COPY_LIMIT) return 'bytes too large to copy';
  const joined = join(a.data, b.data, 0);
  if (joined === undefined) return 'head not latin1';
  one.data = joined;
  one.encoding = 'latin1';
  one.callback = last.callback;
  return null;
}

// _flushOutput(socket) for a request: Node's steps with the entries
// written as one (answers what the socket's write() answered), or
// NODES with nothing done (the reason recorded).  `length`: the queue's
// length as Node's first step read it, or -1 where it was not read.
const NODES = { nodes: true };
let worthCounting = false; // the last flush handed to Node had entries to merge
function flush(msg, socket, length) {
  let n = 0;
  let data;
  let encoding;
  let callback;
  let first = null; // the entries' objects (at most three)
  let second = null;
  let third = null;
  try {
    const why = refusal(msg, socket, length);
    worthCounting = why !== '' && why !== null;
    if (why !== null) {
      if (worthCounting) fallback(why, '_flushOutput');
      return NODES;
    }
    n = queued.length;
    ({ data, encoding, callback } = one);
    first = entries[0].entry;
    second = entries[1].entry;
    third = n === 3 ? entries[2].entry : null;
  } finally {
    // (What is needed below is in locals: nothing of the request stays in
    // the module, whatever happened.)
    forget();
  }
  // Node's steps.  (20: while (this[kCorked]) ...: none, refusal().)  Each
  // entry's data is let go before its write: the first's, then the rest's
  // after the one write.  The cork is lifted before the one write as
  // end()'s is (liftEndCork: the only cork, nothing waiting, less than the
  // high-water mark): through the socket's buffer the bytes would leave
  // the same, later in this call, through more of the stream's steps.
  socket.cork();
  first.data = null;
  liftEndCork(socket, data);
  const ret = socket.write(data, encoding, callback);
  second.data = null;
  if (third !== null) third.data = null;
  socket.uncork();
  msg.outputData = [];
  msg._onPendingData(-msg.outputSize);
  msg.outputSize = 0;
  return ret;
}

// The request's queue: an array of its own, not a Proxy, read through its
// descriptor; or null.
function queueOf(msg) {
  const queue = dataOf(msg, 'outputData');
  return queue === NOT_DATA || !ArrayIsArray(queue) || isProxy(queue) ? null : queue;
}

// How many entries the request has queued (-1: no queue of its own).
function queueLength(msg) {
  const queue = queueOf(msg);
  return queue === null ? -1 : queue.length;
}

// Nothing of a request kept past its flush (its data could be large), in
// the module's entries.
function forget() {
  queued = null;
  one.data = null;
  one.callback = null;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    e.entry = e.data = e.encoding = e.callback = null;
  }
}

// Why the entries cannot go as one ('' for what is not worth a reason:
// nothing queued, or one entry, which Node writes as one already); null
// with `queued` the request's outputData.
let queued = null;
function refusal(msg, socket, length) {
  // One entry or none: Node writes it as one already.
  if ((typeof length === 'number' && length >= 0 ? length : queueLength(msg)) < 2) return '';
  if (socket == null || typeof socket !== 'object') return 'no socket';
  // The socket's checks read its methods and state, and a getter there is
  // code of the user's, which may queue more: the queue is read after
  // them, and what is read from there on runs no code.
  const path = internals.socketPathRefusal(socket);
  if (path !== null) return path;
  if (socket.destroyed) return 'socket destroyed';
  if (!socket.writable) return 'socket not writable';
  const connecting = socket.connecting === true;
  // (Its prototypes V8's own: readEntry() looks a getter up along them.)
  const queue = queueOf(msg);
  if (queue === null || ObjectGetPrototypeOf(queue) !== ArrayPrototype ||
      ObjectGetPrototypeOf(ArrayPrototype) !== ObjectPrototype) {
    return 'outputData not an array';
  }
  const n = queue.length;
  if (n < 2) return '';
  if (n > 3) return 'entries of another shape';
  if (LINE < 22 && internals.corked(msg)) return 'corked';
  for (let i = 0; i < n; i++) if (readEntry(queue, i) === null) return 'entry getter or proxy';
  queued = queue;
  return shape(n, connecting);
}

function counted() {
  return worthCounting;
}

module.exports = { flush, counted, NODES };
