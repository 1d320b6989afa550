'use strict';

// The parent side of the client's mechanical re-entry test
// (test/reentry-client.js): a recording loopback server per child, the
// child processes of test/helpers/reentry-client-child.js (one stock, one
// with onewrite preloaded), asked the same scenarios.  Comparing them, the
// counting runs and the scenarios they call for are test/helpers/
// reentry-run.js's.

const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cleanNode } = require('./child');
const { REFUSED, compare, scenariosFor, report } = require('./reentry-run');

const ROOT = path.join(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'reentry-client-child.js');
const REGISTER = path.join(ROOT, 'register.js');
const SHAPES = ['post-string', 'post-buffer', 'post-callback', 'post-pairs', 'write-end', 'get-end'];
const MODES = ['end-other', 'write-other', 'write-same', 'end-same', 'header-same', 'throw'];
const ANSWER = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

// Where the request that starts at `at` of `buf` (a latin1 string) ends, or
// -1 while it is not all there.
function requestEnd(buf, at) {
  const headEnd = buf.indexOf('\r\n\r\n', at);
  if (headEnd < 0) return -1;
  const head = buf.slice(at, headEnd + 4);
  let end = headEnd + 4;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) end += Number(length[1]);
  else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', end);
      if (lineEnd < 0) return -1;
      const size = parseInt(buf.slice(end, lineEnd), 16);
      if (Number.isNaN(size)) return buf.length; // not HTTP: all of it, once
      end = lineEnd + 2 + size + 2;
      if (size === 0) break;
    }
  }
  return buf.length >= end ? end : -1;
}

// Every byte of every connection, by the path of its first request
// (/warm-a: A's, /warm-b: B's); /warm-* answered at once, the rest once
// released.
function recorder() {
  let conns = [];
  let released = false;
  const server = net.createServer((socket) => {
    const conn = { label: null, bytes: '', parsed: 0, owed: 0, closed: false, socket };
    conns.push(conn);
    let closedThen = null;
    conn.whenClosed = new Promise((resolve) => {
      closedThen = resolve;
    });
    socket.on('data', (d) => {
      conn.bytes += d.toString('latin1');
      for (let end; (end = requestEnd(conn.bytes, conn.parsed)) >= 0 && end > conn.parsed;) {
        const first = conn.bytes.slice(conn.parsed, conn.bytes.indexOf('\r\n', conn.parsed));
        if (conn.label === null) conn.label = first.split(' ')[1] || first;
        conn.parsed = end;
        if (/^GET \/warm-/.test(first)) socket.write(ANSWER);
        else if (released) socket.write(ANSWER);
        else conn.owed++;
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      conn.closed = true;
      closedThen();
    });
  });
  const listening = new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  return {
    listening,
    reset() {
      for (const c of conns) if (!c.closed) c.socket.destroy();
      conns = [];
      released = false;
    },
    // Answers what is owed; says how many requests of A's and of B's
    // connection are answered (the warm-up's not counted).
    release() {
      released = true;
      const answered = { A: 0, B: 0 };
      for (const c of conns) {
        const key = c.label === '/warm-a' ? 'A' : c.label === '/warm-b' ? 'B' : null;
        if (key !== null) answered[key] += c.owed;
        for (; c.owed > 0; c.owed--) c.socket.write(ANSWER);
      }
      return answered;
    },
    // Once every connection closed (or 2 s passed): the bytes of each.
    async result(port) {
      const all = conns;
      const timeout = new Promise((resolve) => setTimeout(resolve, 2000));
      await Promise.race([Promise.all(all.map((c) => c.whenClosed)), timeout]);
      const out = {};
      for (const c of all) {
        let key = c.label === '/warm-a' ? 'A' : c.label === '/warm-b' ? 'B' : `other ${c.label}`;
        while (key in out) key += "'";
        out[key] = c.bytes.split(`127.0.0.1:${port}`).join('127.0.0.1:<port>') + (c.closed ? '' : ' <open>');
      }
      return out;
    },
    close: () => new Promise((resolve) => {
      for (const c of conns) c.socket.destroy();
      server.close(() => resolve());
    }),
  };
}

// A child (stock or onewrite), and run(target, mode, shape) on it.
function child(onewrite, when, skip) {
  const server = recorder();
  let proc = null;
  let buffered = '';
  const waiting = [];
  const lines = [];
  const line = () => new Promise((resolve, reject) => {
    if (lines.length > 0) return resolve(lines.shift());
    const timer = setTimeout(() => reject(new Error('the child said nothing for 10 s')), 10000);
    waiting.push((l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const ready = (async () => {
    const port = await server.listening;
    const preload = onewrite && when !== 'before' ? ['-r', REGISTER] : [];
    proc = spawn(...cleanNode([...preload, CHILD], {
      ONEWRITE: onewrite ? '1' : '0', ONEWRITE_ROOT: ROOT, WHEN: when, SKIP: skip.join(','), RECORDER: String(port),
    }, { stdio: ['pipe', 'pipe', 'inherit'] }));
    proc.stdout.on('data', (d) => {
      buffered += d;
      let at;
      while ((at = buffered.indexOf('\n')) >= 0) {
        const l = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        if (waiting.length > 0) waiting.shift()(l);
        else lines.push(l);
      }
    });
    const targets = JSON.parse((await line()).slice('targets '.length));
    return { port, targets };
  })();
  async function run(target, mode, shape) {
    const { port } = await ready;
    server.reset();
    proc.stdin.write(`run ${target === '' ? '-' : target} ${mode} ${shape}\n`);
    const release = await line();
    if (release !== 'release') throw new Error(`the child said ${release}`);
    // (A turn for the bytes the child wrote before it said so: they are
    // with this process's kernel, maybe not yet read.)
    await new Promise((resolve) => setImmediate(resolve));
    proc.stdin.write(`go ${JSON.stringify(server.release())}\n`);
    const said = await line();
    if (!said.startsWith('R ')) throw new Error(`the child said ${said}`);
    return { received: await server.result(port), ...JSON.parse(said.slice(2)) };
  }
  async function status() {
    await ready;
    proc.stdin.write('status\n');
    return JSON.parse((await line()).slice(2));
  }
  const stop = async () => {
    await ready.catch(() => {});
    if (proc !== null && proc.exitCode === null) {
      await new Promise((resolve) => {
        proc.once('exit', resolve);
        proc.kill();
      });
    }
    await server.close();
  };
  return { ready, run, status, stop };
}

// The counting runs of every shape, then every target called inside a
// window armed in every mode, in that shape.
function clientScenarios(stock, ours, counting = SHAPES.map((s) => ['', 'count', s])) {
  return scenariosFor(stock, ours, counting, MODES);
}

module.exports = { REFUSED, SHAPES, MODES, child, compare, clientScenarios, report };
