'use strict';

// Where the process could abort or run out of memory and stock Node goes
// on: heads and bodies near V8's limits, the addon's shared memory
// detached by user code.  Child processes, one side after the other
// where they need gigabytes.
// Stock against onewrite, as test/helpers/contract-checks.js says.

const t = require('tap');
const { childPair, sameChildren } = require('./helpers/child');
const { CHILD } = require('./helpers/contract-checks');

// Eight children of 1-1.7 GB each, one after another: about 45 s on a
// quiet two-core machine, 135 s beside four busy processes.  Its own
// limit, so that a busy machine keeps it under half of it.
t.setTimeout(600 * 1000);

// ---- the process aborts where stock Node goes on ---------------------------
// (the wrappers that detach or destroy the socket: test/contract-wrappers.js)

// name -> [the child case, what stock Node does and onewrite must too]
const BIG = {
  "a head over V8's maximum string length (stock: a RangeError the app catches)":
    ['big/head', 'the app catches the error and answers 500, as with stock Node'],
  'a 512 MiB head rendered by Node, then end() with an 8 KiB Buffer':
    ['big/join', 'head and body sent, as stock Node sends them'],
  "chunked end() with text just under V8's maximum string length":
    ['big/chunked-end', 'no RangeError: the text sent, as stock Node sends it'],
  "two chunked write()s in one tick, over V8's maximum string length together":
    ['big/chunked-writes', 'no RangeError from the tick: both sent, as stock Node sends them'],
};
for (const [name, [which, message]] of Object.entries(BIG)) {
  t.test(`abort: ${name}`, async (t) => {
    sameChildren(t, await childPair(CHILD, [which], { sequential: true }), message);
  });
}

// (ArrayBuffer.prototype.transfer exists from Node 21 on.)
const DETACH = typeof ArrayBuffer.prototype.transfer === 'function' ? ['keep', 'collected', 'transfer']
  : ['keep', 'collected'];
for (const how of DETACH) {
  t.test(`shared memory: the addon's ArrayBuffer detached by user code (${how})`, async (t) => {
    // What a user relies on: no crash, no wrong bytes.  Either the memory
    // cannot be detached, or responses after the detach are still stock's.
    sameChildren(t, await childPair(CHILD, [`shared/${how}`], { nodeArgs: ['--expose-gc'] }),
      'every response after the detach is stock Node\'s, and the process lives');
  });
}
