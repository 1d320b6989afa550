'use strict';

// Cases that can end the process (an abort in the addon, an uncaught
// error) run in child processes, one per side, so that the test runner
// survives and still shows both sides.  A child prints its result as one
// JSON line; the test then asserts that each side exited 0 and that the
// two results are equal.

const { spawn } = require('node:child_process');
const { same } = require('./contract');

// This Node with `args` and an environment of PATH and `env` alone, as
// spawn's command, arguments and options (`options` added).  Not spawn's
// env option alone: tap wraps child_process to put its coverage hooks
// back into NODE_OPTIONS, and their module-load messages would arrive in
// the child at any time; env -i clears them (on Windows, where no env(1)
// runs, they stay).
function cleanNode(args, env = {}, options = {}) {
  const vars = { PATH: process.env.PATH, ...env };
  const argv = process.platform === 'win32' ? [process.execPath, args]
    : ['/usr/bin/env', ['-i', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), process.execPath, ...args]];
  return [...argv, { ...options, env: vars }];
}

// Run this Node on `args` that way.  Resolves with { code, signal,
// stdout, stderr }.
function spawnNode(args, { env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(...cleanNode(args, env, { stdio: ['ignore', 'pipe', 'pipe'] }));
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('close', (code, signal) => resolve({
      code, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(),
    }));
  });
}

// What one child reported: its exit, its result (the last line of its
// output, as JSON), and the end of its stderr when it did not exit 0.
function report(r) {
  const lines = r.stdout.trim().split('\n');
  let result = null;
  try {
    result = JSON.parse(lines[lines.length - 1]);
  } catch {
    result = { unparsed: r.stdout.slice(-2000) };
  }
  const exit = { code: r.code, signal: r.signal };
  return r.code === 0 ? { exit, result } : { exit, result, stderr: r.stderr.slice(-3000) };
}

// The stock and the onewrite child of `script <args...> <side>`: in
// parallel, or one after the other (`sequential`, for the cases that need
// gigabytes).
async function childPair(script, args, { sequential = false, nodeArgs = [], env } = {}) {
  const run = (side) => spawnNode([...nodeArgs, script, ...args, side], { env });
  const [stock, fast] = sequential ? [await run('stock'), await run('fast')]
    : await Promise.all([run('stock'), run('fast')]);
  return { stock: report(stock), fast: report(fast) };
}

// Both children exited 0, and reported the same.
function sameChildren(t, pair, message) {
  const ok = { code: 0, signal: null };
  if (JSON.stringify(pair.stock.exit) !== JSON.stringify(ok)) {
    t.fail(`${message}: the stock side did not exit 0`, { stock: pair.stock });
  }
  if (JSON.stringify(pair.fast.exit) !== JSON.stringify(ok)) {
    t.fail(`${message}: the onewrite side did not exit 0 (stock did)`, { stock: pair.stock, onewrite: pair.fast });
  }
  return same(t, pair, message);
}

module.exports = { cleanNode, spawnNode, childPair, sameChildren };
