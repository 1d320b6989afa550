'use strict';

// Playing hostile scenarios (hostile.js) on a stock and a onewrite server
// per server configuration, one scenario at a time: the server settings'
// calls, and the held response, belong to the scenario being played.
// hostilePairs(t, configs) resolves with play(scenario), which resolves
// with { stock, fast, uncaught }: what each side's clients received and
// each side's logs, and the uncaught exceptions raised meanwhile.

const { serverPair, exchange, normalise, request } = require('./wire');
const { runSteps } = require('./scenarios');
const { hooks, serverSettings, endHeld } = require('./hostile');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const SIDES = ['stock', 'fast'];

// The requests of a scenario: the held client's (if any), and the one
// whose handler plays the steps (followed by a last request where the
// connection stays open, so that framing errors show).
function requests(s) {
  const one = (extra = {}) => request(s.request === 'head' ? 'HEAD' : 'GET', `/case/${s.index}`, extra);
  const last = request('GET', '/close', { headers: { Connection: 'close' } });
  const held = request('GET', `/hold/${s.index}`, { headers: { Connection: 'close' } });
  switch (s.request) {
    case 'close': return { main: one({ headers: { Connection: 'close' } }) };
    case 'held': return { held, main: one() + last };
    case 'http10': return { main: one({ version: '1.0' }) + request('GET', '/close', { version: '1.0' }) };
    default: return { main: one() + last };
  }
}

async function hostilePairs(t, configs) {
  // Each side's state for the scenario being played.
  const states = { stock: null, fast: null };
  const handler = (side) => (req, res) => {
    const state = states[side];
    const m = /^\/(hold|case)\/(\d+)$/.exec(req.url);
    if (!m || state === null || Number(m[2]) !== state.index) {
      res.end('bye');
      return;
    }
    const log = [];
    state.logs.push(log);
    req.resume();
    if (m[1] === 'hold') {
      log.push('held');
      res.on('finish', () => log.push('finish'));
      res.on('close', () => log.push('close'));
      state.held = res;
      return;
    }
    state.res = res;
    // Each server plays its own copy, made live for its side.
    runSteps(res, structuredClone(state.scenario.steps), log, hooks({ log, res, state })).then(() => {
      // A held response nothing ended is ended now, the same way.
      if (endHeld(state)) log.push('held ended last');
    });
  };
  const pairs = [];
  for (const config of configs) {
    const pair = await serverPair(t, handler, config.options);
    Object.assign(pair.stock, config.set);
    Object.assign(pair.fast, config.set);
    pairs.push({ pair, config });
  }

  // A throw nobody catches is a difference too (stock Node raises none in
  // these scenarios): recorded against the scenario being played.
  const uncaught = [];
  const onUncaught = (err) => uncaught.push(String(err && err.stack).split('\n').slice(0, 5).join('\n'));
  process.on('uncaughtException', onUncaught);
  t.teardown(() => process.removeListener('uncaughtException', onUncaught));

  return async function play(s) {
    const { pair } = pairs[s.config];
    const before = uncaught.length;
    const ports = { stock: pair.stockPort, fast: pair.fastPort };
    const saved = {};
    for (const side of SIDES) {
      const state = { index: s.index, scenario: s, logs: [], serverLog: [], held: null, heldEnded: false, res: null };
      states[side] = state;
      saved[side] = {};
      for (const k of Object.keys(s.server)) saved[side][k] = pair[side][k];
      Object.assign(pair[side], serverSettings(state, s.server));
    }
    const raw = requests(s);
    const seen = {};
    await Promise.all(SIDES.map(async (side) => {
      let held = null;
      if (raw.held) {
        held = exchange(ports[side], raw.held, { timeout: 1500 });
        for (let i = 0; i < 500 && !states[side].held; i++) await sleep(2);
      }
      // A connection left open once its responses are done (a user's
      // Connection header keeps it alive) is closed by the server after
      // 300 ms rather than waited for: the same on both sides.
      const idle = setTimeout(() => pair[side].closeIdleConnections(), 300);
      const main = await exchange(ports[side], raw.main, { timeout: 1500 });
      clearTimeout(idle);
      const h = held ? await held : null;
      seen[side] = {
        held: h ? normalise(h.bytes) : null,
        bytes: normalise(main.bytes),
        timedOut: [main.timedOut, h ? h.timedOut : null],
      };
    }));
    await sleep(5); // the last 'close' events
    for (const side of SIDES) {
      seen[side].logs = states[side].logs;
      seen[side].serverLog = states[side].serverLog;
      Object.assign(pair[side], saved[side]); // the server's own settings, for the next scenario
    }
    states.stock = null;
    states.fast = null;
    return { stock: seen.stock, fast: seen.fast, uncaught: uncaught.slice(before) };
  };
}

module.exports = { hostilePairs, requests };
