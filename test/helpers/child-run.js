'use strict';

// node child-run.js <case> <side>: one side ('stock' or 'fast') of a case
// of child-cases.js, on a loopback server in this process; prints what it
// saw as one JSON line.  Nothing here catches what the case throws or
// aborts on: that is what the parent checks.

const { spec } = require('./child-cases');
const { runSide } = require('./contract');

const [name, side] = process.argv.slice(2);
const s = spec(name);
if (!s || (side !== 'stock' && side !== 'fast')) {
  process.stderr.write(`usage: child-run.js <case> stock|fast (unknown: ${name} ${side})\n`);
  process.exit(2);
}
runSide(side, s).then((result) => process.stdout.write(JSON.stringify(result) + '\n'));
