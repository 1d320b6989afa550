'use strict';

// Programs the CI tests run that the project does not depend on (a local
// npm registry, another npm, other runtimes), each installed from the npm
// registry at a pinned version into a cache folder outside the repository
// (ONEWRITE_TOOL_CACHE, default ~/.cache/onewrite/tools), once.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const CACHE = process.env.ONEWRITE_TOOL_CACHE || path.join(os.homedir(), '.cache', 'onewrite', 'tools');

// The folder `spec` (name@version) is installed in.  `force`: packages
// whose os/cpu npm would refuse here (another platform's binary).
function tool(spec, { force = false } = {}) {
  const dir = path.join(CACHE, spec.replace(/[/@]/g, '_'));
  const done = path.join(dir, '.installed');
  if (fs.existsSync(done)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  const args = ['install', '--no-audit', '--no-fund', '--no-package-lock', '--save-exact', spec];
  if (force) args.push('--force', '--ignore-scripts');
  const r = spawnSync('npm', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm install ${spec} failed:\n${r.stderr}`);
  fs.writeFileSync(done, `${spec}\n`);
  return dir;
}

module.exports = { tool, CACHE };
