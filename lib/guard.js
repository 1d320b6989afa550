'use strict';

// One fast call at a time.
//
// Code of the user's can run inside a fast method wherever it reads a
// value of the user's or calls anything the user can wrap: a getter, a
// Proxy trap, a wrapper on the socket's methods or on a response method
// Node calls, a replaced builtin.  That code may call writeHead(), end()
// or write() again, on this response or another.  While a fast method
// runs, the state it builds (the walk's parts, the memory shared with the
// addon, the body measured, the reason of the last refusal) is the
// module's, so such a nested call must not reach it: a fast method that
// finds `busy` set is Node's own method from the start, and runs Node's
// code only.  The outer call decides again after anything that can run
// user code, as Node's methods do.
//
// `busy` is let go only around the calls Node's own methods make through
// the response - this._implicitHeader(), this.uncork(), this._finish() -
// where the outer call keeps nothing of its own in the module: there the
// nested call is the one Node would make, and may take its own fast path
// (lib/outgoing.js: callOut).

const guard = { busy: false };

module.exports = guard;
