'use strict';

// The byte check: one raw HTTP/1.1 GET (Connection: close) per path, the
// whole answer as bytes, the Date value normalised (the one thing allowed
// to differ between two runs), and where two answers first differ.

const net = require('node:net');

function request(urlPath) {
  return `GET ${urlPath} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`;
}

// Every byte the server sends until it closes the connection.
function fetchRaw({ host, port }, urlPath, { timeout = 10000 } = {}) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const socket = net.connect({ port, host });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`GET ${urlPath}: the connection was still open after ${timeout / 1000} s ` +
        '(Connection: close was sent; the answer never ended)'));
    }, timeout);
    socket.on('connect', () => socket.write(request(urlPath)));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`GET ${urlPath}: ${err.message}`));
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
  });
}

// The bytes as latin1 text (one character per byte) with each Date
// header's value replaced.
function normalise(bytes) {
  return bytes.toString('latin1').replace(
    /(\r\n[Dd][Aa][Tt][Ee]:[ \t]*)[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g, '$1<date>');
}

// Where two normalised answers first differ, or null: the byte offset and
// the line (head and body alike) on each side, quoted, around it.
function firstDifference(a, b) {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const lineAt = (s) => { // at most 60 characters either side of the offset
    const lineStart = s.lastIndexOf('\n', i - 1) + 1;
    const nl = s.indexOf('\n', i);
    const lineEnd = nl === -1 ? s.length : nl + 1;
    const start = Math.max(lineStart, i - 60);
    const end = Math.min(lineEnd, i + 60);
    return `${start > lineStart ? '...' : ''}${JSON.stringify(s.slice(start, end))}${end < lineEnd ? '...' : ''}`;
  };
  const line = (a.slice(0, i).match(/\n/g) || []).length + 1;
  return { offset: i, line, a: lineAt(a), b: lineAt(b), lengths: [a.length, b.length] };
}

module.exports = { fetchRaw, normalise, firstDifference };
