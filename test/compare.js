'use strict';

// `npx onewrite compare`, run as a user runs it (bin/onewrite.js in a child,
// clean environment) against a small Express app and a small Fastify app:
// the byte check says identical for every path and names the fast paths
// each answer used and what was handed over to Node and why; the load
// rounds print CPU per request and req/s with numbers; the chart is an SVG.
// An app on a fixed port that prints nothing is found by the port its
// process listens on, quickly, and --port names the port among several.
// Without autocannon (an optional peer dependency) the byte check is the
// run: exit 0 and one line that says the load rounds were skipped and how
// to get them; a difference still exits 1.
// Then what a user meets when something is off: an answer that differs
// (exit 1, the difference shown, no load), an answer that varies by
// itself, an app that dies before it listens or during the load, a wrong
// command line.
//
// Short rounds (the plumbing, not the gain: the machine is shared).

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const net = require('node:net');
const { spawn } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'onewrite.js');
const FIXTURES = path.join(__dirname, 'fixtures');
const PATHS = ['/', '/json', '/hex', '/latin1'];
const SHORT = ['--rounds=2', '--duration=1', '--warmup=0', '--connections=10'];

// About 40 s of comparisons: more than tap's 30 s when run as `node test/compare.js`.
t.setTimeout(300000);

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-compare-test-'));
t.teardown(() => fs.rmSync(TMP, { recursive: true, force: true }));

// bin/onewrite.js (or `bin`) with `args`, under `env -i` (tap's hooks in
// NODE_OPTIONS stay out of the command and of the apps it starts).
function onewrite(args, { cwd = TMP, timeout = 60000, bin = BIN, home = os.homedir() } = {}) {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/env', ['-i', `PATH=${process.env.PATH}`, `HOME=${home}`,
      process.execPath, bin, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Too long: SIGTERM first, so that it stops the apps it started.
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10000).unref();
    }, timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// Ports nothing listens on now, for an app to listen on.
async function freePorts(n) {
  const servers = [];
  for (let i = 0; i < n; i++) {
    const server = net.createServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

// The byte check's line for a path.
function lineOf(stdout, p) {
  return stdout.split('\n').find((l) => l.startsWith(`  ${p} `)) || '';
}

for (const framework of ['express', 'fastify']) {
  t.test(`${framework}: same bytes, the fast paths named, the figures and the chart`, async (t) => {
    const out = path.join(TMP, `${framework}.svg`);
    const r = await onewrite(['compare', path.join(FIXTURES, `${framework}-app.js`),
      ...PATHS.flatMap((p) => ['--path', p]), ...SHORT, `--out=${out}`]);
    t.comment(r.stdout);
    t.equal(r.code, 0, 'exit status 0', { stderr: r.stderr.slice(-3000) });

    for (const p of PATHS) t.match(lineOf(r.stdout, p), /^ {2}\S+\s+identical\s+\d+ bytes/, `${p}: identical`);
    for (const p of ['/', '/json']) {
      t.match(lineOf(r.stdout, p), /fast paths: head, end$/, `${p}: head and end took the fast paths, nothing handed over`);
    }
    const hex = lineOf(r.stdout, '/hex');
    t.match(hex, /fast paths: head;/, '/hex: the head took the fast path');
    t.match(hex, /handed over to Node: end;/, "/hex: end(str, 'hex') was handed over to Node");
    const latin1 = lineOf(r.stdout, '/latin1');
    t.match(latin1, /fast paths: end;/, '/latin1: the end took the fast path');
    t.match(latin1, /handed over to Node: head;/, '/latin1: the latin1 head was handed over to Node');
    // The reason for each hand-over, by name (status().fallbacks).
    t.match(hex, /; why: [^;]*\bencoding hex\b/, '/hex: the reason is named: encoding hex');
    t.match(latin1, /; why: [^;]*\bnon-ascii head\b/, '/latin1: the reason is named: non-ascii head');

    const rows = r.stdout.split('\n').filter((l) => /^ +\d+ \| +[\d.]+ us +[\d.]+k? \| +[\d.]+ us +[\d.]+k? \| +[\d.]+x +[\d.]+x$/.test(l));
    t.equal(rows.length, 2, 'one line per round, with CPU/req, req/s and the ratios');
    const cpu = /^ {2}server CPU per request: stock ([\d.]+) us, onewrite ([\d.]+) us, ([\d.]+)x \(lower is better; per round [\d.]+ [\d.]+, spread \d+%\)$/m.exec(r.stdout);
    t.ok(cpu, 'the CPU time per request line');
    if (cpu) t.ok(cpu.slice(1).every((x) => Number(x) > 0), `CPU per request figures are positive: ${cpu.slice(1)}`);
    const rps = /^ {2}req\/s: +stock ([\d.]+)(k?), onewrite ([\d.]+)(k?), ([\d.]+)x \(higher is better; per round [\d.]+ [\d.]+, spread \d+%\)$/m.exec(r.stdout);
    t.ok(rps, 'the req/s line');
    if (rps) t.ok(Number(rps[1]) > 0 && Number(rps[3]) > 0 && Number(rps[5]) > 0, `req/s figures are positive: ${rps[0]}`);

    t.match(r.stdout, new RegExp(`^chart: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), 'says where the chart went');
    const svg = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
    t.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^>]*>\n[^]*<\/svg>\n$/, 'the chart is an SVG document');
    t.match(svg, /server CPU per request/, 'charting CPU per request');
    t.match(svg, /requests per second/, 'and req/s');
  });
}

const FIXED = path.join(FIXTURES, 'fixed-port-app.js');
const ONE_ROUND = ['--rounds=1', '--duration=0.5', '--warmup=0', '--connections=10'];
const HAS_PROC = fs.existsSync('/proc/self/net/tcp');

t.test('an app on a fixed port that prints nothing: found by the port its process listens on, quickly', async (t) => {
  const [port] = await freePorts(1);
  const started = Date.now();
  const r = await onewrite(['compare', FIXED, ...ONE_ROUND, `--out=${path.join(TMP, 'fixed.svg')}`, '--', String(port)]);
  const seconds = (Date.now() - started) / 1000;
  if (!HAS_PROC) {
    // Nothing tells the port there: the error says what to do.
    t.equal(r.code, 1, 'without /proc: exit status 1');
    t.match(r.stderr, /pass it with --port=N/, 'and the error names --port');
    return;
  }
  t.equal(r.code, 0, 'exit status 0', { stderr: r.stderr.slice(-3000) });
  t.match(lineOf(r.stdout, '/'), /identical\s+\d+ bytes\s+fast paths: head, end$/, 'the byte check ran on it');
  t.match(r.stdout, /^ {2}server CPU per request: stock [\d.]+ us, onewrite [\d.]+ us/m, 'and the load');
  // Four starts of the app (two for the byte check, one per variant and
  // round), where each waited 30 s for a port before.
  t.ok(seconds < 20, `four starts and 1 s of load took ${seconds.toFixed(1)} s, well under one 30 s wait`);
});

t.test('--port names the port to load among the several an app listens on', async (t) => {
  const [port, admin] = await freePorts(2);
  const started = Date.now();
  const unsure = await onewrite(['compare', FIXED, ...ONE_ROUND, '--', String(port), String(admin)]);
  const seconds = (Date.now() - started) / 1000;
  t.equal(unsure.code, 1, 'two ports and no --port: exit status 1');
  if (HAS_PROC) {
    const [low, high] = [port, admin].sort((a, b) => a - b);
    t.match(unsure.stderr, `listens on ports ${low} and ${high}`, 'names both ports');
    t.ok(seconds < 15, `says so soon: ${seconds.toFixed(1)} s`);
  }
  t.match(unsure.stderr, /--port=N/, 'and says how to choose');

  const chosen = await onewrite(['compare', FIXED, `--port=${admin}`, ...ONE_ROUND, `--out=${path.join(TMP, 'admin.svg')}`,
    '--', String(port), String(admin)]);
  t.equal(chosen.code, 0, '--port: exit status 0', { stderr: chosen.stderr.slice(-3000) });
  // The admin server's answer is the long one (over 400 bytes; the app's
  // is under 100).
  const bytes = Number((/identical\s+(\d+) bytes/.exec(lineOf(chosen.stdout, '/')) || [])[1]);
  t.ok(bytes > 400, `the byte check asked the port --port named (${bytes} bytes)`);
  t.match(chosen.stdout, /^ {2}server CPU per request: stock [\d.]+ us/m, 'and the load ran');
});

t.test('a port the app prints that another process listens on is not taken for the app\'s', async (t) => {
  // The app logs its cache's port (a server of this test's) and listens on
  // its own fixed port silently.
  const cache = http.createServer((req, res) => res.end(`the cache${'.'.repeat(400)}`));
  await new Promise((resolve) => cache.listen(0, '127.0.0.1', resolve));
  t.teardown(() => cache.close());
  const [own] = await freePorts(1);
  const app = path.join(TMP, 'logs-a-port.js');
  fs.writeFileSync(app, `
console.log('cache at http://127.0.0.1:${cache.address().port}');
require('node:http').createServer((req, res) => res.end('fixed port')).listen(${own}, '127.0.0.1');
`);
  const r = await onewrite(['compare', app, ...ONE_ROUND, `--out=${path.join(TMP, 'logs.svg')}`]);
  if (!HAS_PROC) {
    t.equal(r.code, 0, 'without /proc the printed port is all there is to go by');
    return;
  }
  t.equal(r.code, 0, 'exit status 0', { stderr: r.stderr.slice(-3000) });
  const bytes = Number((/identical\s+(\d+) bytes/.exec(lineOf(r.stdout, '/')) || [])[1]);
  t.ok(bytes > 0 && bytes < 200, `the byte check asked the app, not the cache (${bytes} bytes)`);
});

t.test('--port where another server listens already: refused before the app starts', async (t) => {
  const other = net.createServer((socket) => socket.destroy());
  await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.teardown(() => other.close());
  const { port } = other.address();
  const r = await onewrite(['compare', FIXED, `--port=${port}`, ...ONE_ROUND, '--', String(port)]);
  t.equal(r.code, 1, 'exit status 1');
  t.match(r.stderr, `something already listens on --port=${port} before the app starts`, 'says so, naming the port');
  t.notMatch(r.stdout, /identical/, 'and compares nothing');
});

t.test('an answer that differs is reported as a bug, with the difference, and no load runs', async (t) => {
  // A stand-in for a onewrite bug: /tell answers differently when end() is
  // onewrite's (Node's own calls its write_()).  The app ignores PORT and
  // prints the port it got.
  const app = path.join(TMP, 'differs.js');
  fs.writeFileSync(app, `
const http = require('node:http');
const server = http.createServer((req, res) => {
  if (req.url === '/tell') res.end(String(http.OutgoingMessage.prototype.end).includes('write_(') ? 'stock' : 'patched');
  else if (req.url === '/random') res.end(String(Math.random()));
  else res.end('same');
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`);
  const r = await onewrite(['compare', app, '--path=/', '--path=/tell', '--path=/random', ...SHORT]);
  t.equal(r.code, 1, 'exit status 1');
  t.match(lineOf(r.stdout, '/'), /identical/, '/ is identical (found on the port the app printed)');
  t.match(lineOf(r.stdout, '/tell'), /DIFFERENT/, '/tell is reported different');
  // 'stock' and 'patched' differ first in their Content-Length.
  t.match(r.stdout, /first difference at byte \d+ \(line 4; lengths 76 and 78\):\n +- stock: +"Content-Length: 5\\r\\n"\n +\+ onewrite: +"Content-Length: 7\\r\\n"\n/,
    'the first difference, both sides');
  t.match(lineOf(r.stdout, '/random'), /varies/, '/random varies between two stock answers');
  t.match(r.stdout, /two stock answers differ already/, 'and is not blamed on onewrite');
  t.match(r.stdout, /this is a bug in onewrite/, 'the difference is called a bug in onewrite');
  t.notMatch(r.stdout, /^Load:/m, 'no load was run');
});

t.test('without autocannon: the byte check alone, exit 0, the skipped load said; a difference still exits 1', async (t) => {
  // onewrite as a user without autocannon has it: the package's files
  // (and this checkout's binary) in a folder with no node_modules above it,
  // run from another such folder, HOME one too (~/.node_modules).
  const pkg = path.join(TMP, 'no-autocannon', 'node_modules', 'onewrite');
  for (const f of ['package.json', 'index.js', 'register.js', 'register.mjs', 'lib', 'cli', 'bin']) {
    fs.cpSync(path.join(ROOT, f), path.join(pkg, f), { recursive: true });
  }
  const binary = require('../lib/native').file;
  if (!binary) return t.fail('no onewrite binary loads here: nothing to compare');
  fs.mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true });
  fs.copyFileSync(binary, path.join(pkg, 'build', 'Release', 'onewrite.node'));
  const home = path.join(TMP, 'no-autocannon', 'home');
  fs.mkdirSync(home);
  const findable = (() => {
    try {
      return require.resolve('autocannon', { paths: [path.join(pkg, 'cli', 'compare'), home] });
    } catch {
      return null;
    }
  })();
  if (findable) return t.fail(`autocannon is found from ${pkg} anyway (${findable}): cannot hide it here`);

  const app = path.join(TMP, 'plain.js');
  fs.writeFileSync(app, `
require('node:http').createServer((req, res) => res.end('hello')).listen(Number(process.env.PORT), '127.0.0.1');
`);
  const bin = path.join(pkg, 'bin', 'onewrite.js');
  const r = await onewrite(['compare', app, '--path', '/'], { bin, home, cwd: home });
  t.equal(r.code, 0, 'the byte check passed: exit status 0', { stdout: r.stdout, stderr: r.stderr.slice(-3000) });
  t.match(lineOf(r.stdout, '/'), /identical\s+\d+ bytes\s+fast paths: head, end$/, 'the byte check ran');
  t.match(r.stdout, /^Load rounds skipped: autocannon is not installed \(npm install --no-save autocannon\)\.$/m,
    'one line says the load rounds were skipped, and how to get them');
  t.notMatch(r.stdout, /^Load:/m, 'no load was run');
  t.notMatch(r.stdout, /^chart:/m, 'and no chart written');

  // A difference is still a failure (a stand-in bug, as in the test below).
  const differs = path.join(TMP, 'differs-alone.js');
  fs.writeFileSync(differs, `
const http = require('node:http');
http.createServer((req, res) => res.end(String(http.OutgoingMessage.prototype.end).includes('write_(') ? 'stock' : 'patched'))
  .listen(Number(process.env.PORT), '127.0.0.1');
`);
  const d = await onewrite(['compare', differs, '--path', '/'], { bin, home, cwd: home });
  t.equal(d.code, 1, 'an answer that differs: exit status 1, autocannon or not');
  t.match(lineOf(d.stdout, '/'), /DIFFERENT/, 'reported different');
  t.notMatch(d.stdout, /Load rounds skipped/, 'and not passed off as a byte check that passed');
});

t.test('an app that dies before it listens: a clear error with its output', async (t) => {
  const app = path.join(TMP, 'dies.js');
  fs.writeFileSync(app, "console.error('cannot find the database'); process.exit(3);\n");
  const r = await onewrite(['compare', app]);
  t.equal(r.code, 1, 'exit status 1');
  t.match(r.stderr, /exited \(code 3\) before it listened/, 'says the app exited before listening');
  t.match(r.stderr, /cannot find the database/, "shows the app's output");
});

t.test('an app that dies during the load: a clear error with its output', async (t) => {
  // Answers the byte check's few requests, then exits under the load.
  const app = path.join(TMP, 'dies-later.js');
  fs.writeFileSync(app, `
let n = 0;
require('node:http').createServer((req, res) => {
  if (++n > 200) { console.error('the pool is exhausted'); process.exit(4); }
  res.end('same');
}).listen(Number(process.env.PORT), '127.0.0.1');
`);
  const r = await onewrite(['compare', app, ...SHORT]);
  t.equal(r.code, 1, 'exit status 1');
  t.match(r.stdout, /identical/, 'the byte check passed first');
  t.match(r.stderr, /the app( with onewrite| \(stock\)): exited during the load \(code 4\)/,
    'names the app and says it exited during the load');
  t.match(r.stderr, /--- its output \(last lines\) ---\nthe pool is exhausted/, "shows the app's output");
});

t.test('the command line', async (t) => {
  const unknown = await onewrite(['compare', path.join(FIXTURES, 'express-app.js'), '--bogus=1']);
  t.equal(unknown.code, 2, 'an unknown flag: exit status 2');
  t.match(unknown.stderr, /unknown option --bogus; valid options: --path, --port, --rounds, --duration, --warmup, --connections, --node, --out, --help/,
    'names the flag and lists the valid ones');

  const help = await onewrite(['compare', '--help']);
  t.equal(help.code, 0, '--help: exit status 0');
  t.match(help.stdout, /^Usage: npx onewrite compare <app\.js>/, 'the usage line');
  for (const flag of ['--path', '--port', '--rounds', '--duration', '--warmup', '--connections', '--node', '--out', '--help']) {
    t.match(help.stdout, new RegExp(`\\n {2}(-h, )?${flag}\\b`), `--help describes ${flag}`);
  }

  const noApp = await onewrite(['compare']);
  t.equal(noApp.code, 2, 'no app: exit status 2');
  t.match(noApp.stderr, /which app\?/, 'asks which app');
  const missing = await onewrite(['compare', path.join(TMP, 'nope.js')]);
  t.equal(missing.code, 2, 'no such script: exit status 2');
  t.match(missing.stderr, /no such app script/, 'says so');
  const bad = await onewrite(['compare', path.join(FIXTURES, 'express-app.js'), '--rounds=0']);
  t.equal(bad.code, 2, '--rounds=0: exit status 2');
  t.match(bad.stderr, /--rounds must be a whole number >= 1/, 'says what it must be');
  const badPort = await onewrite(['compare', path.join(FIXTURES, 'express-app.js'), '--port=70000']);
  t.equal(badPort.code, 2, '--port=70000: exit status 2');
  t.match(badPort.stderr, /--port must be a whole number from 1 to 65535/, 'says what a port is');

  const top = await onewrite(['--help']);
  t.equal(top.code, 0, 'onewrite --help: exit status 0');
  t.match(top.stdout, /compare <app\.js> \[options\]/, 'lists the compare command');
  const other = await onewrite(['frobnicate']);
  t.equal(other.code, 2, 'an unknown command: exit status 2');
  t.match(other.stderr, /unknown command frobnicate/, 'says so');
});
