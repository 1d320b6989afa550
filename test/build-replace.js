'use strict';

// npx onewrite build under a running app: the new binary is put in place
// by a rename, so an app that has the old one loaded keeps its file and
// goes on serving.  Copied over in place (the same inode), the app's
// mapped code would become the new build's bytes: a changed build killed
// the serving app (SIGTRAP).  The "changed build" here is the real binary
// with its .text section filled with int3 (0xCC), handed to
// cli/build.js by a stand-in for node-gyp.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawn, spawnSync } = require('node:child_process');
const { cleanNode } = require('./helpers/child');

const ROOT = path.join(__dirname, '..');
const REAL = path.join(ROOT, 'build', 'Release', 'onewrite.node');

// The file offset and size of an ELF64 file's .text section.
function textSection(bytes) {
  const shoff = Number(bytes.readBigUInt64LE(40));
  const size = bytes.readUInt16LE(58);
  const count = bytes.readUInt16LE(60);
  const names = shoff + bytes.readUInt16LE(62) * size;
  const namesAt = Number(bytes.readBigUInt64LE(names + 24));
  for (let i = 0; i < count; i++) {
    const at = shoff + i * size;
    const nameAt = namesAt + bytes.readUInt32LE(at);
    if (bytes.toString('latin1', nameAt, nameAt + 6) === '.text\0') {
      return [Number(bytes.readBigUInt64LE(at + 24)), Number(bytes.readBigUInt64LE(at + 32))];
    }
  }
  throw new Error('no .text section');
}

function get(port) {
  return new Promise((resolve) => {
    const req = http.get({ port, host: '127.0.0.1', path: '/', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    });
    req.on('error', (err) => resolve(err.code));
  });
}

t.test('a build replaces the binary of a running app by a rename: the app goes on serving', async (t) => {
  if (process.platform !== 'linux' || !fs.existsSync(REAL)) return t.fail(`no ELF build at ${REAL}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-rebuild-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pkg = path.join(dir, 'onewrite');
  for (const f of ['index.js', 'package.json', 'lib', 'cli', 'bin']) fs.cpSync(path.join(ROOT, f), path.join(pkg, f), { recursive: true });
  const local = path.join(pkg, 'build', 'Release', 'onewrite.node');
  fs.mkdirSync(path.dirname(local), { recursive: true });
  fs.copyFileSync(REAL, local);
  const inodeBefore = fs.statSync(local).ino;

  // The changed build, and a node-gyp that "builds" it.
  const changed = fs.readFileSync(REAL);
  const [at, len] = textSection(changed);
  changed.fill(0xcc, at, at + len);
  fs.writeFileSync(path.join(dir, 'changed.node'), changed);
  const gyp = path.join(dir, 'node-gyp.js');
  fs.writeFileSync(gyp, `const fs = require('node:fs'); const path = require('node:path');
const dir = process.argv.find((a) => a.startsWith('--directory=')).slice(12);
fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
fs.copyFileSync(${JSON.stringify(path.join(dir, 'changed.node'))}, path.join(dir, 'build', 'Release', 'onewrite.node'));\n`);

  // The app: onewrite from the copy, every response through the addon.
  const app = path.join(dir, 'app.js');
  fs.writeFileSync(app, `const onewrite = require(${JSON.stringify(pkg)});
const http = require('node:http');
if (!onewrite.install()) throw new Error(onewrite.status().reason);
const server = http.createServer((req, res) => { res.writeHead(200, { 'x-n': String(Math.random()) }); res.end('up'); });
server.listen(0, '127.0.0.1', () => console.log(server.address().port));\n`);
  const child = spawn(...cleanNode([app], {}, { stdio: ['ignore', 'pipe', 'inherit'] }));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(() => child.kill());
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  t.equal(await get(port), '200 up', 'the app serves with the first build');

  const r = spawnSync(process.execPath, [path.join(pkg, 'bin', 'onewrite.js'), 'build'],
    { env: { ...process.env, npm_config_node_gyp: gyp }, encoding: 'utf8' });
  t.equal(fs.readFileSync(local).compare(changed), 0, 'the new build is in place');
  t.not(fs.statSync(local).ino, inodeBefore, 'as a new file: the loaded one is left as it was');
  t.equal(r.status, 1, 'build says the new binary does not work (its code is int3)');
  t.same(fs.readdirSync(path.dirname(local)), ['onewrite.node'], 'nothing left beside it');

  for (let i = 0; i < 3; i++) t.equal(await get(port), '200 up', `the running app still serves (request ${i + 1})`);
  child.kill();
  t.same(await exited, { code: null, signal: 'SIGTERM' }, 'the app lived until it was stopped');
});
