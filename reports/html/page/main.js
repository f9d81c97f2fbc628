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
  document.body.dataset.renderMs = String(Math.round(performance.now() - started));
  document.body.dataset.ready = '1';
}
})();
