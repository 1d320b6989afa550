'use strict';

// npx onewrite build: compiles the addon from the package's own sources
// (csrc/, csrc/onewrite.gypi) with node-gyp into build/Release/onewrite.node,
// where lib/binary.js looks first.  node-gyp runs in a scratch folder on a
// binding.gyp that includes the package's target: a binding.gyp in the
// package itself would make npm run node-gyp on every install from a
// lockfile.  For the platforms no binary ships for
// (macOS, FreeBSD, 32-bit ARM, ...), for a clone, and for whoever wants a
// binary of their own.  Then it asks a fresh Node whether onewrite is
// available with it.

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const OUTPUT = path.join(ROOT, 'build', 'Release', 'onewrite.node');

const NEEDS = `  macOS          Xcode's command line tools: xcode-select --install
  Debian/Ubuntu  apt-get install build-essential python3
  Alpine         apk add build-base python3
  FreeBSD        pkg install python3 gmake
  Windows        Visual Studio Build Tools ("Desktop development with C++") and Python 3`;

const HELP = `Usage: npx onewrite build [--soft]

Compiles onewrite's native addon for this machine, into
${OUTPUT}
(loaded before any binary package). It needs what node-gyp needs:
${NEEDS}
Run it again after each install or upgrade of onewrite: npm replaces the
package's folder, build/ with it.

  --soft   a failed build warns and exits 0 (npm's prepare in a clone)`;

// npm's own node-gyp (npx and npm scripts name it), a clone's dev
// dependency, or the one beside the npm that runs this.
function findNodeGyp(env = process.env) {
  const candidates = [env.npm_config_node_gyp];
  try {
    candidates.push(require.resolve('node-gyp/bin/node-gyp.js', { paths: [ROOT] }));
  } catch {}
  if (env.npm_execpath) {
    candidates.push(path.join(path.dirname(env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  }
  return candidates.find((file) => file && fs.existsSync(file)) || null;
}

// status() of onewrite in a fresh Node, as an app would see it.
function statusInChild() {
  const env = { ...process.env };
  delete env.ONEWRITE_BINARY;
  delete env.ONEWRITE_DISABLE;
  const r = spawnSync(process.execPath, ['-p', `JSON.stringify(require(${JSON.stringify(ROOT)}).status())`],
    { env, encoding: 'utf8' });
  try {
    return JSON.parse(r.stdout);
  } catch {
    return { available: false, reason: (r.stderr || '').trim().split('\n')[0] || `exit ${r.status}` };
  }
}

// `from` copied to `to` by a rename: a copy beside `to`, then renamed over
// it.  A process that has the old binary loaded keeps its file (its own
// inode) and goes on serving; copied over in place, the loaded code would
// change under it (a changed build killed a serving app with SIGTRAP).
// Windows does not rename over a loaded DLL: the old file is moved aside
// first (it may be renamed, not deleted, while loaded) and left for the
// next build to remove.
function replaceFile(from, to) {
  const dir = path.dirname(to);
  fs.mkdirSync(dir, { recursive: true });
  const next = path.join(dir, `.${path.basename(to)}.${process.pid}.new`);
  fs.copyFileSync(from, next);
  try {
    fs.renameSync(next, to);
  } catch (err) {
    if (process.platform !== 'win32' || !fs.existsSync(to)) {
      fs.rmSync(next, { force: true });
      throw err;
    }
    for (const old of fs.readdirSync(dir)) {
      if (!old.startsWith(`.${path.basename(to)}.`) || !old.endsWith('.old')) continue;
      try {
        fs.rmSync(path.join(dir, old));
      } catch {} // still loaded by a running app
    }
    fs.renameSync(to, path.join(dir, `.${path.basename(to)}.${process.pid}.old`));
    fs.renameSync(next, to);
  }
}

function main(args, { out = process.stdout, err = process.stderr } = {}) {
  if (args.includes('--help') || args.includes('-h')) {
    out.write(`${HELP}\n`);
    return 0;
  }
  const unknown = args.filter((a) => a !== '--soft');
  if (unknown.length > 0) {
    err.write(`onewrite build: unknown option ${unknown[0]}\n${HELP}\n`);
    return 2;
  }
  const soft = args.includes('--soft');
  const failed = (why) => {
    err.write(`onewrite build: ${why}\n`);
    if (!soft) return 1;
    err.write('onewrite build: (--soft) going on without it: onewrite stays off until a binary loads\n');
    return 0;
  };

  const gyp = findNodeGyp();
  if (gyp === null) {
    return failed('node-gyp not found: run this through npm, which brings its own (npx onewrite build)');
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-build-'));
  const built = path.join(scratch, 'build', 'Release', 'onewrite.node');
  let r;
  try {
    fs.writeFileSync(path.join(scratch, 'binding.gyp'),
      `${JSON.stringify({ includes: [path.join(ROOT, 'csrc', 'onewrite.gypi')] })}\n`);
    out.write(`onewrite build: node-gyp rebuild (${gyp}) for ${path.join(ROOT, 'csrc')}\n`);
    r = spawnSync(process.execPath, [gyp, 'rebuild', `--directory=${scratch}`],
      { cwd: scratch, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status === 0 && fs.existsSync(built)) replaceFile(built, OUTPUT);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (r.status !== 0 || !fs.existsSync(OUTPUT)) {
    return failed(`the build failed (node-gyp exit ${r.status === null ? r.signal : r.status}, above). ` +
      `It needs a C compiler, make and Python 3:\n${NEEDS}`);
  }
  const status = statusInChild();
  if (status.available !== true) return failed(`built ${OUTPUT}, but onewrite is not available with it: ${status.reason}`);
  out.write(`onewrite build: built ${OUTPUT}; onewrite is available with it (${status.binary})\n`);
  return 0;
}

module.exports = { main, findNodeGyp, replaceFile, OUTPUT, HELP };
