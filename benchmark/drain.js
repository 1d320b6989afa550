'use strict';

// The drain probe: for measurement only, NOT identical to stock Node and
// never to be used to serve anything.  It answers one question of the
// finish path: how much could a package save by draining the request
// itself instead of through Node's `IncomingMessage.prototype._dump()`?
// Loaded with -r after onewrite/register:
//
//   ONEWRITE_DRAIN_PROBE=ticks node -r onewrite/register -r ./benchmark/drain.js benchmark/simple.js
//   ONEWRITE_DRAIN_PROBE=none  node -r onewrite/register -r ./benchmark/drain.js benchmark/simple.js
//
// Node's finish path (resOnFinish) calls req._dump() on a request nobody
// read.  For a complete request with no body (simple.js's GETs) Node then
// takes these ticks (process.nextTick), with Readable's own code in each:
//
// Node 20 and 22: _dump() calls resume(), which sets the stream flowing.
//   (emitReadable_, the request's own tick, queued when it ended: its
//   flow() reads, finds the stream ended, and endReadable() schedules the
//   endReadableNT below)
//   resume_        read(0), 'resume', flow()'s read(), read(0): each finds
//                  the stream ended, and endReadable() schedules
//                  endReadableNT again each time
//   endReadableNT  'end', then autoDestroy: destroy() -> IncomingMessage's
//                  _destroy(), which schedules onError
//   endReadableNT x3  'end' was emitted: they check and do nothing
//   onError        the destroy callback, which schedules emitCloseNT
//   emitCloseNT    'close'
// Seven ticks, three of them empty, in the benchmark's order; six when the
// request's 'readable' tick has run before 'finish' (a handler that ends
// the response later): resume_'s first read(0) then ends the stream.
//
// Node 24 and 26: _dump() has a fast path for such a request: read(0),
// not resume() (no 'resume'), and _destroy() calls back at once when
// there is no error.
//   endReadableNT  'end', then destroy(), whose callback runs at once and
//                  schedules emitCloseNT
//   emitCloseNT    'close'
//
// To keep Node's events in Node's order relative to everything else queued
// on the same ticks, a package's own drain would still take those ticks,
// even the empty ones: each runs the init, before, after and destroy hooks
// of every async_hooks hook (AsyncLocalStorage on Node 20/22, APM agents),
// so a package that dropped one would run user code fewer times than Node.
//
// ONEWRITE_DRAIN_PROBE=ticks   _dump() takes Node's ticks with next to no
//                              code in them, setting the state flags along
//                              the way.  The stream is not set flowing, so
//                              that Readable's own code never runs: no
//                              read(), no destroy(), none of their checks.
//                              What a package's drain would cost at best.
// ONEWRITE_DRAIN_PROBE=none    _dump() marks the request dumped and does
//                              nothing else: no tick, no event, the request
//                              never ends.  What the drain costs in all,
//                              short of the request's own lifecycle.
// It says which on stderr, in one line starting "drain:".

const { IncomingMessage } = require('node:_http_incoming');

const MODE = process.env.ONEWRITE_DRAIN_PROBE;
if (MODE !== 'ticks' && MODE !== 'none') {
  throw new Error(`drain.js: ONEWRITE_DRAIN_PROBE must be 'ticks' or 'none', not ${JSON.stringify(MODE)}`);
}

const nodeDump = IncomingMessage.prototype._dump;
const { nextTick } = process;

// Which drain this Node has, from its own code: the fast path of Node 24
// and 26 (checked on 20.20.2, 22.23.5, 24.22.3, 26.12.1).
const FAST = /this\.read\(0\)/.test(String(nodeDump));

// Only the case measured: a complete request, nothing buffered, nobody
// reading; anything else is Node's.
function plain(req) {
  const s = req._readableState;
  return !req._dumped && req.complete && s.ended && s.length === 0 && !s.endEmitted && !s.destroyed &&
    s.flowing === null && req.listenerCount('data') === 0;
}

// Node 20/22: resume_, with the endReadableNT it leads to, and the three
// that find 'end' emitted.
function resumeTick(req, s) {
  nextTick(endTick, req, s);
  s.resumeScheduled = false;
  req.emit('resume');
  for (let i = 0; i < 3; i++) nextTick(emptyTick, req, s);
}

function emptyTick(req, s) {
  if (!s.endEmitted) throw new Error('drain.js: the request has not ended');
}

// endReadableNT: 'end', then the destroy: on Node 20/22 its callback one
// tick later (onError), on 24/26 at once.
function endTick(req, s) {
  s.endEmitted = true;
  req.emit('end');
  s.destroyed = true;
  if (FAST) {
    s.closed = true;
    nextTick(closeTick, req, s);
  } else {
    nextTick(destroyedTick, req, s);
  }
}

function destroyedTick(req, s) {
  s.closed = true;
  nextTick(closeTick, req, s);
}

function closeTick(req, s) {
  s.closeEmitted = true;
  req.emit('close');
}

IncomingMessage.prototype._dump = function _dump() {
  if (!plain(this)) return nodeDump.call(this);
  const s = this._readableState;
  this._dumped = true;
  if (MODE === 'none') return;
  if (FAST) {
    nextTick(endTick, this, s);
  } else {
    s.resumeScheduled = true;
    nextTick(resumeTick, this, s);
  }
};

process.stderr.write(`drain: a measurement probe, not identical to stock Node (${MODE === 'ticks'
  ? `the request drained in Node's ${FAST ? 2 : 7} ticks with no stream code` : 'the request not drained at all'})\n`);
