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
// before onewrite loaded is told by its source, read with the new realm's
// Function.prototype.toString.
//
// Every builtin of this realm onewrite takes at load is read once, by its
// descriptor, and that value is the one checked and kept: an accessor
// there is never run, and counts as replaced.  node:vm's own functions,
// which make the new realm, are checked too (makeRealm).

const vm = require('node:vm');
const receiver = require('./global');

// The table, built in the new realm from its own globals: nothing there
// is anyone's but V8's.  SPEC says what lib/ takes, by key: [key, kind,
// holder, name].  kind: 'fn' the property's value; 'method' its value
// uncurried (called with the receiver first); 'getter' the getter of an
// accessor, uncurried; 'call' Function.prototype.call uncurried.  The
// holder is a path from the global object ('TypedArray.prototype' is
// %TypedArray%.prototype); a name '@@x' is the well-known Symbol.x.
// choose() below reads the same from this realm.
const SOURCE = `'use strict';
(() => {
  const SPEC = [
    ['ReflectApply', 'fn', 'Reflect', 'apply'],
    ['FunctionPrototypeCall', 'call'],
    ['FunctionPrototypeToString', 'method', 'Function.prototype', 'toString'],
    ['ArrayIsArray', 'fn', 'Array', 'isArray'],
    ['ArrayBufferIsView', 'fn', 'ArrayBuffer', 'isView'],
    ['ArrayPrototypeSlice', 'method', 'Array.prototype', 'slice'],
    ['ArrayPrototypeJoin', 'method', 'Array.prototype', 'join'],
    ['ArrayPrototypeIncludes', 'method', 'Array.prototype', 'includes'],
    ['MathFloor', 'fn', 'Math', 'floor'],
    ['MathMax', 'fn', 'Math', 'max'],
    ['NumberIsInteger', 'fn', 'Number', 'isInteger'],
    ['NumberPrototypeToString', 'method', 'Number.prototype', 'toString'],
    ['ObjectKeys', 'fn', 'Object', 'keys'],
    ['ObjectGetOwnPropertySymbols', 'fn', 'Object', 'getOwnPropertySymbols'],
    ['ObjectGetPrototypeOf', 'fn', 'Object', 'getPrototypeOf'],
    // V8's own __proto__ getter reads an object's map, where
    // Object.getPrototypeOf calls into the runtime.  (--disable-proto may
    // have taken it away: then ObjectGetPrototypeOf.)
    ['ObjectGetProto', 'getter', 'Object.prototype', '__proto__'],
    ['ObjectDefineProperty', 'fn', 'Object', 'defineProperty'],
    ['ObjectHasOwn', 'fn', 'Object', 'hasOwn'],
    ['ObjectPrototypeLookupGetter', 'method', 'Object.prototype', '__lookupGetter__'],
    ['ObjectFreeze', 'fn', 'Object', 'freeze'],
    ['ObjectAssign', 'fn', 'Object', 'assign'],
    ['ObjectCreate', 'fn', 'Object', 'create'],
    ['StringPrototypeToLowerCase', 'method', 'String.prototype', 'toLowerCase'],
    ['StringPrototypeCharCodeAt', 'method', 'String.prototype', 'charCodeAt'],
    ['StringPrototypeSlice', 'method', 'String.prototype', 'slice'],
    ['StringPrototypeIncludes', 'method', 'String.prototype', 'includes'],
    ['StringPrototypeIndexOf', 'method', 'String.prototype', 'indexOf'],
    ['StringPrototypeStartsWith', 'method', 'String.prototype', 'startsWith'],
    ['StringPrototypeSplit', 'method', 'String.prototype', 'split'],
    ['StringPrototypeReplaceAll', 'method', 'String.prototype', 'replaceAll'],
    ['SetPrototypeHas', 'method', 'Set.prototype', 'has'],
    ['SetPrototypeAdd', 'method', 'Set.prototype', 'add'],
    ['MapPrototypeGet', 'method', 'Map.prototype', 'get'],
    ['MapPrototypeSet', 'method', 'Map.prototype', 'set'],
    ['TypedArrayPrototypeSlice', 'method', 'TypedArray.prototype', 'slice'],
    ['TypedArrayPrototypeSet', 'method', 'TypedArray.prototype', 'set'],
    ['TypedArrayPrototypeGetLength', 'getter', 'TypedArray.prototype', 'length'],
    ['TypedArrayPrototypeGetByteLength', 'getter', 'TypedArray.prototype', 'byteLength'],
    ['TypedArrayPrototypeGetSymbolToStringTag', 'getter', 'TypedArray.prototype', '@@toStringTag'],
    ['SymbolPrototypeGetDescription', 'getter', 'Symbol.prototype', 'description'],
    ['DatePrototypeToUTCString', 'method', 'Date.prototype', 'toUTCString'],
    ['DatePrototypeGetMilliseconds', 'method', 'Date.prototype', 'getMilliseconds'],
  ];

  const { bind, call } = Function.prototype;
  const uncurryThis = bind.bind(call);
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const holder = (path) => (path === 'TypedArray.prototype'
    ? Object.getPrototypeOf(Uint8Array.prototype)
    : path.split('.').reduce((o, part) => o[part], globalThis));
  const key = (name) => (name.startsWith('@@') ? Symbol[name.slice(2)] : name);
  const shown = (property) => (typeof property === 'symbol' ? '[' + property.description + ']' : property);
  const toString = uncurryThis(Function.prototype.toString);
  const table = { __proto__: null };
  for (const [name, kind, path, property] of SPEC) {
    if (kind === 'call') {
      table[name] = uncurryThis(call);
      continue;
    }
    const d = ObjectGetOwnPropertyDescriptor(holder(path), key(property));
    if (kind === 'fn') table[name] = d.value;
    else if (kind === 'method') table[name] = uncurryThis(d.value);
    else if (d !== undefined && toString(d.get) === 'function get ' + shown(property) + '() { [native code] }') {
      table[name] = uncurryThis(d.get);
    }
  }
  // (--disable-proto: __proto__ is gone, or a getter that throws.)
  table.ObjectGetProto ??= Object.getPrototypeOf;
  return {
    __proto__: null,
    SPEC,
    table,
    // Regular expressions and their exec(), from one realm (V8's fast path
    // for exec() wants a regular expression of its own realm).
    RegExpPrototypeExec: uncurryThis(RegExp.prototype.exec),
    // Descriptors made in the realm: a property a descriptor lacks (get,
    // set, value) is looked up on a prototype no user code can reach.
    ObjectGetOwnPropertyDescriptor,
    ObjectGetPrototypeOf: Object.getPrototypeOf,
    SymbolIterator: Symbol.iterator,
    'Symbol@@toStringTag': Symbol.toStringTag,
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

// The new realm, made by node:vm's own functions as Node calls them (no
// options object of this realm, whose prototype Node would read), then
// checked with the new realm's own tools: node:vm's createContext is a
// data property holding Node's function (a line of its source), the Script
// class used is Node's and its runInContext too, and the native
// runInContext that Script's calls through `super` is V8's.  vm.Script may
// be a subclass of Node's (dd-trace, loaded first, puts one there that
// publishes the code it compiles): Node's own class is then found up its
// chain with the first realm's tools, and a realm made again with it, so
// that the one kept was made by no constructor but Node's.  Anything else
// (node:vm patched by code loaded first, say, to edit what it answers)
// throws: onewrite stays off and says why (lib/install.js).  No builtin of
// this realm is called on the way (none a polyfill or an agent may have
// wrapped); vm.createContext and vm.Script are read as they are and
// called before they are checked, so code put there before onewrite
// loads (a getter, a replaced function, dd-trace's subclass constructor)
// runs once at load.  A context whose global has no prototype: a name the
// source looks up is found on that context's own global, never on an
// object of this realm.
const SCRIPT_LINE = 'class Script extends ContextifyScript {';
function makeRealm() {
  const { createContext, Script: Given } = vm;
  const first = new Given(SOURCE).runInContext(createContext({ __proto__: null }));
  const Script = nodesScript(first, Given);
  const made = Script === Given ? first : new Script(SOURCE).runInContext(createContext({ __proto__: null }));

  // The checks, with the new realm's tools.
  const { includes, source, valueOf, protoOf } = toolsOf(made);
  const ScriptPrototype = valueOf(Script, 'prototype');
  const ContextifyScriptPrototype = ScriptPrototype === undefined ? null : protoOf(ScriptPrototype);
  const checks = [
    ['createContext', valueOf(vm, 'createContext') === createContext &&
      includes(source(createContext), 'makeContext(contextObject, name, origin, strings, wasm')],
    ['Script', nodesScript(made, valueOf(vm, 'Script')) === Script],
    ['Script.prototype.runInContext',
      includes(source(valueOf(ScriptPrototype, 'runInContext')), 'ReflectApply(super.runInContext, this, args)')],
    ["Script's native runInContext",
      source(valueOf(ContextifyScriptPrototype, 'runInContext')) === 'function runInContext() { [native code] }'],
  ];
  for (let i = 0; i < checks.length; i++) {
    if (!checks[i][1]) {
      throw new Error(`node:vm's ${checks[i][0]} was replaced before onewrite loaded: ` +
        'no untouched realm to take builtins from');
    }
  }
  return made;
}

// What makeRealm() reads functions and properties with, from a realm:
// a function's source ('' where it has none to give), an own data
// property's value.
function toolsOf(made) {
  const { FunctionPrototypeToString: toString, StringPrototypeIncludes: includes,
    StringPrototypeStartsWith: startsWith } = made.table;
  const source = (fn) => {
    try {
      return toString(fn);
    } catch {
      return '';
    }
  };
  const valueOf = (o, name) => {
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return undefined;
    const d = made.ObjectGetOwnPropertyDescriptor(o, name);
    return d === undefined || d.get !== undefined || d.set !== undefined ? undefined : d.value;
  };
  return { includes, startsWith, source, valueOf, protoOf: made.ObjectGetPrototypeOf };
}

// Node's own Script class: `given`, or the first class up its chain whose
// source is Node's; else `given` (which the checks then refuse).
function nodesScript(made, given) {
  const { startsWith, source, protoOf } = toolsOf(made);
  for (let c = given, depth = 0; depth < 5 && typeof c === 'function'; depth++, c = protoOf(c)) {
    if (startsWith(source(c), SCRIPT_LINE)) return c;
  }
  return given;
}
const realm = makeRealm();
const { RegExpPrototypeExec } = realm;
const { StringPrototypeIncludes, StringPrototypeSplit, ArrayIsArray } = realm.table;
const ObjectGetOwnPropertyDescriptor = realm.ObjectGetOwnPropertyDescriptor;

// dataOf(o, name): the value of o's own data property `name`, read by its
// descriptor (a getter there is not run), or undefined where it is an
// accessor or absent; with the new realm's tools, as makeRealm() read
// node:vm.
const { valueOf: dataOf, source: sourceOfFunction } = toolsOf(realm);

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
  return typeof fn === 'function' ? sourceOfFunction(fn) : '';
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
// holds the objects themselves; so does onewrite.  (Read from the modules
// by their descriptors; lib/internals.js says what is missing without
// them.)
const Buffer = dataOf(require('node:buffer'), 'Buffer');
const process = require('node:process');

// util.types.isProxy, Node's native function (V8 offers no builtin that
// tells a Proxy without running its traps), when it is Node's own: native
// code (named on 20, unnamed on 22-26) that answers as isProxy does.
// Otherwise (replaced before onewrite loaded) everything is taken for a
// Proxy, and what a fast path would walk goes to Node.
const nodeIsProxy = dataOf(require('node:util/types'), 'isProxy');
const isProxy = (isNative(nodeIsProxy, 'isProxy') || sourceOf(nodeIsProxy) === 'function () { [native code] }') &&
  nodeIsProxy(realm.newProxy()) === true && nodeIsProxy(realm.newArray()) === false
  ? nodeIsProxy : () => true;

// A Uint8Array (a Buffer too), by the typed array's own tag: V8's getter,
// which a subclass or the object cannot answer for.
function isUint8Array(value) {
  return builtins.TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint8Array';
}

// This realm's intrinsic prototypes, as Node's own code meets them: those
// of primitives by wrapping one in a function that is not strict (it gets
// the wrapper of its own realm), of literals by making one, the others
// from their constructors on the global object, each read by its
// descriptor and taken only where it is V8's own (native, of its name).
const here = receiver();
const wrapped = (primitive) => realm.table.ReflectApply(receiver, primitive, realm.newArray());
function constructorHere(name) {
  const c = dataOf(here, name);
  return isNative(c, name) ? c : undefined;
}
const protoOf = realm.ObjectGetPrototypeOf;
const NONE = realm.newArray(); // where a constructor was not V8's own: nothing found on it
const StringPrototype = protoOf(wrapped(''));
const NumberPrototype = protoOf(wrapped(0));
const ArrayPrototype = protoOf([]);
const ObjectPrototype = protoOf({});
const FunctionPrototype = protoOf(receiver);
const RegExpPrototype = protoOf(/x/);
const DatePrototype = dataOf(constructorHere('Date'), 'prototype') ?? NONE;
const SetPrototype = dataOf(constructorHere('Set'), 'prototype') ?? NONE;
const BufferPrototype = dataOf(Buffer, 'prototype') ?? NONE;
// %Error%, whose stackTraceLimit V8 reads and whose captureStackTrace
// lib/stack.js calls: the global Error when it is V8's own and its
// prototype is the one V8 gives the errors it makes.
const ErrorIntrinsic = (() => {
  const ctor = constructorHere('Error');
  let made = null;
  try {
    null.x; // eslint-disable-line no-unused-expressions
  } catch (err) {
    made = err;
  }
  return ctor !== undefined && protoOf(protoOf(made)) === dataOf(ctor, 'prototype') ? ctor : undefined;
})();
const ErrorCaptureStackTrace = isNative(dataOf(ErrorIntrinsic, 'captureStackTrace'), 'captureStackTrace')
  ? dataOf(ErrorIntrinsic, 'captureStackTrace') : undefined;
const ITERATOR = realm.SymbolIterator;

// The builtins Node's http and stream code calls live on the paths the
// fast methods take over (found by test/builtins.js on Node 20, 22, 24 and
// 26), as found at load, each with what tells the original: V8's own
// builtin of that name, or a line of Node's source for Node's functions
// (on 20 some of Buffer's are native methods, on 22 JavaScript, on 24 and
// 26 small JavaScript wrappers).  Each is read once, by its descriptor:
// an accessor there is not run, and counts as replaced.
const LIVE = [
  ['String.prototype.toLowerCase', StringPrototype, 'toLowerCase', 'toLowerCase'],
  ['String.prototype.charCodeAt', StringPrototype, 'charCodeAt', 'charCodeAt'],
  ['String.prototype.slice', StringPrototype, 'slice', 'slice'],
  ['RegExp.prototype.exec', RegExpPrototype, 'exec', 'exec'],
  ['RegExp.prototype.test', RegExpPrototype, 'test', 'test'],
  ['Array.prototype.push', ArrayPrototype, 'push', 'push'],
  ['Array.prototype.pop', ArrayPrototype, 'pop', 'pop'],
  ['Array.prototype.shift', ArrayPrototype, 'shift', 'shift'],
  ['Array.prototype.unshift', ArrayPrototype, 'unshift', 'unshift'],
  ['Array.prototype.join', ArrayPrototype, 'join', 'join'],
  ['Array.prototype.toString', ArrayPrototype, 'toString', 'toString'],
  ['Array.prototype[Symbol.iterator]', ArrayPrototype, ITERATOR, 'values'],
  ['Function.prototype.call', FunctionPrototype, 'call', 'call'],
  ['Function.prototype.apply', FunctionPrototype, 'apply', 'apply'],
  ['Function.prototype.bind', FunctionPrototype, 'bind', 'bind'],
  ['Number.prototype.toString', NumberPrototype, 'toString', 'toString'],
  ['Object.prototype.valueOf', ObjectPrototype, 'valueOf', 'valueOf'],
  ['Buffer.byteLength', Buffer, 'byteLength', { line: 'isArrayBufferView(string) || isAnyArrayBuffer(string)' }],
  ['Buffer.from', Buffer, 'from', { line: 'return fromString(value, encodingOrOffset)' }],
  ['Buffer.isEncoding', Buffer, 'isEncoding', { line: 'normalizeEncoding(encoding) !== undefined' }],
  ['Buffer.prototype.toString', BufferPrototype, 'toString', { line: 'function toString(encoding, start, end) {' }],
  ['Buffer.prototype.latin1Write', BufferPrototype, 'latin1Write',
    { name: 'latin1Write', line: ['function latin1Write(string, offset = 0, length = this.byteLength) {',
      'function(string, offset, length) { return latin1Write(this, string, offset, length); }'] }],
  ['Buffer.prototype.utf8Write', BufferPrototype, 'utf8Write',
    { name: 'utf8Write', line: ['function utf8Write(string, offset = 0, length = this.byteLength) {',
      'function(string, offset, length) { return utf8Write(this, string, offset, length); }'] }],
  ['Buffer.prototype.utf8Slice', BufferPrototype, 'utf8Slice',
    { name: 'utf8Slice', line: 'function(start, end) { return utf8Slice(this, start, end); }' }],
  ['Date.prototype.toUTCString', DatePrototype, 'toUTCString', 'toUTCString'],
  ['Date.prototype.getMilliseconds', DatePrototype, 'getMilliseconds', 'getMilliseconds'],
  ['Set.prototype.has', SetPrototype, 'has', 'has'],
  // Node's stream code calls it for every write's callback, the fast
  // paths for fewer writes.
  ['process.nextTick', process, 'nextTick', { line: "validateFunction(callback, 'callback');" }],
];
for (let i = 0; i < LIVE.length; i++) {
  const entry = LIVE[i];
  LIVE[i] = [entry[0], dataOf(entry[1], entry[2]), entry[3]];
}

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

// The builtins lib/ calls: this realm's own where what each is made of is
// V8's own (read once, by its descriptor, from this realm's intrinsics,
// and checked native and named: a function JavaScript wrote never prints
// as native code, and the source is read with the other realm's
// toString): V8's optimising compiler inlines a builtin of the caller's
// own realm, and not one of another; else the untouched realm's.  Either
// way none is a replacement, whenever it was made: each is taken now,
// once.
function choose() {
  const { SPEC } = realm;
  const apply = realm.table.ReflectApply;
  const bind = dataOf(FunctionPrototype, 'bind');
  const call = dataOf(FunctionPrototype, 'call');
  const uncurryThis = isNative(bind, 'bind') && isNative(call, 'call') ? apply(bind, bind, [call]) : null;
  const prototypes = {
    __proto__: null,
    'Function.prototype': FunctionPrototype,
    'Array.prototype': ArrayPrototype,
    'Object.prototype': ObjectPrototype,
    'String.prototype': StringPrototype,
    'Number.prototype': NumberPrototype,
    'Symbol.prototype': protoOf(wrapped(ITERATOR)),
  };
  const holder = (path) => {
    if (path in prototypes) return prototypes[path];
    if (path === 'Reflect' || path === 'Math') return dataOf(here, path);
    if (path === 'TypedArray.prototype') {
      const typed = dataOf(constructorHere('Uint8Array'), 'prototype');
      return typed === undefined ? undefined : protoOf(typed);
    }
    const parts = StringPrototypeSplit(path, '.');
    const ctor = constructorHere(parts[0]);
    return parts.length === 2 ? dataOf(ctor, 'prototype') : ctor;
  };
  const chosen = { __proto__: null };
  for (let i = 0; i < SPEC.length; i++) {
    const spec = SPEC[i];
    const key = spec[0];
    chosen[key] = realm.table[key];
    if (uncurryThis === null) continue;
    if (spec[1] === 'call') {
      chosen[key] = uncurryThis(call);
      continue;
    }
    const name = spec[3];
    const property = StringPrototypeStartsWith(name, '@@') ? realm[`Symbol${name}`] : name;
    const o = holder(spec[2]);
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) continue;
    const d = ObjectGetOwnPropertyDescriptor(o, property);
    if (d === undefined) continue;
    if (spec[1] === 'getter') {
      if (isNative(d.get, `get ${name === '@@toStringTag' ? '[Symbol.toStringTag]' : name}`)) chosen[key] = uncurryThis(d.get);
    } else if (d.get === undefined && d.set === undefined && isNative(d.value, name)) {
      chosen[key] = spec[1] === 'method' ? uncurryThis(d.value) : d.value;
    }
  }
  return chosen;
}
const { StringPrototypeStartsWith } = realm.table;
const builtins = choose();

module.exports = {
  ...builtins,
  ErrorIntrinsic: ErrorCaptureStackTrace === undefined ? undefined : ErrorIntrinsic,
  ErrorCaptureStackTrace,
  RegExpPrototypeExec,
  ObjectGetOwnPropertyDescriptor: realm.ObjectGetOwnPropertyDescriptor,
  newArray: realm.newArray,
  newSet: realm.newSet,
  newMap: realm.newMap,
  newRegExp: realm.newRegExp,
  newUint8Array: realm.newUint8Array,
  newDate: realm.newDate,
  RegExpPrototypeTest,
  // This realm's, which the user's arrays and objects have.
  ArrayPrototype,
  ObjectPrototype,
  dataOf,
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
