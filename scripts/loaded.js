'use strict';

// Preloaded (`node -r`) by scripts/arm64-qemu.sh into each Node it runs
// under qemu-aarch64.  When the process exits, it checks that the run was
// the one intended: an arm64 Node that loaded exactly one native addon,
// ONEWRITE_ARM64_ADDON, an AArch64 ELF file; and that the onewrite package
// in ONEWRITE_ARM64_ROOT (default: this repository) says it is available
// with that binary.  It prints one line saying so (the script requires that
// line), or what was wrong, and then the process fails.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(process.env.ONEWRITE_ARM64_ROOT || path.join(__dirname, '..'));
const EXPECTED = path.resolve(process.env.ONEWRITE_ARM64_ADDON || '');
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
  if (fs.realpathSync(addon) !== fs.realpathSync(EXPECTED)) problems.push(`loaded ${addon}, not ${EXPECTED}`);
  const bytes = fs.readFileSync(addon);
  if (bytes.toString('latin1', 0, 4) !== '\x7fELF' || bytes.readUInt16LE(18) !== EM_AARCH64) {
    problems.push(`${addon} is not an AArch64 ELF file (e_machine ${bytes.readUInt16LE(18)})`);
  }
  const status = require(ROOT).status();
  if (status.available !== true) problems.push(`status().available is ${status.available}: ${status.reason}`);
  if (status.binary !== addon) problems.push(`status().binary is ${status.binary}, not ${addon}`);
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
