'use strict';

// Shared by the benchmark runners: starting servers (pinned), running the
// client (pinned to the other core), reading CPU time from /proc, the
// statistics, and the SVG chart.

const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const CLIENT = path.join(__dirname, 'client.js');

// Pinning (the server to CPU 0, the client to CPU 1 where taskset exists),
// a process's CPU time from /proc/<pid>/stat (user and system apart:
// onewrite saves user-space work; the syscalls of a response are the
// kernel's either way), medians and number formats: the package's own, as
// `npx onewrite compare` uses them.
const { hasTaskset, cores, SERVER_CPU, CLIENT_CPU, pinned, cpuSeconds } = require('../../cli/compare/cpu');
const { median, fmt } = require('../../cli/compare/stats');

// Start a server script that prints its port on its first stdout line.
// `nodeFlags`: Node's own options; `preload`: modules for -r; `env`: added
// to the environment; `wrap`
// (optional) puts another command in front (valgrind); `cpu` the core it
// is pinned to (the server's unless told: client-instr.js's upstream
// takes the client's).
// Resolves with { pid, port, stop, stderr, stdout, signal, waitForStderr }:
// stop() ends it (SIGTERM) and resolves with its stderr once it has exited
// and its output is all in; stdout() is what it wrote after the port line
// (V8's GC trace, gc-probe.js); signal(name) sends it a signal;
// waitForStderr(re, from, timeout) resolves with the match of `re` in its
// stderr from offset `from` on, once there is one.
function startServer({ node = process.execPath, nodeFlags = [], preload = [], env = {}, script, args = [], wrap = [], timeout = 120000, cpu = SERVER_CPU }) {
  const nodeArgs = [...nodeFlags, ...preload.flatMap((m) => ['-r', m]), script, ...args];
  const [cmd, argv] = wrap.length > 0
    ? pinned(cpu, wrap[0], [...wrap.slice(1), node, ...nodeArgs])
    : pinned(cpu, node, nodeArgs);
  const child = spawn(cmd, argv, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ONEWRITE_DISABLE: '', ...env },
  });
  let stderr = '';
  let stdout = '';
  const waiting = new Set(); // waitForStderr()s not yet answered
  const check = () => {
    for (const w of waiting) w();
  };
  child.stderr.on('data', (d) => {
    stderr += d;
    check();
  });
  const closed = new Promise((done) => child.on('close', done));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), timeout);
    let started = false;
    child.stdout.on('data', (d) => {
      stdout += d;
      const eol = stdout.indexOf('\n');
      if (started || eol === -1) return;
      started = true;
      clearTimeout(timer);
      resolve({
        pid: child.pid,
        port: Number(stdout.slice(0, eol).trim()),
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return closed.then(() => stderr);
        },
        stderr: () => stderr,
        stdout: () => stdout.slice(stdout.indexOf('\n') + 1),
        signal: (name) => child.kill(name),
        waitForStderr: (re, from = 0, ms = 120000) => new Promise((ok, fail) => {
          const t = setTimeout(() => {
            waiting.delete(w);
            fail(new Error(`the server did not say ${re} within ${ms / 1000} s: ${stderr.slice(from)}`));
          }, ms);
          const w = () => {
            const m = re.exec(stderr.slice(from));
            if (m) {
              clearTimeout(t);
              waiting.delete(w);
              ok(m);
            } else if (child.exitCode !== null || child.signalCode !== null) {
              clearTimeout(t);
              waiting.delete(w);
              fail(new Error(`the server exited (${child.exitCode ?? child.signalCode}) before it said ${re}: ${stderr.slice(from)}\n(all its stderr: ${stderr})`));
            }
          };
          waiting.add(w);
          w();
        }),
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      check();
      if (!started) reject(new Error(`server exited (${code}): ${stderr}`));
    });
  });
}

// wrk as the client (faster than autocannon: on two cores it leaves the
// server more room before it saturates its own core).  Runs through bash
// so that the `times` builtin reports wrk's CPU time.
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;
function parseDuration(text) {
  const m = /([\d.]+)(us|ms|s)/.exec(text);
  if (!m) return NaN;
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]];
}
function runWrk(options) {
  const seconds = options.duration;
  const cmd = `${hasTaskset ? `taskset -c ${CLIENT_CPU} ` : ''}wrk -t1 -c${options.connections} ` +
    `-d${seconds}s --latency --timeout ${options.timeout || 10}s '${options.url}'; times`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', cmd], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const total = /(\d+) requests in ([\d.]+)(m?s)/.exec(out);
      if (code !== 0 || !total) return reject(new Error(`wrk failed (${code}): ${out}`));
      const wall = Number(total[2]) * (total[3] === 'ms' ? 0.001 : 1);
      const times = out.trim().split('\n').slice(-1)[0].split(/\s+/); // children: user sys
      const mins = (t) => {
        const m = /(\d+)m([\d.]+)s/.exec(t);
        return Number(m[1]) * 60 + Number(m[2]);
      };
      const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      resolve({
        requests: Number(total[1]),
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]),
        duration: wall,
        p50: parseDuration(/\s50%\s+(\S+)/.exec(out)[1]),
        p99: parseDuration(/\s99%\s+(\S+)/.exec(out)[1]),
        errors: errors ? Number(errors[1]) + Number(errors[2]) + Number(errors[3]) : 0,
        timeouts: errors ? Number(errors[4]) : 0,
        non2xx: Number((/Non-2xx or 3xx responses: (\d+)/.exec(out) || [0, 0])[1]),
        clientCpu: (mins(times[0]) + mins(times[1])) / wall,
      });
    });
  });
}

// Run the client once; resolves with its JSON result.
function runClient(options) {
  if (options.client === 'wrk') return runWrk(options);
  const [cmd, argv] = pinned(CLIENT_CPU, process.execPath, [CLIENT, JSON.stringify(options)]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`client failed (${code}): ${err}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

// Measure one server under load: client result plus server CPU per request.
async function measure(server, { path: urlPath = '/', connections, duration, amount, pipelining = 1, timeout = 10, client = 'autocannon' }) {
  const options = { url: `http://127.0.0.1:${server.port}${urlPath}`, connections, pipelining, timeout, client };
  if (amount) options.amount = amount;
  else options.duration = duration;
  const cpu0 = cpuSeconds(server.pid);
  const r = await runClient(options);
  const cpu1 = cpuSeconds(server.pid);
  const user = cpu1.user - cpu0.user;
  const system = cpu1.system - cpu0.system;
  r.serverCpuUs = ((user + system) * 1e6) / r.requests; // per request, user + system
  r.serverUserUs = (user * 1e6) / r.requests; //           per request, user space only
  r.serverCpu = (user + system) / r.duration; //           cores busy
  return r;
}

const min = (xs) => Math.min(...xs);
const max = (xs) => Math.max(...xs);

// A progress line on stderr: rewritten in place on a terminal.
function progress(text) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  else process.stderr.write(`${text}\n`);
}
function progressDone() {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
}

// Bar chart: one group per benchmark, a bar per variant at its median with
// the median written on the bar (and, where a bar has one, its ratio to
// stock), a line under the bar from min to max.
// groups: [{ label, unit, bars: [{ label, values, ratio }] }]
function svgChart(title, groups) {
  const W = 760;
  const rowH = 34;
  const left = 230;
  const right = 40;
  const top = 44;
  const colors = ['#8a8f98', '#2f7ed8', '#50b432', '#ed561b', '#8e44ad'];
  let rows = 0;
  for (const g of groups) rows += g.bars.length + 1;
  const H = top + rows * rowH + 30;
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const colorOf = new Map(); // one colour per variant, in every group
  for (const g of groups) for (const b of g.bars) if (!colorOf.has(b.label)) colorOf.set(b.label, colors[colorOf.size % colors.length]);
  let y = top;
  let body = '';
  for (const g of groups) {
    const scale = (W - left - right) / (max(g.bars.flatMap((b) => b.values)) * 1.08 || 1);
    body += `<text x="10" y="${y + 18}" font-weight="bold">${esc(g.label)} (${esc(g.unit)})</text>\n`;
    y += rowH;
    g.bars.forEach((b) => {
      const m = median(b.values);
      const lo = min(b.values);
      const hi = max(b.values);
      const end = left + m * scale;
      body += `<text x="20" y="${y + 19}">${esc(b.label)}</text>\n`;
      body += `<rect x="${left}" y="${y + 4}" width="${(m * scale).toFixed(1)}" height="${rowH - 14}" fill="${colorOf.get(b.label)}"/>\n`;
      const yw = y + rowH - 6; // the min-max line, under the bar
      body += `<line x1="${(left + lo * scale).toFixed(1)}" x2="${(left + hi * scale).toFixed(1)}" y1="${yw}" y2="${yw}" stroke="#222" stroke-width="1.5"/>\n`;
      for (const x of [lo, hi]) {
        body += `<line x1="${(left + x * scale).toFixed(1)}" x2="${(left + x * scale).toFixed(1)}" y1="${yw - 4}" y2="${yw + 3}" stroke="#222" stroke-width="1.5"/>\n`;
      }
      const text = `${fmt(m, m < 100 ? 2 : 0)}${b.ratio ? ` (${b.ratio.toFixed(2)}x stock)` : ''}`;
      const inside = text.length * 7 + 8 < m * scale;
      body += inside
        ? `<text x="${(end - 5).toFixed(1)}" y="${y + 19}" font-size="12" text-anchor="end" fill="white" font-weight="bold">${esc(text)}</text>\n`
        : `<text x="${(end + 5).toFixed(1)}" y="${y + 19}" font-size="12">${esc(text)}</text>\n`;
      y += rowH;
    });
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="13">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n<text x="10" y="24" font-size="16" font-weight="bold">${esc(title)}</text>\n` +
    `${body}<text x="10" y="${H - 10}" font-size="11" fill="#555">bar and its figure: median of the rounds; ratio: median of the per-round ratios to stock; line under the bar: min to max</text>\n</svg>\n`;
}

function nodeVersion(node) {
  return spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
}

// The commit measured, for the raw results ("-dirty" with changes not
// committed), or null outside a git checkout.
function commit(dir = ROOT) {
  const r = spawnSync('git', ['describe', '--always', '--dirty'], { cwd: dir, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

module.exports = {
  ROOT, hasTaskset, hasWrk, cores, SERVER_CPU, CLIENT_CPU, startServer, cpuSeconds, runClient, measure,
  median, min, max, fmt, progress, progressDone, svgChart, nodeVersion, commit,
};
