'use strict';

// Issue 34's hostile callers, each as it was found, against stock Node:
// the same bytes, errors, events, counts and uncaught errors on both
// sides (test/helpers/reentry-cases.js sets each up, serves it and asks
// it).  test/reentry.js covers the same ground mechanically; these are the
// cases by name, with what onewrite did besides.

const t = require('tap');
const path = require('node:path');
const { childPair } = require('./helpers/child');

const CHILD = path.join(__dirname, 'helpers', 'reentry-cases.js');

async function pair(t, name) {
  const { stock, fast } = await childPair(CHILD, [name]);
  t.same(stock.exit, { code: 0, signal: null }, `${name}: stock exits 0`, { stderr: stock.stderr });
  t.same(fast.exit, { code: 0, signal: null }, `${name}: onewrite exits 0, as stock`, { stderr: fast.stderr });
  const s = stock.result || {};
  const f = fast.result || {};
  for (const key of ['answers', 'thrown', 'events', 'counts', 'uncaught']) {
    t.same(f[key], s[key], `${name}: ${key} as stock's`);
  }
  return { stock: s, fast: f };
}

// Item 2: builtins replaced before onewrite loads, ending held response A
// while B's head is built.
for (const name of ['toLowerCase', 'charCodeAt', 'exec', 'getOwnPropertyDescriptor', 'isProxy']) {
  t.test(`${name} replaced before load ends another response mid-head: each keeps its own`, async (t) => {
    const { stock, fast } = await pair(t, `${name}-ends-held`);
    for (const [p, answer] of Object.entries(stock.answers || {})) {
      if (p !== '/a') t.notMatch(answer, /X-From-A/, `${p}: stock's carries nothing of A`);
      t.equal(fast.answers[p], answer, `${p}: the same bytes`);
    }
  });
}

// Item 3: a transparent accessor on Array.prototype whose setter ends
// another response.
for (const index of [5, 3]) {
  t.test(`Array.prototype[${index}] accessor ending another response: no crash, as stock`, async (t) => {
    const { fast } = await pair(t, `index-${index}-accessor`);
    t.same(fast.uncaught, [], 'nothing uncaught');
  });
}

// Item 5: Function.prototype.toString throwing for Node's methods at load.
t.test('Function.prototype.toString throwing at load: the app starts and serves', async (t) => {
  const { fast } = await pair(t, 'tostring-throws');
  t.equal(fast.installed, true, 'onewrite installed (its sources are read through another realm)');
  t.ok(fast.status.heads > 0, 'and ran', { status: fast.status });
});

// Item 6: counting builtins replaced before load: called as stock calls
// them (onewrite calls none of them; those Node calls live hand it over).
t.test('builtins counted from before load: each called as often as with stock', async (t) => {
  const { stock, fast } = await pair(t, 'counted-before-load');
  t.ok(Object.keys(stock.counts).length > 0, 'stock calls some of them', { counts: stock.counts });
  t.equal(fast.status.ends, 0, "String.prototype.toLowerCase and Function.prototype.call are live in Node's code: onewrite handed over",
    { status: fast.status });
});

// Items 1, 8: wrappers on the socket's write path (instance _write and
// _writev, the handle's write methods, _writeGeneric) that write to or end
// the response from inside res.end('hello'): one head, Node's calls.
t.test('wrappers on the socket write path writing or ending the response: one status line, as stock', async (t) => {
  const { stock, fast } = await pair(t, 'socket-wrappers');
  for (const [p, answer] of Object.entries(fast.answers)) {
    t.equal((answer.match(/HTTP\/1\.1 /g) || []).length, 1, `${p}: one status line`);
  }
  t.ok(Object.keys(stock.counts).length >= 6, 'the wrappers ran', { counts: stock.counts });
});

// Item 9: a wrapper of Writable's write() that answers Node's source for
// its toString, on its own or through a replaced Function.prototype.toString.
for (const how of ['own-tostring', 'tostring-lies']) {
  t.test(`write() wrapper claiming Node's source (${how}): not taken for Node's, called as with stock`, async (t) => {
    const { stock } = await pair(t, `write-wrapper-${how}`);
    t.ok(stock.counts.write > 0, 'the wrapper ran', { counts: stock.counts });
  });
}

// Item 11: res.write() from inside the socket's _writev after a chunked
// write(): lost by Node 20, sent by 22+, and the same with onewrite.
t.test("write() inside the socket's _writev after a chunked write(): as stock", async (t) => {
  await pair(t, 'writev-after-chunked');
});
