'use strict';

// The responses test/builtins.js asks for, by name: the fast paths'
// shapes (end of a string or a Buffer, writeHead with an object, a flat
// and a nested array, setHeader, chunked writes, a Content-Length write,
// HEAD-like empty bodies), names Node looks at (Content-Length,
// Transfer-Encoding, Content-Disposition, Cookie, Connection, Date,
// Expect, Trailer, in any case), and heads onewrite hands to Node (a
// latin1 value, a number value, a joined Cookie, hex encoding).

const body = Buffer.from('0123456789');

module.exports = {
  'end-string': (req, res) => res.end('hello'),
  'end-buffer': (req, res) => res.end(body),
  'end-empty': (req, res) => res.end(),
  'write-head-object': (req, res) => {
    res.writeHead(201, { 'Content-Type': 'text/plain', 'X-A': 'a', 'Cache-Control': 'no-store' });
    res.end('created');
  },
  'write-head-message': (req, res) => {
    res.writeHead(299, 'Fine By Me', { 'X-A': 'a' });
    res.end('ok');
  },
  'write-head-flat': (req, res) => {
    res.writeHead(200, ['Content-Type', 'text/plain', 'X-B', 'b', 'X-B', 'c']);
    res.end('flat');
  },
  'write-head-nested': (req, res) => {
    res.writeHead(200, [['Content-Type', 'text/plain'], ['X-C', ['1', '2']]]);
    res.end('nested');
  },
  'set-header': (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('X-Request-Id', '42');
    res.setHeader('Set-Cookie', ['a=1', 'b=2']);
    res.end('{"ok":true}');
  },
  'set-header-merged': (req, res) => {
    res.setHeader('X-Set', 'x');
    res.writeHead(200, { 'X-Head': 'h' });
    res.end('merged');
  },
  'names-node-reads': (req, res) => {
    res.writeHead(200, {
      'CONTENT-LENGTH': '4', 'Content-Disposition': 'inline', 'connection': 'keep-alive',
      'DATE': 'Thu, 01 Jan 1970 00:00:00 GMT', 'X-Forwarded-Proto': 'https', 'Transfer-encoding-x': 'n',
    });
    res.end('four');
  },
  'transfer-encoding': (req, res) => {
    res.writeHead(200, { 'Transfer-Encoding': 'chunked', 'Trailer': 'X-T' });
    res.addTrailers({ 'X-T': 't' });
    res.end('chunked');
  },
  'chunked-writes': (req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.write('one,');
    res.write(Buffer.from('two,'));
    res.end('three');
  },
  'chunked-writes-ticks': (req, res) => {
    res.write('a');
    setImmediate(() => {
      res.write('b');
      setImmediate(() => res.end('c'));
    });
  },
  'content-length-write': (req, res) => {
    res.writeHead(200, { 'Content-Length': '10' });
    res.write(body);
    res.end();
  },
  'no-content': (req, res) => {
    res.statusCode = 204;
    res.end('dropped');
  },
  'number-value': (req, res) => {
    res.writeHead(200, { 'X-Number': 7, 'Content-Length': 2 });
    res.end('ok');
  },
  'latin1-value': (req, res) => {
    res.setHeader('X-Name', 'café');
    res.end('handed to Node');
  },
  'cookie-joined': (req, res) => {
    res.writeHead(200, { Cookie: ['a=1', 'b=2'] });
    res.end('joined');
  },
  'hex': (req, res) => res.end('68656c6c6f', 'hex'),
  'status-message-property': (req, res) => {
    res.statusMessage = 'Custom';
    res.end('custom');
  },
  // The one case that sends Node's own Date header (the child turns it
  // off for the others): last, as the child stops counting once it is
  // sent.
  'send-date': (req, res) => res.end('dated'),
};
