'use strict';

// One half of test/client-differential.js: plays the seeded http.request()
// scenarios of helpers/client-scenarios.js, each against a recording server
// of its own on loopback, and writes the transcripts (the bytes the server
// received on each connection, the client's log) to the file named by
// argv[2].  The parent runs it twice on the same Node: as plain `node`, and
// with onewrite's register preloaded (`node -r onewrite/register`).
//
//   ONEWRITE_SEED, ONEWRITE_CLIENT_CASES, ONEWRITE_CLIENT_HOSTILE_CASES
//   ONEWRITE_CLIENT_ONLY=<n>          play only normal case n
//   ONEWRITE_CLIENT_ONLY_HOSTILE=<n>  play only hostile case n
//   ONEWRITE_CLIENT_SIDE              'stock' or 'fast' (what the transcript says it is)

const http = require('node:http');
const net = require('node:net');
const fs = require('node:fs');
const { clientScenario, hostileScenario } = require('./client-scenarios');

const SEED = Number(process.env.ONEWRITE_SEED);
const CASES = Number(process.env.ONEWRITE_CLIENT_CASES || 0);
const HOSTILE = Number(process.env.ONEWRITE_CLIENT_HOSTILE_CASES || 0);
const ONLY = process.env.ONEWRITE_CLIENT_ONLY;
const ONLY_HOSTILE = process.env.ONEWRITE_CLIENT_ONLY_HOSTILE;
const CONCURRENCY = 8;
const STUCK = Number(process.env.ONEWRITE_CLIENT_STUCK_MS || 2000);

let ipv6 = false;

// ---- describing values without running user code ----------------------------

const hostileObjects = new WeakMap(); // object -> its id: described by id, never read

function describe(v, depth = 0) {
  if (v === undefined) return '<undefined>';
  if (typeof v === 'number') return Number.isNaN(v) ? '<NaN>' : Object.is(v, -0) ? '<-0>' : v;
  if (typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function') return `<${typeof v}>`;
  if (v === null || typeof v !== 'object') return v;
  if (hostileObjects.has(v)) return `<hostile ${hostileObjects.get(v)}>`;
  if (depth > 4) return '<deep>';
  if (Buffer.isBuffer(v)) return `<buffer ${v.toString('latin1')}>`;
  if (ArrayBuffer.isView(v)) return `<${v.constructor.name} ${v.byteLength}>`;
  if (Array.isArray(v)) return v.map((x) => describe(x, depth + 1));
  const out = {};
  for (const k of Object.keys(v)) out[k] = describe(v[k], depth + 1);
  return out;
}

function describeError(err) {
  if (err === null || typeof err !== 'object') return { thrown: describe(err) };
  return { name: err.constructor ? err.constructor.name : '?', code: err.code, message: String(err.message) };
}

function safe(fn) {
  try {
    return describe(fn());
  } catch (err) {
    return ['throws', describeError(err)];
  }
}

// What the request looks like: the public fields, and the ones of Node's
// that say how the head and body are sent (_header is kept as Node keeps
// it).  Not outputData / writableLength: what is queued is onewrite's
// business, the bytes on the wire are compared instead.
const FIELDS = ['headersSent', '_header', 'writableEnded', 'writableFinished', 'finished',
  'destroyed', 'aborted', 'chunkedEncoding', 'shouldKeepAlive', 'useChunkedEncodingByDefault',
  '_last', '_hasBody', '_removedConnection', '_removedContLen', '_removedTE', '_contentLength',
  'strictContentLength', 'sendDate', 'reusedSocket', 'method', 'path', 'host', 'protocol', 'maxHeadersCount'];

function state(req) {
  const out = {};
  for (const f of FIELDS) out[f] = safe(() => req[f]);
  out.getHeaders = safe(() => req.getHeaders());
  out.getRawHeaderNames = safe(() => req.getRawHeaderNames());
  out.hasSocket = req.socket != null;
  return out;
}

// ---- bodies -----------------------------------------------------------------

function materialiseBody(b) {
  if (b.kind === 'string') return b.text;
  if (b.kind === 'buffer' && b.high) return Buffer.from(Array.from({ length: b.len }, (_, i) => (i * 37 + 200) & 0xff));
  if (b.kind === 'buffer') return Buffer.alloc(b.len, 0x41 + (b.len % 26));
  if (b.kind === 'uint8') return new Uint8Array(b.len).fill(0x61);
  if (b.kind === 'bad') return b.value === 'number' ? 42 : b.value === 'null' ? null : { a: 1 };
  return undefined;
}

// ---- the recording server -----------------------------------------------------

// Where a request's body ends in `rest` (the bytes after its head): the
// length of the body, or -1 where it is not all there or not framed (the
// server then answers when the connection goes quiet).
function framedLength(head, rest) {
  const lines = head.split('\r\n');
  const te = [];
  const cl = [];
  for (const line of lines.slice(1)) {
    const at = line.indexOf(':');
    if (at < 0) continue;
    const k = line.slice(0, at).trim().toLowerCase();
    const v = line.slice(at + 1).trim();
    if (k === 'transfer-encoding') te.push(v);
    if (k === 'content-length') cl.push(v);
  }
  if (te.length > 0) {
    const last = te.join(',').split(',').pop().trim().toLowerCase();
    if (last !== 'chunked') return -1;
    let at = 0;
    for (;;) {
      const eol = rest.indexOf('\r\n', at);
      if (eol < 0) return -1;
      const size = parseInt(rest.slice(at, eol), 16);
      if (Number.isNaN(size)) return -1;
      if (size === 0) {
        const end = rest.indexOf('\r\n\r\n', eol);
        if (rest.slice(eol, eol + 4) === '\r\n\r\n') return eol + 4;
        return end < 0 ? -1 : end + 4;
      }
      at = eol + 2 + size + 2;
      if (at > rest.length) return -1;
    }
  }
  if (cl.length === 1 && /^\d+$/.test(cl[0])) {
    const n = Number(cl[0]);
    return rest.length >= n ? n : -1;
  }
  return -1;
}

const FULL = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Dup: a\r\nx-dup: b\r\n' +
  'Set-Cookie: a=1\r\nSet-Cookie: b=2\r\n';

function answer(socket, pl, head, pre) {
  const isHead = /^HEAD /.test(head);
  const asksClose = /\r\nconnection:[^\r\n]*\bclose\b/i.test(head);
  const early = pre + (pl.early ? 'HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n' : '');
  const closing = asksClose || pl.kind === 'close' ? 'Connection: close\r\n' : '';
  let out;
  let close = asksClose;
  switch (pl.kind) {
    case 'normal':
    case 'close':
      out = `${FULL}Content-Length: 5\r\n${closing}\r\n${isHead ? '' : 'hello'}`;
      close = close || pl.kind === 'close';
      break;
    case 'chunked':
      out = `${FULL}Transfer-Encoding: chunked\r\n${closing}\r\n${isHead ? '' : '5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n'}`;
      break;
    case 's204': out = `HTTP/1.1 204 No Content\r\nX-A: 1\r\n${closing}\r\n`; break;
    case 's404': out = `HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n${closing}\r\n${isHead ? '' : 'not found'}`; break;
    case 'cutBody': out = `HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n${isHead ? '' : 'hello'}`; close = true; break;
    case 'cutHead': out = 'HTTP/1.1 200 OK\r\nContent-Le'; close = true; break;
    case 'hangup': out = ''; close = true; break;
    case 'silent': return;
    default: throw new Error(`unknown answer ${pl.kind}`);
  }
  if (early + out !== '') socket.write(early + out, 'latin1');
  if (close) socket.end();
}

// The server answers a request only when the client is waiting for the
// answer (gate.wait(): a waitContinue or waitResponse step, or the calls
// all made) and every byte the client's socket took has arrived: never in
// the middle of the client's calls, whatever the speed of either side, so
// that each run sees the same events in the same order.  A held sibling
// and a nested request (hostile family) are answered once their body is
// all there.
function makeGate() {
  const gate = {
    waiting: new Map(), // request -> 'continue' | 'response'
    answered: new WeakSet(),
    socketReq: new Map(), // client socket -> the request on it now
    checks: new Set(), // the server's connections' check()
    poll: null,
    wait(req, kind) {
      gate.waiting.set(req, kind);
      for (const check of gate.checks) check();
      // Asked again while anything waits: the last bytes may arrive while
      // the client socket's count still includes a write in flight.
      if (gate.poll === null) {
        gate.poll = setInterval(() => {
          for (const check of gate.checks) check();
        }, 5);
      }
    },
    stop() {
      clearInterval(gate.poll);
    },
    unwait(req) {
      gate.waiting.delete(req);
    },
    track(socket, req) {
      gate.socketReq.set(socket, req);
    },
    // What the client on the other side of `serverSocket` waits for, if all
    // it wrote is here: 'continue', 'response' or null; and its request.
    waitingFor(serverSocket) {
      for (const [socket, req] of gate.socketReq) {
        if (socket.localPort !== serverSocket.remotePort) continue;
        if (!gate.waiting.has(req) || gate.answered.has(req)) return null;
        if (socket.bytesWritten !== serverSocket.bytesRead) return null;
        return { kind: gate.waiting.get(req), req };
      }
      return null;
    },
  };
  return gate;
}

function recordingServer(plans, gate) {
  const conns = [];
  const sockets = new Set();
  let arrivals = 0;
  const server = net.createServer((socket) => {
    const conn = [];
    conns.push(conn);
    sockets.add(socket);
    let buf = '';
    let sent100 = false;
    let closed = false;
    const check = () => {
      if (closed || socket.destroyed) return;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end + 4);
        const length = framedLength(head, buf.slice(end + 4));
        if (/ \/(sibling|nested) /.test(head.split('\r\n')[0])) {
          if (length < 0) return;
          buf = buf.slice(end + 4 + length);
          answer(socket, { kind: 'normal' }, head, '');
          continue;
        }
        const w = gate.waitingFor(socket);
        if (w === null) return;
        const pl = plans[Math.min(arrivals, plans.length - 1)];
        const wants100 = pl.cont && /\r\nexpect:[ \t]*100-continue[ \t]*\r\n/i.test(head);
        if (w.kind === 'continue' && wants100) {
          if (!sent100) {
            sent100 = true;
            socket.write('HTTP/1.1 100 Continue\r\n\r\n');
          }
          return;
        }
        const pre = wants100 && !sent100 ? 'HTTP/1.1 100 Continue\r\n\r\n' : '';
        buf = length < 0 ? '' : buf.slice(end + 4 + length);
        sent100 = false;
        arrivals++;
        gate.answered.add(w.req);
        answer(socket, pl, head, pre);
      }
    };
    gate.checks.add(check);
    socket.on('data', (d) => {
      conn.push(d);
      buf += d.toString('latin1');
      check();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      gate.checks.delete(check);
      sockets.delete(socket);
    });
  });
  return {
    server,
    listen: () => new Promise((resolve) => server.listen(0, ipv6 ? '::' : '127.0.0.1', () => resolve(server.address().port))),
    // Every connection's bytes, as latin1; connections that sent nothing
    // (one the client dropped before writing: whether the server accepted
    // it first is a race) left out, the rest sorted (connections made at
    // the same time are accepted in either order).
    finish: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve(conns.map((c) => Buffer.concat(c).toString('latin1')).filter((s) => s !== '').sort()));
    }),
  };
}

// ---- the client ---------------------------------------------------------------

const tick = () => new Promise((resolve) => setImmediate(resolve));

function agentFor(kind) {
  if (kind === 'keepAlive') return new http.Agent({ keepAlive: true });
  if (kind === 'plain') return new http.Agent({ keepAlive: false });
  if (kind === 'false') return false;
  return undefined; // the global agent
}

// Everything that happens to a request, in its log.
function watch(req, log, done, gate) {
  const flags = { closed: false, res: null, resClosed: false, socket: false, response: false, continued: false };
  const check = () => {
    if (flags.closed && (flags.res === null || flags.resClosed)) done();
    for (const w of flags.waiters || []) w();
  };
  req.on('socket', (socket) => {
    flags.socket = true;
    if (gate) gate.track(socket, req);
    log.push(['socket', req.reusedSocket, socket.connecting]);
    check();
  });
  for (const ev of ['prefinish', 'finish', 'abort', 'drain']) req.on(ev, () => log.push([ev]));
  req.on('timeout', () => log.push(['timeout']));
  req.on('continue', () => {
    flags.continued = true;
    log.push(['continue']);
    check();
  });
  req.on('information', (info) => log.push(['information', info.statusCode, info.statusMessage, info.rawHeaders]));
  req.on('error', (err) => {
    log.push(['error', describeError(err)]);
    check();
  });
  req.on('close', () => {
    flags.closed = true;
    log.push(['close']);
    check();
  });
  req.on('response', (res) => {
    flags.res = res;
    flags.response = true;
    log.push(['response', res.statusCode, res.statusMessage, res.httpVersion, res.rawHeaders, describe(res.headers)]);
    let data = '';
    res.on('data', (d) => {
      data += d.toString('latin1');
    });
    res.on('end', () => log.push(['res-end', data, res.complete]));
    res.on('aborted', () => log.push(['res-aborted']));
    res.on('error', (err) => log.push(['res-error', describeError(err)]));
    res.on('close', () => {
      flags.resClosed = true;
      log.push(['res-close', data, res.complete]);
      check();
    });
    check();
  });
  return flags;
}

// Resolve when `ready()` is true, or the request is over, checked at each
// event watch() sees; after STUCK ms, log that it never was.
function until(flags, ready, log, what) {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      log.push(['wait-timeout', what]);
      finish();
    }, STUCK);
    const finish = () => {
      clearTimeout(t);
      flags.waiters = flags.waiters.filter((w) => w !== check);
      resolve();
    };
    const check = () => {
      if (ready() || flags.closed) finish();
    };
    flags.waiters = [...(flags.waiters || []), check];
    check();
  });
}

async function waitConnect(req, flags, log) {
  await until(flags, () => flags.socket, log, 'socket');
  const socket = req.socket;
  if (socket && socket.connecting && !socket.destroyed) {
    await new Promise((resolve) => {
      const t = setTimeout(() => {
        log.push(['wait-timeout', 'connect']);
        resolve();
      }, STUCK);
      const go = () => {
        clearTimeout(t);
        socket.off('connect', go);
        socket.off('close', go);
        resolve();
      };
      socket.on('connect', go);
      socket.on('close', go);
    });
  }
  await tick();
}

// Names resolved at once, without getaddrinfo (whose answer comes back on
// the thread pool, at a different point among the scenario's ticks from
// one run to the next): localhost is 127.0.0.1, any other name is not found.
function lookup(hostname, opts, cb) {
  if (typeof opts === 'function') {
    cb = opts;
    opts = {};
  }
  if (hostname !== 'localhost') {
    const err = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    Object.assign(err, { errno: -3008, code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
    cb(err);
    return;
  }
  if (opts && opts.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
}

function hostFor(h) {
  if (!ipv6 && (h === '::1' || h === '[::1]')) return '127.0.0.1';
  return h;
}

// The options http.request gets, from a scenario's description.  Returns
// [input (URL string or null), options].
function buildOptions(o, ctx) {
  const { port } = ctx;
  const opts = {};
  if ('method' in o) opts.method = o.method;
  const p = o.path === '<ABS>' ? `http://127.0.0.1:${port}/abs` : o.path;
  const host = hostFor(o.host);
  let input = null;
  if (o.url) {
    const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    input = `http://${h}:${port}${p === undefined || p === '*' || p === '' ? '/' : p.startsWith('/') ? p : '/' + p}`;
  } else {
    if (p !== undefined) opts.path = p;
    opts[o.hostKey || 'host'] = host;
    opts.port = port;
  }
  opts.lookup = lookup;
  if (o.defaultPortIsPort) opts.defaultPort = port;
  if ('setHost' in o) opts.setHost = o.setHost;
  if ('auth' in o) opts.auth = o.auth;
  if ('joinDuplicateHeaders' in o) opts.joinDuplicateHeaders = o.joinDuplicateHeaders;
  if ('uniqueHeaders' in o) opts.uniqueHeaders = o.uniqueHeaders.slice();
  const agent = ctx.agent;
  if (agent !== undefined) opts.agent = agent;
  if (o.signal) {
    ctx.controller = new AbortController();
    if (o.signal === 'aborted') ctx.controller.abort();
    opts.signal = ctx.controller.signal;
  }
  if (o.headers) {
    const [kind, pairs] = o.headers;
    const v = (x) => ctx.value(x);
    if (kind === 'object') {
      const h = {};
      for (const [k, x] of pairs) h[k] = v(x);
      opts.headers = ctx.headersProxy ? ctx.proxy(h, 'headers') : h;
    } else {
      const arr = kind === 'pairs' ? pairs.map(([k, x]) => [k, v(x)]) : pairs.flatMap(([k, x]) => [k, v(x)]);
      if (o.oddFlat) arr.push('odd');
      opts.headers = ctx.headersProxy ? ctx.proxy(arr, 'headers') : arr;
    }
  }
  return [input, ctx.optionGetters ? ctx.getters(opts) : opts];
}

async function runSteps(req, flags, list, log, ctx) {
  for (let i = 0; i < list.length; i++) {
    const [op, a, b] = list[i];
    try {
      switch (op) {
        case 'setHeader': log.push(['setHeader', describe(req.setHeader(a, ctx.value(b)) === req)]); break;
        case 'appendHeader':
          if (typeof req.appendHeader === 'function') req.appendHeader(a, ctx.value(b));
          else req.setHeader(a, ctx.value(b));
          break;
        case 'removeHeader': req.removeHeader(a); break;
        case 'strict': req.strictContentLength = true; break;
        case 'flushHeaders': req.flushHeaders(); log.push(['flushed', req.headersSent]); break;
        case 'tick': await tick(); log.push(['tick']); break;
        case 'waitSocket': await until(flags, () => flags.socket, log, 'socket'); log.push(['waited', op]); break;
        case 'waitConnect': await waitConnect(req, flags, log); log.push(['waited', op]); break;
        case 'waitContinue':
          // Only a head already sent can be answered (a later step can
          // have taken Expect off, or a throw left the head unsent).
          if (!req.headersSent || req.writableEnded) {
            log.push(['no-wait', op]);
            break;
          }
          ctx.gate.wait(req, 'continue');
          await until(flags, () => flags.continued || flags.response, log, 'continue');
          ctx.gate.unwait(req);
          log.push(['waited', op]);
          break;
        case 'waitResponse':
          if (!req.writableEnded) {
            log.push(['no-wait', op]);
            break;
          }
          ctx.gate.wait(req, 'response');
          await until(flags, () => flags.response, log, 'response');
          log.push(['waited', op]);
          break;
        case 'setTimeout':
          req.setTimeout(a, () => log.push(['timeout-cb']));
          req.on('timeout', () => req.destroy());
          break;
        case 'destroy': req.destroy(); log.push(['destroyed', req.destroyed]); break;
        case 'destroyErr': req.destroy(new Error('boom')); break;
        case 'signal': ctx.controller.abort(); break;
        case 'abort': req.abort(); break;
        case 'write': {
          const data = materialiseBody(a);
          const cb = b ? (err) => log.push(['write-cb', err ? describeError(err) : null]) : undefined;
          let ret;
          if (a.enc !== undefined) ret = req.write(data, a.enc, cb);
          else if (cb) ret = req.write(data, cb);
          else ret = req.write(data);
          log.push(['write', ret]);
          break;
        }
        case 'end': {
          const data = materialiseBody(a);
          const cb = b ? (err) => log.push(['end-cb', err ? describeError(err) : null]) : undefined;
          let ret;
          if (data === undefined) ret = cb ? req.end(cb) : req.end();
          else if (a.enc !== undefined) ret = req.end(data, a.enc, cb);
          else ret = cb ? req.end(data, cb) : req.end(data);
          log.push(['ended', ret === req, req.writableEnded, req.headersSent, req.writableFinished, req.finished]);
          break;
        }
        default: throw new Error(`unknown step ${op}`);
      }
    } catch (err) {
      log.push(['throw', i, op, describeError(err)]);
    }
  }
}

// One request of a scenario, made and played to its end: its log.
async function runRequest(spec, ctx) {
  const log = [];
  ctx.log = log;
  let req;
  let input;
  let opts;
  try {
    [input, opts] = buildOptions(spec.options, ctx);
    const cb = spec.options.callback ? (res) => log.push(['cb-response', res.statusCode]) : undefined;
    if (input !== null) req = cb ? http.request(input, opts, cb) : http.request(input, opts);
    else req = cb ? http.request(opts, cb) : http.request(opts);
  } catch (err) {
    log.push(['throw', 'request', describeError(err)]);
    ctx.log = null;
    return log;
  }
  ctx.req = req;
  let resolveDone;
  const done = new Promise((resolve) => {
    resolveDone = resolve;
  });
  const flags = watch(req, log, () => resolveDone(), ctx.gate);
  if (ctx.socketWrap) {
    req.on('socket', (socket) => ctx.wrapSocket(socket, log));
  }
  log.push(['created', state(req)]);
  await runSteps(req, flags, spec.steps, log, ctx);
  log.push(['after-steps', state(req)]);
  // A request the steps left open (a throw on the way) is ended, or, if
  // even that throws, destroyed, so that every request finishes.
  if (!req.writableEnded && !req.destroyed) {
    try {
      req.end();
      log.push(['final-end', req.writableEnded]);
    } catch (err) {
      log.push(['final-end-throw', describeError(err)]);
      req.destroy();
    }
  }
  ctx.gate.wait(req, 'response');
  const stuck = setTimeout(() => {
    log.push(['stuck', flags.closed, flags.res !== null, flags.resClosed]);
    req.destroy();
    resolveDone();
  }, STUCK);
  await done;
  clearTimeout(stuck);
  await tick();
  await tick();
  log.push(['final', state(req)]);
  ctx.req = null;
  ctx.log = null;
  return log;
}

// ---- hostile values -----------------------------------------------------------

function hostileContext(s, ctx) {
  let next = 0;
  ctx.extra = []; // logs of requests made by hostile values
  ctx.pending = [];
  const act = (action, log) => {
    const sib = ctx.sibling;
    const self = ctx.req;
    try {
      let r;
      switch (action) {
        case 'none': return;
        case 'end-sibling': r = sib ? sib.end('sib-end') === sib : 'no sibling'; break;
        case 'write-sibling': r = sib ? sib.write('sib') : 'no sibling'; break;
        case 'destroy-sibling': r = sib ? (sib.destroy(), sib.destroyed) : 'no sibling'; break;
        case 'flush-sibling': r = sib ? (sib.flushHeaders(), sib.headersSent) : 'no sibling'; break;
        case 'new-request': {
          const nlog = [];
          ctx.extra.push(nlog);
          const nreq = http.request({ host: '127.0.0.1', port: ctx.port, method: 'POST', path: '/nested', agent: false });
          ctx.pending.push(new Promise((resolve) => watch(nreq, nlog, resolve, ctx.gate)));
          nreq.end('nested');
          r = nreq.headersSent;
          break;
        }
        case 'end-self': r = self ? self.end('self') === self : 'no self'; break;
        case 'write-self': r = self ? self.write('self') : 'no self'; break;
        case 'setHeader-self': r = self ? (self.setHeader('X-Reentered', '1'), 'set') : 'no self'; break;
        case 'removeHeader-self': r = self ? (self.removeHeader('x-h'), 'removed') : 'no self'; break;
        case 'flush-self': r = self ? (self.flushHeaders(), self.headersSent) : 'no self'; break;
        case 'destroy-self': r = self ? (self.destroy(), self.destroyed) : 'no self'; break;
        default: throw new Error(`unknown action ${action}`);
      }
      log.push(['act', action, describe(r)]);
    } catch (err) {
      log.push(['act-throw', action, describeError(err)]);
    }
  };
  // The log a call of user code goes to: the request being made or played.
  const logOf = () => ctx.log || ctx.orphanLog;
  const value = (d) => {
    if (d === null || typeof d !== 'object' || !('h' in d)) return d;
    const id = next++;
    let acted = false;
    const once = (log) => {
      if (acted) return;
      acted = true;
      act(d.action, log);
    };
    if (d.h === 'toString') {
      const o = {
        toString() {
          logOf().push(['user', id, 'toString']);
          once(logOf());
          return d.s;
        },
      };
      hostileObjects.set(o, id);
      return o;
    }
    if (d.h === 'valueOf') {
      const o = {
        valueOf() {
          logOf().push(['user', id, 'valueOf']);
          once(logOf());
          return d.s;
        },
        toString() {
          logOf().push(['user', id, 'toString']);
          return d.s;
        },
      };
      hostileObjects.set(o, id);
      return o;
    }
    if (d.h === 'array') {
      const a = d.items.map(value);
      hostileObjects.set(a, id);
      return a;
    }
    if (d.h === 'getterArray') {
      const a = [];
      Object.defineProperty(a, 0, {
        enumerable: true,
        configurable: true,
        get() {
          logOf().push(['user', id, 'get[0]']);
          once(logOf());
          return d.s;
        },
      });
      hostileObjects.set(a, id);
      return a;
    }
    throw new Error(`unknown hostile value ${d.h}`);
  };
  ctx.value = value;
  ctx.headersProxy = s.headersProxy;
  ctx.optionGetters = s.optionGetters;
  ctx.socketWrap = s.socketWrap;
  ctx.proxy = (target, name) => {
    const p = new Proxy(target, {
      get(t, k, r) {
        logOf().push(['trap', name, 'get', typeof k === 'symbol' ? k.toString() : k]);
        return Reflect.get(t, k, r);
      },
      ownKeys(t) {
        logOf().push(['trap', name, 'ownKeys']);
        return Reflect.ownKeys(t);
      },
      getOwnPropertyDescriptor(t, k) {
        logOf().push(['trap', name, 'gopd', typeof k === 'symbol' ? k.toString() : k]);
        return Reflect.getOwnPropertyDescriptor(t, k);
      },
      has(t, k) {
        logOf().push(['trap', name, 'has', typeof k === 'symbol' ? k.toString() : k]);
        return Reflect.has(t, k);
      },
    });
    hostileObjects.set(p, `proxy ${name}`);
    return p;
  };
  ctx.getters = (opts) => {
    const o = {};
    for (const k of Object.keys(opts)) {
      const v = opts[k];
      Object.defineProperty(o, k, {
        enumerable: true,
        configurable: true,
        get() {
          logOf().push(['option-get', k]);
          return v;
        },
      });
    }
    return o;
  };
  ctx.wrapSocket = (socket, log) => {
    const write = socket.write;
    socket.write = function wrappedWrite(chunk, encoding, cb) {
      const size = typeof chunk === 'string' ? `string ${chunk.length}` : chunk && chunk.byteLength;
      log.push(['socket.write', typeof chunk, size, typeof encoding === 'string' ? encoding : typeof encoding,
        typeof cb]);
      return write.apply(this, arguments);
    };
  };
}

// ---- a scenario ---------------------------------------------------------------

const plainValue = (x) => x;

async function runScenario(s) {
  const gate = makeGate();
  const rec = recordingServer(s.plans, gate);
  const port = await rec.listen();
  const agent = agentFor(s.agent);
  const ctx = { port, agent, gate, value: plainValue, log: null, orphanLog: [] };
  const out = { requests: [] };
  if (s.hostile) {
    hostileContext(s, ctx);
    if (s.sibling) {
      const slog = [];
      out.sibling = slog;
      const sib = http.request({
        host: '127.0.0.1', port, method: s.sibling.method, path: '/sibling', agent: false,
        headers: { 'Transfer-Encoding': 'chunked', 'X-Sib': '1' },
      });
      ctx.sibling = sib;
      let sibDone;
      ctx.pending.push(new Promise((resolve) => {
        sibDone = resolve;
      }));
      const flags = watch(sib, slog, () => sibDone(), ctx.gate);
      if (s.sibling.flush) sib.flushHeaders();
      await waitConnect(sib, flags, slog);
    }
  }
  for (const spec of s.requests) {
    out.requests.push(await runRequest(spec, ctx));
    await tick();
  }
  if (ctx.sibling) {
    try {
      if (!ctx.sibling.writableEnded && !ctx.sibling.destroyed) ctx.sibling.end();
    } catch (err) {
      out.sibling.push(['final-end-throw', describeError(err)]);
    }
  }
  if (ctx.pending) {
    const timer = new Promise((resolve) => setTimeout(() => resolve('stuck'), STUCK));
    const r = await Promise.race([Promise.all(ctx.pending), timer]);
    if (r === 'stuck') out.pendingStuck = true;
    out.extra = ctx.extra;
    if (ctx.sibling) out.siblingState = state(ctx.sibling);
  }
  if (ctx.orphanLog.length > 0) out.orphan = ctx.orphanLog;
  await tick();
  gate.stop();
  out.connections = await rec.finish();
  if (agent) agent.destroy();
  // The server's port is the one thing that differs from run to run.
  return JSON.stringify(out).replace(new RegExp(`:${port}\\b`, 'g'), ':<port>');
}

// ---- main ---------------------------------------------------------------------

const uncaught = [];
process.on('uncaughtException', (err) => uncaught.push(describeError(err)));

async function main() {
  ipv6 = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '::1', () => s.close(() => resolve(true)));
    s.on('error', () => resolve(false));
  });
  const started = Date.now();
  const results = [];
  const indices = ONLY !== undefined ? [Number(ONLY)] : ONLY_HOSTILE !== undefined ? [] :
    Array.from({ length: CASES }, (_, i) => i);
  let next = 0;
  async function worker() {
    while (next < indices.length) {
      const index = indices[next++];
      results.push([index, await runScenario(clientScenario(SEED, index))]);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  results.sort((a, b) => a[0] - b[0]);
  const hostile = [];
  const hIndices = ONLY_HOSTILE !== undefined ? [Number(ONLY_HOSTILE)] : ONLY !== undefined ? [] :
    Array.from({ length: HOSTILE }, (_, i) => i);
  next = 0;
  async function hostileWorker() {
    while (next < hIndices.length) {
      const index = hIndices[next++];
      hostile.push([index, await runScenario(hostileScenario(SEED, index))]);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, hostileWorker));
  hostile.sort((a, b) => a[0] - b[0]);
  let status = null;
  const pkg = process.env.ONEWRITE_CLIENT_STATUS_FROM;
  if (pkg) {
    try {
      status = require(pkg).status();
    } catch (err) {
      status = { error: describeError(err) };
    }
  }
  fs.writeFileSync(process.argv[2], JSON.stringify({
    side: process.env.ONEWRITE_CLIENT_SIDE, node: process.version, ipv6, ms: Date.now() - started,
    results, hostile, uncaught, status,
  }));
  // Keep-alive sockets of the global agent are closed by the servers; the
  // process ends when nothing is left.
  setTimeout(() => process.exit(0), 200).unref();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
