'use strict';

// Agent.prototype.addRequest(req, options[, port, localAddress]) on the
// client side: Node's own, handed a copy of `options` that its first step
// spreads faster.
//
// Node's addRequest begins `options = { __proto__: null, ...options,
// ...this.options }`.  The request's options are a null-prototype object
// the ClientRequest constructor made with a spread of its own, and V8
// keeps such an object's properties in a dictionary, which a spread copies
// through its runtime, key by key (Runtime_CopyDataProperties: 14-19 % of
// a client request's instructions, issue 41).  The same properties in an
// object of V8's fast layout are copied by the spread's fast path: Node's
// spread then makes the same object (null prototype, the same own keys in
// the same order, the same values, the agent's options after them, read
// as Node reads them).  benchmark/option-spreads.js measures each way.
//
// The copy is made only where it sees exactly what the spread would: not
// a Proxy (whose traps the spread would run), no symbol key (Object.keys
// lists the own enumerable strings, in the spread's order), and every one
// of them a data property, read through its descriptor: a getter is seen,
// not called, and hands the original to Node, before anything ran.  So
// no code of the user's runs here, and Node's addRequest runs as it
// always does, from here.  (for...in instead of Object.keys: ~1,150
// instructions more a request, a filter per key and a prototype to check.)

const internals = require('./internals');
const { tidy } = require('./stack');
const {
  FunctionPrototypeCall, ObjectCreate, ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectGetOwnPropertySymbols,
  ObjectKeys, isProxy,
} = require('./primordials');

// The copies: objects of V8's fast layout whose prototype has no
// properties and no prototype (frozen, and no user code can reach it), so
// that setting a key on one defines it, whatever the key.
function OptionsCopy() {}
OptionsCopy.prototype = ObjectFreeze(ObjectCreate(null));

// `options` copied, or undefined where the copy would not be what Node's
// spread sees.  (The keys' array is a new, packed one: no index of it
// reaches a prototype.)
function copyOf(options) {
  if (typeof options !== 'object' || options === null || isProxy(options) ||
      ObjectGetOwnPropertySymbols(options).length !== 0) {
    return undefined;
  }
  const keys = ObjectKeys(options);
  const copy = new OptionsCopy();
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const d = ObjectGetOwnPropertyDescriptor(options, key);
    if (d.get !== undefined || d.set !== undefined) return undefined;
    copy[key] = d.value;
  }
  return copy;
}

// The method, for the gate install() turns on (its `client` too).
function makeAddRequest(gate) {
  const node = internals.originals.addRequest;
  return function addRequest(req, options, port, localAddress) {
    try {
      const copy = gate.on && gate.client ? copyOf(options) : undefined;
      return FunctionPrototypeCall(node, this, req, copy === undefined ? options : copy, port, localAddress);
    } catch (err) {
      throw tidy(err);
    }
  };
}

module.exports = { makeAddRequest };
