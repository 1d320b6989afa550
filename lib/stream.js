'use strict';

// Streaming responses, one item per chunk per socket write:
//
//   const events = onewrite.sse(res, { retry: 3000, heartbeat: 15000 });
//   events.send('hello');                                  // data: hello
//   events.send({ event: 'tick', id: '7', data: { n: 1 } }); // JSON data
//   events.comment('keep-alive');
//   await events.stream(asyncIterable);                    // backpressure, abort
//   events.close();
//
//   const lines = onewrite.ndjson(res);
//   lines.write({ row: 1 });                               // {"row":1}\n
//   await lines.stream(rows);
//   lines.end();
//
// Each item is framed here (SSE fields per the WHATWG HTML "server-sent
// events" rules, or one JSON line) and handed to res.write() as one string:
// with onewrite installed it reaches the socket as one buffer, one chunk,
// and an item written alone in its tick is one socket write.  Items written
// in the same tick leave together at the end of the tick, as with plain
// res.write() (one syscall), but each stays its own chunk: Node 24+ would
// merge them (lib/internals.js endChunk).  The writers use the public
// response API and work with and without onewrite installed.

const { once } = require('node:events');
const internals = require('./internals');

// ---- SSE framing -------------------------------------------------------------

const LINE_BREAK = /\r\n|\r|\n/;

// A field value that must stay on one line (event, id): a line break would
// end the field; NUL in an id makes the browser ignore it.
function singleLine(name, value) {
  const s = String(value);
  if (/[\r\n]/.test(s) || (name === 'id' && s.includes('\0'))) {
    throw new TypeError(`The SSE "${name}" field must not contain a line break${name === 'id' ? ' or NUL' : ''}`);
  }
  return s;
}

// The text of one event.  `message` is a string (the data), or an object
// { data, event, id, retry, comment } where data that is not a string is
// sent as JSON.  Multi-line data becomes one "data:" line per line, and
// CR, LF and CRLF are all line breaks, as the parser reads them.
function sseFrame(message) {
  let out = '';
  let data = message;
  if (message !== null && typeof message === 'object' && !Array.isArray(message)) {
    const { comment, event, id, retry } = message;
    if (comment !== undefined) out += sseComment(comment);
    if (event !== undefined) out += `event: ${singleLine('event', event)}\n`;
    if (id !== undefined) out += `id: ${singleLine('id', id)}\n`;
    if (retry !== undefined) {
      if (!Number.isInteger(retry) || retry < 0) {
        throw new TypeError('The SSE "retry" field must be a non-negative integer');
      }
      out += `retry: ${retry}\n`;
    }
    data = message.data;
  }
  if (data !== undefined) {
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    for (const line of text.split(LINE_BREAK)) out += `data: ${line}\n`;
  }
  if (out === '') throw new TypeError('An SSE message needs data, event, id, retry or comment');
  return out + '\n';
}

function sseComment(text) {
  let out = '';
  for (const line of String(text).split(LINE_BREAK)) out += `: ${line}\n`;
  return out;
}

// ---- the writers -------------------------------------------------------------

// Write one framed item as its own chunk.  The answer is write()'s, unless
// framing the chunk already drained what write() held back (then 'drain'
// has fired: waiting for it would wait for nothing).
function writeItem(res, text) {
  if (res.writableEnded || res.destroyed) return false;
  const ok = res.write(text);
  internals.endChunk(res);
  return ok || !res.writableNeedDrain;
}

// for await over `iterable`, writing each item with `write`; waits for
// 'drain' when the socket is full; stops (and ends the iterator, which runs
// its finally blocks) when the client goes away.  Resolves with
// { items, aborted }.
async function pump(res, iterable, write) {
  let items = 0;
  let aborted = false;
  const gone = () => res.destroyed || (res.socket !== null && res.socket.destroyed);
  // Whether to stop: the response was ended (by the caller) or the client
  // is gone (aborted).
  const stopped = () => {
    if (!gone() && !res.writableEnded) return false;
    aborted = !res.writableEnded;
    return true;
  };
  const iterator = iterable[Symbol.asyncIterator] ? iterable[Symbol.asyncIterator]()
    : iterable[Symbol.iterator]();
  try {
    for (;;) {
      if (stopped()) break;
      const { value, done } = await iterator.next();
      if (done || stopped()) break;
      items++;
      if (!write(value)) {
        // Full: wait until the socket drains, or the client is gone.
        const ac = new AbortController();
        await Promise.race([
          once(res, 'drain', { signal: ac.signal }),
          once(res, 'close', { signal: ac.signal }),
        ]).catch(() => {});
        ac.abort();
      }
    }
  } finally {
    if (typeof iterator.return === 'function' && (aborted || gone())) {
      await iterator.return();
    }
  }
  return { items, aborted };
}

// What sse() and ndjson() write to: an http.ServerResponse (or anything
// with its writeHead, write and end), whose head is not sent yet.
function checkResponse(res, name) {
  if (res === null || typeof res !== 'object' || typeof res.writeHead !== 'function' ||
      typeof res.write !== 'function' || typeof res.end !== 'function') {
    throw new TypeError(`${name}(res) needs an http.ServerResponse (the second argument of ` +
      `the request handler), got ${res === null ? 'null' : typeof res}`);
  }
  if (res.headersSent) {
    throw new Error(`${name}(res) must start the response: its head was already sent`);
  }
}

function sse(res, options = {}) {
  checkResponse(res, 'sse');
  const { status = 200, retry, heartbeat } = options;
  // No Connection header of our own: Node sends "Connection: keep-alive"
  // (with its Keep-Alive line) for a persistent connection, and closes one
  // the client asked to close.
  res.writeHead(status, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    ...options.headers,
  });
  // The head goes out at once (an EventSource opens on it): with the first
  // retry field when there is one, else alone.
  if (retry !== undefined) writeItem(res, sseFrame({ retry }));
  else res.flushHeaders();

  let timer = null;
  if (heartbeat) {
    timer = setInterval(() => writeItem(res, ':\n\n'), heartbeat);
    timer.unref();
    res.once('close', () => clearInterval(timer));
  }
  const writer = {
    send: (message) => writeItem(res, sseFrame(message)),
    comment: (text) => writeItem(res, `${sseComment(text)}\n`),
    stream: (iterable) => pump(res, iterable, writer.send),
    close() {
      if (timer !== null) clearInterval(timer);
      if (!res.writableEnded) res.end();
    },
    response: res,
  };
  writer.end = writer.close;
  return writer;
}

function ndjson(res, options = {}) {
  checkResponse(res, 'ndjson');
  const { status = 200 } = options;
  res.writeHead(status, { 'Content-Type': 'application/x-ndjson', ...options.headers });
  const line = (value) => {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError('An NDJSON line must be JSON-serialisable');
    return `${text}\n`;
  };
  const writer = {
    write: (value) => writeItem(res, line(value)),
    stream: (iterable) => pump(res, iterable, writer.write),
    end() {
      if (!res.writableEnded) res.end();
    },
    response: res,
  };
  writer.close = writer.end;
  return writer;
}

module.exports = { sse, ndjson, sseFrame };
