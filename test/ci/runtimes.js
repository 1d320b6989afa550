'use strict';

// Bun and Deno run npm packages, Node-API addons and a node:http of their
// own, without Node's internals.  onewrite there: require() and install()
// do not throw, nothing is patched and no binary is loaded, status().reason
// names the runtime (and what it lacks), there is no remedy to print, the
// register entry point warns once, and the app answers as it does without
// onewrite.  The runtimes come from the npm registry (@oven/bun-linux-x64,
// @deno/linux-x64-glibc) into a cache folder.  CI runs it (.ci/run).

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { tool } = require('../helpers/tools');

const ROOT = path.join(__dirname, '..', '..');
const RUNTIMES = {
  Bun: {
    bin: path.join(tool('@oven/bun-linux-x64@1.4.5'), 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun'),
    run: (file) => [file],
  },
  Deno: {
    bin: path.join(tool('@deno/linux-x64-glibc@2.9.6'), 'node_modules', '@deno', 'linux-x64-glibc', 'deno'),
    run: (file) => ['run', '--allow-all', file],
  },
};

t.setTimeout(300000); // two runtimes, each fetched once from the npm registry

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-runtimes-'));
t.teardown(() => fs.rmSync(TMP, { recursive: true, force: true }));

// The app: a server answered with and without onewrite (install() on, then
// off), the prototype compared, the addons the process loaded.
const APP = path.join(TMP, 'app.cjs');
fs.writeFileSync(APP, `'use strict';
const http = require('node:http');
const proto = http.ServerResponse.prototype;
const snapshot = () => Reflect.ownKeys(proto).map((k) => {
  const d = Object.getOwnPropertyDescriptor(proto, k);
  return [String(k), d.value, d.get, d.set];
});
const get = (port) => new Promise((resolve, reject) => {
  http.get('http://127.0.0.1:' + port + '/', (res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
  }).on('error', reject);
});
(async () => {
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.end('hello');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const before = snapshot();
  const plain = await get(server.address().port);
  const onewrite = require(${JSON.stringify(ROOT)});
  const installed = onewrite.install();
  const changed = snapshot().filter((now, i) => before[i] === undefined || now.some((x, j) => x !== before[i][j]))
    .map(([k]) => k);
  const withIt = await get(server.address().port);
  server.close();
  const addons = Object.keys(require.cache || {}).filter((f) => f.endsWith('.node'));
  console.log(JSON.stringify({ installed, status: onewrite.status(), changed, plain, withIt, addons }));
})().catch((err) => { console.error(err); process.exit(1); });
`);

for (const [name, { bin, run }] of Object.entries(RUNTIMES)) {
  t.test(`${name}: onewrite stays off, says why, and the app is unchanged`, async (t) => {
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
    t.comment(`${name}: ${version}`);
    const r = spawnSync(bin, run(APP), { encoding: 'utf8', cwd: TMP, timeout: 60000, env: { PATH: process.env.PATH, HOME: os.homedir() } });
    t.equal(r.status, 0, `${name} runs the app`, { stderr: r.stderr });
    const out = JSON.parse(r.stdout);
    t.equal(out.installed, false, 'install() returns false');
    t.equal(out.status.active, false, 'not active');
    t.equal(out.status.available, false, 'not available');
    t.match(out.status.reason, new RegExp(`^${name} \\d+\\.\\d+\\.\\d+ is not Node\\.js`), 'the reason names the runtime');
    t.comment(`reason: ${out.status.reason}`);
    t.equal(out.status.remedy, null, 'nothing to remedy');
    t.equal(out.status.binary, null, 'no binary loaded');
    t.same(out.status.left, {}, 'no fast method listed as left out');
    t.same(out.changed, [], 'ServerResponse.prototype untouched');
    t.same(out.addons, [], 'no native addon loaded');
    t.same(out.withIt, out.plain, 'the same answer as without onewrite');
    t.same(out.plain, { status: 200, type: 'text/plain', body: 'hello' }, 'which is the app\'s');
  });
}
