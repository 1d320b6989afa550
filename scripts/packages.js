#!/usr/bin/env node
'use strict';

// The npm packages this repository makes: onewrite itself and one package
// per platform holding its binary (npm/<platform>/, the platforms of
// lib/platforms.js).  npm runs it through package.json's scripts:
//
//   prepare         in a clone, `npm install` / `npm ci`: the addon built
//                   for this machine (npx onewrite build --soft); not when
//                   packing
//   sync [--check]  npm/<platform>/package.json and README.md written from
//                   lib/platforms.js and package.json (npm version runs it);
//                   --check only says whether they are up to date
//   prepack         every platform's binary built (scripts/binaries.sh), and
//                   package.json rewritten for the tarball: the platform
//                   packages in optionalDependencies, at this version, and
//                   no scripts (npm 11 warns of a `prepare`);
//                   ONEWRITE_PLATFORMS=a,b packs for those alone, and a
//                   platform that cannot be built here refuses the pack
//   postpack        package.json as it was, from the copy prepack kept
//   prepublishOnly  refuses: publish the tarballs `pack` writes; first, it
//                   names any platform package that lacks
//                   publishConfig.access "public" (prepack refuses those)
//   pack [--out=d]  `npm run pack:all`: every tarball of a release, in d
//                   (default dist/): the platform packages and onewrite
//
// The platform packages are scoped (@onewrite/...).  npm publishes a new
// scoped package as public today, but a proposed change to npm makes the
// default restricted, and onewrite would then be published with platform
// packages nobody can install.  So each says "public" itself
// (publishConfig.access, which sync writes), and prepack and
// prepublishOnly refuse a platform package without it.
//
// Their descriptions and READMEs name the glibc the linux-*-glibc
// binaries need: scripts/glibc.json, the one record of that figure, which
// scripts/binaries.sh checks against the binary it builds.
//
// The optionalDependencies exist only in the packed package.json: listed in
// the repository's, they would have to be in package-lock.json, which
// `npm ci` cannot have for packages not yet published.  npm publish of this
// folder re-reads package.json after postpack, so a release publishes the
// tarballs (the platform packages first).

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const platforms = require('../lib/platforms');

const ROOT = path.join(__dirname, '..');
const MANIFEST = path.join(ROOT, 'package.json');
const BACKUP = path.join(ROOT, '.package.json.prepack'); // package.json while a pack is under way
const ALL = Object.keys(platforms.PLATFORMS);

// The newest glibc each glibc binary needs, as scripts/binaries.sh measures it.
const GLIBC = require('./glibc.json');

const LABELS = {
  'linux-x64-glibc': `Linux x64 with glibc ${GLIBC['linux-x64-glibc']} or later`,
  'linux-x64-musl': 'Linux x64 with musl (Alpine)',
  'linux-arm64-glibc': `Linux arm64 with glibc ${GLIBC['linux-arm64-glibc']} or later`,
  'linux-arm64-musl': 'Linux arm64 with musl (Alpine)',
  'win32-x64': 'Windows x64',
};

function readManifest() {
  return JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function say(line) {
  process.stderr.write(`packages: ${line}\n`);
}

// What npm/<key>/ holds in the repository, from lib/platforms.js.
function platformFiles(key, main) {
  const p = platforms.PLATFORMS[key];
  const name = platforms.packageName(key);
  const manifest = {
    name,
    version: main.version,
    description: `onewrite's native addon for ${LABELS[key]}. npm installs it with onewrite, there only; install onewrite, not this.`,
    license: main.license,
    homepage: main.homepage,
    repository: { ...main.repository, directory: `npm/${key}` },
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    main: 'onewrite.node',
    files: ['onewrite.node'],
    preferUnplugged: true,
    publishConfig: { access: 'public' },
  };
  const readme = `# ${name}\n\nThe native addon of [onewrite](${main.homepage}) for ${LABELS[key]}: ` +
    "one Node-API 8 binary for Node 20, 22, 24 and 26, compiled from onewrite's C sources " +
    '(`csrc/`) by `scripts/binaries.sh`.\n\nnpm installs it with onewrite on that platform only ' +
    "(it is one of onewrite's optionalDependencies): install `onewrite`, not this.\n";
  return { manifest, readme };
}

function sync(check) {
  const main = readManifest();
  const stale = [];
  for (const key of ALL) {
    const dir = path.join(ROOT, 'npm', key);
    const { manifest, readme } = platformFiles(key, main);
    const want = { 'package.json': `${JSON.stringify(manifest, null, 2)}\n`, 'README.md': readme };
    for (const [file, text] of Object.entries(want)) {
      const at = path.join(dir, file);
      const have = fs.existsSync(at) ? fs.readFileSync(at, 'utf8') : null;
      if (have === text) continue;
      stale.push(`npm/${key}/${file}`);
      if (!check) {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(at, text);
      }
    }
  }
  if (check && stale.length > 0) {
    say(`out of date: ${stale.join(', ')} (node scripts/packages.js sync)`);
    return 1;
  }
  if (!check && stale.length > 0) say(`wrote ${stale.join(', ')}`);
  return 0;
}

// The platforms to pack: all, or ONEWRITE_PLATFORMS.
function chosen(env = process.env) {
  if (!env.ONEWRITE_PLATFORMS) return ALL;
  const list = env.ONEWRITE_PLATFORMS.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((k) => !ALL.includes(k));
  if (unknown.length > 0) throw new Error(`ONEWRITE_PLATFORMS: unknown ${unknown.join(', ')} (${ALL.join(', ')})`);
  return list;
}

function buildBinaries(keys) {
  const failed = [];
  for (const key of keys) {
    const r = spawnSync(path.join(ROOT, 'scripts', 'binaries.sh'), [key], { cwd: ROOT, encoding: 'utf8' });
    process.stderr.write(r.stdout + r.stderr);
    if (r.status !== 0) failed.push(key);
  }
  return failed;
}

function prepack() {
  const keys = chosen();
  if (sync(false) !== 0) return 1;
  if (refusePrivate('pack', undefined, keys)) return 1;
  const failed = buildBinaries(keys);
  if (failed.length > 0) {
    const can = keys.filter((k) => !failed.includes(k));
    const platforms = can.length > 0 ? can.join(',') : '<platforms>';
    say(`refusing to pack: no binary for ${failed.join(', ')} (above). Install the toolchains ` +
      `(scripts/toolchains.sh), or pack without them: ONEWRITE_PLATFORMS=${platforms} npm run pack:all ` +
      `(every tarball), or ONEWRITE_PLATFORMS=${platforms} npm pack (onewrite's alone)`);
    return 1;
  }
  // A pack that stopped half-way left its backup: that is the original.
  if (!fs.existsSync(BACKUP)) fs.copyFileSync(MANIFEST, BACKUP);
  const main = JSON.parse(fs.readFileSync(BACKUP, 'utf8'));
  main.optionalDependencies = Object.fromEntries(keys.map((k) => [platforms.packageName(k), main.version]));
  // A user's install has no use for the repository's scripts, and npm 11
  // warns of a `prepare` it will not run.
  delete main.scripts;
  writeJson(MANIFEST, main);
  const left = ALL.filter((k) => !keys.includes(k));
  say(`onewrite ${main.version} lists ${keys.map(platforms.packageName).join(', ')}` +
    (left.length > 0 ? `; WARNING: left out (ONEWRITE_PLATFORMS): ${left.join(', ')}` : ''));
  return 0;
}

function postpack() {
  if (fs.existsSync(BACKUP)) fs.renameSync(BACKUP, MANIFEST);
  return 0;
}

// The platform packages whose package.json (in `dir`, npm/ by default)
// lacks publishConfig.access "public", or cannot be read.
function notPublic(dir = path.join(ROOT, 'npm'), keys = ALL) {
  return keys.filter((key) => {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, key, 'package.json'), 'utf8'));
      return !(manifest.publishConfig && manifest.publishConfig.access === 'public');
    } catch {
      return true;
    }
  });
}

function refusePrivate(what, dir, keys) {
  const lacking = notPublic(dir, keys);
  if (lacking.length === 0) return false;
  say(`refusing to ${what}: ${lacking.map((k) => `npm/${k}/package.json`).join(', ')} ` +
    `lack${lacking.length === 1 ? 's' : ''} publishConfig.access "public" (a scoped package npm publishes ` +
    'as restricted could not be installed by onewrite\'s users): node scripts/packages.js sync writes it');
  return true;
}

function prepublishOnly() {
  refusePrivate('publish');
  say('publish the tarballs `npm run pack:all` writes to dist/ (the platform packages first, then onewrite): ' +
    "npm publish of this folder re-reads package.json after postpack, and would send the registry one " +
    'without its optionalDependencies.');
  return 1;
}

function npm(args) {
  const npmCli = process.env.npm_execpath;
  const [cmd, pre] = npmCli ? [process.execPath, [npmCli]] : ['npm', []];
  return spawnSync(cmd, [...pre, ...args], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

// npm pack --json prints the output of lifecycle scripts on stdout too; the
// JSON is the last thing it prints.
function packed(stdout) {
  const at = stdout.lastIndexOf('\n[\n');
  return JSON.parse(at === -1 ? stdout : stdout.slice(at + 1))[0];
}

function pack(args) {
  const outArg = args.find((a) => a.startsWith('--out='));
  const out = path.resolve(ROOT, outArg ? outArg.slice('--out='.length) : 'dist');
  fs.mkdirSync(out, { recursive: true });
  // onewrite first: its prepack builds the binaries.
  const files = [];
  const main = npm(['pack', '--json', '--pack-destination', out]);
  if (main.status !== 0) return 1;
  files.push(path.join(out, packed(main.stdout).filename));
  for (const key of chosen()) {
    const dir = path.join(ROOT, 'npm', key);
    fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(dir, 'LICENSE'));
    const r = npm(['pack', '--json', '--pack-destination', out, dir]);
    if (r.status !== 0) return 1;
    files.push(path.join(out, packed(r.stdout).filename));
  }
  for (const f of files) process.stdout.write(`${f}\n`);
  say(`to publish: npm publish each of ${files.slice(1).map((f) => path.basename(f)).join(', ')}, then ${path.basename(files[0])}`);
  return 0;
}

function main([verb, ...args]) {
  switch (verb) {
    case 'prepare':
      if (['pack', 'publish'].includes(process.env.npm_command)) return 0;
      return require('../cli/build').main(['--soft']);
    case 'sync': return sync(args.includes('--check'));
    case 'prepack': return prepack();
    case 'postpack': return postpack();
    case 'prepublishOnly': return prepublishOnly();
    case 'pack': return pack(args);
    default:
      say(`unknown verb ${verb} (prepare, sync, prepack, postpack, prepublishOnly, pack)`);
      return 2;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { platformFiles, chosen, LABELS, GLIBC, notPublic };
