'use strict';

// A builtin onewrite takes at load, or node:vm, changed by code loaded
// before onewrite (test/helpers/load-child.js), against stock Node with
// the same change:
//  - a builtin made into an accessor that answers another function to one
//    of its reads: onewrite reads each builtin once, by its descriptor, so
//    the accessor never runs while onewrite loads, counts as replaced, and
//    the answer is what stock Node sends (it did not: a toLowerCase that
//    answered toUpperCase to onewrite's second read made two Cookie lines
//    where Node joins them);
//  - node:vm's functions changed to edit what they answer: onewrite does
//    not call the ones it does not need, finds Node's own Script class
//    under a subclass put in its place (dd-trace's), and checks the ones it
//    calls (createContext, Script and its runInContext) as Node's own;
//    changed, onewrite stays off and says why.

const t = require('tap');
const path = require('node:path');
const { spawnNode } = require('./helpers/child');

const CHILD = path.join(__dirname, 'helpers', 'load-child.js');
const run = async (which, side) => {
  const r = await spawnNode([CHILD, which, side]);
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    return { failed: r };
  }
};

const ACCESSORS = ['toLowerCase read 1', 'toLowerCase read 2', 'toLowerCase read 3', 'toLowerCase read 4',
  'Object.getOwnPropertyDescriptor, counting', 'Array.isArray read 1',
  'Object.keys read 1', 'String.prototype.slice read 1'];
for (const which of ACCESSORS) {
  t.test(`an accessor on a builtin, before load: ${which}`, async (t) => {
    const [stock, ours] = await Promise.all([run(which, 'stock'), run(which, 'onewrite')]);
    t.match(stock.bytes, /^HTTP\/1\.1 200 OK\r\n/, 'stock Node answers', { stock });
    t.equal(ours.bytes, stock.bytes, 'the same bytes');
    t.equal(ours.plain, stock.plain, 'the same bytes for a head without a Cookie');
    t.equal(ours.loading, 0, 'the accessor did not run while onewrite loaded and installed');
    t.equal(ours.ran, stock.ran, 'the accessor ran as often as with stock Node');
    t.equal(ours.status.active, true, 'onewrite is installed');
  });
}

t.test('node:vm changed before load', async (t) => {
  const cases = {
    // Not called by onewrite: it stays on, its builtins untouched.
    'vm.runInContext edits what it answers': true,
    'vm.runInThisContext edits what it answers': true,
    // A subclass of Node's Script (dd-trace's): Node's own class is used.
    'vm.Script replaced by a subclass, as dd-trace does': true,
    // One that edits what it answers: the same, its code is never run.
    'vm.Script replaced by a subclass that edits': true,
    // Called: checked, and onewrite stays off.
    'vm.Script.prototype.runInContext edits what it answers': false,
    'vm.createContext counting': false,
  };
  for (const [which, on] of Object.entries(cases)) {
    const [stock, ours] = await Promise.all([run(which, 'stock'), run(which, 'onewrite')]);
    t.match(stock.bytes, /^HTTP\/1\.1 200 OK\r\nCookie: a=1; b=2\r\n/, `${which}: stock Node joins the Cookie array`);
    t.equal(ours.bytes, stock.bytes, `${which}: the same bytes`);
    t.equal(ours.plain, stock.plain, `${which}: the same bytes for a head without a Cookie`);
    t.equal(ours.status.active, on, `${which}: onewrite ${on ? 'on' : 'off'}`, { status: ours.status });
    if (on) {
      // A subclass in vm.Script's place is constructed once (its code, as
      // dd-trace's, sees what is compiled), then Node's own class is used.
      t.equal(ours.loading, /subclass/.test(which) ? 1 : 0, `${which}: ${/subclass/.test(which) ? 'run once' : 'not called'}`);
      t.equal(ours.status.heads, 1, `${which}: the head was onewrite's`);
    } else {
      t.match(ours.status.reason, /^onewrite could not set itself up here: node:vm's .* was replaced before onewrite loaded/,
        `${which}: the reason`);
    }
  }
});
