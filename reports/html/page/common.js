// Helpers every page uses. Text from a report reaches the DOM only as text nodes
// (textContent, append of strings) and attribute values set by name: never as markup.
'use strict';
const G = (window.gpubench = window.gpubench || {});
G.pages = {};
// #all: draw every chart at load, not as it scrolls into view (printing, tests);
// #check: after drawing, count charts that drew no data element or left the canvas blank.
G.options = new Set(location.hash.replace(/^#/, '').split(/[&,]/).filter(Boolean));

// What a browser obeys unseen in text (core/io/terminal_controls.h's list: C1 controls,
// U+2028/U+2029, the bidirectional controls that reorder what follows), shown as \uXXXX:
// a report's reason cannot make a row read otherwise.
const HIDDEN_CONTROLS = /[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
G.shown = (text) =>
  String(text).replace(HIDDEN_CONTROLS, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));

// el('td', {class: 'num', title: t}, child, ...): children are Nodes or text.
G.el = function(tag, attrs) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (key === 'class')
      node.className = value;
    else if (key === 'title')
      node.setAttribute(key, G.shown(value));
    else if (key === 'id' || key === 'href' || key === 'colspan')
      node.setAttribute(key, String(value));
    else
      throw new Error('G.el: attribute ' + key + ' is not one the pages set');
  }
  for (let i = 2; i < arguments.length; ++i) {
    const child = arguments[i];
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : G.shown(child));
  }
  return node;
};

const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);
G.isNumber = isNumber;

G.fmt = {
  num(v, digits) {
    if (!isNumber(v)) return '-';
    const a = Math.abs(v);
    if (digits !== undefined) return v.toFixed(digits);
    if (a >= 10000) return v.toFixed(0);
    if (a >= 100) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return v.toPrecision(3);
  },
  bytes(v) {
    if (!isNumber(v) || v <= 0) return '-';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      ++u;
    }
    return v.toFixed(1) + ' ' + units[u];
  },
  mib(v) {
    return isNumber(v) ? v / (1024 * 1024) : null;
  },
  signedPct(fraction) {
    return isNumber(fraction) ? (fraction >= 0 ? '+' : '') + (fraction * 100).toFixed(1) + '%' : 'n/a';
  },
  pct(fraction) {
    return isNumber(fraction) ? (fraction * 100).toFixed(1) + '%' : '-';
  },
  ratio(v) {
    return isNumber(v) ? v.toFixed(2) + '×' : '-';
  },
  p(v) {
    return !isNumber(v) ? '-' : v < 1e-4 ? v.toExponential(1) : v.toFixed(4);
  },
  spread(s, f) {
    return s ? f(s.median) + ' [' + f(s.p10) + '–' + f(s.p90) + ']' : '-';
  },
};

// A titled section appended to `parent`; returns it for content.
G.section = function(parent, title, note) {
  const section = G.el('section', null, G.el('h2', null, title));
  if (note) section.append(G.el('p', {class: 'note'}, note));
  parent.append(section);
  return section;
};

// A table: `headers` strings; `rows` arrays of cells, each text, a Node, or
// {text, class, title} (class names come from the page's code, never from a report).
// `headers` null: no header row (a list of label/value pairs).
G.table = function(parent, headers, rows) {
  const head = headers ? G.el('tr') : null;
  for (const h of headers || []) head.append(G.el('th', null, h));
  const body = G.el('tbody');
  for (const row of rows) {
    const tr = G.el('tr');
    for (const cell of row) {
      if (cell !== null && typeof cell === 'object' && !(cell instanceof Node))
        tr.append(G.el('td', {class: cell.class, title: cell.title}, cell.text));
      else
        tr.append(G.el('td', null, cell));
    }
    body.append(tr);
  }
  const table = G.el('table', null, head ? G.el('thead', null, head) : null, body);
  parent.append(G.el('div', {class: 'table-wrap'}, table));
  return table;
};

// Fixed class names for values a report states (a report's own string never becomes one).
G.statusClass = (status) => ({ok: 'ok', skipped: 'skipped', failed: 'failed'})[status] || '';
G.verdictClass = (verdict) =>
    ({regression: 'regression', improvement: 'improvement', no_change: 'no_change'})[verdict] || '';

// A chart axis label: long config ids keep their end (the techniques), elided in front.
G.shortLabel = (text, max) => {
  const s = String(text), n = max || 48;
  return s.length > n ? '…' + s.slice(s.length - n + 1) : s;
};

G.list = function(parent, items) {
  const ul = G.el('ul', {class: 'plain'});
  for (const item of items) ul.append(G.el('li', null, item));
  parent.append(ul);
  return ul;
};

// `items` ({id, reason}) one folded line per reason, opened for the ids: 156 skipped rows
// (or not-compared configs) each with LibTorch's driver message were most of a page. A
// reason that names its own config is its siblings' reason: the id is said in the list.
G.foldedGroups = function(parent, items, say) {
  const groups = new Map();  // reason -> ids, in the items' order
  for (const item of items) {
    const reason = (item.reason || '(no reason given)').split(item.id).join('this config');
    if (!groups.has(reason)) groups.set(reason, []);
    groups.get(reason).push(item.id);
  }
  for (const [reason, ids] of groups)
    parent.append(G.el(
        'details', {class: 'skipped-group'}, G.el('summary', null, ids.length + ' ' + say + ': ' + reason),
        G.el('p', {class: 'ids'}, ids.join(', '))));
};

// A collapsed block of preformatted text (compare's own console output).
G.details = function(parent, summary, text) {
  parent.append(G.el('details', null, G.el('summary', null, summary), G.el('pre', null, text)));
};
