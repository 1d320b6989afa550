'use strict';

// Real APM agents - dd-trace, OpenTelemetry (http and express
// instrumentations, OTLP/HTTP exporter) and elastic-apm-node - loaded before
// and after onewrite, against the agent alone on stock Node (issue 40,
// "Agents loaded first").  For each agent, each server (plain node:http,
// Express 5) and each order
//
//   stock           node -r <agent> app.js
//   agent first     node -r <agent> -r onewrite/register app.js
//   onewrite first  node -r onewrite/register -r <agent> app.js
//
// test/agents/app.js serves a handful of response shapes (ROUTES) over one
// keep-alive connection, each agent exports to a fake collector of its
// kind on 127.0.0.1 (collectors.js: nothing leaves loopback), and the test
// compares, with stock:
//   - the bytes of every response (the Date value aside);
//   - the spans (transactions, errors) the agent sent, normalised
//     (normalise.js: ids, times, pids, ephemeral ports dropped);
//   - what the app logged from a 'finish' listener;
// and checks onewrite's status(): onewrite first, the counters and
// fallbacks of onewrite with no agent (every head rendered natively, every
// end() and write() in onewrite's one write, the outgoing request of
// /upstream: the client side's head and one write); the agent first, every head
// rendered natively, and status().left naming what was left in place with
// the command that loads onewrite first.  And that every connection the
// app's process opened went to 127.0.0.1.
//
// The agents are installed apart: npm ci --prefix test/agents (their own
// package.json and lockfile, exact versions), so that the project's own
// `npm ci` stays lean; `tap` does not include this folder.  CI runs it on
// Node 20 and 26: scripts/agents.sh.

const t = require('tap');
const fs = require('node:fs');
const path = require('node:path');

if (!fs.existsSync(path.join(__dirname, 'node_modules', 'dd-trace'))) {
  // Not a skip: whoever runs this file means to test the agents.
  t.fail('the agents are not installed: npm ci --prefix test/agents (or scripts/agents.sh)');
  process.exit(1);
}

const { run, AGENTS } = require('./run');
const normalise = require('./normalise');

const SERVERS = ['http', 'express'];
const ORDERS = ['stock', 'agent first', 'onewrite first'];

// The responses asked for, in this order, on one connection: end(string)
// with the implicit head, writeHead() + end(), setHeader()s + end(JSON)
// (a query string in the URL), write() x2 + end() (chunked), a 404 (for
// Express, its final handler's), a 500 whose 'finish' listener logs an
// Error; for Express also a route with a parameter and an error handed to
// next() (its final handler's 500).
const ROUTES = {
  http: ['/text', '/head', '/json?page=2', '/chunked', '/missing', '/fail', '/upstream'],
  express: ['/text', '/head', '/json?page=2', '/chunked', '/missing', '/fail', '/users/7', '/error', '/upstream'],
};

t.setTimeout(600000);

// The counters of the response side.
function serverSide(c) {
  return Object.fromEntries(Object.entries(c).filter(([k]) => !k.startsWith('request')));
}

// The one place that says what status().left must contain for an agent
// loaded before onewrite: each fast method it left in place gives the
// command to copy that loads onewrite first (lib/install.js words the rest).
function remedyCommand(agent) {
  return `node -r onewrite/register -r ${AGENTS[agent].name}`;
}
function checkLeftGivesRemedy(t, agent, status, lost) {
  const left = Object.entries((status && status.left) || {});
  if (lost > 0) {
    t.ok(left.length > 0, `${lost} end()/write() calls did not take the one write they take without the agent, ` +
      'and status().left names what was left in place', { left: status && status.left });
  }
  for (const [name, why] of left) {
    t.match(String(why), remedyCommand(agent), `status().left.${name} gives the command to copy: ${remedyCommand(agent)} app.js`, { why });
  }
  if (lost === 0 && left.length === 0) t.pass('nothing was left in place, and no end() or write() lost the one write');
}

const versions = Object.fromEntries(['dd-trace', 'elastic-apm-node', '@opentelemetry/sdk-trace-node',
  '@opentelemetry/instrumentation-http', '@opentelemetry/instrumentation-express'].map((p) =>
  [p, require(require.resolve(`${p}/package.json`, { paths: [__dirname] })).version]));
versions.express = require(require.resolve('express/package.json', { paths: [__dirname] })).version;
t.comment(`Node ${process.version}; ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}`);

t.test('express is Express 5', async (t) => {
  t.equal(versions.express.split('.')[0], '5');
});

// onewrite with no agent, on each server: what onewrite does for this app
// by itself (on Node 24+, an end() right after write()s in the same tick
// finds the socket corked and is Node's: 'corked').  With onewrite first,
// an agent must cost none of it.
const alone = {};
t.test('onewrite alone (node -r onewrite/register app.js)', async (t) => {
  for (const server of SERVERS) {
    const r = await run({ agent: null, server, order: 'onewrite alone', routes: ROUTES[server] });
    const s = r.status || {};
    const c = s.counters || {};
    alone[server] = { counters: c, fallbacks: s.fallbacks };
    t.comment(`${server}: counters ${JSON.stringify(c)}, fallbacks ${JSON.stringify(s.fallbacks)}`);
    t.equal(r.exit, 0, `${server}: the app exits 0`, { stderr: r.stderr });
    t.same({ heads: c.heads, headsToNode: c.headsToNode }, { heads: ROUTES[server].length, headsToNode: 0 },
      `${server}: every head rendered natively`);
    t.equal(c.ends + c.endsToNode, ROUTES[server].length, `${server}: every end(data) counted`);
    t.ok(c.ends >= ROUTES[server].length - 1 && c.writesToNode === 0,
      `${server}: every end() and write() in the one write, but for an end() after write()s on a corked socket`);
    t.same(s.left, {}, `${server}: nothing left in place`);
    // The app's requests to its upstream (a GET at start, then /upstream's
    // POST): their heads rendered natively, the POST's head and bytes in
    // one write when its socket came.
    t.same({ requestHeads: c.requestHeads, requestFlushes: c.requestFlushes }, { requestHeads: 2, requestFlushes: 1 },
      `${server}: the outgoing requests' heads and one write`);
  }
});

for (const agent of Object.keys(AGENTS)) {
  for (const server of SERVERS) {
    t.test(`${agent}, ${server}`, async (t) => {
      const routes = ROUTES[server];
      const runs = {};
      await Promise.all(ORDERS.map(async (order) => {
        runs[order] = await run({ agent, server, order, routes }).catch((error) => ({ error }));
      }));
      const failed = ORDERS.filter((order) => runs[order].error);
      for (const order of failed) t.fail(`${order}: the run did not complete: ${runs[order].error.message}`);
      if (failed.length > 0) return;
      const view = (order) => {
        const r = runs[order];
        return {
          bytes: r.responses.map(normalise.bytes),
          spans: normalise.spans[agent](r.requests),
          logged: r.logged,
        };
      };
      const stock = view('stock');
      for (const order of ORDERS) {
        const r = runs[order];
        t.equal(r.exit, 0, `${order} (${r.command}): the app exits 0`, { stderr: r.stderr });
        t.ok(r.collectorDone, `${order}: everything the agent sent reached its collector`);
        t.equal(r.responses.length, routes.length, `${order}: a whole response to each request`);
        // The agent's own connections to its collector at least; none
        // anywhere else.
        const conns = r.connections || [];
        const away = conns.filter((c) => !/^(lookup (localhost|127\.0\.0\.1)|connect 127\.0\.0\.1)$/.test(c));
        t.ok(conns.length > 0 && away.length === 0,
          `${order}: the process connected to 127.0.0.1 only (${conns.length} connections)`, { connections: conns });
      }

      // The stock run must show the agent at work, or the comparison
      // would be empty: one server span (transaction) per request.
      t.equal(normalise.serverSpans[agent](stock.spans).length, routes.length,
        `stock: ${agent} recorded one server span per request`, { spans: stock.spans });
      t.equal(stock.logged.length, 1, 'stock: the app logged one error from a \'finish\' listener');

      const base = alone[server] || { counters: {} };
      for (const order of ['agent first', 'onewrite first']) {
        const other = view(order);
        t.same(other.bytes, stock.bytes, `${order}: the bytes of every response are stock's`);
        t.same(other.spans, stock.spans, `${order}: ${agent} recorded the same spans as with stock`);
        t.same(other.logged, stock.logged, `${order}: the app logged the same error`);
        const s = runs[order].status;
        t.ok(s && s.active && s.mode === 'installed', `${order}: onewrite is installed and active` +
          `${s && s.reason ? ` (it says: ${s.reason})` : ''}`, { status: s });
        const c = (s && s.counters) || {};
        t.comment(`${agent}, ${server}, ${order}: counters ${JSON.stringify(c)}, fallbacks ${JSON.stringify(s && s.fallbacks)}, left ${JSON.stringify(s && s.left)}`);
        t.same({ heads: c.heads, headsToNode: c.headsToNode }, { heads: routes.length, headsToNode: 0 },
          `${order}: every head was rendered natively`);
        if (order === 'onewrite first') {
          // (The request side apart: an agent's own requests to its
          // collector take the client side too.)
          t.same({ counters: serverSide(c), fallbacks: s && s.fallbacks }, { ...base, counters: serverSide(base.counters) },
            'onewrite first: every end() and write() took onewrite\'s one write, as without the agent');
          t.ok(c.requestHeads >= base.counters.requestHeads && c.requestFlushes >= base.counters.requestFlushes &&
            c.requestHeadsToNode === 0, 'onewrite first: the app\'s outgoing request as without the agent');
          t.same(s && s.left, {}, 'onewrite first: nothing left in place');
        } else {
          // end() and write() calls that took the one write without the
          // agent and not with it.
          const lost = Math.max(0, base.counters.ends - (c.ends || 0)) + Math.max(0, base.counters.writes - (c.writes || 0));
          checkLeftGivesRemedy(t, agent, s, lost);
        }
      }

      if (agent === 'elastic') {
        // The stacks of the errors Elastic captured: not compared (a stack
        // taken in a 'finish' listener shows onewrite's frames where stock
        // shows Node's, docs/differences.md), only shown where they differ.
        const stacks = Object.fromEntries(ORDERS.map((o) => [o, normalise.elasticErrorStacks(runs[o].requests).flat()]));
        for (const order of ['agent first', 'onewrite first']) {
          const only = (a, b) => stacks[a].filter((f) => !stacks[b].includes(f));
          const [theirs, ours] = [only('stock', order), only(order, 'stock')];
          if (theirs.length + ours.length > 0) {
            t.comment(`elastic, ${server}, ${order}: the captured errors' stacks show ${JSON.stringify(ours)} ` +
              `where stock's show ${JSON.stringify(theirs)}`);
          }
        }
      }
    });
  }
}
