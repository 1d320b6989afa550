'use strict';

// What the runners measure on each server, and how each is started:
//   stock          the server script as it is
//   onewrite       the same, with -r onewrite/register
//   floor          the same, with -r benchmark/floor.js: the cheapest
//                  response a package could send (NOT identical to stock:
//                  see floor.js); only where it reproduces the server's
//                  response (servers.js: `floor`)
//   floor-nodrain  the floor, the request left undrained
//                  (ONEWRITE_FLOOR_DRAIN=0)
//   ceiling        a raw `net` server (ceiling.js) in place of the script,
//                  the same for every server: the limit of any JavaScript
//                  response path

const path = require('node:path');

const HERE = path.join(__dirname, '..');
const FLOOR = path.join(HERE, 'floor.js');

const VARIANTS = {
  stock: {},
  onewrite: { preload: ['onewrite/register'] },
  floor: { preload: [FLOOR], floorOnly: true },
  'floor-nodrain': { preload: [FLOOR], env: { ONEWRITE_FLOOR_DRAIN: '0' }, floorOnly: true },
  ceiling: { script: path.join(HERE, 'ceiling.js'), args: [], path: '/' },
};

// The variants asked for, in this order: stock and onewrite always.
function chosen({ floor = false, ceiling = false }) {
  return ['stock', 'onewrite', ...(floor ? ['floor', 'floor-nodrain'] : []), ...(ceiling ? ['ceiling'] : [])];
}

// Whether `variant` can be measured on server `def` (servers.js).
function applies(def, variant) {
  return !VARIANTS[variant].floorOnly || def.floor === true;
}

// startServer's options for `variant` of server `def`, and the URL path.
function launch(def, variant) {
  const v = VARIANTS[variant];
  return {
    preload: v.preload || [],
    env: v.env || {},
    script: v.script || def.script,
    args: v.args || def.args,
    path: v.path || def.path,
  };
}

module.exports = { chosen, applies, launch };
