'use strict';

// What the fast paths did: status().counters (how often each ran, how often
// it handed over to Node's own code) and status().fallbacks (how often each
// reason for handing over came up, by name: one name per decision in the
// code).  With NODE_DEBUG=onewrite (Node's util.debuglog convention) the
// first hand-over for each reason is printed, with the method and a short
// stack.  Plain increments: cheap enough for the hot path.

const { debuglog } = require('node:util');

const counters = {
  heads: 0, //          heads rendered by the addon (or its cache)
  headsToNode: 0, //    heads Node rendered
  ends: 0, //           end(data) sent in one write
  endsToNode: 0, //     end(data) left to Node
  writes: 0, //         write() calls whose chunk went out in a write of onewrite
  writesToNode: 0, //   write() calls whose chunk Node sent
};

const fallbacks = new Map();
const debug = debuglog('onewrite');

// The frames below the fast path: where the user's code called it.
function shortStack() {
  const lines = String(new Error().stack).split('\n').slice(1);
  const outside = lines.filter((l) => !l.includes(__dirname));
  return outside.slice(0, 4).join('\n');
}

// One hand-over to Node's own code, by `method`, for `reason`.
function fallback(reason, method) {
  const n = fallbacks.get(reason);
  fallbacks.set(reason, n === undefined ? 1 : n + 1);
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
