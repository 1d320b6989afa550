'use strict';

// What a user sees of onewrite in a stack (lib/stack.js): every error a
// response method (or a request's end() and write(), which share the
// prototype) throws or hands on, and a stack taken inside each of a
// response's events and callbacks (test/helpers/stacks-child.js), with
// onewrite installed (-r onewrite/register) against stock Node:
//  - at most one frame of onewrite's, named as the method the user called
//    (ServerResponse.writeHead, ServerResponse.end, ...), or as the
//    callback Node gives merged chunks where Node's own is;
//  - each of the user's own frames stock Node's stack has, under the
//    default Error.stackTraceLimit and under a limit of 6 (onewrite's
//    frames once took the places of the user's);
//  - Node's writeHead not shown under its alias (`[as writeHeader]`).

const t = require('tap');
const path = require('node:path');
const { spawnNode } = require('./helpers/child');

const CHILD = path.join(__dirname, 'helpers', 'stacks-child.js');
const REGISTER = path.join(__dirname, '..', 'register.js');
const LIB = path.join(__dirname, '..', 'lib') + path.sep;

async function stacks(args) {
  const r = await spawnNode(args);
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    return { failed: [r.code, r.stderr.slice(-2000)] };
  }
}

// A frame of the user's, as where it runs (file and line): the same in
// both stacks.  (Its name may differ: stock Node calls a write callback
// through its writev's, as a method of the buffered entry.)
const userFrames = (lines) => lines.filter((l) => l.includes(CHILD)).map((l) => l.replace(/^.*?\(?(\/[^()]*):\d+\)?$/, '$1'));

for (const limit of ['default', '6']) {
  t.test(`stacks, Error.stackTraceLimit ${limit}`, async (t) => {
    const [stock, ours] = await Promise.all([stacks([CHILD, limit]), stacks(['-r', REGISTER, CHILD, limit])]);
    t.notOk(stock.failed || ours.failed, 'both children ran', { stock: stock.failed, ours: ours.failed });
    t.ok(Object.keys(stock).length >= 17, `every case gave a stack with stock Node: ${Object.keys(stock).length}`);
    for (const [name, lines] of Object.entries(stock)) {
      const mine = ours[name] || [];
      const own = mine.filter((l) => l.includes(LIB));
      t.ok(own.length <= 1, `${name}: at most one frame of onewrite's (${own.length})`, { stack: mine });
      for (const l of own) {
        // Named as the method; or (24 26: the callback uncork() gives the
        // chunks it merged) as Node's callback is.
        if (/^ {4}at callback \(/.test(l)) {
          t.ok(lines.some((x) => /^ {4}at Object\.callback \(node:_http_outgoing:/.test(x)), `${name}: where Node's is`);
        } else {
          t.match(l, /^ {4}at (ServerResponse|ClientRequest)\.(writeHead|end|write|uncork|_storeHeader) \(/,
            `${name}: named as the method`);
        }
      }
      // An error Node makes inside the method and hands on (an 'error'
      // event) is not thrown through onewrite's method, and keeps its
      // frame among the limit's: under a limit it may push out stock's
      // last frame (docs/differences.md).
      const handedOn = /^request .*the 'error'$/.test(name) && limit !== 'default';
      const counted = handedOn ? lines.slice(0, -own.length || undefined) : lines;
      const missing = userFrames(counted).filter((f) => !userFrames(mine).includes(f));
      t.same(missing, [], `${name}: the user's frames stock Node shows${handedOn ? ' (but the last, under a limit)' : ''}`,
        { stock: lines, onewrite: mine });
      t.notOk(mine.some((l) => l.includes('[as writeHeader]') && !lines.some((s) => s.includes('[as writeHeader]'))),
        `${name}: no alias stock Node does not show`);
    }
  });
}
