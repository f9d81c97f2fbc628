// Reads the page's data (JSON in the application/json script element: parsed, never run) and
// renders the page for its kind; data-ready="1" and data-render-ms on the body mark the end.
'use strict';
(function() {
const G = window.gpubench;
const started = performance.now();
try {
  const data = JSON.parse(document.getElementById('gpubench-data').textContent);
  const render = Object.prototype.hasOwnProperty.call(G.pages, data.kind) ? G.pages[data.kind] : null;
  if (!render) throw new Error('no page for data of kind ' + JSON.stringify(data.kind));
  render(data, document.getElementById('page'));
} catch (error) {
  window.gpubenchRecordError('the page could not be drawn: ' + error);
} finally {
  // What the browser tests hold the layout to: the page's height, tables wider than their
  // box (a horizontal scroll), where the first measured row begins.
  document.body.dataset.pageHeight = String(document.documentElement.scrollHeight);
  document.body.dataset.wideTables =
      String([...document.querySelectorAll('.table-wrap')].filter((w) => w.scrollWidth > w.clientWidth + 1).length);
  const first = document.querySelector('#rows tbody tr');
  if (first) document.body.dataset.firstRowTop = String(Math.round(first.getBoundingClientRect().top + window.scrollY));
  document.body.dataset.renderMs = String(Math.round(performance.now() - started));
  document.body.dataset.ready = '1';
}
})();
