'use strict';

// Just enough Markdown for test/docs.js: the fenced blocks of a page
// (with their info strings and lines), its inline code spans, its
// relative links, and its headings as GitHub turns them into anchors.

// A line that closes a block opened with `fence`: the same character, at
// least as many, nothing else.
function closes(line, fence) {
  const t = line.trim();
  return t.length >= fence.length && t === fence[0].repeat(t.length);
}

// The fenced blocks, in order: { info: ['sh', 'runnable'], lang, text,
// line } (line: 1-based, of the opening fence).
function blocks(markdown) {
  const out = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const info = open[3].trim().split(/\s+/).filter(Boolean);
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      if (closes(lines[j], fence)) break;
      body.push(lines[j]);
    }
    out.push({ info, lang: info[0] || '', text: body.join('\n'), line: i + 1 });
    i = j;
  }
  return out;
}

// The page without its fenced blocks (each line kept, emptied, so that
// line numbers stay right).
function prose(markdown) {
  const lines = markdown.split('\n');
  let fence = null;
  return lines.map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && m) {
      fence = m[1];
      return '';
    }
    if (fence !== null) {
      if (closes(line, fence)) fence = null;
      return '';
    }
    return line;
  }).join('\n');
}

// The inline code spans of the prose, a line break inside one read as a
// space: [{ code, line }].
function inlineCode(markdown) {
  const text = prose(markdown);
  const out = [];
  const re = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  let m;
  while ((m = re.exec(text)) !== null) {
    const line = text.slice(0, m.index).split('\n').length;
    out.push({ code: m[2].replace(/\s*\n\s*/g, ' ').trim(), line });
  }
  return out;
}

// Links and images of the prose that are not absolute: [{ target, line }].
function relativeLinks(markdown) {
  const text = prose(markdown).replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, (s) => s.replace(/[^\n]/g, ' '));
  const out = [];
  const re = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
  let m;
  while ((m = re.exec(text)) !== null) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    out.push({ target, line: text.slice(0, m.index).split('\n').length });
  }
  return out;
}

// The anchors GitHub makes of a page's headings (github-slugger's rules:
// lower case, punctuation dropped, each space a hyphen, a repeat numbered).
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const line of prose(markdown).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) || 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

module.exports = { blocks, prose, inlineCode, relativeLinks, anchors };
