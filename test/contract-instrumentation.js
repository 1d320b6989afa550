'use strict';

// APM agents: shimmer-style wrappers put before load, before and after
// install(), on instances, and @opentelemetry/instrumentation-http
// itself.  Child processes: install() is global.
// Stock against onewrite, as test/helpers/contract-checks.js says.

const t = require('tap');
const { same } = require('./helpers/contract');
const { childPair, sameChildren } = require('./helpers/child');
const { APM } = require('./helpers/contract-checks');

// ---- instrumentation (child processes: install() is global) ---------------

t.test('instrumentation', async (t) => {
  // Each scenario's stock side must show the instrumentation at work
  // (wrapper calls, spans), or the comparison would be empty.
  const run = async (t, name) => {
    const pair = await childPair(APM, [name]);
    const r = pair.stock.result || {};
    const seen = (r.calls || r.spans || []).length;
    t.ok(seen >= (r.bytes || []).length && seen > 0,
      `${name}: with stock Node, the instrumentation saw every response (${seen} calls or spans)`);
    return pair;
  };
  t.test('a shimmer-style wrapper of ServerResponse.prototype.writeHead, put before onewrite is loaded', async (t) => {
    sameChildren(t, await run(t, 'writeHead-before-require'),
      'the wrapper runs once per response, with the same arguments, as in Node');
  });
  t.test('shimmer-style wrappers of OutgoingMessage.prototype.write and end, put before onewrite is loaded', async (t) => {
    const pair = await run(t, 'write-end-before-require');
    sameChildren(t, pair, 'each wrapper runs once per call of the app, as in Node');
    t.equal(pair.fast.result?.callsAtLoad, 0, 'loading onewrite called neither wrapper');
    t.equal(pair.fast.result?.available, true, 'and onewrite is available');
  });
  for (const [name, what] of [['socket-write-before-require', 'net.Socket.prototype.write'],
    ['duplex-write-before-require', 'stream.Duplex.prototype.write'],
    ['duplex-cork-before-require', 'stream.Duplex.prototype.cork and uncork']]) {
    t.test(`a shimmer-style wrapper of ${what}, put before onewrite is loaded`, async (t) => {
      sameChildren(t, await run(t, name),
        'the wrapper is called as often, with the same bytes, as in Node');
    });
  }
  t.test('a shimmer-style wrapper of ServerResponse.prototype.writeHead, put before install()', async (t) => {
    sameChildren(t, await run(t, 'writeHead-before-install'),
      'the wrapper runs once per response, with the same arguments, as in Node');
  });
  t.test('a shimmer-style wrapper of OutgoingMessage.prototype.end, put after install()', async (t) => {
    // Either the wrapper works (runs as in Node), or status() reports it
    // (a string in status() naming OutgoingMessage.prototype.end): a user
    // must not lose an agent's instrumentation silently.
    const pair = await run(t, 'end-after-install');
    const bytesAndExit = (side) => ({ exit: side.exit, bytes: side.result && side.result.bytes });
    same(t, { stock: bytesAndExit(pair.stock), fast: bytesAndExit(pair.fast) }, 'the bytes are stock Node\'s');
    const calls = (side) => JSON.stringify(side.result && side.result.calls);
    const reported = pair.fast.result && JSON.stringify(pair.fast.result.status).includes('OutgoingMessage.prototype.end');
    if (calls(pair.stock) === calls(pair.fast) || reported) t.pass('the wrapper runs as in Node, or status() reports it');
    else t.fail('the wrapper is skipped and status() says nothing', { stock: pair.stock.result, onewrite: pair.fast.result });
  });
  t.test('wrappers of OutgoingMessage.prototype.end and write put after install() get each call\'s arguments, as many as given', async (t) => {
    const pair = await run(t, 'arity-after-install');
    sameChildren(t, pair, 'each wrapper runs once per call, with the same arguments and count, as in Node');
    const counts = (pair.fast.result?.calls || []).map(([label, , args]) => `${label}:${args.length}`);
    t.ok(['OutgoingMessage.end:1', 'OutgoingMessage.end:2', 'OutgoingMessage.end:3', 'OutgoingMessage.write:2',
      'OutgoingMessage.write:3', 'OutgoingMessage.end:0'].every((c) => counts.includes(c)),
      'calls of zero to three arguments reached the wrappers with their own counts', { counts });
  });
  t.test('instance wrappers of res.end and res.writeHead (as @opentelemetry/instrumentation-http does)', async (t) => {
    sameChildren(t, await run(t, 'instance-wrap'),
      'each wrapper runs once per response, as in Node');
  });
  t.test('uninstall() restores the prototypes\' own properties exactly, wrappers put before install() included', async (t) => {
    sameChildren(t, await run(t, 'uninstall-restores'),
      'descriptors as before install(); responses as in Node');
  });
  t.test('a wrapper put on top of onewrite\'s after install() is still there, and called, after uninstall()', async (t) => {
    sameChildren(t, await run(t, 'wrapper-survives-uninstall'),
      'the wrapper stays and runs; Node\'s code answers');
  });
  t.test('@opentelemetry/instrumentation-http records the same spans (install())', async (t) => {
    sameChildren(t, await run(t, 'otel'),
      'one span per request, same status codes, same bytes');
  });
  t.test('@opentelemetry/instrumentation-http records the same spans (ServerResponse option)', async (t) => {
    sameChildren(t, await run(t, 'otel-subclass'),
      'one span per request, same status codes, same bytes');
  });
});
