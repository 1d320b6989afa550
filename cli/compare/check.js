'use strict';

// The byte check of every path: the stock app asked twice (an answer that
// differs between two stock requests cannot be compared), the app with
// onewrite asked once, its status taken before and after each request to
// tell which fast paths that answer used and why the others were not.

const { startApp } = require('./app');
const { fetchRaw, normalise, firstDifference } = require('./bytes');
const fastpaths = require('./fastpaths');

class NotActive extends Error {}

// [{ path, verdict: 'identical' | 'different' | 'varies', bytes, difference, usage }]
async function checkPaths({ app, paths, progress }) {
  const stockAnswers = new Map();
  progress('byte check: the app, stock ...');
  const stock = await startApp({ ...app, onewrite: false });
  try {
    for (const p of paths) {
      const first = normalise(await fetchRaw(stock, p));
      const second = normalise(await fetchRaw(stock, p));
      stockAnswers.set(p, { first, second });
    }
  } finally {
    await stock.stop();
  }

  progress('byte check: the app, with onewrite ...');
  const fast = await startApp({ ...app, onewrite: true });
  const results = [];
  try {
    if (!fast.status || !fast.status.active) {
      throw new NotActive(`onewrite is not active in the app: ${(fast.status && fast.status.reason) || 'no status'}` +
        ' (nothing to compare)');
    }
    for (const p of paths) {
      const before = await fast.query();
      const answer = normalise(await fetchRaw(fast, p));
      const after = await fast.query();
      const { first, second } = stockAnswers.get(p);
      const usage = fastpaths.usage(before, after);
      if (first !== second) {
        results.push({ path: p, verdict: 'varies', bytes: first.length, difference: firstDifference(first, second), usage });
      } else {
        const difference = firstDifference(first, answer);
        results.push({ path: p, verdict: difference ? 'different' : 'identical', bytes: first.length, difference, usage });
      }
    }
  } finally {
    await fast.stop();
  }
  return { results, status: fast.status };
}

module.exports = { checkPaths, NotActive };
