'use strict';

// What the runners measure on each server, and how each is started:
//   stock          the server script as it is
//   onewrite       the same, with -r onewrite/register
//   baseline       the same, with -r <dir>/register.js: onewrite from
//                  another checkout (--baseline=<dir>, built there), to
//                  count a change against the code before it, interleaved
//   floor          the same, with -r benchmark/floor.js: the cheapest
//                  response a package could send (NOT identical to stock:
//                  see floor.js); only where it can answer in the
//                  server's place (servers.js: `floor`)
//   floor-nodrain  the floor, the request left undrained
//                  (ONEWRITE_FLOOR_DRAIN=0)
//   drain-ticks    onewrite, and the request drained by the drain probe
//                  (drain.js, NOT identical: Node's ticks with no stream
//                  code in them)
//   drain-none     onewrite, and the request not drained at all (drain.js)
//   floor-ticks    the floor, and the request drained as drain-ticks:
//                  the least any package keeping Node's events could cost
//   ceiling        a raw `net` server (ceiling.js) in place of the script,
//                  the same for every server: the limit of any JavaScript
//                  response path
//   agent          stock Node with an APM agent preloaded (--agent: one of
//                  test/agents/config.js's, installed by `npm ci --prefix
//                  test/agents`), exporting to a sink on loopback
//   agent-first    the agent, then onewrite: -r <agent> -r onewrite/register
//   onewrite-first onewrite, then the agent: -r onewrite/register -r <agent>

const path = require('node:path');

const HERE = path.join(__dirname, '..');
const FLOOR = path.join(HERE, 'floor.js');
const STRICT = { ONEWRITE_STRICT: '1' };
const DRAIN = path.join(HERE, 'drain.js');

const VARIANTS = {
  stock: {},
  // ONEWRITE_STRICT=1: a onewrite that would stay off (a stale binary, an
  // untested Node) stops the server, so that stock is never counted as it.
  onewrite: { preload: ['onewrite/register'], env: STRICT },
  floor: { preload: [FLOOR] },
  'floor-nodrain': { preload: [FLOOR], env: { ONEWRITE_FLOOR_DRAIN: '0' } },
  'drain-ticks': { preload: ['onewrite/register', DRAIN], env: { ...STRICT, ONEWRITE_DRAIN_PROBE: 'ticks' } },
  'drain-none': { preload: ['onewrite/register', DRAIN], env: { ...STRICT, ONEWRITE_DRAIN_PROBE: 'none' } },
  'floor-ticks': { preload: [FLOOR, DRAIN], env: { ONEWRITE_DRAIN_PROBE: 'ticks' } },
  ceiling: { script: path.join(HERE, 'ceiling.js'), args: [], path: '/' },
};

// The variants with an agent, each a ratio to `agent` (stock Node with the
// agent), and how each is started: `agent` is { file, env } (agent()).
const AGENT_VARIANTS = ['agent', 'agent-first', 'onewrite-first'];
const withAgent = {
  agent: (a) => ({ preload: [a.file], env: a.env }),
  'agent-first': (a) => ({ preload: [a.file, 'onewrite/register'], env: { ...a.env, ...STRICT } }),
  'onewrite-first': (a) => ({ preload: ['onewrite/register', a.file], env: { ...a.env, ...STRICT } }),
};

// The variants asked for, in this order: stock and onewrite always.
function chosen({ baseline = '', agent = '', floor = false, drain = false, ceiling = false }) {
  return ['stock', 'onewrite', ...(baseline ? ['baseline'] : []), ...(agent ? AGENT_VARIANTS : []),
    ...(floor ? ['floor', 'floor-nodrain'] : []),
    ...(drain ? ['drain-ticks', 'drain-none', 'floor-ticks'] : []), ...(ceiling ? ['ceiling'] : [])];
}

// An agent of test/agents/config.js by name, for `launch`: the file to
// preload and its environment, pointed at `url` (a sink on loopback).
// Throws, saying how to install them, when the agents are not installed.
function agent(name, url) {
  const { AGENTS } = require('../../test/agents/config');
  if (!AGENTS[name]) throw new Error(`unknown agent ${name}; one of ${Object.keys(AGENTS).join(', ')}`);
  let file;
  try {
    file = AGENTS[name].file();
  } catch {
    throw new Error(`the agent ${name} (${AGENTS[name].name}) is not installed: npm ci --prefix test/agents`);
  }
  return { name, file, env: AGENTS[name].env(url) };
}

// startServer's options for `variant` of server `def`, and the URL path;
// `baseline`: the other checkout's folder, for the variant of that name;
// `withAgentOf`: agent()'s answer, for the variants with an agent.
function launch(def, variant, baseline = '', withAgentOf = null) {
  const v = variant === 'baseline'
    ? { preload: [path.join(path.resolve(baseline), 'register.js')], env: STRICT }
    : withAgent[variant] ? withAgent[variant](withAgentOf) : VARIANTS[variant];
  return {
    preload: v.preload || [],
    env: v.env || {},
    script: v.script || def.script,
    args: v.args || def.args,
    path: v.path || def.path,
  };
}

module.exports = { chosen, launch, agent, AGENT_VARIANTS };
