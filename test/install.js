'use strict';

// The ways in: require() alone changes nothing; install() / uninstall()
// patch Node's methods where Node has them (writeHead on
// http.ServerResponse.prototype, end, write, uncork, _storeHeader and
// _flushOutput on http.OutgoingMessage.prototype, addRequest on
// http.Agent.prototype), their attributes kept, so that a
// for...in over a response, a request or an agent finds what it finds with stock Node, and
// restore them exactly, and are idempotent; the ServerResponse subclass touches nothing global; -r and
// --import of onewrite/register work, print nothing and add no global;
// ONEWRITE_DISABLE=1 and an untested Node leave Node's code in place and
// say why.

const t = require('tap');
const http = require('node:http');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const NAMES = ['writeHead', '_storeHeader', 'end', 'write', 'uncork', 'writeHeader', '_flushOutput', 'addRequest'];
// Each name's own descriptor on ServerResponse.prototype,
// OutgoingMessage.prototype and Agent.prototype.
const descriptors = () => Object.fromEntries(NAMES.flatMap((n) => [
  [`SR.${n}`, Object.getOwnPropertyDescriptor(http.ServerResponse.prototype, n)],
  [`OM.${n}`, Object.getOwnPropertyDescriptor(http.OutgoingMessage.prototype, n)],
  [`AP.${n}`, Object.getOwnPropertyDescriptor(http.Agent.prototype, n)],
]));
// The function-valued names a for...in over a response, and over a
// request (an object of ClientRequest's prototype: no connection), finds,
// in order.
const enumerated = () => {
  const res = new http.ServerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} });
  const req = Object.create(http.ClientRequest.prototype);
  const agent = new http.Agent();
  const names = [];
  for (const k in res) if (typeof res[k] === 'function') names.push(`response ${k}`);
  for (const k in req) if (typeof req[k] === 'function') names.push(`request ${k}`);
  for (const k in agent) if (typeof agent[k] === 'function') names.push(`agent ${k}`);
  return names;
};
const attributes = (d) => d && { writable: d.writable, enumerable: d.enumerable, configurable: d.configurable };

t.test('require() alone patches nothing', async (t) => {
  const before = descriptors();
  const onewrite = require('..');
  t.same(descriptors(), before);
  t.equal(onewrite.status().active, false);
  t.equal(onewrite.status().mode, 'off');
  t.equal(onewrite.status().available, true, onewrite.status().reason || '');
  t.equal(onewrite.status().reason, 'not installed');
});

t.test('install() and uninstall(): idempotent, and an exact restore', async (t) => {
  const onewrite = require('..');
  const before = descriptors();
  const names = enumerated();
  t.equal(onewrite.install(), true, 'installed');
  const patched = descriptors();
  t.not(patched['OM.end'].value, before['OM.end'].value, 'end is replaced, where Node has it');
  t.not(patched['SR.writeHead'].value, before['SR.writeHead'].value, 'writeHead is replaced');
  t.not(patched['OM._flushOutput'].value, before['OM._flushOutput'].value, '_flushOutput is replaced');
  t.not(patched['AP.addRequest'].value, before['AP.addRequest'].value, 'addRequest is replaced');
  t.equal(patched['SR.end'], undefined, 'no end of its own on ServerResponse.prototype');
  for (const key of Object.keys(before)) {
    t.same(attributes(patched[key]), attributes(before[key]), `${key}: Node's attributes`);
  }
  t.same(enumerated(), names, 'for...in over a response, a request, an agent: the same methods, in the same order');
  t.equal(onewrite.status().active, true);
  t.equal(onewrite.status().mode, 'installed');
  t.equal(onewrite.status().reason, null);
  t.equal(onewrite.install(), true, 'installing again is a no-op');
  t.same(descriptors(), patched, 'nothing changed by the second install');
  t.equal(onewrite.uninstall(), true, 'uninstalled');
  t.same(descriptors(), before, 'every descriptor is back as it was');
  t.equal(onewrite.uninstall(), false, 'uninstalling again is a no-op');
  t.equal(onewrite.status().active, false);
});

t.test('the ServerResponse subclass leaves the prototype alone', async (t) => {
  const onewrite = require('..');
  const before = descriptors();
  t.ok(onewrite.ServerResponse.prototype instanceof http.ServerResponse);
  const server = http.createServer({ ServerResponse: onewrite.ServerResponse }, (req, res) => {
    t.ok(res instanceof onewrite.ServerResponse);
    res.end('sub');
  });
  await new Promise((resolve) => server.listen(0, resolve));
  const body = await new Promise((resolve) => {
    http.get(`http://127.0.0.1:${server.address().port}/`, (res) => {
      let s = '';
      res.on('data', (d) => (s += d));
      res.on('end', () => resolve(s));
    });
  });
  server.close();
  t.equal(body, 'sub');
  t.same(descriptors(), before);
  // Used this way, status() says so, and its counters are this server's.
  const s = onewrite.status();
  t.equal(s.mode, 'subclass');
  t.equal(s.active, true);
  t.equal(s.reason, null);
  t.ok(s.counters.ends > 0, 'the subclass\'s fast end is counted');
});

// Run a snippet in a child Node, with a clean environment: env -i, since
// the test runner injects its coverage hooks (which use process.binding)
// into every child it sees spawned.  Returns { stdout, stderr, status }.
function child(args, env = {}) {
  const vars = Object.entries({ PATH: process.env.PATH, ...env }).map(([k, v]) => `${k}=${v}`);
  const r = spawnSync('env', ['-i', ...vars, process.execPath, ...args], {
    cwd: ROOT, encoding: 'utf8',
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const PROBE = `
  const http = require('node:http');
  const globals = Object.getOwnPropertyNames(globalThis).length;
  const onewrite = require(${JSON.stringify(ROOT)});
  const s = onewrite.status();
  const patched = !String(http.OutgoingMessage.prototype.end).includes('write_(');
  const server = http.createServer((req, res) => res.end('ok'));
  server.listen(0, () => http.get('http://127.0.0.1:' + server.address().port, (res) => {
    res.resume();
    res.on('end', () => {
      server.close();
      process.stdout.write(JSON.stringify({ active: s.active, available: s.available,
        reason: s.reason, patched, status: res.statusCode, globals,
        ends: onewrite.status().counters.ends }));
    });
  }));
`;

t.test('node -r onewrite/register', async (t) => {
  const plain = child(['-e', PROBE]);
  const r = child(['--pending-deprecation', '-r', 'onewrite/register', '-e', PROBE]);
  t.equal(r.stderr, '', 'nothing on stderr, with --pending-deprecation');
  const out = JSON.parse(r.stdout);
  t.equal(out.active, true);
  t.equal(out.patched, true);
  t.equal(out.status, 200);
  t.equal(out.ends, 1, 'the response went through the fast path');
  t.equal(out.globals, JSON.parse(plain.stdout).globals, 'no new global');
});

t.test('node --import onewrite/register (ESM)', async (t) => {
  const r = child(['--import', 'onewrite/register', '--input-type=module', '-e',
    `import onewrite from 'onewrite'; import { status } from 'onewrite';
     process.stdout.write(JSON.stringify([onewrite.status().active, status().active]));`]);
  t.equal(r.stderr, '');
  t.same(JSON.parse(r.stdout), [true, true]);
});

// Node's --disable-proto takes Object.prototype.__proto__ away (delete) or
// makes it throw (throw); the walk reads prototypes through that getter
// only when it is V8's own.
const PROBE_OBJECT = `
  const http = require('node:http');
  const onewrite = require(${JSON.stringify(ROOT)});
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'X-A': 'b' });
    res.end(Buffer.from('ok'));
  });
  server.listen(0, () => http.get('http://127.0.0.1:' + server.address().port, (res) => {
    let body = '';
    res.on('data', (d) => { body += d; });
    res.on('end', () => {
      server.close();
      const c = onewrite.status().counters;
      process.stdout.write(JSON.stringify({ active: onewrite.status().active, status: res.statusCode,
        header: res.headers['x-a'], body, heads: c.heads, ends: c.ends }));
    });
  }));
`;
for (const mode of ['delete', 'throw']) {
  t.test(`node --disable-proto=${mode}: onewrite loads, and a header object and a Buffer body take the fast paths`, async (t) => {
    const r = child([`--disable-proto=${mode}`, '-r', 'onewrite/register', '-e', PROBE_OBJECT]);
    t.equal(r.stderr, '', 'nothing on stderr');
    t.same(JSON.parse(r.stdout), { active: true, status: 200, header: 'b', body: 'ok', heads: 1, ends: 1 });
  });
}

t.test('ONEWRITE_DISABLE=1 keeps Node\'s code and says why', async (t) => {
  const r = child(['-r', 'onewrite/register', '-e', PROBE], { ONEWRITE_DISABLE: '1' });
  t.equal(r.stderr, '');
  const out = JSON.parse(r.stdout);
  t.equal(out.active, false);
  t.equal(out.available, false);
  t.equal(out.reason, 'disabled by ONEWRITE_DISABLE=1');
  t.equal(out.patched, false, 'the prototype is untouched');
  t.equal(out.status, 200, 'the server answers');
  t.equal(out.ends, 0);
});

t.test('why the fast paths cannot run, for each reason, and what turns them on', async (t) => {
  const { whyUnavailable, remedyFor } = require('../lib/install');
  const ok = { disable: undefined, runtime: 'Node 20.20.0', version: '20.20.0', versionProblem: null, tested: [20, 22],
    checkedFrom: { 20: '20.19.5', 22: '22.15.0' }, binding: {}, error: null, missing: [] };
  const both = (facts) => {
    const reason = whyUnavailable(facts);
    return [reason, remedyFor({ ...facts, reason, remedy: facts.remedy })];
  };
  t.same(both(ok), [null, null]);
  t.same(both({ ...ok, disable: '1' }), ['disabled by ONEWRITE_DISABLE=1', null], 'asked for: nothing to do');
  t.same(both({ ...ok, disable: '0' }), [null, null]);
  const { versionRefusal } = require('../lib/internals');
  t.same(both({ ...ok, version: '27.0.0', versionProblem: versionRefusal('27.0.0') }),
    ['Node 27.0.0 is not a tested version (tested: 20, 22, 24, 26)',
      'run the app on Node 20 or 22, or a release of onewrite that lists Node 27']);
  t.same(both({ ...ok, version: '24.21.0', versionProblem: versionRefusal('24.21.0'), checkedFrom: { 24: '24.22.1' } }),
    ['Node 24.21.0 is older than the Node 24 releases onewrite was checked on (24.22.1 and later)',
      'upgrade Node to 24.22.1 or later']);
  for (const [older, checked] of [['20.19.4', '20.19.5'], ['22.14.0', '22.15.0'], ['24.21.0', '24.22.1'],
    ['26.8.2', '26.9.0'], ['26.0.0', '26.9.0'], ['20.18.9', '20.19.5']]) {
    t.match(versionRefusal(older), /is older than/, `${older}: refused`);
    t.equal(versionRefusal(checked), null, `${checked}: the oldest checked`);
  }
  for (const newer of ['20.20.2', '22.23.5', '24.22.3', '26.12.1', '26.20.0', '24.23.0']) {
    t.equal(versionRefusal(newer), null, `${newer}: taken`);
  }
  t.same(both({ ...ok, binding: null, error: new Error('its binary package is not installed\nmore'), remedy: 'install it' }),
    ['the native addon could not be loaded: its binary package is not installed', 'install it']);
  const [lacks, report] = both({ ...ok, missing: ['kOutHeaders'] });
  t.equal(lacks, 'this Node lacks what onewrite relies on: kOutHeaders');
  t.match(report, /^report it, with the Node version and this message: https:\/\/github\.com\/onewrite\/onewrite\/issues$/);
  // Other runtimes are named, whatever Node version they say they are, and
  // there is nothing to do: the app runs on their own http.  What they
  // lack of Node's internals is not listed (none of it is theirs to have).
  t.same(both({ ...ok, runtime: 'Bun 1.4.5', binding: null, missing: ['kEndCallbacks', 'nop'] }),
    ['Bun 1.4.5 is not Node.js, whose http internals onewrite works on', null]);
  t.same(both({ ...ok, runtime: 'Deno 2.9.6', binding: null }),
    ['Deno 2.9.6 is not Node.js, whose http internals onewrite works on', null]);
  // Their node:vm is not Node's, which the set-up refuses: the runtime is
  // still what is said.
  t.same(both({ ...ok, runtime: 'Bun 1.4.5', binding: null,
    setupError: new Error("node:vm's createContext was replaced before onewrite loaded") }),
  ['Bun 1.4.5 is not Node.js, whose http internals onewrite works on', null], 'the runtime, before the set-up');
});

t.test('status() shape', async (t) => {
  const onewrite = require('..');
  const s = onewrite.status();
  t.same(Object.keys(s).sort(),
    ['active', 'available', 'binary', 'client', 'counters', 'fallbacks', 'left', 'mode', 'node', 'reason', 'remedy',
      'tested']);
  t.equal(s.remedy, null, 'nothing to remedy');
  t.equal(s.binary, require('../lib/native').file, 'the file of the binary loaded');
  t.ok(require('node:fs').existsSync(s.binary), 'which exists');
  t.ok(['installed', 'subclass', 'off'].includes(s.mode), `mode ${s.mode}`);
  t.same(s.left, {}, 'no fast method left out: nothing wrapped them');
  t.equal(s.node, process.versions.node);
  t.same(s.tested, [20, 22, 24, 26]);
  t.same(Object.keys(s.counters).sort(),
    ['ends', 'endsToNode', 'heads', 'headsToNode', 'requestEnds', 'requestEndsToNode', 'requestFlushes',
      'requestFlushesToNode', 'requestHeads', 'requestHeadsToNode', 'writes', 'writesToNode']);
  t.equal(child(['-p', 'typeof require("onewrite").buildHead']).stdout.trim(), 'function');
});

t.test('worker threads: each loads its own instance of the addon and answers', async (t) => {
  const { Worker } = require('node:worker_threads');
  const code = `
    const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    const onewrite = require(${JSON.stringify(ROOT)});
    onewrite.install();
    const server = http.createServer((req, res) => res.end('from a worker'));
    server.listen(0, '127.0.0.1', () => {
      http.get('http://127.0.0.1:' + server.address().port, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          server.close();
          parentPort.postMessage({ body, active: onewrite.status().active, ends: onewrite.status().counters.ends });
        });
      });
    });`;
  const results = await Promise.all([0, 1].map(() => new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  for (const r of results) t.same(r, { body: 'from a worker', active: true, ends: 1 });
});
