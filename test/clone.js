'use strict';

// What a clone of the repository needs to install and pack cleanly:
//   - every package in package-lock.json accepts the Node running the
//     tests (its engines field): `npm ci` on a supported Node warns of no
//     EBADENGINE (cookie 2, through fastify's light-my-request, wants Node
//     22: package.json's overrides keep the one that does not);
//   - the platform packages in npm/ are what lib/platforms.js and
//     package.json make of them (scripts/packages.js sync writes them; npm
//     version runs it).

const t = require('tap');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const semver = require('semver');

const ROOT = path.join(__dirname, '..');

t.test('every locked package accepts this Node', async (t) => {
  const lock = require('../package-lock.json');
  const refused = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    const range = entry.engines && entry.engines.node;
    if (typeof range !== 'string' || entry.optional) continue;
    if (!semver.satisfies(process.versions.node, range)) refused.push(`${where} (node ${range})`);
  }
  t.same(refused, [], `Node ${process.versions.node} satisfies every engines.node`);
});

t.test('npm/<platform>/ is up to date with lib/platforms.js and package.json', async (t) => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'packages.js'), 'sync', '--check'],
    { encoding: 'utf8' });
  t.equal(r.status, 0, 'scripts/packages.js sync --check', { stderr: r.stderr });
  const platforms = require('../lib/platforms');
  const version = require('../package.json').version;
  for (const [key, p] of Object.entries(platforms.PLATFORMS)) {
    const m = require(`../npm/${key}/package.json`);
    t.match(m, { name: platforms.packageName(key), version, os: [p.os], cpu: [p.cpu] }, key);
  }
});
