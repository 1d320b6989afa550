'use strict';

// A response's socket writes, counted where they happen: at the kernel.
//
// onewrite leaves a socket whose write path is not Node's own to Node
// (a wrapper on its handle's write methods sees other calls than with
// stock), so a test cannot count writes by wrapping them.  Instead the
// test file runs itself as the server, in a child under strace, and each
// response's write(2) and writev(2) calls on an accepted socket are read
// from strace's log, between markers the server writes to stderr when a
// request comes and when its response has finished:
//
//   const { traced, serveIfChild } = require('./helpers/syscalls');
//   serveIfChild(() => (req, res) => ...);        // at the top of the test file
//   const server = await traced(t, __filename, { ONEWRITE: '1' });
//   ... requests to server.port ...
//   server.responses()   // [{ url, writes, kinds: ['writev', ...], buffers }]
//
// strace is Linux's (Debian's strace package, on every machine CI runs on).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { cleanNode } = require('./child');

const CHILD = 'ONEWRITE_TRACED_CHILD';
const MARK = 'OWMARK';

// In the child: serve with the handler made by makeHandler(), on a server
// made by makeServer(options, handler) (http.createServer by default), and
// print the port.
function serveIfChild(makeHandler, makeServer) {
  if (process.env[CHILD] !== '1') return false;
  const http = require('node:http');
  const onewrite = require(path.join(__dirname, '..', '..'));
  const ServerResponse = process.env.ONEWRITE === '1' ? onewrite.ServerResponse : http.ServerResponse;
  const handler = makeHandler();
  const serve = (req, res) => {
    if (req.url === STATUS) return res.end(JSON.stringify(onewrite.status()));
    return handler(req, res);
  };
  const server = makeServer ? makeServer({ ServerResponse }, serve)
    : http.createServer({ ServerResponse }, serve);
  server.prependListener('request', (req, res) => {
    fs.writeSync(2, `${MARK} begin ${req.url}\n`);
    res.on('finish', () => fs.writeSync(2, `${MARK} end ${req.url}\n`));
  });
  server.listen(0, '127.0.0.1', () => {
    fs.writeSync(1, `${server.address().port} ${process.pid}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
  return true;
}
const STATUS = '/__onewrite_status';

// Whether strace can trace a child here.
function available() {
  const r = spawnSync('strace', ['-qq', '-e', 'trace=none', 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

// The test file `file` started as the server under strace, with `env`.
async function traced(t, file, env = {}) {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-strace-')), 'trace');
  const [node, args, options] = cleanNode([file], { ...env, [CHILD]: '1' },
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const child = spawn('strace', ['-f', '-qq', '-s', '48', '-e', 'trace=write,writev,accept4,accept',
    '-e', 'signal=none', '-o', log, node, ...args], options);
  // The server's stderr, but for the markers (shown if it fails).
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).split('\n').filter((l) => !l.startsWith(MARK)).join('\n').slice(-4000);
  });
  const [port, pid] = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0].split(' ').map(Number));
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the traced server exited (${code}): ${stderr}`)));
  });
  // The server itself is stopped: strace ends with the last process it traces.
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      child.kill('SIGKILL');
    }
  });
  t.teardown(stop);
  return {
    port,
    responses: () => responses(fs.readFileSync(log, 'latin1')).filter((r) => r.url !== STATUS),
    stop,
  };
}

// Each response's writes on accepted sockets, from strace's log.
function responses(text) {
  const sockets = new Set();
  const out = [];
  let current = null;
  for (const line of text.split('\n')) {
    const accepted = /\baccept4?\(\d+, .*\) = (\d+)$/.exec(line);
    if (accepted) {
      sockets.add(Number(accepted[1]));
      continue;
    }
    const mark = new RegExp(`^\\d+ +write\\(2, "${MARK} (begin|end) ([^"\\\\]*)`).exec(line);
    if (mark) {
      if (mark[1] === 'begin') {
        current = { url: mark[2], writes: 0, kinds: [], buffers: 0 };
        out.push(current);
      } else {
        current = null;
      }
      continue;
    }
    // (A call another thread's interrupted shows as "<unfinished ...>",
    // its end on a line of its own: counted once, here.)
    const write = /^\d+ +(write|writev)\((\d+), /.exec(line);
    if (write && current !== null && sockets.has(Number(write[2]))) {
      current.writes++;
      current.kinds.push(write[1]);
      current.buffers += write[1] === 'writev' ? Number(/, (\d+)(?:\) = | <unfinished)/.exec(line)[1]) : 1;
    }
  }
  return out;
}

module.exports = { serveIfChild, traced, available, responses };
