'use strict';

// Re-entry, mechanically: every builtin, every method between a response
// and the kernel (the response's, the socket's and its streams', the event
// emitter's, the handle's) and every index accessor of Array.prototype,
// replaced before onewrite loads and after, by a wrapper that counts its
// calls, or that once, from inside the response's handler, ends another
// held response, writes to or ends the response being made, or throws
// (test/helpers/reentry-child.js).  Stock Node and onewrite run the same
// scenarios; each must give the same bytes for both responses, the same
// error from the handler, the same events, the same effect of the hostile
// call and the same count of every wrapped function.
//
// Nothing is listed by hand: the targets are enumerated from the objects
// themselves, so a builtin or a write-path method that lib/ starts to call
// is in this test already.  Hostile scenarios are made for every target
// either side calls while the handler runs (the counting run says which).
// The targets onewrite refuses when they are replaced (the builtins Node
// calls live, lib/primordials.js LIVE; the socket's write path; Node's
// methods onewrite stands in for) would turn it off for everything when
// all are wrapped at once: they are wrapped one at a time after load, and
// all together before load (where onewrite must hand every call to Node).

const t = require('tap');
const { REFUSED, child, compare, scenariosFor, report } = require('./helpers/reentry-run');

t.test('wrapped after load, all but what onewrite refuses: every scenario as stock', async (t) => {
  const stock = child(false, 'after', REFUSED);
  const ours = child(true, 'after', REFUSED);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { targets } = await ours.ready;
  t.ok(targets.length > 500, `targets enumerated: ${targets.length}`);
  const { list, called, differ, counted } = await scenariosFor(stock, ours);
  t.ok(called.length > 3, `targets called inside the handlers: ${called.length}`);
  differ.push(...await compare(stock, ours, list));
  report(t, differ, `${counted + list.length} scenarios`);
  const { counters } = await ours.status();
  t.ok(counters.heads > 0 && counters.ends > 0, 'the fast paths ran', { counters });
});

t.test('wrapped before load, all but what onewrite refuses: every scenario as stock, fast paths on', async (t) => {
  const stock = child(false, 'before', REFUSED);
  const ours = child(true, 'before', REFUSED);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { list, differ, counted } = await scenariosFor(stock, ours);
  differ.push(...await compare(stock, ours, list));
  report(t, differ, `${counted + list.length} scenarios`);
  const { counters } = await ours.status();
  t.ok(counters.heads > 0 && counters.ends > 0, 'the fast paths ran', { counters });
});
