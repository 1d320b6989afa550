'use strict';

// The TypeScript compiler of the typescript devDependency: its version and
// the path of its tsc script (run it with Node).

const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const pkgPath = require.resolve('typescript/package.json', { paths: [ROOT] });
const pkg = require(pkgPath);

module.exports = {
  version: pkg.version,
  TSC: path.join(path.dirname(pkgPath), typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.tsc),
};
