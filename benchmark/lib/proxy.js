'use strict';

// The measured proxy of client-instr.js (proxy): a node:http server that
// forwards each request to the raw upstream (lib/upstream.js) with
// http.request() on a keep-alive agent and pipes the answer back, shaped
// like http-proxy's web path: the incoming request piped into the upstream
// request (method, URL and headers copied), the upstream's status and
// headers copied with res.writeHead(), its body piped into the response.
// Prints its port.
//
//   node benchmark/lib/proxy.js --upstream=<port>

const http = require('node:http');
const { parseArgs } = require('./args');

const opts = parseArgs(process.argv.slice(2), { upstream: 0 }, { script: __filename });
const agent = new http.Agent({ keepAlive: true });

const server = http.createServer((req, res) => {
  const proxyReq = http.request({
    host: '127.0.0.1', port: opts.upstream, method: req.method, path: req.url, headers: req.headers, agent,
  });
  proxyReq.on('response', (proxyRes) => {
    res.writeHead(proxyRes.statusCode, proxyRes.headers);
    proxyRes.pipe(res);
  });
  proxyReq.on('error', () => {
    res.statusCode = 502;
    res.end();
  });
  req.pipe(proxyReq);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
