'use strict';

// Which onewrite.node this process loads, and loading it.  In order:
//   1. ONEWRITE_BINARY=<file.node>: that file and nothing else (a binary
//      kept with the app, a test of one build);
//   2. build/Release/onewrite.node in the package: a clone's build, or one
//      made by `npx onewrite build` where no binary ships;
//   3. the platform's own package (@onewrite/linux-x64-glibc, ...), which
//      npm installs as an optional dependency of onewrite.
// The first that loads wins.  Nothing here throws: the answer is the
// addon's exports and the file, or why there are none and what to do.
//
// Nothing at load may stop the app either.  A file is read and checked
// before it is loaded: the system's loader maps a shared object's pages,
// and touching a page past the end of a truncated file (an interrupted
// copy, a full disk) kills the process with SIGBUS, where no JavaScript
// can catch it.  A checked file is loaded with process.dlopen, as Node's
// own .node loader does, never with require(): a path given by the user
// may name JavaScript, and require() would run it.

const path = require('node:path');
const fs = require('node:fs');
const Module = require('node:module');
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

const { checkBinary, checkElf, checkPe, checkMachO, inMemory, Declined } = require('./objfile');

// ---------------------------------------------------------------------------
// Loading.  `io` is what loading touches (tests replace it, in whole or in
// part): resolve and require (of package.json files alone) as the
// package's own; stat(file) as fs.statSync; read(file, at, n), the bytes
// [at, at + n) of a file, fewer where it ends; dlopen(addon, file) as
// process.dlopen.

// The bytes [at, at + n) of `file`; a read of its own, so that no
// descriptor stays open whatever happens.
function readAt(file, at, n) {
  const fd = fs.openSync(file, 'r');
  try {
    const bytes = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const r = fs.readSync(fd, bytes, got, n - got, at + got);
      if (r === 0) break;
      got += r;
    }
    return bytes.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

// What Node's own loader does for a .node file, and then what require()
// would have kept: the module in require's cache (which Node documents as
// writable), under the file's real path, unless one is there.  So code
// that requires the same file later gets these exports, as it did when
// this loader used require(), and no attach() with them (lib/native.js
// takes it off).  process.dlopen itself keeps nothing: each call runs the
// addon's init again, and gives an instance of its own.
function dlopen(addon, file) {
  process.dlopen(addon, path.toNamespacedPath(file));
  try {
    const real = fs.realpathSync(file);
    if (require.cache[real] !== undefined) return;
    const cached = new Module(real, null);
    cached.filename = real;
    cached.exports = addon.exports;
    cached.loaded = true;
    require.cache[real] = cached;
  } catch {}
}

const IO = { resolve: require.resolve, require, stat: fs.statSync, read: readAt, dlopen };

function notRegular(stat) {
  if (stat.isDirectory()) return 'a directory, not a file';
  if (stat.isFIFO()) return 'a pipe, not a file';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device, not a file';
  return 'not a regular file';
}

// The addon's exports from `file`, or the error why not; `absent` when
// there is no such file.  Checked, then loaded.
function tryFile(file, target, io) {
  let stat;
  try {
    stat = io.stat(file);
  } catch (err) {
    return err && err.code === 'ENOENT' ? { error: 'no such file', absent: true } : { error: firstLine(err) };
  }
  if (!stat.isFile()) return { error: notRegular(stat) };
  const bad = checkBinary({ size: stat.size, name: 'the file', read: (at, n) => io.read(file, at, n) }, target);
  if (bad !== null) return { error: bad };
  const addon = { exports: {} };
  try {
    io.dlopen(addon, file);
  } catch (err) {
    return { error: firstLine(err) };
  }
  const { exports } = addon;
  if (exports === null || typeof exports !== 'object') return { error: 'the addon exported no object' };
  return { exports };
}

// Another platform's package, installed where this one is not: the sign
// of node_modules made on another machine, or for another platform.
function otherPlatformPackage(key, io) {
  for (const other of Object.keys(platforms.PLATFORMS)) {
    if (other === key) continue;
    try {
      io.resolve(`${platforms.packageName(other)}/package.json`);
      return platforms.packageName(other);
    } catch {}
  }
  return null;
}

// The platform package for `key`: its binary, or why not.
function fromPackage(key, version, io) {
  const name = platforms.packageName(key);
  let manifest;
  try {
    manifest = io.resolve(`${name}/package.json`);
  } catch (err) {
    if (!isNotFound(err, `${name}/package.json`)) {
      return { failed: `${name} could not be found: ${firstLine(err)}` };
    }
    const other = otherPlatformPackage(key, io);
    return {
      failed: `its binary package, ${name}, is not installed` +
        (other ? ` (${other} is: node_modules was installed for another platform)` : ''),
      // One command to copy; then the causes, briefly (docs/platforms.md
      // has them all).
      remedy: `npm install --no-save ${name}@${version} (npm leaves it out under --omit=optional, for a ` +
        "node_modules made on another machine, and with onewrite's tarball installed alone)",
    };
  }
  let found;
  try {
    found = io.require(manifest).version;
  } catch (err) {
    return { failed: `${name}'s package.json could not be read: ${firstLine(err)}`, remedy: 'install onewrite again' };
  }
  if (found !== version) {
    return {
      failed: `${name} is version ${found}, onewrite is ${version}`,
      remedy: 'install onewrite again: its binary package is always of its own version',
    };
  }
  return { file: path.join(path.dirname(manifest), 'onewrite.node'), from: name };
}

function fromEnv(value, target, io) {
  const file = path.resolve(value);
  const got = file.endsWith('.node') ? tryFile(file, target, io)
    : { error: 'not a .node file (only a compiled onewrite.node is loaded from it: no JavaScript is run)' };
  if (got.exports) return { exports: got.exports, file, from: 'ONEWRITE_BINARY' };
  return {
    reason: `ONEWRITE_BINARY=${value} could not be loaded: ${got.error}`,
    remedy: `point ONEWRITE_BINARY at a onewrite.node built for ${platforms.describe(target)}, or unset it`,
  };
}

function search({ env, target, version, root, io }) {
  if (env.ONEWRITE_BINARY) return fromEnv(env.ONEWRITE_BINARY, target, io);

  const failures = [];
  const local = path.join(root, LOCAL_BUILD);
  const built = tryFile(local, target, io);
  if (built.exports) return { exports: built.exports, file: local, from: 'local build' };
  if (!built.absent) failures.push(`the local build ${local} could not be loaded: ${built.error}`);

  const key = platforms.keyFor(target);
  let remedy = `build a binary here: ${BUILD_HINT}`;
  if (key === null) {
    failures.push(target.os === 'linux' && target.libc === null
      ? `could not tell whether this Linux runs glibc or musl, so no binary was chosen (binaries ship for ${platforms.supportedList()})`
      : `no binary ships for ${platforms.describe(target)} (binaries ship for ${platforms.supportedList()})`);
  } else {
    const pkg = fromPackage(key, version, io);
    if (pkg.file) {
      const got = tryFile(pkg.file, target, io);
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

// Loads the first binary that loads.
function load({
  env = process.env,
  target = { os: process.platform, cpu: process.arch, libc: platforms.detectLibc() },
  version = require('../package.json').version,
  root = ROOT,
  io = IO,
} = {}) {
  try {
    return search({ env, target, version, root, io: { ...IO, ...io } });
  } catch (err) {
    return { reason: `no binary could be looked for: ${firstLine(err)}`, remedy: `build a binary here: ${BUILD_HINT}` };
  }
}

module.exports = {
  load, LOCAL_BUILD, BUILD_HINT,
  checkBinary, checkElf, checkPe, checkMachO, inMemory, Declined,
};
