'use strict';

// The builtins lib/ calls, taken from a realm no user code has touched.
//
// Node takes its primordials before any user code runs, so a builtin that
// a polyfill or an agent replaces (String.prototype.toLowerCase,
// Function.prototype.call, Object.getOwnPropertyDescriptor, ...) never
// runs inside Node's own code.  A package loads after user code, so what
// it finds on this realm's prototypes may already be a replacement.  So
// onewrite makes a new V8 context when it loads (node:vm, with a global
// that has no prototype, so nothing of this realm is looked up there) and
// takes its builtins from that one: nothing of the user's can be reached
// from them, and the objects made there (the arrays and Sets below, the
// descriptors Object.getOwnPropertyDescriptor answers) have prototypes no
// user code can reach either: a hole, an absent property or a growing
// array never falls through to an accessor the user put on
// Array.prototype or Object.prototype.
//
// The rule for lib/: call builtins through this module, never through
// method syntax on a value of this realm (s.toLowerCase(), fn.call(),
// arr.push(), for...of, spread), which looks them up on prototypes the
// user can change.  test/reentry.js checks it, by wrapping every builtin.
//
// Node's own http and stream code calls a few builtins live (name
// toLowerCase() in matchHeader, RE.test(value), outputData.push(...),
// Buffer.byteLength, ...).  Where onewrite does that work instead of Node,
// a replaced one would run a different number of times, so the fast paths
// hand the call to Node while any of them is not the original:
// replacedBuiltin() below, checked on every fast call.  One replaced
// before onewrite loaded is told by its source, read with this realm's own
// Function.prototype.toString.

const vm = require('node:vm');

// What the new realm hands back: an object without a prototype, made
// there, of functions made there.
const SOURCE = `'use strict';
(() => {
  const { bind, call, toString } = Function.prototype;
  const uncurryThis = bind.bind(call);
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const getter = (o, name) => uncurryThis(ObjectGetOwnPropertyDescriptor(o, name).get);
  const symbolToStringTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  // V8's own __proto__ getter reads an object's map; Object.getPrototypeOf
  // calls into the runtime.  (--disable-proto may have taken it away.)
  const proto = ObjectGetOwnPropertyDescriptor(Object.prototype, '__proto__');
  const protoGet = proto !== undefined && typeof proto.get === 'function' &&
    uncurryThis(toString)(proto.get) === 'function get __proto__() { [native code] }' ? proto.get : null;
  return {
    __proto__: null,
    ReflectApply: Reflect.apply,
    FunctionPrototypeCall: uncurryThis(call),
    FunctionPrototypeToString: uncurryThis(toString),
    ArrayIsArray: Array.isArray,
    ArrayBufferIsView: ArrayBuffer.isView,
    ArrayPrototypeSlice: uncurryThis(Array.prototype.slice),
    ArrayPrototypeJoin: uncurryThis(Array.prototype.join),
    ArrayPrototypeIncludes: uncurryThis(Array.prototype.includes),
    MathFloor: Math.floor,
    MathMax: Math.max,
    NumberIsInteger: Number.isInteger,
    NumberPrototypeToString: uncurryThis(Number.prototype.toString),
    ObjectKeys: Object.keys,
    ObjectGetOwnPropertyDescriptor,
    ObjectGetOwnPropertySymbols: Object.getOwnPropertySymbols,
    ObjectGetPrototypeOf: Object.getPrototypeOf,
    ObjectGetProto: protoGet === null ? Object.getPrototypeOf : uncurryThis(protoGet),
    ObjectDefineProperty: Object.defineProperty,
    ObjectHasOwn: Object.hasOwn,
    ObjectFreeze: Object.freeze,
    ObjectAssign: Object.assign,
    ObjectCreate: Object.create,
    StringPrototypeToLowerCase: uncurryThis(String.prototype.toLowerCase),
    StringPrototypeCharCodeAt: uncurryThis(String.prototype.charCodeAt),
    StringPrototypeSlice: uncurryThis(String.prototype.slice),
    StringPrototypeIncludes: uncurryThis(String.prototype.includes),
    StringPrototypeStartsWith: uncurryThis(String.prototype.startsWith),
    StringPrototypeSplit: uncurryThis(String.prototype.split),
    RegExpPrototypeExec: uncurryThis(RegExp.prototype.exec),
    SetPrototypeHas: uncurryThis(Set.prototype.has),
    SetPrototypeAdd: uncurryThis(Set.prototype.add),
    MapPrototypeGet: uncurryThis(Map.prototype.get),
    MapPrototypeSet: uncurryThis(Map.prototype.set),
    TypedArrayPrototypeSlice: uncurryThis(TypedArrayPrototype.slice),
    TypedArrayPrototypeSet: uncurryThis(TypedArrayPrototype.set),
    TypedArrayPrototypeGetLength: getter(TypedArrayPrototype, 'length'),
    TypedArrayPrototypeGetByteLength: getter(TypedArrayPrototype, 'byteLength'),
    TypedArrayPrototypeGetSymbolToStringTag: symbolToStringTag,
    SymbolPrototypeGetDescription: getter(Symbol.prototype, 'description'),
    DatePrototypeToUTCString: uncurryThis(Date.prototype.toUTCString),
    DatePrototypeGetMilliseconds: uncurryThis(Date.prototype.getMilliseconds),
    // Objects of that realm, whose prototypes no user code can reach.
    newArray: (n) => (n === undefined ? [] : new Array(n).fill(null)),
    newSet: (...values) => new Set(values),
    newMap: () => new Map(),
    newRegExp: (source, flags) => new RegExp(source, flags),
    newUint8Array: (n) => new Uint8Array(n),
    newDate: () => new Date(),
    newProxy: () => new Proxy({}, {}),
    frozenArray: (...values) => Object.freeze(values),
  };
})()`;

// A new context whose global object has no prototype: a name the source
// looks up is found on that context's own global, never on an object of
// this realm (a property the user put on Object.prototype, say).
const realm = vm.runInContext(SOURCE, vm.createContext({ __proto__: null }));

const { FunctionPrototypeToString, RegExpPrototypeExec, StringPrototypeIncludes, ArrayIsArray } = realm;

// `re` matches somewhere in `s` (RegExp.prototype.test looks up exec on
// the object at every call; exec itself does not).
function RegExpPrototypeTest(re, s) {
  return RegExpPrototypeExec(re, s) !== null;
}

// The source of a function as V8 has it, or '' (not a function, or a
// Proxy of one that answers no source): read with the other realm's
// Function.prototype.toString, which no user code can have replaced or
// made to throw, and which a function's own toString property does not
// change.
function sourceOf(fn) {
  if (typeof fn !== 'function') return '';
  try {
    return FunctionPrototypeToString(fn);
  } catch {
    return '';
  }
}

// Whether fn is V8's own builtin (or a native method of Node's) named
// `name`: what a function that JavaScript wrote can never print.
function isNative(fn, name) {
  return sourceOf(fn) === `function ${name}() { [native code] }`;
}

// Whether fn is Node's own function: its source has `line`, a line of
// Node's implementation that a wrapper (a spy, an agent's, shimmer's)
// would not have; or, where `line` is an array, one of them.
function hasLine(fn, line) {
  const source = sourceOf(fn);
  if (source === '') return false;
  if (!ArrayIsArray(line)) return StringPrototypeIncludes(source, line);
  for (let i = 0; i < line.length; i++) {
    if (StringPrototypeIncludes(source, line[i])) return true;
  }
  return false;
}

// Buffer and process are getters on globalThis (Node 20-26): each use of the
// global calls one (~150 instructions a use on Node 26).  Node's own code
// holds the objects themselves; so does onewrite.
const { Buffer } = require('node:buffer');

// util.types.isProxy, Node's native function (V8 offers no builtin that
// tells a Proxy without running its traps), when it is Node's own: native
// code (named on 20, unnamed on 22-26) that answers as isProxy does.
// Otherwise (replaced before onewrite loaded) everything is taken for a
// Proxy, and what a fast path would walk goes to Node.
const nodeIsProxy = require('node:util/types').isProxy;
const isProxy = (isNative(nodeIsProxy, 'isProxy') || sourceOf(nodeIsProxy) === 'function () { [native code] }') &&
  nodeIsProxy(realm.newProxy()) === true && nodeIsProxy(realm.newArray()) === false
  ? nodeIsProxy : () => true;

// A Uint8Array (a Buffer too), by the typed array's own tag: V8's getter,
// which a subclass or the object cannot answer for.
function isUint8Array(value) {
  return realm.TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint8Array';
}

const StringPrototype = String.prototype;
const ArrayPrototype = Array.prototype;
const RegExpPrototype = RegExp.prototype;
const FunctionPrototype = Function.prototype;
const NumberPrototype = Number.prototype;
const ObjectPrototype = Object.prototype;
const BufferPrototype = Buffer.prototype;
const DatePrototype = Date.prototype;
const SetPrototype = Set.prototype;
const ITERATOR = Symbol.iterator;

// The builtins Node's http and stream code calls live on the paths the
// fast methods take over (found by test/builtins.js on Node 20, 22, 24 and
// 26), as found at load, each with what tells the original: V8's own
// builtin of that name, or a line of Node's source for Node's functions
// (on 20 some of Buffer's are native methods, on 22 JavaScript, on 24 and
// 26 small JavaScript wrappers).
const LIVE = [
  ['String.prototype.toLowerCase', StringPrototype.toLowerCase, 'toLowerCase'],
  ['String.prototype.charCodeAt', StringPrototype.charCodeAt, 'charCodeAt'],
  ['String.prototype.slice', StringPrototype.slice, 'slice'],
  ['RegExp.prototype.exec', RegExpPrototype.exec, 'exec'],
  ['RegExp.prototype.test', RegExpPrototype.test, 'test'],
  ['Array.prototype.push', ArrayPrototype.push, 'push'],
  ['Array.prototype.pop', ArrayPrototype.pop, 'pop'],
  ['Array.prototype.shift', ArrayPrototype.shift, 'shift'],
  ['Array.prototype.unshift', ArrayPrototype.unshift, 'unshift'],
  ['Array.prototype.join', ArrayPrototype.join, 'join'],
  ['Array.prototype.toString', ArrayPrototype.toString, 'toString'],
  ['Array.prototype[Symbol.iterator]', ArrayPrototype[ITERATOR], 'values'],
  ['Function.prototype.call', FunctionPrototype.call, 'call'],
  ['Function.prototype.apply', FunctionPrototype.apply, 'apply'],
  ['Function.prototype.bind', FunctionPrototype.bind, 'bind'],
  ['Number.prototype.toString', NumberPrototype.toString, 'toString'],
  ['Object.prototype.valueOf', ObjectPrototype.valueOf, 'valueOf'],
  ['Buffer.byteLength', Buffer.byteLength, { line: 'isArrayBufferView(string) || isAnyArrayBuffer(string)' }],
  ['Buffer.from', Buffer.from, { line: 'return fromString(value, encodingOrOffset)' }],
  ['Buffer.isEncoding', Buffer.isEncoding, { line: 'normalizeEncoding(encoding) !== undefined' }],
  ['Buffer.prototype.toString', BufferPrototype.toString, { line: 'function toString(encoding, start, end) {' }],
  ['Buffer.prototype.latin1Write', BufferPrototype.latin1Write,
    { name: 'latin1Write', line: ['function latin1Write(string, offset = 0, length = this.byteLength) {',
      'function(string, offset, length) { return latin1Write(this, string, offset, length); }'] }],
  ['Buffer.prototype.utf8Write', BufferPrototype.utf8Write,
    { name: 'utf8Write', line: ['function utf8Write(string, offset = 0, length = this.byteLength) {',
      'function(string, offset, length) { return utf8Write(this, string, offset, length); }'] }],
  ['Buffer.prototype.utf8Slice', BufferPrototype.utf8Slice,
    { name: 'utf8Slice', line: 'function(start, end) { return utf8Slice(this, start, end); }' }],
  ['Date.prototype.toUTCString', DatePrototype.toUTCString, 'toUTCString'],
  ['Date.prototype.getMilliseconds', DatePrototype.getMilliseconds, 'getMilliseconds'],
  ['Set.prototype.has', SetPrototype.has, 'has'],
];

function isOriginal(fn, how) {
  if (typeof how === 'string') return isNative(fn, how);
  return (how.name !== undefined && isNative(fn, how.name)) || hasLine(fn, how.line);
}

// The first of them that was not the original when onewrite loaded (a
// polyfill, an agent loaded first), or null.  With one, every fast call
// goes to Node.
let replacedBeforeLoad = null;
for (let i = 0; i < LIVE.length && replacedBeforeLoad === null; i++) {
  if (!isOriginal(LIVE[i][1], LIVE[i][2])) replacedBeforeLoad = LIVE[i][0];
}
const L = realm.newArray();
const LIVE_NAMES = realm.newArray();
for (let i = 0; i < LIVE.length; i++) {
  L[i] = LIVE[i][1];
  LIVE_NAMES[i] = LIVE[i][0];
}

// The name of the first of them not the one found at load (for the
// fallback reason 'builtin replaced'), or null.  One load and one
// comparison each: as cheap as a fast call can afford.  (A builtin made
// into an accessor that answers the original is read here, once a fast
// call: README, "Where onewrite differs".)
function replacedBuiltin() {
  if (replacedBeforeLoad !== null) return replacedBeforeLoad;
  if (StringPrototype.toLowerCase !== L[0] ||
      StringPrototype.charCodeAt !== L[1] ||
      StringPrototype.slice !== L[2] ||
      RegExpPrototype.exec !== L[3] ||
      RegExpPrototype.test !== L[4] ||
      ArrayPrototype.push !== L[5] ||
      ArrayPrototype.pop !== L[6] ||
      ArrayPrototype.shift !== L[7] ||
      ArrayPrototype.unshift !== L[8] ||
      ArrayPrototype.join !== L[9] ||
      ArrayPrototype.toString !== L[10] ||
      ArrayPrototype[ITERATOR] !== L[11] ||
      FunctionPrototype.call !== L[12] ||
      FunctionPrototype.apply !== L[13] ||
      FunctionPrototype.bind !== L[14] ||
      NumberPrototype.toString !== L[15] ||
      ObjectPrototype.valueOf !== L[16] ||
      Buffer.byteLength !== L[17] ||
      Buffer.from !== L[18] ||
      Buffer.isEncoding !== L[19] ||
      BufferPrototype.toString !== L[20] ||
      BufferPrototype.latin1Write !== L[21] ||
      BufferPrototype.utf8Write !== L[22] ||
      BufferPrototype.utf8Slice !== L[23] ||
      DatePrototype.toUTCString !== L[24] ||
      DatePrototype.getMilliseconds !== L[25] ||
      SetPrototype.has !== L[26]) {
    return whichReplaced();
  }
  return null;
}

// The slow half: which one.
function whichReplaced() {
  const now = [
    StringPrototype.toLowerCase, StringPrototype.charCodeAt, StringPrototype.slice,
    RegExpPrototype.exec, RegExpPrototype.test, ArrayPrototype.push, ArrayPrototype.pop,
    ArrayPrototype.shift, ArrayPrototype.unshift, ArrayPrototype.join, ArrayPrototype.toString,
    ArrayPrototype[ITERATOR], FunctionPrototype.call, FunctionPrototype.apply, FunctionPrototype.bind,
    NumberPrototype.toString, ObjectPrototype.valueOf, Buffer.byteLength, Buffer.from,
    Buffer.isEncoding, BufferPrototype.toString, BufferPrototype.latin1Write, BufferPrototype.utf8Write,
    BufferPrototype.utf8Slice, DatePrototype.toUTCString, DatePrototype.getMilliseconds, SetPrototype.has,
  ];
  for (let i = 0; i < LIVE.length; i++) {
    if (now[i] !== L[i]) return LIVE[i][0];
  }
  return null;
}

module.exports = {
  ...realm,
  RegExpPrototypeTest,
  sourceOf,
  isNative,
  isProxy,
  isUint8Array,
  hasLine,
  replacedBuiltin,
  replacedBeforeLoad: () => replacedBeforeLoad,
  LIVE: LIVE_NAMES,
};
