'use strict';

// Re-entry on the client side, mechanically (issue 41): test/reentry.js
// and test/reentry-refused.js for http.request().  Every builtin, every
// method between a request and the kernel (ClientRequest's,
// OutgoingMessage's, the socket's and its streams', the event emitter's,
// the handle's, http.Agent's) and every index accessor of Array.prototype,
// replaced before onewrite loads and after, by a wrapper that counts its
// calls, or that once, while a request is made - http.request() on a
// keep-alive agent, then end('hello'), end(buffer), end('cb', callback),
// a head rendered inside http.request() (headers as pairs), write() and
// end(), a GET's end() - and in the ticks that write it to its socket,
// ends or writes to another request held on another connection, writes
// to, ends or sets a header on the request being made, or throws
// (test/helpers/reentry-client-child.js).  Stock Node and onewrite
// (preloaded: register.js) run the same scenarios; each must give the same
// bytes on every connection the recording server has, the same error
// thrown to the caller, the same events of both requests, the same effect
// of the hostile call, the same uncaught errors and the same count of
// every wrapped function.
//
// Nothing is listed by hand: the targets are enumerated from the objects,
// and every target either side calls inside a counting run's window is
// armed in every mode in that shape.  What onewrite refuses when it is
// replaced (test/helpers/reentry-run.js REFUSED: the builtins Node calls
// live, the socket's write path, Node's methods onewrite stands in for)
// is wrapped one at a time after load, and all together before load.

const t = require('tap');
const { REFUSED, SHAPES, child, compare, clientScenarios, report } = require('./helpers/reentry-client-run');

const LINE = Number(process.versions.node.split('.')[0]);

// The client side's fast paths ran: the heads, and on 20 22 a request's
// bytes in one write (counted at end() or at the flush of what it queued,
// as lib/ counts them: every request counter but the heads' and Node's).
function ranFast(t, status) {
  const c = status.counters;
  t.equal(status.client, true, 'the client side on');
  const oneWrite = Object.keys(c).filter((k) => /^request/.test(k) && !/Heads|ToNode$/.test(k))
    .reduce((n, k) => n + c[k], 0);
  t.ok(c.requestHeads > 0 && (LINE >= 24 || oneWrite > 0), 'the client fast paths ran', { counters: c });
}

t.test('client, wrapped after load, all but what onewrite refuses: every scenario as stock', async (t) => {
  const stock = child(false, 'after', REFUSED);
  const ours = child(true, 'after', REFUSED);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { targets } = await ours.ready;
  t.ok(targets.length > 500, `targets enumerated: ${targets.length}`);
  t.ok(targets.includes('http.ClientRequest.prototype.onSocket') && targets.includes('http.Agent.prototype.addRequest'),
    "ClientRequest's and Agent's methods among them");
  const { list, called, differ, counted } = await clientScenarios(stock, ours);
  t.ok(called.length > 15, `targets called inside the windows: ${called.length}`);
  differ.push(...await compare(stock, ours, list));
  report(t, differ, `${counted + list.length} scenarios`);
  ranFast(t, await ours.status());
});

t.test('client, wrapped before load, all but what onewrite refuses: every scenario as stock, fast paths on', async (t) => {
  const stock = child(false, 'before', REFUSED);
  const ours = child(true, 'before', REFUSED);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { list, differ, counted } = await clientScenarios(stock, ours);
  differ.push(...await compare(stock, ours, list));
  report(t, differ, `${counted + list.length} scenarios`);
  ranFast(t, await ours.status());
});

t.test('client, what onewrite refuses, each wrapped alone after load: every scenario as stock', async (t) => {
  const stock = child(false, 'each', []);
  const ours = child(true, 'each', []);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const { targets } = await ours.ready;
  const refused = REFUSED.filter((n) => targets.includes(n));
  t.ok(refused.length > REFUSED.length - 6, `refused targets found: ${refused.length} of ${REFUSED.length}`);
  const counting = refused.flatMap((target) => SHAPES.map((shape) => [target, 'count', shape]));
  const { list, called, differ, counted } = await clientScenarios(stock, ours, counting);
  const before = (await ours.status()).counters.requestHeads;
  differ.push(...await compare(stock, ours, list));
  t.ok(called.length > 10, `refused targets called inside the windows: ${called.length}`);
  // (onewrite back on once each wrapper is off: its heads all along.)
  const heads = (await ours.status()).counters.requestHeads - before;
  t.ok(heads > list.length, `request heads of onewrite's in the armed scenarios: ${heads}`);
  report(t, differ, `${counted + list.length} scenarios`);
});

t.test('client, what onewrite refuses, all wrapped before load: every call Node\'s, as stock', async (t) => {
  const probe = child(false, 'each', []);
  const { targets } = await probe.ready;
  await probe.stop();
  const others = targets.filter((n) => !REFUSED.includes(n));
  const stock = child(false, 'before', others);
  const ours = child(true, 'before', others);
  t.teardown(() => Promise.all([stock.stop(), ours.stop()]));
  const differ = await compare(stock, ours, SHAPES.map((s) => ['', 'count', s]));
  report(t, differ, `${SHAPES.length} scenarios`);
  const status = await ours.status();
  t.equal(status.active, false, 'onewrite is off', { reason: status.reason });
  t.match(status.reason, /replaced before onewrite loaded/, 'and says why');
  const c = status.counters;
  t.equal(c.requestHeads + c.requestEnds, 0, 'no head or end() of onewrite\'s', { counters: c });
});
