#!/usr/bin/env node
'use strict';

// npx onewrite <command>: the commands of the onewrite package.
//   compare <app.js> [options]   stock Node against onewrite on your app
//   build [--soft]               the native addon, compiled for this machine

const USAGE = `Usage: npx onewrite <command>

Commands:
  compare <app.js> [options]   run your app stock and with onewrite: same bytes? which fast paths?
                               then server CPU per request and req/s, round by round
                               (npx onewrite compare --help for its options)
  build                        compile the native addon for this machine, where no binary
                               ships (macOS, FreeBSD, ...): needs a C compiler, make and Python 3
                               (npx onewrite build --help)`;

const [command, ...rest] = process.argv.slice(2);
if (command === 'compare') {
  require('../cli/compare').main(rest).then((code) => {
    process.exitCode = code;
  }, (err) => {
    process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  });
} else if (command === 'build') {
  process.exitCode = require('../cli/build').main(rest);
} else if (command === '--help' || command === '-h' || command === 'help') {
  process.stdout.write(`${USAGE}\n`);
} else {
  process.stderr.write(`onewrite: ${command === undefined ? 'which command?' : `unknown command ${command}`}\n${USAGE}\n`);
  process.exitCode = 2;
}
