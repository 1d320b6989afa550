'use strict';

// Invalid input fails the same way with onewrite as with stock Node: every
// byte and some characters above 0xFF, in header names, header values and
// the status message, on every path (setHeader, appendHeader, writeHead
// with an object, a flat array and nested arrays, statusMessage), and bad
// status codes.  Each probe runs on a real loopback server pair; the error
// thrown (class, code, message), the response state after it, and the bytes
// of the response that follows must be identical.

const t = require('tap');
const { exchange, normalise, loggedPair } = require('./helpers/wire');
const { describeError } = require('./helpers/scenarios');

const CHARS = [];
for (let c = 0; c < 256; c++) CHARS.push(String.fromCharCode(c));
CHARS.push('\u0100', '\u2028', '\ufeff', '\ud800', '\ud83d\ude00');

const PROBES = [];
for (const ch of CHARS) {
  const name = `X-N${ch}me`;
  const value = `va${ch}lue`;
  PROBES.push(['setHeader name', (res) => res.setHeader(name, 'v')]);
  PROBES.push(['setHeader value', (res) => res.setHeader('X-V', value)]);
  PROBES.push(['appendHeader value', (res) => res.appendHeader('X-V', value)]);
  PROBES.push(['setHeader array value', (res) => res.setHeader('X-V', ['ok', value])]);
  PROBES.push(['writeHead object name', (res) => res.writeHead(200, { [name]: 'v' })]);
  PROBES.push(['writeHead object value', (res) => res.writeHead(200, { 'X-V': value })]);
  PROBES.push(['writeHead flat name', (res) => res.writeHead(200, [name, 'v'])]);
  PROBES.push(['writeHead flat value', (res) => res.writeHead(200, ['X-V', value])]);
  PROBES.push(['writeHead nested value', (res) => res.writeHead(200, [['X-V', value]])]);
  PROBES.push(['writeHead after setHeader, value', (res) => {
    res.setHeader('X-Before', 'b');
    res.writeHead(200, { 'X-V': value });
  }]);
  PROBES.push(['writeHead reason', (res) => res.writeHead(200, `Re${ch}son`, { 'Content-Length': '0' })]);
  PROBES.push(['statusMessage then end', (res) => {
    res.statusMessage = `Re${ch}son`;
    res.end('x');
  }]);
  PROBES.push(['value in end() head', (res) => {
    res.setHeader('Content-Type', `text/${ch}plain`);
    res.end('body');
  }]);
}
for (const code of [-1, 0, 99, 100, 999, 1000, 1.5, 200.9, '200', '2x', NaN, null, undefined,
  {}, 2 ** 32 + 200, Infinity]) {
  PROBES.push([`writeHead(${String(code)})`, (res) => res.writeHead(code)]);
  PROBES.push([`statusCode = ${String(code)}, end`, (res) => {
    res.statusCode = code;
    res.end('x');
  }]);
}
PROBES.push(['odd flat array', (res) => res.writeHead(200, ['a', 'b', 'c'])]);
PROBES.push(['undefined value', (res) => res.writeHead(200, { 'X-U': undefined })]);
PROBES.push(['symbol value', (res) => res.writeHead(200, { 'X-S': Symbol('s') })]);
PROBES.push(['trailer without chunked', (res) => res.writeHead(200, { Trailer: 'X', 'Content-Length': '1' })]);
PROBES.push(['content length then disposition number', (res) => {
  res.writeHead(200, [['Content-Length', '5'], ['Content-Disposition', 5]]);
}]);
PROBES.push(['headers sent', (res) => {
  res.writeHead(200);
  res.writeHead(201);
}]);

function handler(log) {
  return (req, res) => {
    const i = Number(req.url.slice(1));
    const entry = [];
    log.set(i, entry);
    try {
      PROBES[i][1](res);
      entry.push('no error');
    } catch (err) {
      entry.push(describeError(err));
    }
    entry.push([res.statusCode, res.statusMessage, res.headersSent, res.getHeaderNames().join(),
      res.writableEnded]);
    // Whatever the probe left, the response is finished the same way.
    if (!res.writableEnded) {
      try {
        res.end('after');
      } catch (err) {
        entry.push(describeError(err));
        res.destroy();
      }
    }
  };
}

t.test('errors, and what they leave behind, are Node\'s', async (t) => {
  const { stockPort: p1, fastPort: p2, logs: { stock: stockLog, fast: fastLog } } = await loggedPair(t, handler);

  let next = 0;
  let differing = 0;
  let threw = 0;
  async function worker() {
    while (next < PROBES.length) {
      const i = next++;
      const raw = `GET /${i} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
      const [a, b] = await Promise.all([exchange(p1, raw), exchange(p2, raw)]);
      const sa = JSON.stringify(stockLog.get(i));
      const sb = JSON.stringify(fastLog.get(i));
      if (stockLog.has(i) && typeof stockLog.get(i)[0] === 'object') threw++;
      if (normalise(a.bytes) !== normalise(b.bytes) || sa !== sb) {
        if (differing++ < 10) {
          t.fail(`probe ${i} (${PROBES[i][0]}) differs`, {
            stock: sa, onewrite: sb,
            stockBytes: JSON.stringify(normalise(a.bytes)), onewriteBytes: JSON.stringify(normalise(b.bytes)),
          });
        }
      }
    }
  }
  await Promise.all(Array.from({ length: 12 }, worker));
  t.equal(differing, 0, `${PROBES.length} probes, ${differing} differing`);
  // A good share of the probes are invalid input (most bytes are valid in a
  // value): the comparison covers thrown errors only if many threw.
  t.ok(threw > PROBES.length / 5, `${threw} probes threw in Node`);
});
