'use strict';

// Issue 41, item 3: can an identical Agent.prototype.addRequest build its
// options object cheaper than Node's `{ __proto__: null, ...options,
// ...this.options }`?  Both sources are Node's own null-prototype copies
// (the request's optsWithoutSignal, made by the ClientRequest constructor,
// which a package cannot replace: http.request() calls the class by its
// module binding; the agent's options, made by the Agent constructor).
// Each way of making the same object - null prototype, the same own keys
// in the same order, the same values - is run N and 2N times in a process
// of its own under callgrind; the difference over N is its instructions
// per request.
//
//   node benchmark/option-spreads.js [--n=20000] [--node=/path/to/node] [--ways='<name>|<name>']
//
// (A probe: nothing here is onewrite's.  Its answer is in
// docs/performance.md, "The client side".)

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// The objects addRequest spreads, as a keep-alive POST of benchmark/
// client-instr.js makes them: the request's options after ClientRequest's
// constructor, and an Agent({ keepAlive: true })'s.
const SETUP = `
const request = { __proto__: null, ...{ host: '127.0.0.1', port: 3000, method: 'POST', path: '/p',
  headers: { 'content-type': 'application/json' }, agent: null } };
const agent = { __proto__: null, ...{ keepAlive: true } };
agent.noDelay = true;
agent.path = null;
const ObjectSetPrototypeOf = Object.setPrototypeOf;
const { isProxy } = require('node:util/types');
function Copy() {}
Copy.prototype = Object.freeze(Object.create(null));
const lookupGetter = Function.prototype.call.bind(Object.prototype.__lookupGetter__);
const propertyIsEnumerable = Function.prototype.call.bind(Object.prototype.propertyIsEnumerable);
let sink;
`;

const WAYS = {
  // What Node does.
  node: 'sink = { __proto__: null, ...request, ...agent };',
  // A plain-literal spread (V8's CloneObjectIC), then the prototype set
  // to null: the same keys, order and values.
  'spread then setPrototypeOf': 'const o = { ...request, ...agent }; ObjectSetPrototypeOf(o, null); sink = o;',
  // Keys copied by hand (for...in sees the same own enumerable string
  // keys of a null-prototype object; neither source has symbols).
  'for...in copy': `const o = { __proto__: null };
for (const k in request) o[k] = request[k];
for (const k in agent) o[k] = agent[k];
sink = o;`,
  'Object.assign': 'sink = Object.assign({ __proto__: null }, request, agent);',
  // What a wrapper of Node's addRequest could do: hand it a fast-mode copy
  // of the request's options (Node's spread of the agent's stays).
  "fast copy, then Node's spread": `const f = {};
for (const k in request) f[k] = request[k];
sink = { __proto__: null, ...f, ...agent };`,
  // The same, reading each value from its descriptor (no getter is run:
  // one there would hand the original to Node), after the checks that make
  // for...in see what a spread sees (not a Proxy, no prototype, no symbol).
  'checked copy, then spread': `if (isProxy(request) || Object.getPrototypeOf(request) !== null ||
  Object.getOwnPropertySymbols(request).length !== 0) throw new Error('not taken');
const f = new Copy();
for (const k in request) {
  const d = Object.getOwnPropertyDescriptor(request, k);
  if (d.get !== undefined || d.set !== undefined) throw new Error('not taken');
  f[k] = d.value;
}
sink = { __proto__: null, ...f, ...agent };`,
  // onewrite's (lib/agent.js): the same with Object.keys for for...in (own
  // enumerable strings in the spread's order: no prototype to check, no
  // filter per key).
  'keys, checked copy, then spread': `if (isProxy(request) ||
  Object.getOwnPropertySymbols(request).length !== 0) throw new Error('not taken');
const keys = Object.keys(request);
const f = new Copy();
for (let i = 0; i < keys.length; i++) {
  const k = keys[i];
  const d = Object.getOwnPropertyDescriptor(request, k);
  if (d.get !== undefined || d.set !== undefined) throw new Error('not taken');
  f[k] = d.value;
}
sink = { __proto__: null, ...f, ...agent };`,
  // Checks without a descriptor object (what lib/request.js does for an
  // index of a request's queue): the own keys, a getter looked up
  // (Object.prototype.__lookupGetter__; the object has no prototype, so
  // only its own property is looked at), enumerability asked, the value
  // read plainly.  Slower here: both go to V8's runtime for a dictionary.
  'looked-up copy, then spread': `if (isProxy(request)) throw new Error('not taken');
const keys = Reflect.ownKeys(request);
const f = new Copy();
for (let i = 0; i < keys.length; i++) {
  const k = keys[i];
  if (!propertyIsEnumerable(request, k)) continue;
  if (lookupGetter(request, k) !== undefined) throw new Error('not taken');
  f[k] = request[k];
}
sink = { __proto__: null, ...f, ...agent };`,
  // Object.keys (the enumerable strings, in order) and no symbol.
  'keys, looked-up copy, then spread': `if (isProxy(request) ||
  Object.getOwnPropertySymbols(request).length !== 0) throw new Error('not taken');
const keys = Object.keys(request);
const f = new Copy();
for (let i = 0; i < keys.length; i++) {
  const k = keys[i];
  if (lookupGetter(request, k) !== undefined) throw new Error('not taken');
  f[k] = request[k];
}
sink = { __proto__: null, ...f, ...agent };`,
};

function script(body, n) {
  return `${SETUP}\nfor (let i = 0; i < ${n}; i++) {\n${body}\n}\n`;
}

function count(node, body, n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spreads-'));
  const file = path.join(dir, 'probe.js');
  fs.writeFileSync(file, script(body, n));
  const out = path.join(dir, 'callgrind.out');
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, node,
    '--single-threaded', '--min-semi-space-size=2', '--max-semi-space-size=2', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`valgrind failed: ${r.stderr.slice(-500)}`);
  const total = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(out, 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  return Number(total[1]);
}

function main() {
  const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
  const node = args.node || process.execPath;
  const n = Number(args.n || 20000);
  const version = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim();
  console.log(`Node ${version}: instructions per object made (callgrind, N=${n} and 2N)`);
  let base = 0;
  const only = args.ways ? args.ways.split('|') : null;
  for (const [name, body] of Object.entries(WAYS)) {
    if (only !== null && name !== 'node' && !only.includes(name)) continue;
    const one = count(node, body, n);
    const two = count(node, body, 2 * n);
    const per = (two - one) / n;
    if (name === 'node') base = per;
    console.log(`  ${name.padEnd(28)} ${Math.round(per).toLocaleString('en-US').padStart(8)}` +
      (name === 'node' ? '' : `  (${(per / base).toFixed(2)}x)`));
  }
}

main();
