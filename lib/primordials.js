'use strict';

// The builtins lib/ calls, as they were when onewrite loaded, the way
// Node's own code holds its primordials: a builtin a user patches later
// (String.prototype.toLowerCase, Math.imul, Array.isArray,
// Function.prototype.call, ...) runs no code of the user's inside onewrite.
//
// Node's http code itself calls some builtins live (name.toLowerCase() in
// matchHeader, RE.test(value), outputData.push(...), Buffer.byteLength,
// ...): where onewrite does that work instead of Node, a patched one would
// run a different number of times.  replacedBuiltin() names the first of
// those that is not the one found at load; the fast paths then hand the
// call to Node, whose code calls them as it always does.

// Buffer and process are getters on globalThis (Node 20-26): each use of the
// global calls one (~150 instructions a use on Node 26).  Node's own code
// holds the objects themselves; so does onewrite.
const { Buffer } = require('node:buffer');

const { apply: ReflectApply } = Reflect;
const { bind, call } = Function.prototype;
// uncurryThis(fn)(thisArg, ...args) is fn.call(thisArg, ...args), with the
// call taken now.
const uncurryThis = bind.bind(call);

const StringPrototype = String.prototype;
const ArrayPrototype = Array.prototype;
const RegExpPrototype = RegExp.prototype;
const FunctionPrototype = Function.prototype;
const NumberPrototype = Number.prototype;
const ObjectPrototype = Object.prototype;
const BufferPrototype = Buffer.prototype;
const DatePrototype = Date.prototype;
const SetPrototype = Set.prototype;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);

const primordials = {
  ReflectApply,
  FunctionPrototypeCall: uncurryThis(call),
  ArrayIsArray: Array.isArray,
  ArrayBufferIsView: ArrayBuffer.isView,
  ArrayPrototypePush: uncurryThis(ArrayPrototype.push),
  ArrayPrototypeSlice: uncurryThis(ArrayPrototype.slice),
  ArrayPrototypeJoin: uncurryThis(ArrayPrototype.join),
  ArrayPrototypeFill: uncurryThis(ArrayPrototype.fill),
  ArrayPrototypeIndexOf: uncurryThis(ArrayPrototype.indexOf),
  MathImul: Math.imul,
  MathFloor: Math.floor,
  MathMax: Math.max,
  NumberIsInteger: Number.isInteger,
  NumberPrototypeToString: uncurryThis(NumberPrototype.toString),
  ObjectKeys: Object.keys,
  ObjectGetOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
  ObjectGetPrototypeOf: Object.getPrototypeOf,
  ObjectDefineProperty: Object.defineProperty,
  StringPrototypeToLowerCase: uncurryThis(StringPrototype.toLowerCase),
  StringPrototypeCharCodeAt: uncurryThis(StringPrototype.charCodeAt),
  StringPrototypeSlice: uncurryThis(StringPrototype.slice),
  StringPrototypeIncludes: uncurryThis(StringPrototype.includes),
  StringPrototypeStartsWith: uncurryThis(StringPrototype.startsWith),
  StringPrototypeSplit: uncurryThis(StringPrototype.split),
  RegExpPrototypeExec: uncurryThis(RegExpPrototype.exec),
  SetPrototypeHas: uncurryThis(Set.prototype.has),
  MapPrototypeGet: uncurryThis(Map.prototype.get),
  MapPrototypeSet: uncurryThis(Map.prototype.set),
  TypedArrayPrototypeSlice: uncurryThis(TypedArrayPrototype.slice),
  TypedArrayPrototypeSubarray: uncurryThis(TypedArrayPrototype.subarray),
  TypedArrayPrototypeGetLength: uncurryThis(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'length').get),
  BufferByteLength: Buffer.byteLength,
  BufferFrom: Buffer.from,
  BufferAllocUnsafe: Buffer.allocUnsafe,
  DatePrototypeToUTCString: uncurryThis(DatePrototype.toUTCString),
  DatePrototypeGetMilliseconds: uncurryThis(DatePrototype.getMilliseconds),
  ProcessNextTick: process.nextTick,
};

// `re` matches somewhere in `s` (RegExp.prototype.test looks up exec on
// the object at every call; exec itself does not).
function RegExpPrototypeTest(re, s) {
  return primordials.RegExpPrototypeExec(re, s) !== null;
}

// The builtins Node's http and stream code calls live on the paths the
// fast methods take over (found by test/builtins.js on Node 20, 22, 24 and
// 26), as found at load.
const LIVE = {
  'String.prototype.toLowerCase': StringPrototype.toLowerCase,
  'String.prototype.charCodeAt': StringPrototype.charCodeAt,
  'String.prototype.slice': StringPrototype.slice,
  'RegExp.prototype.exec': RegExpPrototype.exec,
  'RegExp.prototype.test': RegExpPrototype.test,
  'Array.prototype.push': ArrayPrototype.push,
  'Array.prototype.pop': ArrayPrototype.pop,
  'Array.prototype.shift': ArrayPrototype.shift,
  'Array.prototype.unshift': ArrayPrototype.unshift,
  'Array.prototype.join': ArrayPrototype.join,
  'Array.prototype.toString': ArrayPrototype.toString,
  'Array.prototype[Symbol.iterator]': ArrayPrototype[Symbol.iterator],
  'Function.prototype.call': FunctionPrototype.call,
  'Function.prototype.apply': FunctionPrototype.apply,
  'Function.prototype.bind': FunctionPrototype.bind,
  'Number.prototype.toString': NumberPrototype.toString,
  'Object.prototype.valueOf': ObjectPrototype.valueOf,
  'Buffer.byteLength': Buffer.byteLength,
  'Buffer.from': Buffer.from,
  'Buffer.isEncoding': Buffer.isEncoding,
  'Buffer.prototype.toString': BufferPrototype.toString,
  'Buffer.prototype.latin1Write': BufferPrototype.latin1Write,
  'Buffer.prototype.utf8Write': BufferPrototype.utf8Write,
  'Buffer.prototype.utf8Slice': BufferPrototype.utf8Slice,
  'Date.prototype.toUTCString': DatePrototype.toUTCString,
  'Date.prototype.getMilliseconds': DatePrototype.getMilliseconds,
  'Set.prototype.has': Set.prototype.has,
};

// The name of the first of them replaced since load (for the fallback
// reason 'builtin replaced'), or null.  One load
// and one comparison each: cheap enough for every fast call.
const ITERATOR = Symbol.iterator;
function replacedBuiltin() {
  if (StringPrototype.toLowerCase !== LIVE['String.prototype.toLowerCase'] ||
      StringPrototype.charCodeAt !== LIVE['String.prototype.charCodeAt'] ||
      StringPrototype.slice !== LIVE['String.prototype.slice'] ||
      RegExpPrototype.exec !== LIVE['RegExp.prototype.exec'] ||
      RegExpPrototype.test !== LIVE['RegExp.prototype.test'] ||
      ArrayPrototype.push !== LIVE['Array.prototype.push'] ||
      ArrayPrototype.pop !== LIVE['Array.prototype.pop'] ||
      ArrayPrototype.shift !== LIVE['Array.prototype.shift'] ||
      ArrayPrototype.unshift !== LIVE['Array.prototype.unshift'] ||
      ArrayPrototype.join !== LIVE['Array.prototype.join'] ||
      ArrayPrototype.toString !== LIVE['Array.prototype.toString'] ||
      ArrayPrototype[ITERATOR] !== LIVE['Array.prototype[Symbol.iterator]'] ||
      FunctionPrototype.call !== LIVE['Function.prototype.call'] ||
      FunctionPrototype.apply !== LIVE['Function.prototype.apply'] ||
      FunctionPrototype.bind !== LIVE['Function.prototype.bind'] ||
      NumberPrototype.toString !== LIVE['Number.prototype.toString'] ||
      ObjectPrototype.valueOf !== LIVE['Object.prototype.valueOf'] ||
      Buffer.byteLength !== LIVE['Buffer.byteLength'] ||
      Buffer.from !== LIVE['Buffer.from'] ||
      Buffer.isEncoding !== LIVE['Buffer.isEncoding'] ||
      BufferPrototype.toString !== LIVE['Buffer.prototype.toString'] ||
      BufferPrototype.latin1Write !== LIVE['Buffer.prototype.latin1Write'] ||
      BufferPrototype.utf8Write !== LIVE['Buffer.prototype.utf8Write'] ||
      BufferPrototype.utf8Slice !== LIVE['Buffer.prototype.utf8Slice'] ||
      DatePrototype.toUTCString !== LIVE['Date.prototype.toUTCString'] ||
      DatePrototype.getMilliseconds !== LIVE['Date.prototype.getMilliseconds'] ||
      SetPrototype.has !== LIVE['Set.prototype.has']) {
    return whichReplaced();
  }
  return null;
}

// The slow half: which one.
function whichReplaced() {
  const now = {
    'String.prototype.toLowerCase': StringPrototype.toLowerCase,
    'String.prototype.charCodeAt': StringPrototype.charCodeAt,
    'String.prototype.slice': StringPrototype.slice,
    'RegExp.prototype.exec': RegExpPrototype.exec,
    'RegExp.prototype.test': RegExpPrototype.test,
    'Array.prototype.push': ArrayPrototype.push,
    'Array.prototype.pop': ArrayPrototype.pop,
    'Array.prototype.shift': ArrayPrototype.shift,
    'Array.prototype.unshift': ArrayPrototype.unshift,
    'Array.prototype.join': ArrayPrototype.join,
    'Array.prototype.toString': ArrayPrototype.toString,
    'Array.prototype[Symbol.iterator]': ArrayPrototype[ITERATOR],
    'Function.prototype.call': FunctionPrototype.call,
    'Function.prototype.apply': FunctionPrototype.apply,
    'Function.prototype.bind': FunctionPrototype.bind,
    'Number.prototype.toString': NumberPrototype.toString,
    'Object.prototype.valueOf': ObjectPrototype.valueOf,
    'Buffer.byteLength': Buffer.byteLength,
    'Buffer.from': Buffer.from,
    'Buffer.isEncoding': Buffer.isEncoding,
    'Buffer.prototype.toString': BufferPrototype.toString,
    'Buffer.prototype.latin1Write': BufferPrototype.latin1Write,
    'Buffer.prototype.utf8Write': BufferPrototype.utf8Write,
    'Buffer.prototype.utf8Slice': BufferPrototype.utf8Slice,
    'Date.prototype.toUTCString': DatePrototype.toUTCString,
    'Date.prototype.getMilliseconds': DatePrototype.getMilliseconds,
    'Set.prototype.has': SetPrototype.has,
  };
  const names = primordials.ObjectKeys(LIVE);
  for (let i = 0; i < names.length; i++) {
    if (now[names[i]] !== LIVE[names[i]]) return names[i];
  }
  return null;
}

module.exports = { ...primordials, RegExpPrototypeTest, replacedBuiltin, LIVE: primordials.ObjectKeys(LIVE) };
