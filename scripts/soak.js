'use strict';

// Soak: a million keep-alive requests through a server with onewrite
// (node -r onewrite/register), every response checked byte for byte (the
// Date value aside), the server's RSS and heap sampled as it goes.
//
//   node scripts/soak.js [--requests=1000000] [--connections=16] [--node=...] [--stock]
//
// --stock runs the same server without onewrite, for comparison.
//
// Exits non-zero if a response is wrong or the memory does not level off
// (RSS in the last quarter more than 16 MiB above the first quarter's).

const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');

const { parseArgs } = require('../benchmark/lib/args');

const args = parseArgs(process.argv.slice(2), {
  requests: 1e6, connections: 16, node: process.execPath, stock: false,
});
const REQUESTS = args.requests;
const CONNECTIONS = args.connections;
const NODE = args.node;
const STOCK = args.stock !== false;

// The server: four kinds of response, and /mem for the samples.
const SERVER = `
const http = require('node:http');
const big = Buffer.alloc(3000, 'b');
http.createServer((req, res) => {
  switch (req.url) {
    case '/a': res.end('hello world'); break;
    case '/b': res.writeHead(200, { 'Content-Type': 'application/octet-stream' }); res.end(big); break;
    case '/c': res.setHeader('X-Id', 'fixed-id'); res.write('part one,'); res.end('part two'); break;
    case '/d': res.writeHead(201, 'Made', [['Content-Type', 'text/plain'], ['Content-Length', '4']]); res.end('\u20ac!'); break;
    case '/mem': { const m = process.memoryUsage(); res.end(JSON.stringify({ rss: m.rss, heap: m.heapUsed, counters: require(${JSON.stringify(path.join(__dirname, '..'))}).status().counters })); break; }
    default: res.statusCode = 404; res.end();
  }
}).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });
`;

const ROUTES = ['/a', '/b', '/c', '/d'];

function get(port, urlPath) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(`GET ${urlPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    const parts = [];
    s.on('data', (d) => parts.push(d));
    s.on('error', reject);
    s.on('close', () => resolve(Buffer.concat(parts)));
  });
}

const mask = (buf) => buf.toString('latin1').replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>');

async function main() {
  const server = spawn(NODE, [...(STOCK ? [] : ['-r', 'onewrite/register']), '-e', SERVER], {
    cwd: path.join(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  const mem = async () => JSON.parse((await get(port, '/mem')).toString('latin1').split('\r\n\r\n')[1]);

  // What each route answers on a keep-alive connection: taken from the
  // server itself once (with Connection: keep-alive), then every response
  // must be exactly that, the Date value aside.
  const expected = {};
  for (const r of ROUTES) {
    const bytes = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.write(`GET ${r} HTTP/1.1\r\nHost: x\r\n\r\n`));
      s.once('data', (d) => {
        resolve(d);
        s.destroy();
      });
    });
    expected[r] = { text: mask(bytes), length: bytes.length };
  }

  let sent = 0;
  let checked = 0;
  let wrong = 0;
  const samples = [];
  const t0 = Date.now();

  async function connection() {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1');
      let buf = Buffer.alloc(0);
      let route = null;
      const next = () => {
        if (sent >= REQUESTS) {
          s.end();
          return;
        }
        route = ROUTES[sent++ % ROUTES.length];
        s.write(`GET ${route} HTTP/1.1\r\nHost: x\r\n\r\n`);
      };
      s.on('connect', next);
      s.on('data', (d) => {
        buf = buf.length ? Buffer.concat([buf, d]) : d;
        const want = expected[route].length;
        if (buf.length < want) return;
        if (mask(buf.subarray(0, want)) !== expected[route].text || buf.length !== want) {
          if (wrong++ < 3) console.error(`wrong response for ${route}: ${JSON.stringify(buf.toString('latin1'))}`);
        }
        checked++;
        buf = Buffer.alloc(0);
        next();
      });
      s.on('error', reject);
      s.on('close', resolve);
    });
  }

  const sampler = setInterval(async () => {
    const m = await mem();
    samples.push({ requests: checked, rss: m.rss, heap: m.heap });
    process.stderr.write(`\r${checked} requests, RSS ${(m.rss / 2 ** 20).toFixed(1)} MiB, heap ${(m.heap / 2 ** 20).toFixed(1)} MiB   `);
  }, 2000);
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  clearInterval(sampler);
  const final = await mem();
  samples.push({ requests: checked, rss: final.rss, heap: final.heap });
  server.kill();
  process.stderr.write('\n');

  const secs = (Date.now() - t0) / 1000;
  console.log(`soak${STOCK ? ' (stock Node, for comparison)' : ''}: ${checked} keep-alive requests checked in ${secs.toFixed(0)} s (${(checked / secs).toFixed(0)}/s), ` +
    `${CONNECTIONS} connections, Node ${require('node:child_process').execFileSync(NODE, ['-v']).toString().trim()}`);
  console.log(`wrong responses: ${wrong}`);
  console.log(`fast paths: ${JSON.stringify(final.counters)}`);
  console.log('requests    RSS MiB   heap MiB');
  const step = Math.max(1, Math.floor(samples.length / 10));
  for (let i = 0; i < samples.length; i += step) {
    const s = samples[i];
    console.log(`${String(s.requests).padStart(8)}  ${(s.rss / 2 ** 20).toFixed(1).padStart(8)}  ${(s.heap / 2 ** 20).toFixed(1).padStart(9)}`);
  }
  const q = Math.max(1, Math.floor(samples.length / 4));
  const avg = (xs) => xs.reduce((a, s) => a + s.rss, 0) / xs.length;
  const growth = avg(samples.slice(-q)) - avg(samples.slice(0, q));
  console.log(`RSS, last quarter against first quarter: ${(growth / 2 ** 20).toFixed(1)} MiB`);
  const ok = wrong === 0 && checked === REQUESTS && growth < 16 * 2 ** 20;
  console.log(ok ? 'soak passed' : 'soak FAILED');
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
