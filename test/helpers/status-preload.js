'use strict';

// Preloaded beside onewrite by test/client.js: lets a fixture print what
// status() says (globalThis.onewriteStatus).
const onewrite = require('../..');

globalThis.onewriteStatus = () => {
  const s = onewrite.status();
  return { client: s.client, counters: s.counters, fallbacks: s.fallbacks };
};
