'use strict';

// Decides whether the fast paths can run here, puts them on
// http.ServerResponse.prototype (install) or on a subclass, and takes them
// off again (uninstall) leaving the prototype exactly as it was.

const http = require('node:http');
const native = require('./native');
const internals = require('./internals');
const stats = require('./stats');

let saved = null; // own property descriptors of ServerResponse.prototype before install

// Why the fast paths cannot run here, or null.  Checked once, at load.
function whyUnavailable({ disable, version, tested, binding, error, missing }) {
  if (disable === '1') return 'disabled by ONEWRITE_DISABLE=1';
  const major = Number(String(version).split('.')[0]);
  if (!tested.includes(major)) {
    return `Node ${version} is not a tested version (tested: ${tested.join(', ')})`;
  }
  if (!binding) {
    return 'the native addon could not be loaded: ' +
      (error && error.message ? error.message.split('\n')[0] : 'unknown error');
  }
  if (missing.length > 0) return `this Node lacks what onewrite relies on: ${missing.join(', ')}`;
  return null;
}

const reason = whyUnavailable({
  disable: process.env.ONEWRITE_DISABLE,
  version: process.versions.node,
  tested: internals.TESTED,
  binding: native.binding,
  error: native.error,
  missing: internals.supported ? internals.missing() : [],
});
const response = reason === null ? require('./response') : null;
const PATCHED = response === null ? [] : Object.keys(response.methods);

function install() {
  if (response === null || saved !== null) return saved !== null;
  const proto = http.ServerResponse.prototype;
  saved = {};
  for (const name of PATCHED) saved[name] = Object.getOwnPropertyDescriptor(proto, name);
  putMethods(proto);
  return true;
}

// The fast paths on `proto`, as methods (non-enumerable, like Node's own).
function putMethods(proto) {
  for (const name of PATCHED) {
    Object.defineProperty(proto, name, {
      value: response.methods[name], writable: true, configurable: true, enumerable: false,
    });
  }
}

function uninstall() {
  if (saved === null) return false;
  const proto = http.ServerResponse.prototype;
  for (const name of PATCHED) {
    if (saved[name] === undefined) delete proto[name];
    else Object.defineProperty(proto, name, saved[name]);
  }
  saved = null;
  return true;
}

// For http.createServer({ ServerResponse }): the fast paths on a subclass,
// nothing global touched.  Without them it is a plain subclass.
class ServerResponse extends http.ServerResponse {}
if (response !== null) putMethods(ServerResponse.prototype);

function status() {
  return {
    active: saved !== null,
    available: reason === null,
    reason: reason === null ? (saved !== null ? null : 'not installed') : reason,
    node: process.versions.node,
    tested: internals.TESTED.slice(),
    counters: stats.snapshot(),
  };
}

module.exports = {
  install, uninstall, status, ServerResponse, available: reason === null, whyUnavailable,
};
