'use strict';

// Loads the compiled addon, in one place, and gives it the memory it shares
// with JavaScript.  Nothing here throws: when no binary loads, or the one
// that loads is not the one this code expects, `binding` is null, `error`
// says why and `remedy` what to do, and the package leaves Node's own code
// in charge.  Where onewrite cannot run anyway (ONEWRITE_DISABLE=1, another
// runtime, a Node release that was not checked) no binary is loaded at all.
//
// The shared memory is a SharedArrayBuffer made here: one cannot be
// detached or moved, so the pointer the addon keeps stays good.  It is
// handed to the addon once (attach), and neither it nor attach() stays on
// the addon's exports: code that loads the same binary gets no way to it.

const S = require('./slots');
const binary = require('./binary');
const platforms = require('./platforms');
const { versionRefusal } = require('./internals');

const FUNCTIONS = ['attach', 'head', 'message', 'join', 'chunk', 'setDate', 'setKeepAlive'];

let binding = null;
let error = null;
let remedy = null;
let file = null;
let ints = null;
let nums = null;
let roles = null;
let lens = null;

// Why no binary is even looked for, or null.
function notWanted() {
  if (process.env.ONEWRITE_DISABLE === '1') return 'disabled by ONEWRITE_DISABLE=1';
  if (platforms.runtime() !== 'node') return `not Node.js (${platforms.runtimeDescription()})`;
  if (versionRefusal(process.versions.node) !== null) return 'not a Node release onewrite was checked on';
  return null;
}

function attach(exports) {
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

const skip = notWanted();
if (skip !== null) {
  error = new Error(`no binary loaded: ${skip}`);
} else {
  const found = binary.load();
  if (found.exports === undefined) {
    error = new Error(found.reason);
    remedy = found.remedy;
  } else {
    try {
      binding = attach(found.exports);
      file = found.file;
    } catch (err) {
      error = new Error(`${found.file}: ${err.message}`);
      remedy = `install onewrite again, or build a binary here: ${binary.BUILD_HINT}`;
    }
  }
}

module.exports = { binding, error, remedy, file, ints, nums, roles, lens };
