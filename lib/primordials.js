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

// The table of builtins, as source run in a realm: each entry the function
// lib/ calls (uncurried where it is a method), and the builtins it is made
// of, each with its name, which tell V8's own (isNative below).  Objects
// lib/ keeps are made with the `new*` entries.
const SOURCE = `'use strict';
(() => {
  const { bind, call, toString } = Function.prototype;
  const uncurryThis = bind.bind(call);
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const getterOf = (o, name) => ObjectGetOwnPropertyDescriptor(o, name).get;
  const table = { __proto__: null };
  const made = { __proto__: null };
  // An entry: fn, made of the natives [function, name, ...].
  const entry = (key, fn, ...natives) => {
    table[key] = fn;
    made[key] = natives;
  };
  const method = (key, o, name) => entry(key, uncurryThis(o[name]), bind, 'bind', call, 'call', o[name], name);
  const getter = (key, o, name, shown = name) =>
    entry(key, uncurryThis(getterOf(o, name)), bind, 'bind', call, 'call', getterOf(o, name), 'get ' + shown);
  entry('ReflectApply', Reflect.apply, Reflect.apply, 'apply');
  entry('FunctionPrototypeCall', uncurryThis(call), bind, 'bind', call, 'call');
  method('FunctionPrototypeToString', Function.prototype, 'toString');
  entry('ArrayIsArray', Array.isArray, Array.isArray, 'isArray');
  entry('ArrayBufferIsView', ArrayBuffer.isView, ArrayBuffer.isView, 'isView');
  method('ArrayPrototypeSlice', Array.prototype, 'slice');
  method('ArrayPrototypeJoin', Array.prototype, 'join');
  method('ArrayPrototypeIncludes', Array.prototype, 'includes');
  entry('MathFloor', Math.floor, Math.floor, 'floor');
  entry('MathMax', Math.max, Math.max, 'max');
  entry('NumberIsInteger', Number.isInteger, Number.isInteger, 'isInteger');
  method('NumberPrototypeToString', Number.prototype, 'toString');
  entry('ObjectKeys', Object.keys, Object.keys, 'keys');
  entry('ObjectGetOwnPropertySymbols', Object.getOwnPropertySymbols, Object.getOwnPropertySymbols,
    'getOwnPropertySymbols');
  entry('ObjectGetPrototypeOf', Object.getPrototypeOf, Object.getPrototypeOf, 'getPrototypeOf');
  // V8's own __proto__ getter reads an object's map, where
  // Object.getPrototypeOf calls into the runtime.  (--disable-proto may
  // have taken it away.)
  const proto = ObjectGetOwnPropertyDescriptor(Object.prototype, '__proto__');
  if (proto !== undefined && typeof proto.get === 'function' &&
      uncurryThis(toString)(proto.get) === 'function get __proto__() { [native code] }') {
    getter('ObjectGetProto', Object.prototype, '__proto__');
  } else {
    entry('ObjectGetProto', Object.getPrototypeOf, Object.getPrototypeOf, 'getPrototypeOf');
  }
  entry('ObjectDefineProperty', Object.defineProperty, Object.defineProperty, 'defineProperty');
  entry('ObjectHasOwn', Object.hasOwn, Object.hasOwn, 'hasOwn');
  entry('ObjectFreeze', Object.freeze, Object.freeze, 'freeze');
  entry('ObjectAssign', Object.assign, Object.assign, 'assign');
  entry('ObjectCreate', Object.create, Object.create, 'create');
  method('StringPrototypeToLowerCase', String.prototype, 'toLowerCase');
  method('StringPrototypeCharCodeAt', String.prototype, 'charCodeAt');
  method('StringPrototypeSlice', String.prototype, 'slice');
  method('StringPrototypeIncludes', String.prototype, 'includes');
  method('StringPrototypeStartsWith', String.prototype, 'startsWith');
  method('StringPrototypeSplit', String.prototype, 'split');
  method('SetPrototypeHas', Set.prototype, 'has');
  method('SetPrototypeAdd', Set.prototype, 'add');
  method('MapPrototypeGet', Map.prototype, 'get');
  method('MapPrototypeSet', Map.prototype, 'set');
  method('TypedArrayPrototypeSlice', TypedArrayPrototype, 'slice');
  method('TypedArrayPrototypeSet', TypedArrayPrototype, 'set');
  getter('TypedArrayPrototypeGetLength', TypedArrayPrototype, 'length');
  getter('TypedArrayPrototypeGetByteLength', TypedArrayPrototype, 'byteLength');
  getter('TypedArrayPrototypeGetSymbolToStringTag', TypedArrayPrototype, Symbol.toStringTag,
    '[Symbol.toStringTag]');
  getter('SymbolPrototypeGetDescription', Symbol.prototype, 'description');
  method('DatePrototypeToUTCString', Date.prototype, 'toUTCString');
  method('DatePrototypeGetMilliseconds', Date.prototype, 'getMilliseconds');
  return {
    __proto__: null,
    table,
    made,
    // Regular expressions and their exec(), from one realm (V8's fast path
    // for exec() wants a regular expression of its own realm).
    RegExpPrototypeExec: uncurryThis(RegExp.prototype.exec),
    // Descriptors made in the realm: a property a descriptor lacks (get,
    // set, value) is looked up on a prototype no user code can reach.
    ObjectGetOwnPropertyDescriptor,
    // Objects of the realm, whose prototypes no user code can reach.
    newArray: (n) => (n === undefined ? [] : new Array(n).fill(null)),
    newSet: (...values) => new Set(values),
    newMap: () => new Map(),
    newRegExp: (source, flags) => new RegExp(source, flags),
    newUint8Array: (n) => new Uint8Array(n),
    newDate: () => new Date(),
    newProxy: () => new Proxy({}, {}),
  };
})()`;

// A new context whose global object has no prototype: a name the source
// looks up is found on that context's own global, never on an object of
// this realm (a property the user put on Object.prototype, say).
const realm = vm.runInContext(SOURCE, vm.createContext({ __proto__: null }));
const { RegExpPrototypeExec } = realm;
const FunctionPrototypeToString = realm.table.FunctionPrototypeToString;
const { StringPrototypeIncludes, ArrayIsArray } = realm.table;



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
const process = require('node:process');

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
  return builtins.TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint8Array';
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
  // Node's stream code calls it for every write's callback, the fast
  // paths for fewer writes.
  ['process.nextTick', process.nextTick, { line: "validateFunction(callback, 'callback');" }],
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
const LIVE_NAMES = realm.newArray();
for (let i = 0; i < LIVE.length; i++) LIVE_NAMES[i] = LIVE[i][0];

// Each as found at load, in a constant of its own: V8's optimising
// compiler folds a comparison with a constant into a check of the
// prototype's shape, so that the whole test below costs about nothing
// until one is replaced.
const L0 = LIVE[0][1];
const L1 = LIVE[1][1];
const L2 = LIVE[2][1];
const L3 = LIVE[3][1];
const L4 = LIVE[4][1];
const L5 = LIVE[5][1];
const L6 = LIVE[6][1];
const L7 = LIVE[7][1];
const L8 = LIVE[8][1];
const L9 = LIVE[9][1];
const L10 = LIVE[10][1];
const L11 = LIVE[11][1];
const L12 = LIVE[12][1];
const L13 = LIVE[13][1];
const L14 = LIVE[14][1];
const L15 = LIVE[15][1];
const L16 = LIVE[16][1];
const L17 = LIVE[17][1];
const L18 = LIVE[18][1];
const L19 = LIVE[19][1];
const L20 = LIVE[20][1];
const L21 = LIVE[21][1];
const L22 = LIVE[22][1];
const L23 = LIVE[23][1];
const L24 = LIVE[24][1];
const L25 = LIVE[25][1];
const L26 = LIVE[26][1];
const L27 = LIVE[27][1];

// The name of the first of them not the one found at load (for the
// fallback reason 'builtin replaced'), or null.  One load and one
// comparison each: as cheap as a fast call can afford.  (A builtin made
// into an accessor that answers the original is read here, once a fast
// call: docs/differences.md.)
function replacedBuiltin() {
  const why = replacedForHead();
  if (why !== null) return why;
  // process is a dictionary to V8: this load is the one it does not fold
  // (~80 instructions, Node 20), so only the calls that write compare it.
  return process.nextTick !== L27 ? whichReplaced() : null;
}

// The same, for a call that only builds a head (writeHead, _storeHeader):
// all but process.nextTick, which Node's writeHead and _storeHeader do not
// call (20 22 24 26).
function replacedForHead() {
  if (replacedBeforeLoad !== null) return replacedBeforeLoad;
  // An element on Array.prototype (an accessor at an index, say): Node's
  // code meets it wherever it grows an array or reads a hole, as many
  // times as it makes its several writes; the fast paths make fewer.
  // Array.prototype is an array: an element there moves its length.
  if (ArrayPrototype.length !== 0) return 'Array.prototype elements';
  if (StringPrototype.toLowerCase !== L0 ||
      StringPrototype.charCodeAt !== L1 ||
      StringPrototype.slice !== L2 ||
      RegExpPrototype.exec !== L3 ||
      RegExpPrototype.test !== L4 ||
      ArrayPrototype.push !== L5 ||
      ArrayPrototype.pop !== L6 ||
      ArrayPrototype.shift !== L7 ||
      ArrayPrototype.unshift !== L8 ||
      ArrayPrototype.join !== L9 ||
      ArrayPrototype.toString !== L10 ||
      ArrayPrototype[ITERATOR] !== L11 ||
      FunctionPrototype.call !== L12 ||
      FunctionPrototype.apply !== L13 ||
      FunctionPrototype.bind !== L14 ||
      NumberPrototype.toString !== L15 ||
      ObjectPrototype.valueOf !== L16 ||
      Buffer.byteLength !== L17 ||
      Buffer.from !== L18 ||
      Buffer.isEncoding !== L19 ||
      BufferPrototype.toString !== L20 ||
      BufferPrototype.latin1Write !== L21 ||
      BufferPrototype.utf8Write !== L22 ||
      BufferPrototype.utf8Slice !== L23 ||
      DatePrototype.toUTCString !== L24 ||
      DatePrototype.getMilliseconds !== L25 ||
      SetPrototype.has !== L26) {
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
    process.nextTick,
  ];
  for (let i = 0; i < LIVE.length; i++) {
    if (now[i] !== LIVE[i][1]) return LIVE[i][0];
  }
  return null;
}

// The builtins lib/ calls: this realm's own where each native it is made
// of is V8's own (a function JavaScript wrote never prints as native
// code, and the source is read with the other realm's toString): V8's
// optimising compiler inlines a builtin of the caller's own realm, and
// not one of another; else the untouched realm's.  Either way none is a
// replacement, whenever it was made: each is taken now, once.
function choose() {
  let here = null;
  try {
    here = vm.runInThisContext(SOURCE);
  } catch {
    here = null;
  }
  const chosen = { __proto__: null };
  const keys = ObjectKeysOf(realm.table);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    chosen[key] = here !== null && allNative(here.made[key]) ? here.table[key] : realm.table[key];
  }
  return chosen;
}
function allNative(natives) {
  if (natives === undefined) return false;
  for (let i = 0; i < natives.length; i += 2) {
    if (!isNative(natives[i], natives[i + 1])) return false;
  }
  return true;
}
const ObjectKeysOf = realm.table.ObjectKeys;
const builtins = choose();

module.exports = {
  ...builtins,
  RegExpPrototypeExec,
  ObjectGetOwnPropertyDescriptor: realm.ObjectGetOwnPropertyDescriptor,
  newArray: realm.newArray,
  newSet: realm.newSet,
  newMap: realm.newMap,
  newRegExp: realm.newRegExp,
  newUint8Array: realm.newUint8Array,
  newDate: realm.newDate,
  RegExpPrototypeTest,
  sourceOf,
  isNative,
  isProxy,
  isUint8Array,
  hasLine,
  replacedBuiltin,
  replacedForHead,
  replacedBeforeLoad: () => replacedBeforeLoad,
  LIVE: LIVE_NAMES,
};
