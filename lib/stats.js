'use strict';

// What the fast paths did: status().counters (how often each ran, how often
// it handed over to Node's own code) and status().fallbacks (how often each
// reason for handing over came up, by name: one name per decision in the
// code).  With NODE_DEBUG=onewrite (Node's util.debuglog convention) the
// first hand-over for each reason is printed, with the method and a short
// stack.  Plain increments: cheap enough for the hot path.

const { debuglog } = require('node:util');
const { MapPrototypeGet, MapPrototypeSet } = require('./primordials');
const { callers, frameWhere, isOwn, isNodes } = require('./stack');

const counters = {
  heads: 0, //          heads rendered by the addon (or its cache)
  headsToNode: 0, //    heads Node rendered
  ends: 0, //           end(data) sent in one write
  endsToNode: 0, //     end(data) left to Node
  writes: 0, //         write() calls whose chunk went out in a write of onewrite
  writesToNode: 0, //   write() calls whose chunk Node sent
  requestHeads: 0, //   a ClientRequest's heads rendered by the addon (or its cache)
  requestHeadsToNode: 0, // a ClientRequest's heads Node rendered
  requestEnds: 0, //    a request's end(data) sent in one write, its socket there
  requestEndsToNode: 0, // a request's end(data) left to Node, its socket there
  requestFlushes: 0, // a request's queued bytes (no socket at end()) sent in one write when it came
  requestFlushesToNode: 0, // the same in several writes, by Node's _flushOutput()
};

const fallbacks = new Map();
const debug = debuglog('onewrite');

const DEEP = 64; //  frames taken: onewrite's and Node's own come before the user's, often more than the default 10
const SHOWN = 4; //  frames printed, from the user's first

// Where the user's code called into what handed over: onewrite's frames
// left out (DEEP of them taken, enough to reach past them),
// Node's skipped up to the first frame of the user's (or of a package of
// theirs), then a few frames from there.  Node's first few when there is
// no user frame (a hand-over from one of Node's callbacks).
function shortStack() {
  const frames = callers(shortStack, DEEP).filter((l) => !isOwn(frameWhere(l)));
  const first = frames.findIndex((l) => !isNodes(frameWhere(l)));
  return frames.slice(Math.max(first, 0), Math.max(first, 0) + SHOWN).join('\n');
}

// One hand-over to Node's own code, by `method`, for `reason`.
function fallback(reason, method) {
  const n = MapPrototypeGet(fallbacks, reason);
  MapPrototypeSet(fallbacks, reason, n === undefined ? 1 : n + 1);
  if (n === undefined && debug.enabled) {
    debug('%s: handed to Node (%s), first time\n%s', method, reason, shortStack());
  }
}

function snapshot() {
  return { ...counters };
}

function fallbackSnapshot() {
  const out = {};
  for (const [reason, n] of fallbacks) out[reason] = n;
  return out;
}

module.exports = { counters, fallback, snapshot, fallbackSnapshot };
