'use strict';

// How often each fast path ran, and how often it handed over to Node:
// status().counters.  Plain increments, cheap enough for the hot path.
const counters = {
  heads: 0, //          heads rendered by the addon (or its cache)
  headsToNode: 0, //    heads Node rendered
  ends: 0, //           end(data) sent in one write
  endsToNode: 0, //     end(data) left to Node
  writes: 0, //         chunked write() sent as one framed write
  writesToNode: 0, //   write() left to Node
};

function snapshot() {
  return { ...counters };
}

module.exports = { counters, snapshot };
