'use strict';

// Server instructions per request, stock against onewrite: the figure that
// stays put on a noisy machine.  Each server runs under
// `valgrind --tool=callgrind` with counting off; a fixed client
// (autocannon, --c connections) sends --warm requests, counting is switched
// on (callgrind_control -i on), exactly --n requests are sent, the counts
// are dumped, and the user-space instructions of the server process (all
// its threads) are divided by --n.  Repeatable to about 1-2 %.
//
//   npm run bench:instr
//   node benchmark/instr.js --bench=simple,realistic --node=/path/to/node
//   options: --n=20000 --warm=20000 --c=50 --repeat=1 --ceiling
//            (--bench takes the names of compare.js)
//
// Needs valgrind (callgrind, callgrind_control).

const { spawnSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const b = require('./lib/bench');
const { server: benchServer } = require('./lib/servers');

const opts = b.parseArgs(process.argv.slice(2), {
  bench: 'simple,realistic', n: 20000, warm: 20000, c: 50, repeat: 1, ceiling: false,
  node: process.execPath, out: path.join(__dirname, 'results'),
});

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('valgrind is not installed: apt-get install valgrind');
  process.exit(1);
}

const HERE = __dirname;
function control(pid, ...args) {
  const r = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} failed: ${r.stderr}`);
}

// Instructions per request of one server (script, args) run as `variant`.
async function count(name, variant) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-cg-'));
  const def = variant === 'ceiling' ? { script: path.join(HERE, 'ceiling.js'), args: [], path: '/' } : benchServer(name);
  const server = await b.startServer({
    node: opts.node,
    preload: variant === 'onewrite' ? ['onewrite/register'] : [],
    script: def.script,
    args: def.args,
    wrap: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dir}/cg.%p`],
    timeout: 300000,
  });
  try {
    // A slow server under valgrind: no request may time out.
    const load = { path: def.path, connections: opts.c, timeout: 300 };
    await b.measure(server, { ...load, amount: opts.warm });
    control(server.pid, '-i', 'on');
    const r = await b.measure(server, { ...load, amount: opts.n });
    control(server.pid, '-d');
    const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
    let instructions = 0;
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      if (!/^desc: Trigger: dump/m.test(text)) continue;
      const m = /^summary: (\d+)/m.exec(text) || /^totals: (\d+)/m.exec(text);
      instructions += Number(m[1]);
    }
    // Under valgrind a connection now and then fails (a server slowed down
    // 50x meets its own timeouts): the count is per answered request, and
    // more than 1 % failures void the run.
    if (r.non2xx > 0 || r.requests < opts.n * 0.99) {
      throw new Error(`the client got ${r.requests} answers (${r.non2xx} non-2xx, ${r.errors} errors) for ${opts.n} requests`);
    }
    if (r.errors > 0) process.stderr.write(`\n(${variant}: ${r.errors} failed requests of ${opts.n})\n`);
    return instructions / r.requests;
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const version = b.nodeVersion(opts.node);
  const names = String(opts.bench).split(',');
  const variants = ['stock', 'onewrite', ...(opts.ceiling ? ['ceiling'] : [])];
  const results = {};
  console.log(`server instructions per request (callgrind, user space, all threads), Node ${version}: ` +
    `${opts.warm} warm-up requests, then ${opts.n} counted, ${opts.c} connections`);
  for (const name of names) {
    benchServer(name); // throws for an unknown name
    results[name] = {};
    for (let i = 0; i < opts.repeat; i++) {
      for (const v of variants) {
        if (v === 'ceiling' && name !== names[0]) continue;
        b.progress(`${name}: ${v} (${i + 1}/${opts.repeat}) under callgrind ...`);
        (results[name][v] ||= []).push(await count(name, v));
      }
    }
    b.progressDone();
    const stock = b.median(results[name].stock);
    const line = Object.entries(results[name]).map(([v, xs]) =>
      `${v} ${Math.round(b.median(xs))}${v === 'stock' ? '' : ` (${(b.median(xs) / stock).toFixed(2)}x)`}`).join(', ');
    console.log(`${name.padEnd(13)} ${line}`);
  }
  fs.mkdirSync(opts.out, { recursive: true });
  const file = path.join(opts.out, `instr-node${version}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ node: version, options: opts, results }, null, 2));
  console.log(`raw results: ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
