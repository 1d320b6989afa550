'use strict';

// What the mechanical re-entry tests wrap, enumerated from the objects
// themselves: every builtin, every method of Node's on the way to the
// kernel and every index accessor Array.prototype could have.  Shared by
// test/helpers/reentry-child.js (a response's way) and
// reentry-client-child.js (a request's), each adding its own prototypes.
// Loaded before anything is wrapped: R is a realm of its own, whose
// functions the harness calls, never the wrappers it counts.

const vm = require('node:vm');
const R = vm.runInNewContext(`({
  apply: Reflect.apply, construct: Reflect.construct, gopd: Object.getOwnPropertyDescriptor,
  define: Object.defineProperty, ownKeys: Reflect.ownKeys, protoOf: Object.getPrototypeOf,
  stringify: JSON.stringify, Map, WeakMap, Error, Array,
})`);
const { gopd, ownKeys, protoOf } = R;
const net = require('node:net');
const stream = require('node:stream');
const events = require('node:events');
const util = require('node:util');
const { Buffer } = require('node:buffer');

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const BUILTINS = [
  ['Object', Object], ['Object.prototype', Object.prototype], ['Reflect', Reflect], ['Math', Math],
  ['Number', Number], ['Number.prototype', Number.prototype], ['String', String],
  ['String.prototype', String.prototype], ['Array', Array], ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype], ['RegExp.prototype', RegExp.prototype], ['JSON', JSON],
  ['Symbol', Symbol], ['Map.prototype', Map.prototype], ['Set.prototype', Set.prototype],
  ['WeakMap.prototype', WeakMap.prototype], ['WeakSet.prototype', WeakSet.prototype],
  ['ArrayBuffer', ArrayBuffer], ['TypedArray.prototype', TypedArrayPrototype],
  ['Uint8Array.prototype', Uint8Array.prototype], ['Buffer', Buffer], ['Buffer.prototype', Buffer.prototype],
  ['Promise', Promise], ['Promise.prototype', Promise.prototype], ['Error', Error],
  ['Date.prototype', Date.prototype], ['Date', Date], ['util.types', util.types], ['process', process],
  ['timers', require('node:timers')],
];
const SOCKET = [
  ['net.Socket.prototype', net.Socket.prototype], ['stream.Duplex.prototype', stream.Duplex.prototype],
  ['stream.Readable.prototype', stream.Readable.prototype],
  ['stream.Writable.prototype', stream.Writable.prototype], ['stream.Stream.prototype', stream.Stream.prototype],
  ['EventEmitter.prototype', events.EventEmitter.prototype],
];
// The holders, in order: the builtins, the side's own (`own`: [label,
// prototype] pairs), the socket's and its streams'.
function holders(own) {
  return [...BUILTINS, ...own, ...SOCKET];
}

// Functions that are not methods to wrap: what every wrapper or the
// process itself needs to stay up (exit, the wrappers' own apply).
const NEVER = new Set(['process.exit', 'process.reallyExit', 'process.abort', 'process.kill',
  'process.binding', 'process._linkedBinding', 'process.dlopen', 'process.emitWarning', 'process.cwd',
  'process.hrtime', 'process.memoryUsage', 'process.cpuUsage', 'process.uptime', 'process.resourceUsage',
  'process._rawDebug', 'process.umask', 'process.chdir', 'process.setUncaughtExceptionCaptureCallback',
  'process.hasUncaughtExceptionCaptureCallback', 'process._getActiveHandles', 'process._getActiveRequests',
  'process._kill', 'process.getActiveResourcesInfo', 'process.constrainedMemory', 'process.availableMemory',
  'process.loadEnvFile', 'process.execve', 'process.ref', 'process.unref', 'process.threadCpuUsage',
  'process.getBuiltinModule', 'process.finalization.register', 'process.setSourceMapsEnabled']);

// The handle's prototypes, from a connection made now: to `port`, or to a
// server of its own when none is given.
function handleHolders(port) {
  return new Promise((resolve) => {
    const server = port === undefined ? net.createServer((socket) => socket.destroy()) : null;
    const connect = (to) => {
      const client = net.connect(to, '127.0.0.1', () => {
        const found = [];
        let p = protoOf(client._handle);
        for (let depth = 0; p !== null && p !== Object.prototype && depth < 8; depth++) {
          found.push([`handle.${p.constructor && p.constructor.name}.prototype`, p]);
          p = protoOf(p);
        }
        client.destroy();
        if (server === null) resolve(found);
        else server.close(() => resolve(found));
      });
    };
    if (server === null) connect(port);
    else server.listen(0, '127.0.0.1', () => connect(server.address().port));
  });
}

// Every function-valued, configurable own property of the holders into
// `targets` (name -> { holder, key, d: its original descriptor }), and the
// 16 first index accessors Array.prototype does not have (d: null): a
// growing array, a hole, a truncated one reads or writes them.
function collect(targets, list) {
  for (const [label, holder] of list) {
    for (const key of ownKeys(holder)) {
      const name = `${label}${typeof key === 'symbol' ? `[${key.description}]` : `.${key}`}`;
      const d = gopd(holder, key);
      if (NEVER.has(name) || key === 'constructor' || typeof d.value !== 'function' || !d.configurable) continue;
      // A handle's onread is V8's accessor in the guise of a value.
      if (label.startsWith('handle.') && typeof key === 'string' && key.startsWith('on')) continue;
      targets.set(name, { holder, key, d });
    }
  }
  for (let i = 0; i < 16; i++) targets.set(`Array.prototype[${i}]`, { holder: Array.prototype, key: String(i), d: null });
}

module.exports = { R, holders, handleHolders, collect };
