'use strict';

// The raw upstream of client-instr.js: a `net` server that answers every
// request with one fixed HTTP/1.1 keep-alive response, parsing only enough
// to count requests (one per "\r\n\r\n": the benchmark's bodies have none).
// Not measured: it runs pinned to the other core.  Prints its port.
//
//   node benchmark/lib/upstream.js

const net = require('node:net');

// A Node server's head without Date: the agent reads Keep-Alive's timeout
// as it does from a real upstream.
const RESPONSE = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n' +
  'Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nok', 'latin1');

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
    // A body after its head is kept only until the next head's end.
    if (n === 1) socket.write(RESPONSE);
    else if (n > 1) socket.write(Buffer.concat(Array(n).fill(RESPONSE)));
  });
  socket.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
