'use strict';

// onewrite: Node's HTTP/1.1 server, answering in one socket write.
//
//   require('onewrite').install()      patch http.ServerResponse.prototype
//   require('onewrite').uninstall()    put Node's own methods back
//   require('onewrite').status()       { active, mode, available, reason, counters, fallbacks, ... }
//   require('onewrite').ServerResponse for http.createServer({ ServerResponse })
//   require('onewrite').buildHead(...) the native head builder, on its own
//   require('onewrite').sse(res) / .ndjson(res)  streaming writers

const { install, uninstall, status, ServerResponse, available } = require('./lib/install');
const { buildHead } = require('./lib/build');
const { sse, ndjson } = require('./lib/stream');

module.exports = { install, uninstall, status, ServerResponse, buildHead, sse, ndjson, available };
