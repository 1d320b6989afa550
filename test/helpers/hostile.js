'use strict';

// Hostile scenarios for the differential test: the same kind of handler
// steps as scenarios.js, with values that run user code wherever Node (or
// onewrite) reads them - header objects and arrays with getters, Proxy
// header objects and arrays, values, status codes and messages with
// toString / valueOf / Symbol.toPrimitive, server settings with valueOf,
// wrappers around res.writeHead / res._implicitHeader / res.setHeader /
// res.socket.write - some of which re-enter: they end another response
// held on the same server, set or remove a header of their own response,
// change its status code, destroy its socket.  Every call of that code is
// logged, in order, so that the test compares how many times it ran and
// when, besides the bytes, errors and events.
//
// A scenario is plain data (replayable from the seed, printable); live()
// builds one side's values from it, each logging into that side's log.

const { makeRandom, describeError } = require('./scenarios');

const NAMES = ['Content-Type', 'content-type', 'X-Request-Id', 'Cache-Control', 'ETag', 'Vary',
  'Set-Cookie', 'Cookie', 'Content-Length', 'Connection', 'Transfer-Encoding', 'Date', 'Trailer',
  'X-A', 'x-a', 'Location', 'Content-Disposition'];
const GOOD = ['text/plain', 'abc', 'no-cache', 'close', 'keep-alive', 'chunked', '5', '0', '1',
  'a=1', 'x-y_z ~1', ''];
const BAD = ['caf\u00e9', 'bad\r\nvalue', '\u20ac', 'x\u0000y', 'tab\tok'];
const EFFECTS = ['endHeld', 'setHeader', 'removeHeader', 'statusCode', 'destroy'];
const VIAS = ['toString', 'valueOf', 'toPrimitive'];
const CODES = [200, 200, 201, 204, 304, 404, 103, 500, 99, 1000];
const REASONS = ['OK', 'Fine', '', 'Bad\r\nReason', 'caf\u00e9'];
const WRAP_TARGETS = ['writeHead', '_implicitHeader', 'setHeader', 'socket.write'];
const WRAP_ACTIONS = ['count', 'count', 'setHeader', 'status', 'trailers', 'strict', 'destroy',
  'halfClose'];
const REQUESTS = ['keepalive', 'keepalive', 'close', 'held', 'held', 'http10', 'head'];

// ---- generation ------------------------------------------------------------

function generator(rnd) {
  let nextId = 0;
  const id = () => nextId++;
  const effect = () => (rnd.chance(0.45) ? rnd.pick(EFFECTS) : null);

  // A plain value: mostly valid text, sometimes a number or something Node
  // refuses or renders itself.
  function leaf() {
    const roll = rnd.float();
    if (roll < 0.12) return rnd.int(100);
    if (roll < 0.27) return rnd.pick(BAD);
    return rnd.pick(GOOD);
  }
  const convert = (value) => ({ $: 'convert', id: id(), via: rnd.pick(VIAS), value, effect: effect() });
  const getter = (value) => ({ $: 'getter', id: id(), value, effect: effect() });

  // Where a container holds it (a header object, an array): a getter, an
  // object converting to a value, or a value.
  function held() {
    const roll = rnd.float();
    if (roll < 0.4) return getter(leaf());
    if (roll < 0.6) return convert(leaf());
    return leaf();
  }

  // A setHeader() value: an array of those, an object converting, a value.
  function headerValue() {
    const roll = rnd.float();
    if (roll < 0.35) return { $: 'array', items: Array.from({ length: 1 + rnd.int(3) }, held) };
    if (roll < 0.6) return convert(leaf());
    return leaf();
  }

  function headers() {
    if (rnd.chance(0.15)) return undefined;
    const pairs = Array.from({ length: rnd.int(4) }, () => [rnd.pick(NAMES), held()]);
    return { $: 'headers', id: id(), kind: rnd.pick(['object', 'object', 'flat', 'nested']),
      proxy: rnd.chance(0.35), pairs };
  }

  const code = () => (rnd.chance(0.3) ? convert(rnd.pick(CODES)) : rnd.pick(CODES));
  const reason = () => (rnd.chance(0.3) ? convert(rnd.pick(REASONS)) : rnd.pick(REASONS));

  function body() {
    const roll = rnd.float();
    if (roll < 0.45) return { kind: 'string', text: rnd.pick(['hello', 'x', '\u20ac', '']) };
    if (roll < 0.8) return { kind: 'buffer', len: rnd.int(20) };
    return { kind: 'none' };
  }

  function steps() {
    const out = [];
    const wraps = rnd.chance(0.4) ? 1 + rnd.int(2) : 0;
    for (let i = 0; i < wraps; i++) out.push(['wrap', rnd.pick(WRAP_TARGETS), rnd.pick(WRAP_ACTIONS), id()]);
    if (rnd.chance(0.2)) out.push(['statusCode', code()]);
    if (rnd.chance(0.15)) out.push(['statusMessage', reason()]);
    const sets = rnd.int(3);
    for (let i = 0; i < sets; i++) out.push(['setHeader', rnd.pick(NAMES), headerValue()]);
    if (rnd.chance(0.6)) {
      out.push(rnd.chance(0.3) ? ['writeHead', code(), reason(), headers()]
        : ['writeHead', code(), undefined, headers()]);
    }
    const writes = rnd.chance(0.3) ? 1 + rnd.int(2) : 0;
    for (let i = 0; i < writes; i++) {
      if (rnd.chance(0.3)) out.push(['tick']);
      out.push(['write', body()]);
    }
    if (rnd.chance(0.2)) out.push(['tick']);
    out.push(['end', body(), rnd.chance(0.5)]);
    return out;
  }

  // Server settings that run user code: read by Node for the keep-alive
  // line, at the times Node reads them.
  function server() {
    const out = {};
    if (rnd.chance(0.12)) out.maxRequestsPerSocket = convert(rnd.pick([0, 3, 100]));
    if (rnd.chance(0.12)) out.keepAliveTimeout = convert(rnd.pick([0, 5000, 1500]));
    return out;
  }

  return { steps, server };
}

// Scenario `index` of the hostile family for `seed`.  (Its own stream of
// numbers: the plain family's scenarios stay those of their seed.)
function hostileScenario(seed, index, configs) {
  const rnd = makeRandom((seed ^ Math.imul(index + 1, 0x85ebca6b) ^ 0x5bd1e995) >>> 0);
  const g = generator(rnd);
  return {
    index,
    config: rnd.int(configs),
    request: rnd.pick(REQUESTS),
    server: g.server(),
    steps: g.steps(),
  };
}

// ---- one side's live values --------------------------------------------------

// The response held for a scenario, ended by an 'endHeld' effect (or at
// the end of the scenario): a second client's response, on the same server.
function endHeld(state) {
  const a = state.held;
  if (!a || state.heldEnded) return false;
  state.heldEnded = true;
  a.writeHead(404, { 'X-From-A': 'secret' });
  a.end('A');
  return true;
}

// ctx: { log, res, state }: the log and response of the request being
// answered, the side's state for this scenario ({ held, heldEnded }).
function runEffect(ctx, name, id) {
  const { res, log } = ctx;
  try {
    switch (name) {
      case 'endHeld': log.push(['effect', id, name, endHeld(ctx.state)]); break;
      case 'setHeader': res.setHeader('X-Reentered', String(id)); log.push(['effect', id, name]); break;
      case 'removeHeader': res.removeHeader('Content-Type'); log.push(['effect', id, name]); break;
      case 'statusCode': res.statusCode = 299; log.push(['effect', id, name]); break;
      case 'destroy': if (res.socket) res.socket.destroy(); log.push(['effect', id, name]); break;
      default: break;
    }
  } catch (err) {
    log.push(['effect-threw', id, name, describeError(err)]);
  }
}

// A call of user code: logged; its effect runs on the first call only.
function called(ctx, desc, counter, what) {
  counter.n++;
  ctx.log.push([what, desc.id, counter.n]);
  if (counter.n === 1 && desc.effect) runEffect(ctx, desc.effect, desc.id);
}

function converting(ctx, desc) {
  const counter = { n: 0 };
  const value = live(ctx, desc.value);
  const o = {};
  if (desc.via === 'toPrimitive') {
    o[Symbol.toPrimitive] = (hint) => {
      called(ctx, desc, counter, `toPrimitive:${hint}`);
      return value;
    };
  } else {
    o[desc.via] = () => {
      called(ctx, desc, counter, desc.via);
      return value;
    };
  }
  return o;
}

// Put `desc` at `key` of `target`: a getter, or the live value.
function place(ctx, target, key, desc) {
  if (desc && desc.$ === 'getter') {
    const counter = { n: 0 };
    const value = live(ctx, desc.value);
    Object.defineProperty(target, key, {
      enumerable: true,
      configurable: true,
      get() {
        called(ctx, desc, counter, 'get');
        return value;
      },
    });
  } else {
    target[key] = live(ctx, desc);
  }
}

// A Proxy logging every trap run on it.
function trapped(ctx, target, id) {
  return new Proxy(target, new Proxy({}, {
    get(_, trap) {
      return (...args) => {
        const key = args[1];
        ctx.log.push(['trap', id, trap, typeof key === 'symbol' ? String(key) : key]);
        return Reflect[trap](...args);
      };
    },
  }));
}

function headers(ctx, desc) {
  let h;
  if (desc.kind === 'object') {
    h = {};
    for (const [k, v] of desc.pairs) place(ctx, h, k, v);
  } else if (desc.kind === 'flat') {
    h = [];
    desc.pairs.forEach(([k, v], i) => {
      h[2 * i] = k;
      place(ctx, h, 2 * i + 1, v);
    });
  } else {
    h = desc.pairs.map(([k, v]) => {
      const pair = [k];
      place(ctx, pair, 1, v);
      return pair;
    });
  }
  return desc.proxy ? trapped(ctx, h, desc.id) : h;
}

function live(ctx, desc) {
  if (desc === null || typeof desc !== 'object') return desc;
  switch (desc.$) {
    case 'convert': return converting(ctx, desc);
    case 'array': {
      const a = [];
      desc.items.forEach((item, i) => place(ctx, a, i, item));
      return a;
    }
    case 'headers': return headers(ctx, desc);
    default: return desc;
  }
}

// ['wrap', target, action, id]: an instance wrapper, as agents and
// middleware put them, logging each call.
function wrap(ctx, res, [, target, action, id]) {
  const { log } = ctx;
  if (target === 'socket.write') {
    const socket = res.socket;
    if (!socket) {
      log.push(['wrap', id, 'no socket']);
      return;
    }
    const write = socket.write;
    socket.write = function spied(data) {
      log.push(['socket.write', id, typeof data, data == null ? null : data.length]);
      return write.apply(this, arguments);
    };
    return;
  }
  const original = res[target];
  res[target] = function wrapped(...args) {
    log.push(['wrapper', id, target, args.length]);
    // (A setHeader wrapper sets its header through the original.)
    if (action === 'setHeader') (target === 'setHeader' ? original : this.setHeader).call(this, 'X-Wrapped', String(id));
    if (action === 'status') this.statusCode = 203;
    const ret = original.apply(this, args);
    if (action === 'trailers') this.addTrailers({ 'X-T': String(id) });
    if (action === 'strict') this.strictContentLength = true;
    if (action === 'destroy' && this.socket) this.socket.destroy();
    if (action === 'halfClose' && this.socket) this.socket.end();
    return ret;
  };
}

// The hooks runSteps() takes for one response of one side.
function hooks(ctx) {
  return {
    value: (desc) => live(ctx, desc),
    headers: (desc) => (desc === undefined ? undefined : live(ctx, desc)),
    op(step, res) {
      if (step[0] !== 'wrap') return false;
      wrap(ctx, res, step);
      return true;
    },
  };
}

// The server settings of a scenario, live for one side: their calls go
// to the side's scenario log (state.serverLog), their effects to the
// response being answered then (state.res, if any).
function serverSettings(state, server) {
  const ctx = {
    state,
    get log() {
      return state.serverLog;
    },
    get res() {
      return state.res;
    },
  };
  const out = {};
  for (const [k, desc] of Object.entries(server)) out[k] = live(ctx, desc);
  return out;
}

module.exports = { hostileScenario, hooks, serverSettings, endHeld };
