'use strict';

// The servers compare.js and instr.js measure, by name: the script, its
// arguments, the path to request, a label, and whether the floor
// (floor.js) can answer in its place.  `simple` takes the parameters of
// Node's benchmark/http/simple.js (defaults: its type=bytes len=4 chunks=1
// chunkedEnc=0).  The floor answers any response made without write(): its
// status and its end(body), behind the floor's own short head, whatever
// headers were set (what a package under writeHead()/end() could reach at
// best; the server's own work before them, setHeader() calls included,
// stays).  For simple with chunks=1 chunkedEnc=0 (any type and len) those
// are stock's bytes; for the other servers they are not.

const path = require('node:path');

const HERE = path.join(__dirname, '..');

function servers({ type = 'bytes', len = 4, chunks = 1, chunkedEnc = 0 } = {}) {
  const defs = {
    simple: {
      script: 'simple.js',
      args: ['--handler=simple', `--type=${type}`, `--len=${len}`, `--chunks=${chunks}`, `--chunkedEnc=${chunkedEnc}`],
      path: '/',
      label: `simple (type=${type} len=${len} chunks=${chunks} chunkedEnc=${chunkedEnc})`,
      floor: Number(chunks) === 1,
    },
    realistic: { script: 'simple.js', args: ['--handler=realistic'], path: '/', label: 'realistic (setHeader x2, writeHead with cookie, unique request id)', floor: true },
    json: { script: 'simple.js', args: ['--handler=json'], path: '/', label: 'json (JSON.stringify per request)', floor: true },
    'write-end': { script: 'simple.js', args: ['--handler=write-end'], path: '/', label: 'write-end (writeHead with Content-Length, write(Buffer), end())' },
  };
  for (const fw of ['express', 'fastify', 'koa']) {
    defs[fw] = { script: 'frameworks.js', args: [`--framework=${fw}`], path: '/', label: `${fw} hello world`, floor: true };
    defs[`${fw}-json`] = { script: 'frameworks.js', args: [`--framework=${fw}`], path: '/json', label: `${fw} JSON`, floor: true };
  }
  return defs;
}

// One server by name, its script as an absolute path; throws for a name
// that is not one.
function server(name, simple) {
  const defs = servers(simple);
  if (!defs[name]) throw new Error(`unknown bench ${name}; one of ${Object.keys(defs).join(', ')}`);
  return { name, ...defs[name], script: path.join(HERE, defs[name].script) };
}

const NAMES = Object.keys(servers());

module.exports = { server, NAMES };
