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
// runs, each step on its own process.nextTick():
//   resume_      read(0) finds the stream ended: endReadable() schedules
//                endReadableNT; 'resume'; on Node 20/22 flow()'s read()
//                and a second read(0) schedule it twice more (those ticks
//                find 'end' emitted and do nothing)
//   endReadableNT  'end', then autoDestroy: destroy() -> IncomingMessage's
//                _destroy(), which schedules onError
//   onError      the destroy callback, which schedules emitCloseNT
//   emitCloseNT  'close'
// and the stream's state moves on with each step.  To keep Node's events in
// Node's order relative to everything else queued on the same ticks, a
// package's own drain would still take those ticks: six on Node 20/22,
// four on 24/26.
//
// ONEWRITE_DRAIN_PROBE=ticks   _dump() sets the state and takes Node's
//                              ticks with next to no code in them: 'resume'
//                              (and on Node 20/22 the two ticks that do
//                              nothing), 'end', -, 'close'.  The stream is
//                              not set flowing, so that Readable's own code
//                              never runs: no read(), no destroy(), none of
//                              their checks.  What a package's drain would
//                              cost at best.  (Every tick counts: each runs
//                              the hooks of every async_hooks hook, which
//                              AsyncLocalStorage and APM agents use, so a
//                              package that dropped one would run user code
//                              fewer times than Node.)
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

// How many times endReadable() schedules endReadableNT in resume_: three
// on Node 20 and 22 (read(0), flow()'s read(), read(0)), once on 24 and 26
// (kEndScheduled); checked on 20.20.2, 22.23.5, 24.22.3, 26.12.1.
const EMPTY_TICKS = Number(process.versions.node.split('.')[0]) < 24 ? 2 : 0;

// Only the case measured: a complete request, nothing buffered, nobody
// reading; anything else is Node's.
function plain(req) {
  const s = req._readableState;
  return !req._dumped && s.ended && s.length === 0 && !s.endEmitted && !s.destroyed && s.flowing === null &&
    req.listenerCount('data') === 0;
}

function resumeTick(req, s) {
  nextTick(endTick, req, s);
  s.resumeScheduled = false;
  req.emit('resume');
  for (let i = 0; i < EMPTY_TICKS; i++) nextTick(emptyTick, req, s);
}

// endReadableNT when 'end' was emitted: it checks and does nothing.
function emptyTick(req, s) {
  if (!s.endEmitted) throw new Error('drain.js: the request has not ended');
}

function endTick(req, s) {
  s.endEmitted = true;
  req.emit('end');
  s.destroyed = true;
  nextTick(destroyedTick, req, s);
}

function destroyedTick(req, s) {
  nextTick(closeTick, req, s);
}

function closeTick(req, s) {
  s.closed = true;
  s.closeEmitted = true;
  req.emit('close');
}

IncomingMessage.prototype._dump = function _dump() {
  if (!plain(this)) return nodeDump.call(this);
  const s = this._readableState;
  this._dumped = true;
  if (MODE === 'none') return;
  s.resumeScheduled = true;
  nextTick(resumeTick, this, s);
};

process.stderr.write(`drain: a measurement probe, not identical to stock Node (${MODE === 'ticks'
  ? `the request drained in Node's ${4 + EMPTY_TICKS} ticks with no stream code` : 'the request not drained at all'})\n`);
