'use strict';

// The servers the benchmarks measure (benchmark/lib/servers.js) answer
// with stock Node's bytes when onewrite serves them, so that a figure
// compares the same responses; and the floor (benchmark/floor.js) sends
// each one's status and body, as benchmark/README.md says it does.  Two
// requests a server, each on a connection of its own, the Date normalised
// (and realistic's request id, which carries the process id).

const t = require('tap');
const net = require('node:net');
const path = require('node:path');

const { server, NAMES } = require('../benchmark/lib/servers');
const { startServer } = require('../benchmark/lib/bench');
const { normalise, request } = require('./helpers/wire');

const ROOT = path.join(__dirname, '..');
const PRELOAD = {
  stock: [],
  onewrite: [path.join(ROOT, 'register.js')],
  floor: [path.join(ROOT, 'benchmark', 'floor.js')],
};

// One answer, read to the end its Content-Length gives (every server here
// sends one; the floor keeps its connections open whatever was asked).
function get(port, urlPath) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(request('GET', urlPath, { headers: { Connection: 'close' } }));
    });
    let bytes = Buffer.alloc(0);
    const done = () => {
      socket.destroy();
      resolve(normalise(bytes).replace(/(\r\nX-Request-Id: req-[0-9a-z]+)-\d+/g, '$1-<pid>'));
    };
    socket.on('data', (d) => {
      bytes = Buffer.concat([bytes, d]);
      const end = bytes.indexOf('\r\n\r\n');
      const length = end >= 0 && /\r\nContent-Length: *(\d+)/i.exec(bytes.toString('latin1', 0, end));
      if (length && bytes.length >= end + 4 + Number(length[1])) done();
    });
    socket.on('error', reject);
    socket.on('close', done);
  });
}

// Two answers from `name` run as `side` (ONEWRITE_STRICT: a onewrite that
// is off fails at startup rather than passing as stock).
async function answers(name, side) {
  const def = server(name);
  const s = await startServer({ script: def.script, args: def.args, preload: PRELOAD[side], env: { ONEWRITE_STRICT: '1' } });
  try {
    return [await get(s.port, def.path), await get(s.port, def.path)];
  } finally {
    await s.stop();
  }
}

// A response's status line and body (what the floor keeps).
function statusAndBody(text) {
  const end = text.indexOf('\r\n\r\n');
  return { status: text.slice(0, text.indexOf('\r\n')), body: text.slice(end + 4) };
}

for (const name of NAMES) {
  t.test(name, async (t) => {
    const stock = await answers(name, 'stock');
    t.match(stock[0], /^HTTP\/1\.1 200 OK\r\n/, 'stock answers 200');
    t.same(await answers(name, 'onewrite'), stock, 'onewrite sends stock\'s bytes');
    const floor = await answers(name, 'floor');
    t.same(floor.map(statusAndBody), stock.map(statusAndBody), 'the floor sends its status and body');
  });
}
