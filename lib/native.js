'use strict';

// Loads the compiled addon, in one place.  Nothing here throws: when the
// binary cannot be loaded, `binding` is null and `error` says why, and the
// package leaves Node's own code in charge.

const path = require('node:path');

let binding = null;
let error = null;

try {
  binding = require('node-gyp-build')(path.join(__dirname, '..'));
} catch (err) {
  error = err;
}

module.exports = { binding, error };
