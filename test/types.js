'use strict';

// index.d.ts: test/types/usage.ts and usage-esm.mts import the package by
// its name (through the "exports" map's "types" condition), use every API
// with correct types and mark wrong usage with @ts-expect-error; `tsc
// --noEmit --strict` must accept them.  Then the declarations are broken on
// purpose, one way at a time, in a copy of the package, and tsc must reject
// the same files: the check has teeth.  Last, the names index.d.ts exports
// must be exactly what index.js exports.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const TYPES = path.join(__dirname, 'types');
const DTS = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8');

const { TSC, version: tscVersion } = require('./helpers/tsc');

// tsc (the typescript devDependency) in a clean environment (env -i): tap puts its coverage hooks in
// NODE_OPTIONS, which a child Node should not inherit.
function tsc(project, ...flags) {
  const r = spawnSync('env', [
    '-i', `PATH=${path.dirname(process.execPath)}:/usr/bin:/bin`, `HOME=${os.homedir()}`,
    process.execPath, TSC, '-p', project, '--noEmit', '--strict', '--pretty', 'false', ...flags,
  ], { encoding: 'utf8', timeout: 120000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}`, error: r.error };
}

t.test(`tsc ${tscVersion} accepts test/types/*.ts against index.d.ts`, (t) => {
  const r = tsc(path.join(TYPES, 'tsconfig.json'));
  t.equal(r.error, undefined, 'tsc ran');
  t.equal(r.status, 0, 'no type errors', { output: r.output });
  t.end();
});

// A copy of what tsc needs: package.json, index.js, a (broken) index.d.ts,
// the usage files; node_modules is the project's (for @types/node).
function brokenCopy(t, edit) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-types-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  fs.copyFileSync(path.join(ROOT, 'index.js'), path.join(dir, 'index.js'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  fs.cpSync(TYPES, path.join(dir, 'test', 'types'), { recursive: true });
  const dts = edit(DTS);
  if (dts !== null) fs.writeFileSync(path.join(dir, 'index.d.ts'), dts);
  return path.join(dir, 'test', 'types', 'tsconfig.json');
}

const BREAKAGES = [
  ['no index.d.ts at all', () => null],
  ['buildHead takes any status code',
    (d) => d.replace(/statusCode: number,/, 'statusCode: any,')],
  ['status().active is not a boolean',
    (d) => d.replace(/active: true;/, 'active: string;')],
  ['an unavailable status may have no reason',
    (d) => d.replace(/(export interface StatusUnavailable[^}]*reason: )string;/, '$1string | null;')],
  ['a counter is missing',
    (d) => d.replace(/\n\s*ends: number;/, '\n')],
  ['ServerResponse is not an http.ServerResponse',
    (d) => d.replace(/> extends http\.ServerResponse<Request> \{\}/, '> {}')],
  ['install() returns a string',
    (d) => d.replace(/export function install\(options\?: InstallOptions\): boolean;/,
      'export function install(options?: InstallOptions): string;')],
  ['install() takes any client option',
    (d) => d.replace(/ {2}client\?: boolean;\n\}/, '  client?: unknown;\n}')],
  ['buildHead accepts any encoding',
    (d) => d.replace(/encoding\?: BodyEncoding \| undefined;/, 'encoding?: string | undefined;')],
];

// Control: the copy itself, unbroken, passes (so a failure below is the
// breakage's doing, not the copy's).
t.test('tsc accepts an unbroken copy', (t) => {
  const r = tsc(brokenCopy(t, (d) => d), '--skipLibCheck');
  t.equal(r.error, undefined, 'tsc ran');
  t.equal(r.status, 0, 'no type errors', { output: r.output });
  t.end();
});

for (const [name, edit] of BREAKAGES) {
  t.test(`tsc rejects the usage files when ${name}`, (t) => {
    const broken = edit(DTS);
    if (broken !== null) t.not(broken, DTS, 'the breakage applies to index.d.ts');
    // index.d.ts itself was checked above; @types/node need not be again.
    const r = tsc(brokenCopy(t, edit), '--skipLibCheck');
    t.equal(r.error, undefined, 'tsc ran');
    t.not(r.status, 0, 'type errors reported');
    t.match(r.output, /error TS\d+/, 'with a TS error code');
    t.end();
  });
}

t.test('index.d.ts declares exactly the values index.js exports', (t) => {
  const declared = new Set();
  for (const m of DTS.matchAll(/^export (?:declare )?(?:function|const|let|class) (\w+)/gm)) {
    declared.add(m[1]);
  }
  const onewrite = require('..');
  t.same([...declared].sort(), Object.keys(onewrite).sort());
  t.equal(typeof onewrite.available, 'boolean', 'available is a boolean');
  for (const name of declared) {
    if (name !== 'available') t.equal(typeof onewrite[name], 'function', `${name} is a function`);
  }
  t.end();
});
