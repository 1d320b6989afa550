'use strict';

// node child-run.js <case>[,<case>...] <side>: one side ('stock' or
// 'fast') of cases of child-cases.js, each on a loopback server of its
// own in this process, one after the other; prints what it saw as one JSON
// line (of one case: its result; of several: { case: result, ... }).
// Nothing here catches what a case throws or aborts on: that is what the
// parent checks.

const { spec } = require('./child-cases');
const { runSide } = require('./contract');

const [list, side] = process.argv.slice(2);
const names = String(list).split(',');
const specs = names.map(spec);
if (specs.includes(null) || (side !== 'stock' && side !== 'fast')) {
  process.stderr.write(`usage: child-run.js <case>[,<case>...] stock|fast (unknown: ${list} ${side})\n`);
  process.exit(2);
}
(async () => {
  const results = {};
  for (let i = 0; i < names.length; i++) results[names[i]] = await runSide(side, specs[i]);
  const out = names.length === 1 ? results[names[0]] : results;
  process.stdout.write(JSON.stringify(out) + '\n');
})();
