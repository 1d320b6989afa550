'use strict';

// Which binary the package loads (lib/binary.js) on which platform
// (lib/platforms.js): ONEWRITE_BINARY alone when set; else a local build,
// else the platform's package; the libc told from the process itself, so
// that a glibc binary is never taken on musl, even where npm installed
// both (a lockfile written by npm 10 records no libc); and, when nothing
// loads, a reason and a remedy that say what happened and what to do.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const platforms = require('../lib/platforms');
const binary = require('../lib/binary');

const ROOT = '/pkg';
const LOCAL = path.join(ROOT, 'build', 'Release', 'onewrite.node');

// A file system of packages: `packages` maps a package name to its
// version, `files` a binary's path to what loading it gives (an object, or
// an Error it throws).  Every load is logged.
function fakeIo({ packages = {}, files = {} } = {}) {
  const loaded = [];
  return {
    loaded,
    io: {
      resolve(request) {
        const name = request.replace(/\/package\.json$/, '');
        if (packages[name] === undefined) {
          const err = new Error(`Cannot find module '${request}'\nRequire stack:\n- x`);
          err.code = 'MODULE_NOT_FOUND';
          throw err;
        }
        return path.join(ROOT, 'node_modules', name, 'package.json');
      },
      require(file) {
        if (file.endsWith('package.json')) {
          const name = path.relative(path.join(ROOT, 'node_modules'), path.dirname(file));
          return { name, version: packages[name] };
        }
        loaded.push(file);
        const what = files[file];
        if (what === undefined) throw new Error(`Cannot find module '${file}'`);
        if (what instanceof Error) throw what;
        return what;
      },
      exists: (file) => files[file] !== undefined,
    },
  };
}

const pkgFile = (key) => path.join(ROOT, 'node_modules', platforms.packageName(key), 'onewrite.node');
const GLIBC_X64 = { os: 'linux', cpu: 'x64', libc: 'glibc' };
const MUSL_X64 = { os: 'linux', cpu: 'x64', libc: 'musl' };
const load = (target, fake, env = {}) => binary.load({ env, target, version: '1.2.3', root: ROOT, io: fake.io });

t.test('the platform: os, cpu and libc name one package, or none', async (t) => {
  t.equal(platforms.keyFor(GLIBC_X64), 'linux-x64-glibc');
  t.equal(platforms.keyFor(MUSL_X64), 'linux-x64-musl');
  t.equal(platforms.keyFor({ os: 'linux', cpu: 'arm64', libc: 'glibc' }), 'linux-arm64-glibc');
  t.equal(platforms.keyFor({ os: 'linux', cpu: 'arm64', libc: 'musl' }), 'linux-arm64-musl');
  t.equal(platforms.keyFor({ os: 'win32', cpu: 'x64', libc: null }), 'win32-x64');
  for (const none of [{ os: 'darwin', cpu: 'arm64', libc: null }, { os: 'freebsd', cpu: 'x64', libc: null },
    { os: 'linux', cpu: 'arm', libc: 'glibc' }, { os: 'linux', cpu: 'x64', libc: null },
    { os: 'win32', cpu: 'arm64', libc: null }]) {
    t.equal(platforms.keyFor(none), null, `${JSON.stringify(none)}: none`);
  }
  t.equal(platforms.packageName('linux-x64-musl'), '@onewrite/linux-x64-musl');
  t.equal(platforms.supportedList(), 'linux-x64 and linux-arm64 (glibc and musl), win32-x64');
});

t.test('the libc, from the loader the process mapped', async (t) => {
  t.equal(platforms.libcFromMaps('7f0-7f1 r-xp 0 08:01 1 /lib/ld-musl-x86_64.so.1\n'), 'musl');
  t.equal(platforms.libcFromMaps('7f0-7f1 r-xp 0 08:01 1 /lib/ld-musl-aarch64.so.1\n'), 'musl');
  t.equal(platforms.libcFromMaps('7f0 r-xp 0 0 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n' +
    '7f2 r-xp 0 0 1 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n'), 'glibc');
  t.equal(platforms.libcFromMaps('7f0 r-xp 0 0 1 /lib/ld-linux-aarch64.so.1\n'), 'glibc');
  t.equal(platforms.libcFromMaps('7f0 r-xp 0 0 1 /usr/bin/node\n'), null, 'a static binary: not told');
  // A musl library mapped by a glibc process (this machine has musl's
  // loader installed) is not musl's loader: only ld-musl counts.
  t.equal(platforms.libcFromMaps('7f0 r-xp 0 0 1 /usr/lib/x86_64-linux-musl/libc.so\n' +
    '7f2 r-xp 0 0 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n'), 'glibc');
  t.equal(platforms.detectLibc('darwin'), null, 'not Linux: no libc asked for');
  if (process.platform === 'linux') {
    const { header } = process.report.getReport();
    t.equal(platforms.detectLibc(), header.glibcVersionRuntime ? 'glibc' : 'musl',
      'this process: the same answer as Node\'s diagnostic report');
  }
});

t.test('the runtime, by name', async (t) => {
  t.equal(platforms.runtime({ node: '24.3.0', bun: '1.4.5' }), 'bun');
  t.equal(platforms.runtime({ node: '22.0.0', deno: '2.9.6' }), 'deno');
  t.equal(platforms.runtime({ node: '20.20.2' }), 'node');
  t.equal(platforms.runtimeDescription({ node: '24.3.0', bun: '1.4.5' }), 'Bun 1.4.5');
  t.equal(platforms.runtimeDescription({ node: '22.0.0', deno: '2.9.6' }), 'Deno 2.9.6');
  t.equal(platforms.runtimeDescription(process.versions), `Node ${process.versions.node}`);
});

t.test('the platform package: its binary is loaded', async (t) => {
  const exports = { head() {} };
  const fake = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' },
    files: { [pkgFile('linux-x64-glibc')]: exports } });
  const r = load(GLIBC_X64, fake);
  t.equal(r.exports, exports);
  t.equal(r.file, pkgFile('linux-x64-glibc'));
  t.equal(r.from, '@onewrite/linux-x64-glibc');
  t.same(fake.loaded, [pkgFile('linux-x64-glibc')], 'nothing else was loaded');
});

t.test('on musl the musl package, even with the glibc one installed beside it', async (t) => {
  const fake = fakeIo({
    packages: { '@onewrite/linux-x64-glibc': '1.2.3', '@onewrite/linux-x64-musl': '1.2.3' },
    files: { [pkgFile('linux-x64-glibc')]: { glibc: true }, [pkgFile('linux-x64-musl')]: { musl: true } },
  });
  t.same(load(MUSL_X64, fake).exports, { musl: true });
  t.same(fake.loaded, [pkgFile('linux-x64-musl')], 'the glibc binary is never loaded on musl');
  const onlyGlibc = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' },
    files: { [pkgFile('linux-x64-glibc')]: { glibc: true } } });
  const r = load(MUSL_X64, onlyGlibc);
  t.equal(r.exports, undefined, 'nor when it is the only one there');
  t.same(onlyGlibc.loaded, []);
  t.equal(r.reason, 'its binary package, @onewrite/linux-x64-musl, is not installed');
});

t.test('a local build comes first; one that does not load gives way to the package', async (t) => {
  const local = { local: true };
  const both = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' },
    files: { [LOCAL]: local, [pkgFile('linux-x64-glibc')]: { pkg: true } } });
  const r = load(GLIBC_X64, both);
  t.equal(r.exports, local);
  t.equal(r.from, 'local build');
  t.same(both.loaded, [LOCAL]);

  const broken = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' },
    files: { [LOCAL]: new Error('wrong ELF class: ELFCLASS32\nmore'), [pkgFile('linux-x64-glibc')]: { pkg: true } } });
  t.same(load(GLIBC_X64, broken).exports, { pkg: true });
  t.same(broken.loaded, [LOCAL, pkgFile('linux-x64-glibc')]);

  const neither = fakeIo({ files: { [LOCAL]: new Error('wrong ELF class: ELFCLASS32') } });
  const n = load(GLIBC_X64, neither);
  t.equal(n.reason, `the local build ${LOCAL} could not be loaded: wrong ELF class: ELFCLASS32; ` +
    'its binary package, @onewrite/linux-x64-glibc, is not installed', 'both attempts, in order');
});

t.test('ONEWRITE_BINARY: that file and nothing else', async (t) => {
  const file = path.resolve('/opt/app/onewrite.node');
  const mine = { mine: true };
  const fake = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' },
    files: { [file]: mine, [LOCAL]: {}, [pkgFile('linux-x64-glibc')]: {} } });
  const r = load(GLIBC_X64, fake, { ONEWRITE_BINARY: '/opt/app/onewrite.node' });
  t.equal(r.exports, mine);
  t.equal(r.from, 'ONEWRITE_BINARY');
  t.same(fake.loaded, [file]);

  const missing = fakeIo({ files: { [LOCAL]: {} } });
  const m = load(GLIBC_X64, missing, { ONEWRITE_BINARY: 'nowhere.node' });
  t.equal(m.exports, undefined, 'a file that does not load is not replaced by another');
  t.same(missing.loaded, [path.resolve('nowhere.node')]);
  t.match(m.reason, /^ONEWRITE_BINARY=nowhere\.node could not be loaded: Cannot find module/);
  t.equal(m.remedy, 'point ONEWRITE_BINARY at a onewrite.node built for linux-x64 (glibc), or unset it');
});

t.test('what went wrong, and what to do', async (t) => {
  const none = load(GLIBC_X64, fakeIo());
  t.equal(none.reason, 'its binary package, @onewrite/linux-x64-glibc, is not installed');
  t.match(none.remedy, /--omit=optional.*npx onewrite build/);

  const old = load(GLIBC_X64, fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.0.0' },
    files: { [pkgFile('linux-x64-glibc')]: {} } }));
  t.equal(old.exports, undefined, 'a binary package of another version is not loaded');
  t.equal(old.reason, '@onewrite/linux-x64-glibc is version 1.0.0, onewrite is 1.2.3');
  t.match(old.remedy, /install onewrite again/);

  const bad = load(GLIBC_X64, fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' },
    files: { [pkgFile('linux-x64-glibc')]: new Error('/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.99\' not found\nx') } }));
  t.equal(bad.reason, '@onewrite/linux-x64-glibc could not be loaded: ' +
    '/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.99\' not found');
  t.match(bad.remedy, /npx onewrite build/);

  const mac = load({ os: 'darwin', cpu: 'arm64', libc: null }, fakeIo());
  t.equal(mac.reason, 'no binary ships for darwin-arm64 (binaries ship for linux-x64 and linux-arm64 (glibc and musl), win32-x64)');
  t.match(mac.remedy, /npx onewrite build .*xcode-select --install/);

  const bsd = load({ os: 'freebsd', cpu: 'x64', libc: null }, fakeIo());
  t.match(bsd.reason, /^no binary ships for freebsd-x64 /);

  const unknown = load({ os: 'linux', cpu: 'x64', libc: null }, fakeIo());
  t.match(unknown.reason, /^could not tell whether this Linux runs glibc or musl/);
});

t.test('a real platform package folder, loaded from disk', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-binary-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const key = platforms.keyFor({ os: process.platform, cpu: process.arch, libc: platforms.detectLibc() });
  const pkg = path.join(dir, 'node_modules', platforms.packageName(key));
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: platforms.packageName(key), version: '9.9.9' }));
  fs.copyFileSync(require('../lib/native').file, path.join(pkg, 'onewrite.node'));
  const r = binary.load({
    env: {}, version: '9.9.9', root: dir,
    io: { resolve: (request) => require.resolve(request, { paths: [dir] }), require, exists: fs.existsSync },
  });
  t.equal(r.file, path.join(pkg, 'onewrite.node'));
  t.equal(typeof r.exports.head, 'function', 'the addon, loaded');
  t.equal(typeof r.exports.sharedBytes, 'number');
});
