'use strict';

// Which fast paths one answer used, from onewrite's status() taken before
// and after it: the counters that moved (heads, ends, writes: the fast
// paths; headsToNode, endsToNode, writesToNode: handed over to Node's own
// code) and the fallback reasons that moved (status().fallbacks, by
// reason; a status without it, from a onewrite that does not count them,
// is read as unknown reasons).

const PATHS = [
  { name: 'head', fast: 'heads', toNode: 'headsToNode' },
  { name: 'end', fast: 'ends', toNode: 'endsToNode' },
  { name: 'write', fast: 'writes', toNode: 'writesToNode' },
];

function moved(before = {}, after = {}, key) {
  return (Number(after[key]) || 0) - (Number(before[key]) || 0);
}

// { fast: [{ name, n }], toNode: [{ name, n }], reasons: [{ reason, n }] or
// null when this onewrite does not report reasons }
function usage(before, after) {
  const fast = [];
  const toNode = [];
  for (const p of PATHS) {
    const f = moved(before.counters, after.counters, p.fast);
    const n = moved(before.counters, after.counters, p.toNode);
    if (f > 0) fast.push({ name: p.name, n: f });
    if (n > 0) toNode.push({ name: p.name, n });
  }
  let reasons = null;
  if (after.fallbacks && typeof after.fallbacks === 'object') {
    const was = before.fallbacks || {};
    reasons = Object.keys(after.fallbacks)
      .map((reason) => ({ reason, n: moved(was, after.fallbacks, reason) }))
      .filter((r) => r.n > 0);
  }
  return { fast, toNode, reasons };
}

const list = (xs) => xs.map((x) => `${x.name}${x.n > 1 ? ` x${x.n}` : ''}`).join(', ');

// One line for the report.
function describe(u) {
  const parts = [];
  if (u.fast.length > 0) parts.push(`fast paths: ${list(u.fast)}`);
  if (u.toNode.length > 0) parts.push(`handed over to Node: ${list(u.toNode)}`);
  if (u.reasons === null) {
    if (u.toNode.length > 0) parts.push('why: not reported by this onewrite (its status() has no fallbacks)');
  } else if (u.reasons.length > 0) {
    parts.push(`why: ${u.reasons.map((r) => `${r.reason}${r.n > 1 ? ` x${r.n}` : ''}`).join(', ')}`);
  }
  if (parts.length === 0) return 'no fast path and no hand-over counted: the answer did not go through ServerResponse';
  return parts.join('; ');
}

module.exports = { usage, describe };
