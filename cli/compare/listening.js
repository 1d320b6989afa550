'use strict';

// The TCP ports a process listens on, from /proc (Linux): the sockets in
// LISTEN state of /proc/<pid>/net/tcp and tcp6 whose inode is one of the
// process's own file descriptors (/proc/<pid>/fd links to `socket:[inode]`).
// The tables list every socket of the network namespace; the inodes keep
// the process's own.  This finds an app that listens on a fixed port and
// prints nothing, as Koa's `app.listen(3000)` does.

const fs = require('node:fs');
const os = require('node:os');

const LISTEN = '0A'; // the state column of a listening socket
const LITTLE_ENDIAN = os.endianness() === 'LE';

// /proc writes each 32-bit word of an address in host byte order.
function addressBytes(hex) {
  const bytes = [];
  for (let i = 0; i < hex.length; i += 8) {
    const word = hex.slice(i, i + 8).match(/../g).map((b) => parseInt(b, 16));
    bytes.push(...(LITTLE_ENDIAN ? word.reverse() : word));
  }
  return bytes;
}

// An address of the table (hex) as text: '127.0.0.1', '::', '::1', or the
// IPv4 one of an IPv4-mapped IPv6 address.
function addressText(hex) {
  const b = addressBytes(hex);
  if (b.length === 4) return b.join('.');
  if (b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join('.');
  if (b.every((x) => x === 0)) return '::';
  if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return '::1';
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i] << 8) | b[i + 1]).toString(16));
  return groups.join(':');
}

// Where to connect to reach a socket listening on `address`: a wildcard
// address through the loopback (an IPv6 one may be dual-stack).
function hostsFor(address) {
  if (address === '0.0.0.0') return ['127.0.0.1'];
  if (address === '::') return ['::1', '127.0.0.1'];
  return [address];
}

// The listening sockets of one table's text, whose inode is in `inodes`
// (all of them when `inodes` is null): [{ port, address, hosts }].
function parseTable(text, inodes = null) {
  const sockets = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== LISTEN || (inodes && !inodes.has(f[9]))) continue;
    const [hex, port] = f[1].split(':');
    const address = addressText(hex);
    sockets.push({ port: parseInt(port, 16), address, hosts: hostsFor(address) });
  }
  return sockets;
}

// The socket inodes among a process's file descriptors.
function socketInodes(pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {} // closed while we read
  }
  return inodes;
}

let procKnown = null;
const hasProc = () => (procKnown ??= fs.existsSync('/proc/self/net/tcp') && fs.existsSync('/proc/self/fd'));

// The TCP sockets `pid` listens on: [{ port, address, hosts }], [] when it
// is gone or not ours to read, null where /proc cannot tell (not Linux).
function listeningSockets(pid) {
  if (!hasProc()) return null;
  try {
    const inodes = socketInodes(pid);
    if (inodes.size === 0) return [];
    const sockets = [];
    for (const table of ['tcp', 'tcp6']) {
      let text;
      try {
        text = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
      } catch {
        continue; // no IPv6 in this kernel
      }
      sockets.push(...parseTable(text, inodes));
    }
    return sockets;
  } catch {
    return [];
  }
}

module.exports = { listeningSockets, parseTable, hostsFor };
