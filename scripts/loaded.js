'use strict';

// Preloaded (`node -r`) by the scripts that run the tests on a Node this
// machine runs under an emulator (scripts/arm64-qemu.sh: arm64 under
// qemu-user; scripts/windows.sh: Node for Windows under wine).  When the
// process exits, it checks that the run was the one intended: a Node of
// ONEWRITE_EXPECT_PLATFORM (linux-arm64, win32-x64) that loaded exactly one
// native addon, ONEWRITE_EXPECT_ADDON, a binary of that platform's format;
// and that the onewrite package in ONEWRITE_EXPECT_ROOT (default: this
// repository) says it is available with that binary.  It prints one line
// saying so (the scripts require that line), or what was wrong, and then
// the process fails.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(process.env.ONEWRITE_EXPECT_ROOT || path.join(__dirname, '..'));
const EXPECTED = path.resolve(process.env.ONEWRITE_EXPECT_ADDON || '');
const PLATFORM = process.env.ONEWRITE_EXPECT_PLATFORM || '';

// What the file's header says it is built for.
function formatOf(bytes) {
  if (bytes.toString('latin1', 0, 4) === '\x7fELF') {
    return { 62: 'linux-x64', 183: 'linux-arm64' }[bytes.readUInt16LE(18)] || `ELF machine ${bytes.readUInt16LE(18)}`;
  }
  if (bytes.toString('latin1', 0, 2) === 'MZ') {
    const pe = bytes.readUInt32LE(0x3c);
    if (bytes.toString('latin1', pe, pe + 4) === 'PE\0\0') {
      return bytes.readUInt16LE(pe + 4) === 0x8664 ? 'win32-x64' : `PE machine ${bytes.readUInt16LE(pe + 4)}`;
    }
  }
  return 'not a binary this knows';
}

function check() {
  const problems = [];
  const here = `${process.platform}-${process.arch}`;
  if (here !== PLATFORM) problems.push(`this Node is ${here}, not ${PLATFORM}`);
  const addons = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
  if (addons.length !== 1) {
    problems.push(`native addons loaded: ${JSON.stringify(addons)}`);
    return { problems };
  }
  const [addon] = addons;
  if (fs.realpathSync(addon) !== fs.realpathSync(EXPECTED)) problems.push(`loaded ${addon}, not ${EXPECTED}`);
  const format = formatOf(fs.readFileSync(addon));
  if (format !== PLATFORM) problems.push(`${addon} is built for ${format}, not ${PLATFORM}`);
  const status = require(ROOT).status();
  if (status.available !== true) problems.push(`status().available is ${status.available}: ${status.reason}`);
  if (status.binary !== addon) problems.push(`status().binary is ${status.binary}, not ${addon}`);
  return { problems, addon };
}

process.on('exit', () => {
  const { problems, addon } = check();
  if (problems.length === 0) {
    process.stderr.write(`loaded check: ${PLATFORM} Node, loaded ${addon} (${PLATFORM}), status().available\n`);
  } else {
    process.stderr.write(`loaded check FAILED:\n  ${problems.join('\n  ')}\n`);
    process.exitCode = 1;
  }
});
