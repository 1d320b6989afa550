'use strict';

// The chart of a comparison, as a standalone SVG: for server CPU per
// request and for req/s, a bar per variant at the median of its rounds, a
// whisker from the lowest round to the highest, a dot per round, and the
// median onewrite/stock ratio.

const { median, fmt } = require('./stats');

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// groups: [{ label, unit, bars: [{ label, values }], ratio }]
function chart({ title, subtitle, groups, footer }) {
  const W = 760;
  const rowH = 34;
  const left = 130;
  const right = 150;
  const top = 62;
  const colors = ['#8a8f98', '#2f7ed8'];
  const rows = groups.reduce((n, g) => n + g.bars.length + 1, 0);
  const H = top + rows * rowH + 44;
  let y = top;
  let body = '';
  for (const g of groups) {
    const all = g.bars.flatMap((b) => b.values).filter(Number.isFinite);
    const scale = (W - left - right) / ((Math.max(0, ...all) * 1.08) || 1);
    const x = (v) => (left + (Number.isFinite(v) ? v : 0) * scale).toFixed(1);
    body += `<text x="10" y="${y + 20}" font-weight="bold">${esc(g.label)}</text>\n`;
    y += rowH;
    g.bars.forEach((b, i) => {
      const m = median(b.values);
      const finite = b.values.filter(Number.isFinite);
      const yc = y + rowH / 2 - 1;
      body += `<text x="20" y="${y + 18}">${esc(b.label)}</text>\n`;
      body += `<rect x="${left}" y="${y + 5}" width="${(x(m) - left).toFixed(1)}" height="${rowH - 12}" fill="${colors[i % colors.length]}"/>\n`;
      if (finite.length > 0) {
        const lo = Math.min(...finite);
        const hi = Math.max(...finite);
        body += `<line x1="${x(lo)}" x2="${x(hi)}" y1="${yc}" y2="${yc}" stroke="#222" stroke-width="2"/>\n`;
        for (const v of [lo, hi]) body += `<line x1="${x(v)}" x2="${x(v)}" y1="${yc - 6}" y2="${yc + 6}" stroke="#222" stroke-width="2"/>\n`;
        for (const v of finite) body += `<circle cx="${x(v)}" cy="${yc}" r="2.5" fill="#222"/>\n`;
        const label = `${fmt(m, m < 100 ? 2 : 0)}${g.unit ? ` ${g.unit}` : ''}${i > 0 && Number.isFinite(g.ratio) ? `  (${g.ratio.toFixed(2)}x)` : ''}`;
        body += `<text x="${(Number(x(hi)) + 8).toFixed(1)}" y="${y + 18}" font-size="12">${esc(label)}</text>\n`;
      }
      y += rowH;
    });
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="13">\n` +
    '<rect width="100%" height="100%" fill="white"/>\n' +
    `<text x="10" y="24" font-size="16" font-weight="bold">${esc(title)}</text>\n` +
    `<text x="10" y="44" font-size="12" fill="#333">${esc(subtitle)}</text>\n` +
    body +
    `<text x="10" y="${H - 26}" font-size="11" fill="#555">${esc(footer)}</text>\n` +
    `<text x="10" y="${H - 10}" font-size="11" fill="#555">bar: median of the rounds; dots: each round; whisker: lowest to highest; (x): onewrite / stock, median of the per-round ratios</text>\n` +
    '</svg>\n';
}

module.exports = { chart };
