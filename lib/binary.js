'use strict';

// Which onewrite.node this process loads, and loading it.  In order:
//   1. ONEWRITE_BINARY=<file>: that file and nothing else (a binary kept
//      with the app, a test of one build);
//   2. build/Release/onewrite.node in the package: a clone's build, or one
//      made by `npx onewrite build` where no binary ships;
//   3. the platform's own package (@onewrite/linux-x64-glibc, ...), which
//      npm installs as an optional dependency of onewrite.
// The first that loads wins.  Nothing here throws: the answer is the
// addon's exports and the file, or why there are none and what to do.

const path = require('node:path');
const fs = require('node:fs');
const platforms = require('./platforms');

const ROOT = path.join(__dirname, '..');
const LOCAL_BUILD = path.join('build', 'Release', 'onewrite.node');
const BUILD_HINT = 'npx onewrite build (a C compiler, make and Python 3; on macOS: xcode-select --install)';

function firstLine(err) {
  return err && err.message ? String(err.message).split('\n')[0] : String(err);
}

function isNotFound(err, request) {
  return err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(`'${request}'`);
}

// The platform package for `target`: its binary, or why not.
function fromPackage(key, version, io) {
  const name = platforms.packageName(key);
  let manifest;
  try {
    manifest = io.resolve(`${name}/package.json`);
  } catch (err) {
    if (!isNotFound(err, `${name}/package.json`)) {
      return { failed: `${name} could not be found: ${firstLine(err)}` };
    }
    return {
      failed: `its binary package, ${name}, is not installed`,
      remedy: 'npm installs it with onewrite unless optional dependencies are left out ' +
        '(--omit=optional, --no-optional, a lockfile made without them): install onewrite again with them, ' +
        `or build a binary here: ${BUILD_HINT}`,
    };
  }
  const found = io.require(manifest).version;
  if (found !== version) {
    return {
      failed: `${name} is version ${found}, onewrite is ${version}`,
      remedy: 'install onewrite again: its binary package is always of its own version',
    };
  }
  return { file: path.join(path.dirname(manifest), 'onewrite.node'), from: name };
}

// Loads the first binary that loads.  `io` is what the search touches
// (tests replace it): resolve and require as the package's own, exists.
function load({
  env = process.env,
  target = { os: process.platform, cpu: process.arch, libc: platforms.detectLibc() },
  version = require('../package.json').version,
  root = ROOT,
  io = { resolve: require.resolve, require, exists: fs.existsSync },
} = {}) {
  const tryFile = (file) => {
    try {
      return { exports: io.require(file) };
    } catch (err) {
      return { error: firstLine(err) };
    }
  };

  if (env.ONEWRITE_BINARY) {
    const file = path.resolve(env.ONEWRITE_BINARY);
    const got = tryFile(file);
    if (got.exports) return { exports: got.exports, file, from: 'ONEWRITE_BINARY' };
    return {
      reason: `ONEWRITE_BINARY=${env.ONEWRITE_BINARY} could not be loaded: ${got.error}`,
      remedy: `point ONEWRITE_BINARY at a onewrite.node built for ${platforms.describe(target)}, or unset it`,
    };
  }

  const failures = [];
  const local = path.join(root, LOCAL_BUILD);
  if (io.exists(local)) {
    const got = tryFile(local);
    if (got.exports) return { exports: got.exports, file: local, from: 'local build' };
    failures.push(`the local build ${local} could not be loaded: ${got.error}`);
  }

  const key = platforms.keyFor(target);
  let remedy = `build a binary here: ${BUILD_HINT}`;
  if (key === null) {
    failures.push(target.os === 'linux' && target.libc === null
      ? `could not tell whether this Linux runs glibc or musl, so no binary was chosen (binaries ship for ${platforms.supportedList()})`
      : `no binary ships for ${platforms.describe(target)} (binaries ship for ${platforms.supportedList()})`);
  } else {
    const pkg = fromPackage(key, version, io);
    if (pkg.file) {
      const got = tryFile(pkg.file);
      if (got.exports) return { exports: got.exports, file: pkg.file, from: pkg.from };
      failures.push(`${pkg.from} could not be loaded: ${got.error}`);
      remedy = `install onewrite again, or build a binary here: ${BUILD_HINT}`;
    } else {
      failures.push(pkg.failed);
      if (pkg.remedy) remedy = pkg.remedy;
    }
  }
  return { reason: failures.join('; '), remedy };
}

module.exports = { load, LOCAL_BUILD, BUILD_HINT };
