'use strict';

// The mechanical re-entry test's second half (test/reentry.js has the
// first, and says what it does): what onewrite refuses or hands to Node
// when it is replaced - the builtins Node calls live, the socket's write
// path, Node's methods onewrite stands in for, Node's functions it takes
// at load, the elements of Array.prototype - wrapped one at a time after
// load, and all together before it (onewrite must then hand every call
// to Node).

const t = require('tap');
const { REFUSED, SHAPES, child, compare, scenariosFor, report } = require('./helpers/reentry-run');

t.test('what onewrite refuses, each wrapped alone after load: every scenario as stock', async (t) => {
  const stock = child(false, 'each', []);
  const ours = child(true, 'each', []);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { targets } = await ours.ready;
  const refused = REFUSED.filter((n) => targets.includes(n));
  t.ok(refused.length > REFUSED.length - 4, `refused targets found: ${refused.length} of ${REFUSED.length}`);
  // Each counted alone in every shape (only it is wrapped: the window
  // counts it alone); armed in every mode in the shapes where either side
  // calls it inside the handler.
  const counting = refused.flatMap((target) => SHAPES.map((shape) => [target, 'count', shape]));
  const { list, called, differ, counted } = await scenariosFor(stock, ours, counting);
  differ.push(...await compare(stock, ours, list));
  t.ok(called.length > 10, `refused targets called inside the handlers: ${called.length}`);
  report(t, differ, `${counted + list.length} scenarios`);
});

t.test('what onewrite refuses, all wrapped before load: every call Node\'s, as stock', async (t) => {
  const probe = child(false, 'each', []);
  const { targets } = await probe.ready;
  await probe.stop();
  const others = targets.filter((n) => !REFUSED.includes(n));
  const stock = child(false, 'before', others);
  const ours = child(true, 'before', others);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  // onewrite is off here: the counting runs show both sides make the same
  // calls (armed, both would run the same code: the test above arms each).
  const differ = await compare(stock, ours, SHAPES.map((s) => ['', 'count', s]));
  report(t, differ, `${SHAPES.length} scenarios`);
  const status = await ours.status();
  t.equal(status.active, false, 'onewrite is off', { reason: status.reason });
  t.match(status.reason, /replaced before onewrite loaded/, 'and says why');
  t.equal(status.counters.ends, 0, 'no end() of onewrite\'s', { status: status.counters });
});
