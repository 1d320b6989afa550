'use strict';

// How `onewrite compare` finds the port of an app that prints none
// (cli/compare/listening.js): the TCP ports a process listens on, read from
// /proc, with the address each listens on and where to connect to reach
// it; a socket of another process is not the app's.

const t = require('tap');
const net = require('node:net');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const { listeningSockets } = require('../cli/compare/listening');

const HAS_PROC = fs.existsSync('/proc/self/net/tcp');

// A server listening on host:0, or null where that address cannot be had
// (no IPv6 here).
function listen(host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen(0, host, () => resolve(server));
  });
}

function accepts(port, host) {
  return new Promise((resolve) => {
    const socket = net.connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

t.test('the ports this process listens on, each with its address and where to connect', async (t) => {
  if (!HAS_PROC) {
    t.equal(listeningSockets(process.pid), null, 'without /proc: null, it cannot tell');
    return;
  }
  const expected = { '127.0.0.1': ['127.0.0.1'], '0.0.0.0': ['127.0.0.1'], '::1': ['::1'], '::': ['::1', '127.0.0.1'] };
  const servers = [];
  for (const host of Object.keys(expected)) {
    const server = await listen(host);
    if (server) servers.push({ host, server, port: server.address().port });
  }
  t.teardown(() => servers.forEach(({ server }) => server.close()));
  t.ok(servers.some((s) => s.host === '127.0.0.1'), 'listened on the IPv4 loopback at least');

  const found = listeningSockets(process.pid);
  for (const { host, port } of servers) {
    const mine = found.filter((s) => s.port === port);
    t.same(mine, [{ port, address: host, hosts: expected[host] }], `${host}:${port} is listed once, as listening on ${host}`);
  }
  // Every host it says to connect to accepts there.
  for (const { host, port } of servers) {
    for (const h of expected[host]) t.ok(await accepts(port, h), `${h}:${port} accepts a connection`);
  }
});

t.test('a socket another process listens on is not listed; a closed one neither', async (t) => {
  if (!HAS_PROC) return t.pass('without /proc nothing is listed');
  const child = spawn(process.execPath, ['-e',
    "const s = require('net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))"],
  { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill());
  const theirs = Number(await new Promise((resolve) => child.stdout.once('data', resolve)));
  t.ok(listeningSockets(child.pid).some((s) => s.port === theirs), "the child's own port is listed for the child");
  t.notOk(listeningSockets(process.pid).some((s) => s.port === theirs), 'and not for this process');

  const server = await listen('127.0.0.1');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  t.notOk(listeningSockets(process.pid).some((s) => s.port === port), 'a server closed is no longer listed');
  t.same(listeningSockets(2 ** 22 + 12345), [], 'a process that is not there listens on nothing');
});
