'use strict';

// The figures of a comparison: medians, per-round ratios and how far those
// disagree.

function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// onewrite / stock, round by round.
function ratios(stock, onewrite) {
  return stock.map((s, i) => onewrite[i] / s);
}

// How far the per-round ratios disagree: (max - min) / median, 0 for one
// round.  Above SPREAD_LIMIT the rounds do not agree on the gain.
const SPREAD_LIMIT = 0.15;
function spread(xs) {
  const s = xs.filter((x) => Number.isFinite(x));
  if (s.length < 2) return 0;
  return (Math.max(...s) - Math.min(...s)) / median(s);
}

function fmt(x, digits = 0) {
  if (!Number.isFinite(x)) return '-';
  if (Math.abs(x) >= 10000 && digits === 0) return `${(x / 1000).toFixed(1)}k`;
  return x.toFixed(digits);
}

const fmtRatio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : '-');

module.exports = { median, ratios, spread, SPREAD_LIMIT, fmt, fmtRatio };
