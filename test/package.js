'use strict';

// What `npm pack` ships, and what a user gets from it:
//   a. the main package: exactly the whitelist in package.json "files", no
//      binary, no binding.gyp, no install script, no dependency; its
//      packed package.json lists the platform package in
//      optionalDependencies at its own version (and the working copy's
//      package.json is as it was after the pack); a pack that cannot build
//      every platform's binary refuses, naming the toolchain, unless told
//      which platforms to pack (ONEWRITE_PLATFORMS);
//   b. this machine's platform package: package.json with os, cpu and
//      libc, README, LICENSE and a stripped binary of this architecture;
//   c. both installed from the tarballs with no C compiler on PATH, and
//      again by `npm ci` from the lockfile that wrote: no install script
//      runs, nothing is compiled, the platform package's binary loads,
//      install() turns the fast paths on, a server uses them, and the
//      `onewrite` bin runs (its byte check; the load needs autocannon, which
//      a production install does not pull in);
//   d. the main package alone, its optional dependency left out: the
//      package loads, says why it is off and what to do, patches nothing,
//      servers send stock bytes, and `onewrite compare` says why there is
//      nothing to compare.
// Every platform's package, installed from a registry as each platform,
// is test/registry/install.js's (CI).
//
// Everything runs on a copy of the package in a temp dir (node_modules
// linked), so packing never touches the working tree other tests load the
// addon from.  Every child process runs under `env -i` with only the
// variables it needs: tap passes its coverage hooks to children in
// NODE_OPTIONS.

const t = require('tap');
const { TSC } = require('./helpers/tsc');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const HOME = os.homedir();
const platforms = require('../lib/platforms');
const KEY = platforms.keyFor({ os: process.platform, cpu: process.arch, libc: platforms.detectLibc() });
const PLATFORM_PKG = platforms.packageName(KEY);
const VERSION = require('../package.json').version;
// The ELF machine number (e_machine) this architecture's binary carries.
const MACHINE = { arm64: 183 /* EM_AARCH64 */, x64: 62 /* EM_X86_64 */ }[process.arch];
const NODE = process.execPath;
const NODE_DIR = path.dirname(NODE);

// The npm (and npx) found on PATH, as their real scripts: they are run with
// this test's Node, whichever Node that is.
function findOnPath(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.realpathSync(file);
    } catch {}
  }
  throw new Error(`${name} not found on PATH`);
}
const NPM = findOnPath('npm');
const NPX = findOnPath('npx');

// What npm needs to reach the registry as it does here, passed on when set
// (without NODE_EXTRA_CA_CERTS, a Node without the system CAs built in
// retries against a TLS proxy for a minute, then falls back on its cache).
const NETWORK = {};
for (const name of ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy',
  'npm_config_cafile', 'npm_config_registry']) {
  if (process.env[name] !== undefined) NETWORK[name] = process.env[name];
}

// `env -i VAR=... command args`, collecting the output.
function run(command, args, { cwd, env, timeout = 180000 }) {
  const vars = Object.entries({ HOME, ...NETWORK, ...env }).map(([k, v]) => `${k}=${v}`);
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/env', ['-i', ...vars, command, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

// The normal environment (compiler included), for packing.
const DEV_PATH = `${NODE_DIR}:${process.env.PATH}`;
function npm(args, cwd, env = { PATH: DEV_PATH }) {
  return run(NODE, [NPM, ...args], { cwd, env });
}

// npm pack --json prints lifecycle script output (prepack) on stdout too;
// the JSON is the last thing it prints.
function packJson(stdout) {
  const at = stdout.lastIndexOf('\n[\n');
  return JSON.parse(at === -1 ? stdout : stdout.slice(at + 1));
}

function ok(t, r, what) {
  t.equal(r.code, 0, what, { stdout: r.stdout.slice(-4000), stderr: r.stderr.slice(-4000) });
  return r.code === 0;
}

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-package-'));
t.teardown(() => fs.rmSync(TMP, { recursive: true, force: true }));
const PKG = path.join(TMP, 'pkg');

// The package as it is in the working tree, leftovers included, without
// the binaries (prepack must make them), plus decoys where files that must
// not ship would live.  csrc/build (sanitizer and fuzzer output, which a
// fuzzing run may be writing meanwhile) is stood in for by a decoy.  Others
// may be editing the tree: a copy that meets a vanishing file is tried
// again.
const NOT_COPIED = new Set(['node_modules', '.git', '.tap', 'csrc/build', 'dist']
  .map((p) => path.join(ROOT, p)));
const isBinary = (src) => /^npm\/[^/]+\/(onewrite\.node|LICENSE)$/.test(path.relative(ROOT, src));
for (let attempt = 1; ; attempt++) {
  try {
    fs.cpSync(ROOT, PKG, { recursive: true, filter: (src) => !NOT_COPIED.has(src) && !isBinary(src) });
    break;
  } catch (err) {
    fs.rmSync(PKG, { recursive: true, force: true });
    if (attempt === 3) {
      fs.rmSync(TMP, { recursive: true, force: true }); // teardown would not run
      throw err;
    }
  }
}
fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(PKG, 'node_modules'));
const DECOYS = [
  'csrc/fuzz/decoy.c', 'csrc/test/decoy.c', 'csrc/build/decoy.o', 'test/decoy.js',
  'benchmark/decoy.js', 'build/decoy.txt', 'npm-debug.log', 'decoy.tgz', 'npm/decoy.txt',
];
for (const file of DECOYS) {
  fs.mkdirSync(path.dirname(path.join(PKG, file)), { recursive: true });
  fs.writeFileSync(path.join(PKG, file), '// must not be packed\n');
}

// What a user needs, and nothing else.
function expectedFiles() {
  const files = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'index.js', 'index.d.ts',
    'register.js', 'register.mjs', 'csrc/onewrite.gypi'];
  // (docs/: the README's links work where the package is installed.)
  for (const dir of ['lib', 'cli', 'bin', 'docs']) {
    for (const f of fs.readdirSync(path.join(PKG, dir), { recursive: true })) {
      if (fs.statSync(path.join(PKG, dir, f)).isFile()) files.push(`${dir}/${f}`);
    }
  }
  for (const f of fs.readdirSync(path.join(PKG, 'csrc'))) {
    if (/\.[ch]$/.test(f)) files.push(`csrc/${f}`);
  }
  return files.sort();
}

// The fields of an ELF header a loader checks first: EI_MAG, EI_CLASS
// (2: 64-bit), EI_DATA (1: little-endian), e_type (3: shared object), e_machine.
function elfHeader(bytes) {
  return {
    magic: bytes.toString('latin1', 0, 4), class: bytes[4], data: bytes[5],
    type: bytes.readUInt16LE(16), machine: bytes.readUInt16LE(18),
  };
}

// A file of a tarball, as text.
function fromTarball(tarball, file) {
  const r = require('node:child_process').spawnSync('tar', ['-xOzf', tarball, `package/${file}`]);
  return r.status === 0 ? r.stdout : null;
}

const FORBIDDEN = /^(test\/|benchmark\/|build\/|npm\/|csrc\/(test|fuzz|build)\/|csrc\/Makefile$|scripts\/|\.ci\/|node_modules\/|binding\.gyp$|.*\.node$|.*\.log$|.*\.tgz$)/;
const HOST_ONLY = { PATH: DEV_PATH, ONEWRITE_PLATFORMS: KEY };
const TARBALLS = path.join(TMP, 'tarballs');
fs.mkdirSync(TARBALLS);
const packed = {}; // what test a packed: main, platform (tarball paths)

t.test('a. the main package: the whitelist, no binary, the platform package listed', async (t) => {
  const before = fs.readFileSync(path.join(PKG, 'package.json'), 'utf8');
  t.notOk(JSON.parse(before).optionalDependencies, 'the repository\'s package.json lists no optionalDependencies');
  const r = await npm(['pack', '--json', '--pack-destination', TARBALLS], PKG, HOST_ONLY);
  if (!ok(t, r, `ONEWRITE_PLATFORMS=${KEY} npm pack`)) return;
  t.match(r.stderr, new RegExp(`WARNING: left out \\(ONEWRITE_PLATFORMS\\): ${
    Object.keys(platforms.PLATFORMS).filter((k) => k !== KEY).join(', ')}`), 'naming what it leaves out');
  t.equal(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'), before, 'package.json as it was, after the pack');
  t.notOk(fs.existsSync(path.join(PKG, '.package.json.prepack')), 'and no copy of it left');
  const info = packJson(r.stdout)[0];
  packed.main = path.join(TARBALLS, info.filename);
  const files = info.files.map((f) => f.path).sort();
  t.comment(`packed files:\n${files.join('\n')}`);
  t.same(files, expectedFiles(), 'the whitelist, exactly');
  t.same(files.filter((f) => FORBIDDEN.test(f)), [], 'no tests, benchmarks, binaries, binding.gyp, build leftovers');
  for (const f of ['index.d.ts', 'csrc/head.c', 'csrc/binding.c', 'csrc/head.h', 'lib/native.js',
    'lib/binary.js', 'lib/platforms.js', 'bin/onewrite.js', 'cli/build.js', 'cli/compare/index.js',
    'cli/compare/reporter.js', 'cli/compare/client.js']) {
    t.ok(files.includes(f), `ships ${f}`);
  }
  const manifest = JSON.parse(fromTarball(packed.main, 'package.json'));
  t.same(manifest.optionalDependencies, { [PLATFORM_PKG]: VERSION },
    'the packed package.json lists the platform package, at its own version');
  t.equal(manifest.scripts, undefined, 'no scripts: none to run or warn of at install');
  t.equal(manifest.gypfile, false, 'gypfile: false (npm adds no node-gyp install script)');
  t.equal(manifest.dependencies, undefined, 'no dependencies');
  for (const field of ['repository', 'homepage', 'bugs', 'keywords']) t.ok(manifest[field], `has ${field}`);
});

t.test('a. a pack that cannot build every platform refuses, and says what to do', async (t) => {
  // PATH without the cross compilers: a machine with only its own gcc.
  const bin = path.join(TMP, 'native-only-bin');
  fs.mkdirSync(bin);
  for (const dir of [NODE_DIR, '/usr/bin', '/bin']) {
    for (const name of fs.readdirSync(dir)) {
      if (/aarch64|mingw|musl/.test(name) || fs.existsSync(path.join(bin, name))) continue;
      fs.symlinkSync(path.join(dir, name), path.join(bin, name));
    }
  }
  const before = fs.readFileSync(path.join(PKG, 'package.json'), 'utf8');
  const r = await npm(['pack', '--dry-run'], PKG, { PATH: bin });
  t.not(r.code, 0, 'npm pack fails', { stderr: r.stderr.slice(-3000) });
  t.match(r.stderr, /binaries: linux-x64-musl: musl-gcc not found|binaries: linux-x64-musl: x86_64-linux-musl-gcc not found/,
    'naming the missing compiler');
  t.match(r.stderr, /apt-get install musl-tools/, 'and its Debian package');
  t.match(r.stderr, new RegExp(`refusing to pack: no binary for [^\\n]*linux-arm64-glibc[^\\n]*ONEWRITE_PLATFORMS=${KEY} npm pack`),
    'and how to pack without them');
  t.equal(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'), before, 'package.json untouched');
});

t.test('b. the platform package: its manifest, README, LICENSE and binary', async (t) => {
  fs.copyFileSync(path.join(PKG, 'LICENSE'), path.join(PKG, 'npm', KEY, 'LICENSE'));
  const r = await npm(['pack', '--json', '--pack-destination', TARBALLS, path.join(PKG, 'npm', KEY)], PKG);
  if (!ok(t, r, `npm pack npm/${KEY}`)) return;
  const info = packJson(r.stdout)[0];
  packed.platform = path.join(TARBALLS, info.filename);
  t.same(info.files.map((f) => f.path).sort(), ['LICENSE', 'README.md', 'onewrite.node', 'package.json']);
  const manifest = JSON.parse(fromTarball(packed.platform, 'package.json'));
  const p = platforms.PLATFORMS[KEY];
  t.match(manifest, { name: PLATFORM_PKG, version: VERSION, os: [p.os], cpu: [p.cpu], main: 'onewrite.node' });
  t.same(manifest.libc, p.libc ? [p.libc] : undefined, 'its libc');
  t.equal(manifest.scripts, undefined, 'no scripts');
  const bytes = fromTarball(packed.platform, 'onewrite.node');
  t.same(elfHeader(bytes), { magic: '\x7fELF', class: 2, data: 1, type: 3, machine: MACHINE },
    `a 64-bit little-endian ELF shared object for ${process.arch}`);
  // Names in the section-name table are NUL-separated: a stripped file has no .symtab.
  t.notOk(bytes.includes('\0.symtab\0'), 'stripped');
});

// A directory holding only node, npm, npx and sh: no cc, gcc, clang, g++,
// make, python.
const NO_CC_BIN = path.join(TMP, 'bin');
fs.mkdirSync(NO_CC_BIN);
fs.symlinkSync(NODE, path.join(NO_CC_BIN, 'node'));
fs.symlinkSync(NPM, path.join(NO_CC_BIN, 'npm'));
fs.symlinkSync(NPX, path.join(NO_CC_BIN, 'npx'));
fs.symlinkSync(fs.realpathSync('/bin/sh'), path.join(NO_CC_BIN, 'sh')); // npm runs scripts with sh
const NO_CC_ENV = { PATH: NO_CC_BIN };

function describeBin() {
  return fs.readdirSync(NO_CC_BIN).sort()
    .map((n) => `${n} -> ${fs.readlinkSync(path.join(NO_CC_BIN, n))}`).join(', ');
}

// An empty project with the tarballs installed in it, under NO_CC_ENV.
async function installInto(t, name, tarballs, extra = []) {
  const app = path.join(TMP, name);
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', private: true }));
  const r = await npm(['install', ...tarballs, '--foreground-scripts', '--no-audit', '--no-fund', ...extra],
    app, NO_CC_ENV);
  return { app, ok: ok(t, r, `npm install ${tarballs.map((f) => path.basename(f)).join(' ')} ${extra.join(' ')}`), r };
}

// What npm 11 says of packages with install scripts it has not run.
const INSTALL_SCRIPT_WARNING = /install-scripts|allowScripts|install script/i;

// `onewrite compare server.js`, through the bin npm linked into `app`,
// for a one-line server written there.
function compareIn(app) {
  fs.writeFileSync(path.join(app, 'server.js'), "require('node:http').createServer((req, res) => res.end('hi'))" +
    '.listen(Number(process.env.PORT), "127.0.0.1");\n');
  return run(path.join(app, 'node_modules', '.bin', 'onewrite'), ['compare', 'server.js'],
    { cwd: app, env: NO_CC_ENV, timeout: 60000 });
}

// Run `fn` in a child Node in `app` (with NO_CC_ENV); it prints JSON.
async function child(t, app, fn) {
  const file = path.join(app, `${fn.name}.js`);
  fs.writeFileSync(file, `'use strict';\n(${fn})().catch((e) => { console.error(e); process.exit(1); });\n`);
  const r = await run('node', [file], { cwd: app, env: NO_CC_ENV, timeout: 60000 });
  if (!ok(t, r, `node ${fn.name}.js`)) return null;
  return JSON.parse(r.stdout);
}

// ---- the child programs (run in the temp projects, not here) --------------

// Raw bytes of a few responses from `server`, one connection each, Date
// normalised.
/* c8 ignore start */
async function fastPathChild() {
  const http = require('node:http');
  const net = require('node:net');
  const path = require('node:path');
  const onewrite = require('onewrite');
  const dir = path.dirname(require.resolve('onewrite/package.json'));

  const get = (port) => new Promise((resolve, reject) => {
    const chunks = [];
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')
      .replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>')));
  });

  const out = { loadedFrom: path.relative(path.dirname(dir), onewrite.status().binary) };
  out.installed = onewrite.install();
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.end('hello from onewrite');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  out.before = onewrite.status().counters;
  out.fast = await get(port);
  out.status = onewrite.status();
  out.uninstalled = onewrite.uninstall();
  out.stock = await get(port);
  server.close();
  process.stdout.write(JSON.stringify(out));
}

async function noBinaryChild() {
  const http = require('node:http');
  const net = require('node:net');
  const proto = http.ServerResponse.prototype;
  const snapshot = () => new Map(Reflect.ownKeys(proto)
    .map((k) => [k, Object.getOwnPropertyDescriptor(proto, k)]));
  const handler = (req, res) => {
    if (req.url === '/end') {
      res.end('hello');
    } else if (req.url === '/head') {
      res.writeHead(201, { 'Content-Type': 'text/plain', 'X-A': '1' });
      res.end('created');
    } else if (req.url === '/chunked') {
      res.setHeader('Content-Type', 'text/plain');
      res.write('a');
      res.write('bb');
      res.end('ccc');
    } else {
      res.statusCode = 404;
      res.end(Buffer.from('not found'));
    }
  };
  const get = (server, url) => new Promise((resolve, reject) => {
    const chunks = [];
    const socket = net.connect(server.address().port, '127.0.0.1', () => {
      socket.write(`GET ${url} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')
      .replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>')));
  });
  const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));

  // A plain server and the prototype, before onewrite is loaded.
  const plain = await listen(http.createServer(handler));
  const before = snapshot();

  const out = { requireError: null };
  let onewrite;
  try {
    onewrite = require('onewrite');
  } catch (err) {
    out.requireError = String(err && err.stack);
    process.stdout.write(JSON.stringify(out));
    return;
  }
  out.status = onewrite.status();
  out.available = onewrite.available;
  out.installed = onewrite.install();
  out.statusAfterInstall = onewrite.status();

  const after = snapshot();
  const changed = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key);
    const b = after.get(key);
    const same = a !== undefined && b !== undefined &&
      ['value', 'get', 'set', 'writable', 'enumerable', 'configurable'].every((f) => a[f] === b[f]);
    if (!same) changed.push(String(key));
  }
  out.prototypeChanged = changed;

  const installed = await listen(http.createServer(handler));
  const subclass = await listen(http.createServer({ ServerResponse: onewrite.ServerResponse }, handler));
  out.responses = [];
  for (const url of ['/end', '/head', '/chunked', '/missing']) {
    out.responses.push({
      url,
      plain: await get(plain, url),
      installed: await get(installed, url),
      subclass: await get(subclass, url),
    });
  }
  out.counters = onewrite.status().counters;
  for (const s of [plain, installed, subclass]) s.close();
  process.stdout.write(JSON.stringify(out));
}
/* c8 ignore stop */

// ---- b. no compiler ---------------------------------------------------------

t.test('c. installs from the tarballs without a C compiler, and the platform package runs', async (t) => {
  if (!packed.main || !packed.platform) {
    t.fail('tests a and b packed nothing to install');
    return;
  }
  t.comment(`PATH for the install and the app: ${NO_CC_BIN} (${describeBin()})`);
  const which = await run('sh', ['-c',
    'for c in cc gcc g++ c++ clang make python python3 node-gyp; do command -v $c; done; true'],
  { cwd: TMP, env: NO_CC_ENV });
  t.equal(which.stdout, '', 'no compiler, make, python or node-gyp reachable on that PATH');

  const { app, ok: installed, r } = await installInto(t, 'app-prebuilt', [packed.main, packed.platform]);
  if (!installed) return;
  t.notMatch(r.stderr, INSTALL_SCRIPT_WARNING, 'no word of install scripts', { stderr: r.stderr });
  const onewriteDir = path.join(app, 'node_modules', 'onewrite');
  t.notOk(fs.existsSync(path.join(onewriteDir, 'build')), 'nothing was compiled (no build/)');
  t.notOk(fs.existsSync(path.join(onewriteDir, 'binding.gyp')), 'no binding.gyp in the package');

  const check = async (what) => {
    const out = await child(t, app, fastPathChild);
    if (out === null) return;
    t.equal(out.loadedFrom, `@onewrite/${KEY}/onewrite.node`, `${what}: the platform package's binary is loaded`);
    t.equal(out.installed, true, `${what}: install() returns true`);
    t.equal(out.status.active, true, `${what}: status().active`);
    t.equal(out.status.reason, null, `${what}: no reason`);
    t.ok(out.status.counters.ends > out.before.ends, `${what}: counters.ends moved: end(data) took the fast path`,
      { before: out.before, after: out.status.counters });
    t.ok(out.status.counters.heads > out.before.heads, `${what}: counters.heads moved`);
    t.equal(out.uninstalled, true, `${what}: uninstall() returns true`);
    t.match(out.fast, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nhello from onewrite$/, `${what}: a whole response`);
    t.equal(out.fast, out.stock, `${what}: the same bytes as Node once uninstalled`);
  };
  await check('npm install');

  // Installed again from the lockfile that install wrote, as a deploy
  // does: npm then reads the package from disk, and would run node-gyp
  // were there a binding.gyp in it.
  fs.rmSync(path.join(app, 'node_modules'), { recursive: true, force: true });
  const ci = await npm(['ci', '--foreground-scripts', '--no-audit', '--no-fund'], app, NO_CC_ENV);
  if (!ok(t, ci, 'npm ci, from the lockfile, without a compiler')) return;
  t.notMatch(ci.stderr, INSTALL_SCRIPT_WARNING, 'npm ci: no word of install scripts');
  await check('npm ci');

  // The installed package's types resolve for a TypeScript user.
  const usage = path.join(app, 'usage.ts');
  fs.copyFileSync(path.join(__dirname, 'types', 'usage.ts'), usage);
  fs.symlinkSync(path.join(ROOT, 'node_modules', '@types'), path.join(app, 'node_modules', '@types'));
  const types = await run(NODE, [TSC, '--noEmit', '--strict', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--types', 'node', '--skipLibCheck', '--pretty', 'false', usage],
  { cwd: app, env: { PATH: DEV_PATH } });
  ok(t, types, 'tsc --strict accepts test/types/usage.ts against the installed package');

  // The bin, as npm linked it: `onewrite compare` runs the byte check from
  // the installed package (its own register.js), and as autocannon, an
  // optional peer dependency, was not installed with it, ends with the
  // line that says the load rounds were skipped and how to get them: the
  // byte check passed, so the run did what it could (exit 0).
  t.notOk(fs.existsSync(path.join(app, 'node_modules', 'autocannon')), 'autocannon was not installed with onewrite');
  const compare = await compareIn(app);
  t.equal(compare.code, 0, 'npx onewrite compare without autocannon: the byte check passed, exit status 0',
    { stdout: compare.stdout, stderr: compare.stderr });
  t.match(compare.stdout, /\n {2}\/ +identical +\d+ bytes +fast paths: head, end\n/, 'the byte check ran on the installed package');
  t.match(compare.stdout, /\nLoad rounds skipped: autocannon is not installed \(npm install --no-save autocannon\)\.\n$/,
    'and ends with the line that says the load rounds were skipped, and how to get them');
});

t.test('d. the main package alone: it loads, stays off, says what to do, and changes nothing', async (t) => {
  if (!packed.main) {
    t.fail('test a packed nothing to install');
    return;
  }
  // As with --omit=optional, or a lockfile made without the platform
  // package: npm leaves it out (and asks no registry for it).
  const { app, ok: installed, r } = await installInto(t, 'app-nobin', [packed.main], ['--omit=optional']);
  if (!installed) return;
  t.notMatch(r.stderr, INSTALL_SCRIPT_WARNING, 'no word of install scripts');
  t.notOk(fs.existsSync(path.join(app, 'node_modules', '@onewrite')), 'no platform package');
  t.notOk(fs.existsSync(path.join(app, 'node_modules', 'onewrite', 'build')), 'no build/');

  const out = await child(t, app, noBinaryChild);
  if (out === null) return;
  t.equal(out.requireError, null, "require('onewrite') does not throw");
  if (out.requireError !== null) return;
  t.equal(out.available, false, 'available is false');
  t.equal(out.status.available, false, 'status().available is false');
  t.equal(out.status.active, false, 'status().active is false');
  t.equal(out.status.reason, `the native addon could not be loaded: its binary package, ${PLATFORM_PKG}, is not installed`,
    'status().reason says why');
  t.match(out.status.remedy, new RegExp(`^npm install --no-save ${PLATFORM_PKG}@\\d+\\.\\d+\\.\\d+ \\(npm leaves it out under --omit=optional`),
    'status().remedy: the command to copy');
  t.equal(out.status.binary, null, 'status().binary: none');
  t.equal(out.installed, false, 'install() returns false');
  t.equal(out.statusAfterInstall.active, false, 'still not active');
  t.same(out.prototypeChanged, [], 'http.ServerResponse.prototype untouched');
  for (const r of out.responses) {
    t.match(r.plain, /^HTTP\/1\.1 \d{3} /, `${r.url}: a response`);
    t.equal(r.installed, r.plain, `${r.url}: same bytes as a plain server after install()`);
    t.equal(r.subclass, r.plain, `${r.url}: same bytes with onewrite's ServerResponse`);
  }
  t.same(out.counters, {
    heads: 0, headsToNode: 0, ends: 0, endsToNode: 0, writes: 0, writesToNode: 0,
    requestHeads: 0, requestHeadsToNode: 0, requestEnds: 0, requestEndsToNode: 0, requestFlushes: 0,
    requestFlushesToNode: 0,
  }, 'no fast path ran');

  // `onewrite compare` says why there is nothing to compare.
  const compare = await compareIn(app);
  t.equal(compare.code, 1, 'onewrite compare: exit status 1', { stdout: compare.stdout, stderr: compare.stderr });
  t.match(compare.stderr, /onewrite is not active in the app: the native addon could not be loaded/, 'and why');

  // onewrite/register says once that it is off, with a code; says nothing
  // when that was asked for; and fails the start under ONEWRITE_STRICT=1.
  const node = (args, env = {}) => run(process.execPath, args, { cwd: app, env: { ...NO_CC_ENV, ...env }, timeout: 60000 });
  const warning = /\[ONEWRITE_INACTIVE\] Warning: onewrite is not active: the native addon could not be loaded: .*; Node's own code serves every response\. To turn it on: npm install --no-save @onewrite\/[a-z0-9-]+@\d+\.\d+\.\d+ \(npm leaves it out/;
  for (const [label, args] of [['-r', ['-r', 'onewrite/register', '-e', '1']],
    ['--import', ['--import', 'onewrite/register', '-e', '1']]]) {
    const r = await node(args);
    t.equal(r.code, 0, `${label} onewrite/register: the app starts`);
    t.match(r.stderr, warning, `${label}: the warning, with its code`);
    t.equal(r.stderr.split('ONEWRITE_INACTIVE').length - 1, 1, `${label}: once`);
  }
  const quiet = await node(['-r', 'onewrite/register', '-e', '1'], { ONEWRITE_DISABLE: '1' });
  t.equal(quiet.stderr, '', 'ONEWRITE_DISABLE=1: no warning');
  const strict = await node(['-r', 'onewrite/register', '-e', 'console.log("started")'], { ONEWRITE_STRICT: '1' });
  t.not(strict.code, 0, 'ONEWRITE_STRICT=1: the start fails');
  t.notMatch(strict.stdout, /started/, 'before the app runs');
  t.match(strict.stderr, /code: 'ONEWRITE_INACTIVE'/, 'with the code');
});
