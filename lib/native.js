'use strict';

// Loads the compiled addon, in one place, and gives it the memory it shares
// with JavaScript.  Nothing here throws: when the binary cannot be loaded,
// or is not the one this code expects, `binding` is null and `error` says
// why, and the package leaves Node's own code in charge.
//
// The shared memory is a SharedArrayBuffer made here: one cannot be
// detached or moved, so the pointer the addon keeps stays good.  It is
// handed to the addon once (attach), and neither it nor attach() stays on
// the addon's exports: code that loads the same binary gets no way to it.

const path = require('node:path');
const S = require('./slots');

const FUNCTIONS = ['attach', 'head', 'message', 'join', 'chunk', 'setDate', 'setKeepAlive'];

let binding = null;
let error = null;
let ints = null;
let nums = null;
let roles = null;
let lens = null;

function load() {
  const exports = require('node-gyp-build')(path.join(__dirname, '..'));
  const absent = FUNCTIONS.filter((f) => typeof exports[f] !== 'function');
  if (absent.length > 0 || typeof exports.sharedBytes !== 'number') {
    throw new Error(`the addon lacks ${absent.join(', ') || 'sharedBytes'}: a binary of another version`);
  }
  const memory = new SharedArrayBuffer(exports.sharedBytes);
  const view = new Int32Array(memory);
  if (exports.attach(view) !== true) {
    throw new Error('the addon refused its shared memory (loaded twice in this thread?)');
  }
  ints = new Int32Array(memory, 0, S.INT_SLOTS);
  nums = new Float64Array(memory, S.DOUBLES_OFFSET, S.DOUBLE_SLOTS);
  roles = new Uint8Array(memory, S.ROLES_OFFSET, S.MAX_ROLES);
  lens = new Int32Array(memory, S.LENGTHS_OFFSET, 1 + 2 * S.MAX_PAIRS);
  const fns = {};
  for (const f of FUNCTIONS) if (f !== 'attach') fns[f] = exports[f];
  delete exports.attach;
  return fns;
}

try {
  binding = load();
} catch (err) {
  error = err;
  binding = null;
}

module.exports = { binding, error, ints, nums, roles, lens };
