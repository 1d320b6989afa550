'use strict';

// The platforms onewrite ships a binary for, one npm package each
// (npm/<key>/ in the repository), and which of them this process is.
// npm installs only the package whose os, cpu and libc fields match the
// machine (they are the main package's optionalDependencies); the loader
// (lib/binary.js) asks for that one by name.

const fs = require('node:fs');

const SCOPE = '@onewrite';

// key: what npm's os / cpu / libc fields say.  A platform that is not here
// gets no binary: its users build one (npx onewrite build).
const PLATFORMS = {
  'linux-x64-glibc': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
  'linux-arm64-glibc': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl' },
  'win32-x64': { os: 'win32', cpu: 'x64', libc: null },
};

function packageName(key) {
  return `${SCOPE}/${key}`;
}

// The libc a Linux process runs on, from the loader the process mapped
// (musl's is ld-musl-<arch>.so.1, glibc's ld-linux*.so.*, with libc.so.6).
// Where /proc cannot be read, Node's diagnostic report says whether glibc
// is there (detect-libc reads the same field).  null: not Linux, or not
// known.
function libcFromMaps(maps) {
  if (/\/ld-musl-[^/\s]*\.so/.test(maps)) return 'musl';
  if (/\/(ld-linux[^/\s]*\.so|libc\.so\.6)/.test(maps)) return 'glibc';
  return null;
}

function detectLibc(platform = process.platform) {
  if (platform !== 'linux') return null;
  try {
    const found = libcFromMaps(fs.readFileSync('/proc/self/maps', 'latin1'));
    if (found !== null) return found;
  } catch {}
  try {
    const { header } = process.report.getReport();
    return header.glibcVersionRuntime ? 'glibc' : 'musl';
  } catch {
    return null;
  }
}

// The key of the platform described (os, cpu, libc), or null when no
// binary ships for it.
function keyFor({ os, cpu, libc }) {
  for (const [key, p] of Object.entries(PLATFORMS)) {
    if (p.os === os && p.cpu === cpu && (p.libc === null || p.libc === libc)) return key;
  }
  return null;
}

// How the platform is called in messages: linux-x64 (musl), darwin-arm64.
function describe({ os, cpu, libc }) {
  return `${os}-${cpu}${os === 'linux' && libc ? ` (${libc})` : ''}`;
}

// "linux-x64 and linux-arm64 (glibc and musl), win32-x64": the list of
// what ships, for messages.
function supportedList() {
  const linux = [...new Set(Object.values(PLATFORMS).filter((p) => p.os === 'linux').map((p) => `linux-${p.cpu}`))];
  const others = Object.values(PLATFORMS).filter((p) => p.os !== 'linux').map((p) => `${p.os}-${p.cpu}`);
  return `${linux.join(' and ')} (glibc and musl), ${others.join(', ')}`;
}

// The JavaScript runtime: Bun and Deno run Node's npm packages, Node-API
// addons and a node:http of their own, without Node's internals.
function runtime(versions = process.versions) {
  if (typeof versions.bun === 'string') return 'bun';
  if (typeof versions.deno === 'string') return 'deno';
  return 'node';
}

// "Bun 1.4.5", "Deno 2.9.6", "Node 20.20.2".
function runtimeDescription(versions = process.versions) {
  const name = runtime(versions);
  if (name === 'bun') return `Bun ${versions.bun}`;
  if (name === 'deno') return `Deno ${versions.deno}`;
  return `Node ${versions.node}`;
}

module.exports = { SCOPE, runtime, runtimeDescription, PLATFORMS, packageName, libcFromMaps, detectLibc, keyFor, describe, supportedList };
