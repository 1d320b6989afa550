'use strict';

// Which binary the package loads (lib/binary.js) on which platform
// (lib/platforms.js): ONEWRITE_BINARY alone when set; else a local build,
// else the platform's package; the libc told from the process itself, so
// that a glibc binary is never taken on musl, even where npm installed
// both (a lockfile written by npm 10 records no libc); and, when nothing
// loads, a reason and a remedy that say what happened and what to do.
// And loading can stop no app: every binary is checked before it is
// loaded (a truncated one would kill the process with SIGBUS), only a
// .node file is taken from ONEWRITE_BINARY and no JavaScript is run from
// it, and the same binary loaded twice in one process works twice.  Each
// case that loads a real file runs in a child process, where a crash is a
// failed exit.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const platforms = require('../lib/platforms');
const binary = require('../lib/binary');
const objects = require('./helpers/objects');
const { spawn } = require('node:child_process');
const { cleanNode, spawnNode } = require('./helpers/child');

// What every file of fakeIo holds: the targets it is used with are x64.
const FAKE_ELF = objects.elf();

const ROOT = '/pkg';
const LOCAL = path.join(ROOT, 'build', 'Release', 'onewrite.node');

// A file system of packages: `packages` maps a package name to its
// version, `files` a binary's path to what loading it gives (an object, or
// an Error it throws); each binary's bytes are a small valid x64 ELF
// shared object.  Every load is logged; so is any require()
// of something that is not a package.json (there must be none).
function fakeIo({ packages = {}, files = {} } = {}) {
  const loaded = [];
  const required = [];
  return {
    loaded,
    required,
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
        if (!file.endsWith('package.json')) {
          required.push(file);
          throw new Error(`require() of ${file}`);
        }
        const name = path.relative(path.join(ROOT, 'node_modules'), path.dirname(file));
        return { name, version: packages[name] };
      },
      stat(file) {
        if (files[file] === undefined) {
          const err = new Error(`ENOENT: no such file or directory, stat '${file}'`);
          err.code = 'ENOENT';
          throw err;
        }
        return { isFile: () => true, isDirectory: () => false, size: FAKE_ELF.length };
      },
      read: (file, at, n) => FAKE_ELF.subarray(at, at + n),
      dlopen(addon, file) {
        loaded.push(file);
        const what = files[file];
        if (what instanceof Error) throw what;
        addon.exports = what;
      },
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
  t.equal(r.reason, 'its binary package, @onewrite/linux-x64-musl, is not installed ' +
    '(@onewrite/linux-x64-glibc is: node_modules was installed for another platform)');
});

t.test('a local build comes first; one that does not load gives way to the package', async (t) => {
  const local = { local: true };
  const both = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' },
    files: { [LOCAL]: local, [pkgFile('linux-x64-glibc')]: { pkg: true } } });
  const r = load(GLIBC_X64, both);
  t.equal(r.exports, local);
  t.equal(r.from, 'local build');
  t.same(both.loaded, [LOCAL]);
  t.same(both.required, [], 'no binary is require()d: dlopen alone');

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
  t.same(missing.loaded, [], 'a file that is not there is not loaded');
  t.equal(m.reason, 'ONEWRITE_BINARY=nowhere.node could not be loaded: no such file');
  t.equal(m.remedy, 'point ONEWRITE_BINARY at a onewrite.node built for linux-x64 (glibc), or unset it');

  for (const name of ['/opt/app/onewrite.js', '/opt/app/addon', '/opt/app/onewrite.node.js', '/opt/app/x.json']) {
    const js = fakeIo({ files: { [name]: { js: true } } });
    const r = load(GLIBC_X64, js, { ONEWRITE_BINARY: name });
    t.equal(r.exports, undefined, `${name}: not loaded`);
    t.same(js.loaded, [], `${name}: not opened`);
    t.same(js.required, [], `${name}: not require()d`);
    t.equal(r.reason, `ONEWRITE_BINARY=${name} could not be loaded: ` +
      'not a .node file (only a compiled onewrite.node is loaded from it: no JavaScript is run)');
  }
});

t.test('what went wrong, and what to do', async (t) => {
  const none = load(GLIBC_X64, fakeIo());
  t.equal(none.reason, 'its binary package, @onewrite/linux-x64-glibc, is not installed');
  t.equal(none.remedy, "npm install --no-save @onewrite/linux-x64-glibc@1.2.3 (npm leaves it out under --omit=optional, for a " +
    "node_modules made on another machine, and with onewrite's tarball installed alone)",
  'one command to copy, of the version that goes with this onewrite, then the causes');

  const fromWindows = load(GLIBC_X64, fakeIo({ packages: { '@onewrite/win32-x64': '1.2.3' } }));
  t.equal(fromWindows.reason, 'its binary package, @onewrite/linux-x64-glibc, is not installed ' +
    '(@onewrite/win32-x64 is: node_modules was installed for another platform)', 'the sign of it, named');
  const forWindows = load({ os: 'win32', cpu: 'x64', libc: null }, fakeIo());
  t.match(forWindows.remedy, /^npm install --no-save @onewrite\/win32-x64@1\.2\.3 /, "Windows' package");

  const unreadable = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' } });
  unreadable.io.require = () => {
    throw new SyntaxError('Unexpected end of JSON input');
  };
  const u = load(GLIBC_X64, unreadable);
  t.equal(u.reason, "@onewrite/linux-x64-glibc's package.json could not be read: Unexpected end of JSON input");

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

t.test('load() never throws, whatever the file system does', async (t) => {
  const denied = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' }, files: { [pkgFile('linux-x64-glibc')]: {} } });
  denied.io.stat = () => {
    const err = new Error("EACCES: permission denied, stat '/pkg/x'");
    err.code = 'EACCES';
    throw err;
  };
  t.equal(load(GLIBC_X64, denied).reason, `the local build ${LOCAL} could not be loaded: EACCES: permission denied, ` +
    "stat '/pkg/x'; @onewrite/linux-x64-glibc could not be loaded: EACCES: permission denied, stat '/pkg/x'");

  const nothing = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' }, files: { [pkgFile('linux-x64-glibc')]: null } });
  t.equal(load(GLIBC_X64, nothing).reason, '@onewrite/linux-x64-glibc could not be loaded: the addon exported no object');

  const strange = fakeIo();
  strange.io.resolve = () => {
    throw 'a string';
  };
  t.equal(load(GLIBC_X64, strange).reason, '@onewrite/linux-x64-glibc could not be found: a string');

  const broken = fakeIo({ packages: { '@onewrite/linux-x64-glibc': '1.2.3' } });
  broken.io.resolve = () => 42;
  broken.io.require = () => ({ version: '1.2.3' });
  const b = load(GLIBC_X64, broken);
  t.match(b.reason, /^no binary could be looked for: The "path" argument must be of type string/);
  t.match(b.remedy, /npx onewrite build/);
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
    io: { resolve: (request) => require.resolve(request, { paths: [dir] }) },
  });
  t.equal(r.file, path.join(pkg, 'onewrite.node'));
  t.equal(typeof r.exports.head, 'function', 'the addon, loaded');
  t.equal(typeof r.exports.sharedBytes, 'number');
});

// ---------------------------------------------------------------------------
// The checks made before a binary is loaded.

const THIS = { os: process.platform, cpu: process.arch };
const check = (bytes, target = THIS) => binary.checkBinary(binary.inMemory(bytes), target);
const BUILT = require('../lib/native').file;
const REAL = BUILT ? fs.readFileSync(BUILT) : null;

// Where a binary's header tables are: for a cut in the middle of them.
function headersMiddle(bytes) {
  if (bytes.readUInt32BE(0) === 0x7f454c46) return 64 + Math.floor(bytes.readUInt16LE(54) * bytes.readUInt16LE(56) / 2);
  if (bytes.toString('latin1', 0, 2) === 'MZ') {
    const at = bytes.readUInt32LE(0x3c);
    return at + 24 + bytes.readUInt16LE(at + 20) + bytes.readUInt16LE(at + 6) * 20;
  }
  return 32 + Math.floor(bytes.readUInt32LE(20) / 2);
}

// The sizes a real binary is cut to: 64 bytes, 1 KiB, the middle of its
// header tables, half the file, all but one byte.
function cuts(bytes) {
  return [64, 1024, headersMiddle(bytes), bytes.length >> 1, bytes.length - 1];
}

// The reason for a file cut to `n` bytes.
const cutTo = (n) => new RegExp(`^truncated: .* ends at \\d+, the file has ${n} bytes$`);

// A copy of `bytes` with `value` written at `at` (`size` bytes, LE).
function patched(bytes, at, size, value) {
  const copy = Buffer.from(bytes);
  if (size === 8) copy.writeBigUInt64LE(BigInt(value), at);
  else if (size === 4) copy.writeUInt32LE(value, at);
  else if (size === 2) copy.writeUInt16LE(value, at);
  else copy[at] = value;
  return copy;
}

// The section header of ELF section `name` in `bytes`: its offset.
function elfSection(bytes, name) {
  const shoff = Number(bytes.readBigUInt64LE(40));
  const count = bytes.readUInt16LE(60);
  const names = Number(bytes.readBigUInt64LE(shoff + bytes.readUInt16LE(62) * 64 + 24));
  for (let i = 0; i < count; i++) {
    const at = shoff + i * 64;
    const start = names + bytes.readUInt32LE(at);
    if (bytes.toString('latin1', start, bytes.indexOf(0, start)) === name) return at;
  }
  return -1;
}

t.test('the real binary passes the checks; cut anywhere, it is declined as truncated', async (t) => {
  if (!REAL) return t.fail('no binary was loaded here to check');
  t.equal(check(REAL), null, `${BUILT}: a complete shared object for ${THIS.os}-${THIS.cpu}`);
  for (const n of cuts(REAL)) {
    t.match(check(REAL.subarray(0, n)), cutTo(n), `cut to ${n} bytes`);
  }
  t.equal(check(Buffer.alloc(0)), 'an empty file');
});

t.test('ELF: what the checks decline, and why', async (t) => {
  const x64 = { os: 'linux', cpu: 'x64' };
  const arm64 = { os: 'linux', cpu: 'arm64' };
  const small = objects.elf();
  t.equal(check(small, x64), null, 'a minimal shared object: one PT_LOAD, no sections');
  t.equal(check(objects.elf({ machine: objects.ELF.arm64 }), arm64), null, 'the same for arm64, on arm64');
  t.equal(check(small, arm64), 'built for x64, this process is arm64');
  t.equal(check(objects.elf({ machine: objects.ELF.arm64 }), x64), 'built for arm64, this process is x64');
  t.equal(check(objects.elf({ machine: 0x1234 }), x64), 'built for machine 0x1234, this process is x64');
  t.equal(check(objects.elf({ machine: 40 }), x64), 'built for arm, this process is x64');
  t.equal(check(objects.elf({ type: 2 }), x64), 'an ELF executable, not a shared object');
  t.equal(check(objects.elf({ type: 1 }), x64), 'an ELF object file (.o), not a shared object');
  t.match(check(patched(small, 4, 1, 1), x64), /^a 32-bit ELF file, not 64-bit/);
  t.equal(check(patched(small, 5, 1, 2), x64), 'a big-endian ELF file, not little-endian as this process');
  t.equal(check(patched(small, 56, 2, 0), x64), 'malformed: an ELF file without program headers');
  t.equal(check(patched(small, 64 + 32, 8, 121), x64), 'truncated: segment 0 (LOAD) ends at 121, the file has 120 bytes');
  t.equal(check(patched(small, 64 + 8, 8, 2 ** 60), x64), 'malformed: an offset or a size above 2^53');
  t.equal(check(patched(small, 32, 8, 2 ** 53 - 8), x64), 'malformed: the program header table lies past 2^53 bytes');
  t.equal(check(Buffer.from('hello\n'), x64), 'not an ELF shared object');
  t.equal(check(Buffer.from('{"name":"onewrite"}'), x64), 'not an ELF shared object');
  t.equal(check(objects.pe(), x64), 'a Windows PE file, not an ELF shared object');
  t.equal(check(objects.macho(), x64), 'a Mach-O file, not an ELF shared object');
  t.equal(check(small, { os: 'linux', cpu: 's390x' }), null, 'a big-endian CPU: not checked, the system decides');
  t.equal(check(Buffer.from('hello'), { os: 'aix', cpu: 'ppc64' }), null, 'AIX (XCOFF): not checked');

  // The real build's sections, where it is an ELF file of this CPU.
  if (!REAL || REAL.readUInt32BE(0) !== 0x7f454c46 || REAL.readUInt16LE(18) !== objects.ELF[process.arch]) return;
  const text = elfSection(REAL, '.text');
  t.ok(text > 0, 'the real build has a .text section');
  const past = patched(REAL, text + 24, 8, REAL.length);
  t.match(check(past), new RegExp(`^truncated: section \\.text ends at \\d+, the file has ${REAL.length} bytes$`),
    'a section past the end of the file, named');
  const bss = elfSection(REAL, '.bss');
  if (bss > 0) t.equal(check(patched(REAL, bss + 24, 8, REAL.length * 4)), null, '.bss has no bytes in the file: not checked');
});

t.test('PE32+: a Windows DLL, complete and for this CPU', async (t) => {
  const x64 = { os: 'win32', cpu: 'x64' };
  const dll = objects.pe();
  t.equal(check(dll, x64), null, `a DLL of ${dll.length} bytes`);
  t.equal(check(objects.pe({ machine: objects.PE.arm64 }), { os: 'win32', cpu: 'arm64' }), null);
  t.equal(check(dll, { os: 'win32', cpu: 'arm64' }), 'built for x64, this process is arm64');
  t.equal(check(objects.pe({ machine: objects.PE.arm64 }), x64), 'built for arm64, this process is x64');
  t.equal(check(objects.pe({ machine: objects.PE.ia32 }), x64), 'built for ia32, this process is x64');
  t.equal(check(objects.pe({ dll: false }), x64), 'a Windows executable, not a DLL');
  t.equal(check(objects.pe({ magic: 0x10b }), x64), 'a 32-bit (PE32) DLL, not PE32+');
  t.equal(check(patched(dll, 64, 4, 0x12345678), x64), 'not a Windows DLL: an MZ file without a PE header');
  t.equal(check(patched(dll, 0x3c, 4, 4000), x64), `truncated: the PE header ends at 4024, the file has ${dll.length} bytes`);
  t.equal(check(objects.elf(), x64), 'an ELF file, not a Windows DLL');
  t.equal(check(Buffer.from('hello'), x64), 'not a Windows DLL');
  for (const n of [2, 63, 100, 200, 350, 400, dll.length - 64, dll.length - 1]) {
    t.match(check(dll.subarray(0, n), x64), cutTo(n), `cut to ${n} bytes`);
  }
  t.equal(check(dll.subarray(0, dll.length - 1), x64),
    `truncated: section .data ends at ${dll.length}, the file has ${dll.length - 1} bytes`);
});

t.test('Mach-O: a bundle for this CPU, alone or in a universal file', async (t) => {
  const arm64 = { os: 'darwin', cpu: 'arm64' };
  const x64 = { os: 'darwin', cpu: 'x64' };
  const bundle = objects.macho();
  const intel = objects.macho({ cpu: objects.MACHO.x64 });
  t.equal(check(bundle, arm64), null, `a bundle of ${bundle.length} bytes`);
  t.equal(check(objects.macho({ filetype: 6 }), arm64), null, 'a dylib too');
  t.equal(check(bundle, x64), 'built for arm64, this process is x64');
  t.equal(check(objects.macho({ filetype: 2 }), arm64), 'a Mach-O file of type 2, not a bundle or a dylib');
  t.equal(check(objects.macho({ magic: 0xfeedface }), arm64), 'a 32-bit Mach-O file, not 64-bit as this arm64 process');
  t.equal(check(patched(bundle, 20, 4, 4000), arm64),
    `truncated: the load command table ends at 4032, the file has ${bundle.length} bytes`);
  t.equal(check(patched(bundle, 32 + 72 + 4, 4, 4), arm64), 'malformed: load command 1 lies outside the load commands');
  t.equal(check(objects.elf(), arm64), 'an ELF file, not a Mach-O bundle');
  for (const n of [4, 31, 100, 200, bundle.length - 64, bundle.length - 1]) {
    t.match(check(bundle.subarray(0, n), arm64), cutTo(n), `cut to ${n} bytes`);
  }
  t.equal(check(bundle.subarray(0, bundle.length - 1), arm64),
    `truncated: segment __LINKEDIT ends at ${bundle.length}, the file has ${bundle.length - 1} bytes`);

  for (const wide of [false, true]) {
    const kind = wide ? 'a universal file (64-bit table)' : 'a universal file';
    const both = objects.fat([[objects.MACHO.x64, intel], [objects.MACHO.arm64, bundle]], { wide });
    t.equal(check(both, arm64), null, `${kind}: its arm64 slice`);
    t.equal(check(both, x64), null, `${kind}: its x64 slice`);
    t.equal(check(objects.fat([[objects.MACHO.x64, intel]], { wide }), arm64),
      'a universal Mach-O file without arm64: it holds x64', `${kind} without this CPU`);
    t.equal(check(objects.fat([[objects.MACHO.arm64, intel]], { wide }), arm64), 'built for x64, this process is arm64',
      `${kind}: a slice that is not what the table says`);
    const cut = both.subarray(0, both.length - 20);
    t.match(check(cut, arm64), new RegExp(`^truncated: the arm64 slice ends at \\d+, the file has ${cut.length} bytes$`),
      `${kind} cut in its last slice`);
    t.equal(check(cut, x64), null, `${kind} cut in its last slice: the first is whole`);
    const inner = objects.fat([[objects.MACHO.arm64, bundle.subarray(0, bundle.length - 1)]], { wide });
    t.equal(check(inner, arm64),
      `truncated: segment __LINKEDIT ends at ${bundle.length}, the arm64 slice has ${bundle.length - 1} bytes`,
      `${kind}: a slice that is itself truncated`);
    t.match(check(both.subarray(0, 12), arm64), /^truncated: the universal slice table ends at/);
  }
});

t.test('the checks never throw', async (t) => {
  const throwing = { size: 1000, name: 'the file', read() { throw new Error('EIO: i/o error, read'); } };
  t.equal(binary.checkBinary(throwing, { os: 'linux', cpu: 'x64' }), 'could not be read: EIO: i/o error, read');
  const short = { size: 1000, name: 'the file', read: (at, n) => FAKE_ELF.subarray(at, at + Math.min(n, 10)) };
  t.equal(binary.checkBinary(short, { os: 'linux', cpu: 'x64' }),
    'truncated: the ELF header ends at 64, only 10 bytes could be read', 'a file that shrank while read');
  // Each kind of file with a few bytes changed, the same every run.
  const failed = [];
  let seed = 1;
  const random = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (const os of ['linux', 'win32', 'darwin']) {
    for (let i = 0; i < 300; i++) {
      const bytes = Buffer.from([objects.elf, objects.pe, objects.macho][i % 3]());
      for (let k = 0; k < 8; k++) bytes[random(bytes.length)] = random(256);
      const r = binary.checkBinary(binary.inMemory(bytes), { os, cpu: i % 3 === 2 ? 'arm64' : 'x64' });
      // A read past what was asked for (a RangeError) would be a check's bug.
      if (r !== null && (typeof r !== 'string' || r.startsWith('could not be read'))) failed.push({ os, i, r });
    }
  }
  t.same(failed, [], 'every answer is null or a reason of the checks');
  const bent = Buffer.from(objects.pe());
  bent.write('.t\r\nxt', 64 + 24 + 240, 'latin1');
  bent.writeUInt32LE(4000, 64 + 24 + 240 + 16);
  t.equal(check(bent, { os: 'win32', cpu: 'x64' }), `truncated: section .t??xt ends at 4408, the file has ${bent.length} bytes`,
    'a name from the file, printable');
});

// ---------------------------------------------------------------------------
// In child processes: the package required, with a binary that must not
// stop it.

const ROOT_DIR = path.join(__dirname, '..');
const CHILD = path.join(__dirname, 'helpers', 'binary-child.js');

function scratch(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-binary-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// A copy of the package as npm installs it (no build/, no node_modules).
function copyPackage(dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['index.js', 'package.json', 'lib']) fs.cpSync(path.join(ROOT_DIR, f), path.join(dir, f), { recursive: true });
  return dir;
}

// binary-child.js on `dirs`: its exit and its one result per copy.  A
// child that hangs (a loader blocked on a pipe) is killed after a while.
function requireIn(dirs, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(...cleanNode([CHILD, ...dirs], env, { stdio: ['ignore', 'pipe', 'pipe'] }));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let out = null;
      try {
        out = JSON.parse(stdout.trim().split('\n').pop());
      } catch {}
      resolve({ exit: { code, signal }, out, stderr: stderr.slice(-2000) });
    });
  });
}

// The app is up and says why onewrite is off: `reason` matches.
function declined(t, got, reason, what) {
  t.same(got.exit, { code: 0, signal: null }, `${what}: the process lives`, { stderr: got.stderr });
  if (!got.out) return t.fail(`${what}: no result`);
  const [s] = got.out;
  t.equal(s.available, false, `${what}: onewrite is off`);
  t.match(s.reason, reason, `${what}: the reason`);
  t.equal(s.binary, null, `${what}: no binary`);
  t.equal(s.answer, '200 served', `${what}: the app serves`);
}

t.test('a truncated binary, through ONEWRITE_BINARY or as the local build: the app runs', async (t) => {
  if (!REAL) return t.fail('no binary was loaded here to cut');
  const dir = scratch(t);
  const runs = cuts(REAL).map(async (n) => {
    const file = path.join(dir, `cut-${n}.node`);
    fs.writeFileSync(file, REAL.subarray(0, n));
    const got = await requireIn([ROOT_DIR], { ONEWRITE_BINARY: file });
    declined(t, got, new RegExp(`^the native addon could not be loaded: ONEWRITE_BINARY=${file} could not be loaded: ` +
      `truncated: .* ends at \\d+, the file has ${n} bytes$`), `ONEWRITE_BINARY cut to ${n} bytes`);

    const pkg = copyPackage(path.join(dir, `pkg-${n}`));
    const local = path.join(pkg, binary.LOCAL_BUILD);
    fs.mkdirSync(path.dirname(local), { recursive: true });
    fs.writeFileSync(local, REAL.subarray(0, n));
    const built = await requireIn([pkg]);
    declined(t, built, new RegExp(`^the native addon could not be loaded: the local build ${local} could not be loaded: ` +
      `truncated: .* ends at \\d+, the file has ${n} bytes; its binary package, .* is not installed$`),
    `local build cut to ${n} bytes`);
  });
  await Promise.all(runs);
});

t.test('ONEWRITE_BINARY naming JavaScript: it does not run', async (t) => {
  const dir = scratch(t);
  const marker = (name) => path.join(dir, `${name}.ran`);
  const js = (name) => `require('node:fs').writeFileSync(${JSON.stringify(marker(name))}, __filename);\nmodule.exports = {};\n`;
  fs.writeFileSync(path.join(dir, 'evil.js'), js('evil.js'));
  fs.mkdirSync(path.join(dir, 'folder'));
  fs.writeFileSync(path.join(dir, 'folder', 'index.js'), js('folder'));
  fs.mkdirSync(path.join(dir, 'folder.node'));
  fs.writeFileSync(path.join(dir, 'folder.node', 'index.js'), js('folder.node'));
  fs.writeFileSync(path.join(dir, 'script.node'), js('script.node'));
  const cases = [
    ['evil.js', new RegExp('could not be loaded: not a \\.node file ' +
      '\\(only a compiled onewrite\\.node is loaded from it: no JavaScript is run\\)$')],
    ['folder', /could not be loaded: not a \.node file/],
    ['folder.node', /could not be loaded: a directory, not a file$/],
  ];
  if (process.platform === 'linux') cases.push(['script.node', /could not be loaded: not an ELF shared object$/]);
  for (const [name, reason] of cases) {
    const got = await requireIn([ROOT_DIR], { ONEWRITE_BINARY: path.join(dir, name) });
    declined(t, got, reason, name);
    t.notOk(fs.existsSync(marker(name)), `${name}: its JavaScript did not run`);
  }
});

const LINUX_ONLY = { skip: process.platform !== 'linux' && 'files of Linux' };

t.test('every other wrong file: declined with a reason, the app runs', LINUX_ONLY, async (t) => {
  const dir = scratch(t);
  const file = (name, bytes) => {
    fs.writeFileSync(path.join(dir, name), bytes);
    return path.join(dir, name);
  };
  const other = process.arch === 'arm64' ? 'x64' : 'arm64';
  const cases = [
    [path.join(dir, 'nowhere.node'), /: no such file$/],
    [file('empty.node', ''), /: an empty file$/],
    [file('text.node', 'hello\n'), /: not an ELF shared object$/],
    [file('data.json', '{}'), /: not a \.node file/],
    [file('json.node', '{"a":1}'), /: not an ELF shared object$/],
    [file('other.node', objects.elf({ machine: objects.ELF[other] })),
      new RegExp(`: built for ${other}, this process is ${process.arch}$`)],
    [file('windows.node', objects.pe()), /: a Windows PE file, not an ELF shared object$/],
    [file('mac.node', objects.macho()), /: a Mach-O file, not an ELF shared object$/],
    ['/dev/null', /: not a \.node file/],
  ];
  if (REAL) {
    cases.push([file('machine.node', patched(REAL, 18, 2, 0x1234)),
      new RegExp(`: built for machine 0x1234, this process is ${process.arch}$`)]);
    cases.push([file('class32.node', patched(REAL, 4, 1, 1)), /: a 32-bit ELF file, not 64-bit/]);
  }
  fs.mkdirSync(path.join(dir, 'dir.node'));
  cases.push([path.join(dir, 'dir.node'), /: a directory, not a file$/]);
  fs.symlinkSync('/dev/null', path.join(dir, 'null.node'));
  cases.push([path.join(dir, 'null.node'), /: a device, not a file$/]);
  const fifo = require('node:child_process').spawnSync('mkfifo', [path.join(dir, 'fifo.node')]);
  if (fifo.status === 0) cases.push([path.join(dir, 'fifo.node'), /: a pipe, not a file$/]);
  // A glibc process cannot load a musl binary (scripts/binaries.sh builds
  // one): its loader says so, as it finds no musl libc.so.
  const musl = path.join(ROOT_DIR, 'npm', 'linux-x64-musl', 'onewrite.node');
  if (process.arch === 'x64' && platforms.detectLibc() === 'glibc' && fs.existsSync(musl)) {
    cases.push([musl, /: [^:]*libc\.so: (cannot open shared object file|invalid ELF header)/]);
  }
  await Promise.all(cases.map(async ([name, reason]) => {
    declined(t, await requireIn([ROOT_DIR], { ONEWRITE_BINARY: name }), reason, path.basename(name));
  }));
});

t.test('one binary loaded twice in a process: by two copies of onewrite, through a symlink', async (t) => {
  if (!REAL) return t.fail('no binary was loaded here to load again');
  const key = platforms.keyFor({ os: process.platform, cpu: process.arch, libc: platforms.detectLibc() });
  if (key === null) return t.pass('no platform package here');
  const app = scratch(t);
  const modules = path.join(app, 'node_modules');
  // The platform package, hoisted: both copies find it.
  const pkg = path.join(modules, platforms.packageName(key));
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'),
    JSON.stringify({ name: platforms.packageName(key), version: require('../package.json').version }));
  fs.writeFileSync(path.join(pkg, 'onewrite.node'), REAL);
  const first = copyPackage(path.join(modules, 'onewrite'));
  const second = copyPackage(path.join(modules, 'dep', 'node_modules', 'onewrite'));
  // A third copy whose local build is a symlink to that same file.
  const third = copyPackage(path.join(app, 'linked'));
  fs.mkdirSync(path.join(third, 'build', 'Release'), { recursive: true });
  fs.symlinkSync(path.join(pkg, 'onewrite.node'), path.join(third, binary.LOCAL_BUILD));

  const got = await requireIn([first, second, third]);
  t.same(got.exit, { code: 0, signal: null }, 'the process lives', { stderr: got.stderr });
  if (!got.out) return t.fail('no result');
  const names = ['the first copy', 'the second copy', 'the copy with a symlinked build'];
  got.out.forEach((s, i) => {
    t.equal(s.available, true, `${names[i]}: available`, { reason: s.reason });
    t.equal(s.answer, '200 served', `${names[i]}: serves`);
    t.equal(s.heads, 1, `${names[i]}: its head built by the addon`);
  });
  t.equal(got.out[0].binary, path.join(pkg, 'onewrite.node'));
  t.equal(got.out[1].binary, path.join(pkg, 'onewrite.node'), 'the same file');
  t.equal(got.out[2].binary, path.join(third, binary.LOCAL_BUILD), 'the same file, by another path');

  // The same file loaded again and again by one loader: an instance of
  // its own each time, which attaches its own memory once (process.dlopen
  // runs the addon's init again); require() of the file, by either path,
  // gives the first load's exports, as when the loader used require().
  const code = `
    const binary = require(process.env.BINARY_JS);
    const { FILE, LINK } = process.env;
    const loads = [FILE, FILE, LINK].map((f) => binary.load({ env: { ONEWRITE_BINARY: f } }).exports);
    const attach = (e) => e.attach(new Int32Array(new SharedArrayBuffer(e.sharedBytes)));
    const attached = loads.map(attach);
    console.log(JSON.stringify({ attached, again: attach(loads[0]), distinct: new Set(loads).size,
      required: [FILE, LINK].map((f) => require(f) === loads[0]) }));`;
  const r = await spawnNode(['-e', code], { env: {
    BINARY_JS: path.join(ROOT_DIR, 'lib', 'binary.js'),
    FILE: path.join(pkg, 'onewrite.node'),
    LINK: path.join(third, binary.LOCAL_BUILD),
  } });
  t.same({ code: r.code, signal: r.signal }, { code: 0, signal: null }, 'three loads: the process lives', { stderr: r.stderr });
  let seen = null;
  try {
    seen = JSON.parse(r.stdout);
  } catch {}
  t.same(seen, { attached: [true, true, true], again: false, distinct: 3, required: [true, true] },
    'three instances, each attached once; require() of the file, by either path, gives the first');
});
