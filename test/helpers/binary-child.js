'use strict';

// node binary-child.js <package dir>...: requires each copy of onewrite
// named, in this one process, then serves one request through each copy's
// ServerResponse; prints one JSON line, a result per copy: what status()
// says of the binary and what the server answered.  A binary that kills
// the process at load (SIGBUS) shows as the exit of this child.

const http = require('node:http');

function serve(onewrite) {
  return new Promise((resolve) => {
    const server = http.createServer({ ServerResponse: onewrite.ServerResponse }, (req, res) => res.end('served'));
    server.listen(0, '127.0.0.1', () => {
      http.get({ host: '127.0.0.1', port: server.address().port, agent: false }, (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (d) => (body += d));
        res.on('end', () => server.close(() => resolve(`${res.statusCode} ${body}`)));
      });
    });
  });
}

(async () => {
  const copies = process.argv.slice(2).map((dir) => require(dir));
  const out = [];
  for (const onewrite of copies) {
    const { available, reason, remedy, binary } = onewrite.status();
    const answer = await serve(onewrite);
    out.push({ available, reason, remedy, binary, answer, heads: onewrite.status().counters.heads });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
})();
