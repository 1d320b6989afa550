'use strict';

// The ceiling of any JavaScript-level response path: a raw net server that
// answers every request with one precomputed write of the same bytes
// simple.js sends for type=bytes len=4 (Date included, refreshed each
// second).  It parses only enough to count requests (one per "\r\n\r\n").
//
//   node benchmark/ceiling.js

const net = require('node:net');

const { parseArgs } = require('./lib/args');

parseArgs(process.argv.slice(2), {}, { script: __filename });

let response;
function refresh() {
  response = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n' +
    `Date: ${new Date().toUTCString()}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nCCCC`, 'latin1');
}
refresh();
setInterval(refresh, 1000).unref();

const server = net.createServer((socket) => {
  let pending = '';
  socket.on('data', (d) => {
    pending += d.toString('latin1');
    let at;
    let n = 0;
    while ((at = pending.indexOf('\r\n\r\n')) !== -1) {
      pending = pending.slice(at + 4);
      n++;
    }
    if (n === 1) socket.write(response);
    else if (n > 1) socket.write(Buffer.concat(Array(n).fill(response)));
  });
  socket.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
