'use strict';

// Preloaded (`node -r`) by scripts/arm64-qemu.sh into each Node it runs
// under qemu-aarch64.  When the process exits, it checks that the run was
// the one intended: an arm64 Node that loaded exactly one native addon, the
// one node-gyp-build resolves for the onewrite package in
// ONEWRITE_ARM64_ROOT (default: this repository), from its
// prebuilds/linux-arm64/, an AArch64 ELF file; and that onewrite's
// status() says it is available.  It prints one line saying so (the script
// requires that line), or what was wrong, and then the process fails.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(process.env.ONEWRITE_ARM64_ROOT || path.join(__dirname, '..'));
const PREBUILDS = path.join(ROOT, 'prebuilds', 'linux-arm64');
const EM_AARCH64 = 183;

function check() {
  const problems = [];
  if (process.arch !== 'arm64') problems.push(`process.arch is ${process.arch}`);
  const addons = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
  if (addons.length !== 1) {
    problems.push(`native addons loaded: ${JSON.stringify(addons)}`);
    return { problems };
  }
  const [addon] = addons;
  if (path.dirname(addon) !== PREBUILDS) problems.push(`loaded ${addon}, not one in ${PREBUILDS}`);
  const gyp = require(require.resolve('node-gyp-build', { paths: [ROOT] }));
  let resolved;
  try {
    resolved = gyp.path(ROOT);
  } catch (err) {
    resolved = String(err.message);
  }
  if (resolved !== addon) problems.push(`node-gyp-build resolves ${resolved}, not ${addon}`);
  const bytes = fs.readFileSync(addon);
  if (bytes.toString('latin1', 0, 4) !== '\x7fELF' || bytes.readUInt16LE(18) !== EM_AARCH64) {
    problems.push(`${addon} is not an AArch64 ELF file (e_machine ${bytes.readUInt16LE(18)})`);
  }
  const status = require(ROOT).status();
  if (status.available !== true) problems.push(`status().available is ${status.available}: ${status.reason}`);
  return { problems, addon };
}

process.on('exit', () => {
  const { problems, addon } = check();
  if (problems.length === 0) {
    process.stderr.write(`arm64 check: process.arch arm64, loaded ${addon} (AArch64), status().available\n`);
  } else {
    process.stderr.write(`arm64 check FAILED:\n  ${problems.join('\n  ')}\n`);
    process.exitCode = 1;
  }
});
