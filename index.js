'use strict';

// onewrite: Node's HTTP/1.1 server, answering in one socket write.
//
//   require('onewrite').install()      patch Node's prototypes (responses, requests)
//   require('onewrite').uninstall()    put Node's own methods back
//   require('onewrite').status()       { active, mode, available, reason, counters, fallbacks, ... }
//   require('onewrite').ServerResponse for http.createServer({ ServerResponse })
//   require('onewrite').buildHead(...) the native head builder, on its own
//   require('onewrite').sse(res) / .ndjson(res)  streaming writers

const { install, uninstall, status, ServerResponse, available } = require('./lib/install');

// Loaded when first called: nothing a require('onewrite') loads can throw
// (lib/install.js sets itself up in a guard); these read Node's internals
// too, and say what went wrong when they are used.
function buildHead(statusCode, statusMessage, headers, options) {
  return require('./lib/build').buildHead(statusCode, statusMessage, headers, options);
}
function sse(res, options) {
  return require('./lib/stream').sse(res, options);
}
function ndjson(res, options) {
  return require('./lib/stream').ndjson(res, options);
}

module.exports = { install, uninstall, status, ServerResponse, buildHead, sse, ndjson, available };
