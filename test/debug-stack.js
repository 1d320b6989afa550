'use strict';

// NODE_DEBUG=onewrite prints the first hand-over of each reason with a
// short stack that starts in the user's code: the frame of the call that
// handed over, not onewrite's frames or Node's own (`node:...`) between
// them, which once filled the stack before it reached the user's.

const t = require('tap');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnNode } = require('./helpers/child');

const REGISTER = path.join(__dirname, '..', 'register.js');

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'onewrite-debug-stack-'));
t.teardown(() => fs.rmSync(TMP, { recursive: true, force: true }));

// A server whose handler sets a header with a character >= 0x80 (a head
// onewrite hands to Node: 'non-ascii head'), asked once.
const SCRIPT = `const http = require('node:http');
const server = http.createServer((req, res) => {
  res.setHeader('X-Name', 'caf\\u00e9');
  res.end('x');
});
server.listen(0, '127.0.0.1', () => {
  http.get('http://127.0.0.1:' + server.address().port + '/', (res) => {
    res.resume();
    res.on('end', () => server.close());
  });
});
`;
const END_LINE = SCRIPT.split('\n').findIndex((l) => l.includes("res.end('x')")) + 1;

t.test("the stack of a head handed to Node starts at the user's call", async (t) => {
  const script = path.join(TMP, 'server.js');
  fs.writeFileSync(script, SCRIPT);
  // (A clean environment: tap's NODE_OPTIONS hooks would print to stderr too.)
  const r = await spawnNode(['-r', REGISTER, script], { env: { NODE_DEBUG: 'onewrite' } });
  t.equal(r.code, 0, 'the server ran and exited', { stderr: r.stderr });

  const lines = r.stderr.split('\n');
  const at = lines.findIndex((l) => /^ONEWRITE \d+: \w+: handed to Node \(non-ascii head\), first time$/.test(l));
  t.ok(at >= 0, 'the line for the fallback, with the method and the reason', { stderr: r.stderr });
  const frames = lines.slice(at + 1).filter((l) => /^ {4}at /.test(l));
  t.equal(frames[0], `    at Server.<anonymous> (${script}:${END_LINE}:7)`,
    `the first frame is the handler's res.end('x'), line ${END_LINE} of the script`, { stderr: r.stderr });
  t.ok(frames.length > 1 && frames.length <= 4, `a few frames from there, not one: ${frames.length}`);
  t.notOk(r.stderr.includes(path.join(__dirname, '..', 'lib') + path.sep), "none of onewrite's own frames");
});
