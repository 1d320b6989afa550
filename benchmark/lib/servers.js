'use strict';

// The servers compare.js and instr.js measure, by name: the script, its
// arguments, the path to request and a label.  `simple` takes the
// parameters of Node's benchmark/http/simple.js (defaults: its type=bytes
// len=4 chunks=1 chunkedEnc=0), and `write-end` its body length
// (writeLen; 0: a small JSON document).  The floor (floor.js) answers for every one
// of them: its status and its body (what write() and end() were given),
// behind the floor's own short head, whatever headers were set (what a
// package under writeHead()/write()/end() could reach at best; the server's
// own work before them, setHeader() calls included, stays).  For simple
// with chunkedEnc=0 (any type, len and chunks) those are stock's bytes; for
// the other servers they are not.

const path = require('node:path');

const HERE = path.join(__dirname, '..');

function servers({ type = 'bytes', len = 4, chunks = 1, chunkedEnc = 0, writeLen = 0 } = {}) {
  const defs = {
    simple: {
      script: 'simple.js',
      args: ['--handler=simple', `--type=${type}`, `--len=${len}`, `--chunks=${chunks}`, `--chunkedEnc=${chunkedEnc}`],
      path: '/',
      label: `simple (type=${type} len=${len} chunks=${chunks} chunkedEnc=${chunkedEnc})`,
    },
    realistic: { script: 'simple.js', args: ['--handler=realistic'], path: '/', label: 'realistic (setHeader x2, writeHead with cookie, unique request id)' },
    json: { script: 'simple.js', args: ['--handler=json'], path: '/', label: 'json (JSON.stringify per request)' },
    'write-end': {
      script: 'simple.js',
      args: ['--handler=write-end', `--writeLen=${writeLen}`],
      path: '/',
      label: `write-end (writeHead with Content-Length, write(Buffer${writeLen > 0 ? ` of ${writeLen} bytes` : ''}), end())`,
    },
  };
  for (const fw of ['express', 'fastify', 'koa']) {
    defs[fw] = { script: 'frameworks.js', args: [`--framework=${fw}`], path: '/', label: `${fw} hello world` };
    defs[`${fw}-json`] = { script: 'frameworks.js', args: [`--framework=${fw}`], path: '/json', label: `${fw} JSON` };
    defs[`${fw}-headers`] = {
      script: 'frameworks.js', args: [`--framework=${fw}`], path: '/headers',
      label: `${fw} setHeader() head (Cache-Control, a request id per response)`,
    };
  }
  defs['express-json-1k'] = { script: 'frameworks.js', args: ['--framework=express'], path: '/json-1k', label: 'express res.json() of ~1 KiB' };
  defs['express-static'] = {
    script: 'frameworks.js', args: ['--framework=express'], path: '/static/file.txt', label: 'express.static, a 10 KiB file',
  };
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
