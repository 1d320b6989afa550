'use strict';

// onewrite installed as users install it: from a registry, by npm 10 and
// npm 11, on every platform.  A real npm registry (verdaccio, no uplinks:
// nothing leaves loopback) is started on 127.0.0.1; onewrite and every
// platform package, packed by `npm run pack:all` (which builds all their
// binaries, so this needs every toolchain: scripts/toolchains.sh), are
// published to it; then, in a fresh app folder each, `npm install onewrite`
// posing as each platform (--os, --cpu, --libc), with no compiler on PATH:
//   - exit 0, and nothing on stderr (no install-script warning, no
//     EBADPLATFORM);
//   - the platform's package installed and no other, none where no binary
//     ships (darwin, freebsd);
//   - the lockfile lists every platform package, so that `npm ci` elsewhere
//     finds its own;
//   - as this machine (no pose), the package active with that binary;
//   - a lockfile npm 10 wrote (it records no libc) installs both libcs'
//     packages on musl: the loader takes the musl one.
// CI runs it (.ci/run); by hand: `npx tap test/ci/registry.js`.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const { spawn, spawnSync } = require('node:child_process');
const { tool } = require('../helpers/tools');
const platforms = require('../../lib/platforms');

const ROOT = path.join(__dirname, '..', '..');
const VERSION = require('../../package.json').version;
const VERDACCIO = path.join(tool('verdaccio@6.8.0'), 'node_modules', 'verdaccio', 'bin', 'verdaccio');
const NPMS = {
  10: path.join(tool('npm@10.9.9'), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  11: fs.realpathSync(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim()),
};
const POSES = [
  { os: 'linux', cpu: 'x64', libc: 'glibc' },
  { os: 'linux', cpu: 'x64', libc: 'musl' },
  { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  { os: 'linux', cpu: 'arm64', libc: 'musl' },
  { os: 'darwin', cpu: 'arm64', libc: null },
  { os: 'win32', cpu: 'x64', libc: null },
  { os: 'freebsd', cpu: 'x64', libc: null },
];
const ALL = Object.keys(platforms.PLATFORMS).map(platforms.packageName).sort();

// Packing builds five binaries, then some thirty installs: minutes, not
// tap's default half-minute.
t.setTimeout(600000);

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-registry-'));
t.teardown(() => fs.rmSync(TMP, { recursive: true, force: true }));

function run(command, args, { cwd = TMP, env = {}, timeout = 300000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/env', ['-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), command, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// PATH for the installs: node, npm (the one given) and sh only.
function binDir(name, npmCli) {
  const dir = path.join(TMP, name);
  fs.mkdirSync(dir);
  fs.symlinkSync(process.execPath, path.join(dir, 'node'));
  fs.symlinkSync(npmCli, path.join(dir, 'npm'));
  fs.symlinkSync(fs.realpathSync('/bin/sh'), path.join(dir, 'sh'));
  return dir;
}

// The registry, started and stopped by this test.
async function startRegistry() {
  const dir = path.join(TMP, 'registry');
  fs.mkdirSync(path.join(dir, 'storage'), { recursive: true });
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'config.yaml'), `storage: ${dir}/storage
auth:
  htpasswd:
    file: ${dir}/htpasswd
    max_users: -1
uplinks: {}
packages:
  '@*/*': { access: $all, publish: $all }
  '**': { access: $all, publish: $all }
web: { enable: false }
middlewares: { audit: { enabled: false } }
listen: 127.0.0.1:${port}
log: { type: stdout, format: pretty, level: warn }
`);
  const child = spawn(process.execPath, [VERDACCIO, '--config', path.join(dir, 'config.yaml')],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${url}/-/ping`).then((r) => r.ok, () => false);
    if (up) break;
    if (i === 200 || child.exitCode !== null) throw new Error(`verdaccio did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Publishing needs some credential; with publish: $all any token does.
  const npmrc = path.join(dir, 'npmrc');
  fs.writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=local-test-token\n`);
  return { url, npmrc, log: () => log, stop: () => { child.kill(); return exited; } };
}

// A copy of the package to pack in (the pack rewrites package.json and
// writes npm/*/ while it runs).
function packageCopy() {
  const dir = path.join(TMP, 'pkg');
  const skip = new Set(['node_modules', '.git', '.tap', 'csrc/build', 'dist', 'build'].map((p) => path.join(ROOT, p)));
  fs.cpSync(ROOT, dir, { recursive: true, filter: (src) => !skip.has(src) });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function installed(app) {
  const dir = path.join(app, 'node_modules', '@onewrite');
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => `@onewrite/${n}`).sort() : [];
}

let registry;
t.before(async () => {
  registry = await startRegistry();
});
t.teardown(async () => {
  if (registry) await registry.stop();
});

const HOME = path.join(TMP, 'home');
fs.mkdirSync(HOME);
const EMPTY_RC = path.join(TMP, 'empty-npmrc');
fs.writeFileSync(EMPTY_RC, '');
let caches = 0;
// npm, isolated: its own HOME, no user config, a fresh cache (a shared one
// would answer from itself), this registry.
function npmArgs() {
  return ['--registry', registry.url, '--userconfig', EMPTY_RC, '--cache', path.join(TMP, `cache-${caches++}`),
    '--no-audit', '--no-fund', '--no-update-notifier'];
}

t.test('every package packed and published', async (t) => {
  const pkg = packageCopy();
  const dist = path.join(TMP, 'dist');
  const pack = await run(process.execPath, [path.join(pkg, 'scripts', 'packages.js'), 'pack', `--out=${dist}`],
    { cwd: pkg, env: { PATH: process.env.PATH, HOME: os.homedir() } });
  t.equal(pack.code, 0, 'npm run pack:all', { stderr: pack.stderr.slice(-4000) });
  const tarballs = pack.stdout.trim().split('\n').filter(Boolean);
  t.equal(tarballs.length, 1 + ALL.length, 'onewrite and one tarball per platform');
  // The platform packages first, as a release does.
  for (const file of [...tarballs.slice(1), tarballs[0]]) {
    const r = await run(process.execPath, [NPMS[11], 'publish', file, '--registry', registry.url,
      '--userconfig', registry.npmrc], { env: { PATH: path.dirname(process.execPath), HOME } });
    t.equal(r.code, 0, `published ${path.basename(file)}`, { stderr: r.stderr });
  }
  const doc = await fetch(`${registry.url}/onewrite`).then((r) => r.json());
  t.same(doc.versions[VERSION].optionalDependencies,
    Object.fromEntries(ALL.map((n) => [n, VERSION])), 'the registry has onewrite with its optionalDependencies');
});

for (const [major, npmCli] of Object.entries(NPMS)) {
  t.test(`npm ${major}: every platform installs, each with its own package`, async (t) => {
    const bin = binDir(`bin-npm${major}`, npmCli);
    const env = { PATH: bin, HOME };
    const which = await run('sh', ['-c', 'for c in cc gcc clang make python3 python node-gyp; do command -v $c; done; true'], { env });
    t.equal(which.stdout, '', 'no compiler, make or python on PATH');
    const poses = [...POSES, null]; // null: this machine, no flags
    for (const pose of poses) {
      const label = pose ? `${pose.os} ${pose.cpu}${pose.libc ? ` ${pose.libc}` : ''}` : 'this machine';
      const app = path.join(TMP, `app-npm${major}-${pose ? `${pose.os}-${pose.cpu}-${pose.libc}` : 'native'}`);
      fs.mkdirSync(app);
      fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
      const flags = pose ? ['--os', pose.os, '--cpu', pose.cpu, ...(pose.libc ? ['--libc', pose.libc] : [])] : [];
      const r = await run('npm', ['install', 'onewrite', ...flags, ...npmArgs()], { cwd: app, env });
      t.equal(r.code, 0, `${label}: npm install onewrite exits 0`, { stderr: r.stderr });
      t.equal(r.stderr, '', `${label}: nothing on stderr (no install-script warning, no EBADPLATFORM)`);
      const key = platforms.keyFor(pose || { os: process.platform, cpu: process.arch, libc: platforms.detectLibc() });
      t.same(installed(app), key ? [platforms.packageName(key)] : [], `${label}: ${key ? platforms.packageName(key) : 'no platform package'}, nothing else`);
      t.notOk(fs.existsSync(path.join(app, 'node_modules', 'onewrite', 'build')), `${label}: nothing built`);
      const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8'));
      const locked = Object.keys(lock.packages).filter((k) => k.startsWith('node_modules/@onewrite/'))
        .map((k) => k.slice('node_modules/'.length)).sort();
      t.same(locked, ALL, `${label}: the lockfile lists every platform package`);
      if (pose === null) {
        const s = await run('node', ['-p', 'JSON.stringify(require("onewrite").status())'], { cwd: app, env });
        const status = JSON.parse(s.stdout);
        t.equal(status.available, true, 'this machine: onewrite available', { status });
        t.equal(status.binary, path.join(app, 'node_modules', platforms.packageName(key), 'onewrite.node'),
          'with the platform package\'s binary');
      }
    }
  });
}

t.test('a lockfile npm 10 wrote, installed on musl: both libcs, and the loader takes musl', async (t) => {
  const app = path.join(TMP, 'app-npm10-linux-x64-glibc');
  const env = { PATH: path.join(TMP, 'bin-npm10'), HOME };
  fs.rmSync(path.join(app, 'node_modules'), { recursive: true, force: true });
  const r = await run('npm', ['ci', '--os', 'linux', '--cpu', 'x64', '--libc', 'musl', ...npmArgs()], { cwd: app, env });
  t.equal(r.code, 0, 'npm 10 ci --libc musl', { stderr: r.stderr });
  const got = installed(app);
  t.ok(got.includes('@onewrite/linux-x64-musl'), 'the musl package is installed', { got });
  t.comment(`npm 10 installed ${got.join(', ')}`);
  // The musl binary cannot load in this glibc Node: the reason names the
  // one the loader chose.
  const code = `const b = require(require('path').join(require.resolve('onewrite/package.json'), '..', 'lib', 'binary.js'));
    const r = b.load({ target: { os: 'linux', cpu: 'x64', libc: 'musl' } });
    console.log(JSON.stringify({ file: r.file || null, reason: r.reason || null }));`;
  const s = await run('node', ['-e', code], { cwd: app, env });
  const out = JSON.parse(s.stdout);
  t.equal(out.file, null, 'the musl binary does not load under glibc');
  t.match(out.reason, /^@onewrite\/linux-x64-musl could not be loaded: /, 'the musl package was the one tried');
  t.notMatch(out.reason, /linux-x64-glibc/, 'the glibc one never');
});
