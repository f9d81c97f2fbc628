// Every chart goes through G.chart: Chart.js (inlined, never fetched) draws it when its box
// scrolls near the viewport, so a history of hundreds of charts opens at once; the counts
// on the body element (data-charts-expected, -drawn, -failed, and with #check -empty, -blank) tell a
// headless test whether each chart drew.
'use strict';
(function() {
const G = window.gpubench;
if (typeof Chart === 'undefined') throw new Error('Chart.js is missing from this page');
Chart.defaults.animation = false;            // drawn once, synchronously: nothing to wait for
Chart.defaults.maintainAspectRatio = false;  // the box's height decides
Chart.defaults.font.size = 12;
Chart.defaults.plugins.legend.labels.boxWidth = 12;

G.palette =
    ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
G.color = (i, alpha) => {
  const hex = G.palette[i % G.palette.length];
  if (alpha === undefined) return hex;
  const n = parseInt(hex.slice(1), 16);
  return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + alpha + ')';
};
G.verdictColor = {
  regression: '#c62828',
  improvement: '#1a7f37',
  no_change: '#8a949e'
};

const state = {
  entries: [],
  drawn: 0,
  failed: 0,
  empty: 0,
  blank: 0
};
G.chartState = state;

function publish() {
  const d = document.body.dataset;
  d.chartsExpected = String(state.entries.length);
  d.chartsDrawn = String(state.drawn);
  d.chartsFailed = String(state.failed);
  if (G.options.has('check')) {
    d.chartsEmpty = String(state.empty);
    d.chartsBlank = String(state.blank);
  }
}

// Chart.js's own state: some dataset placed an element at finite coordinates.
function drewData(chart) {
  return chart.getSortedVisibleDatasetMetas().some(
      (meta) => meta.data.some((el) => !el.skip && Number.isFinite(el.x) && Number.isFinite(el.y)));
}

function canvasBlank(canvas) {
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < pixels.length; i += 4)
    if (pixels[i] !== 0) return false;
  return true;
}

function draw(entry) {
  if (entry.chart || entry.tried) return;
  entry.tried = true;
  try {
    entry.chart = new Chart(entry.canvas, entry.config);
    ++state.drawn;
    if (G.options.has('check')) {
      if (!drewData(entry.chart)) ++state.empty;
      if (canvasBlank(entry.canvas)) ++state.blank;
    }
  } catch (error) {
    ++state.failed;
    window.gpubenchRecordError('chart "' + entry.name + '" failed: ' + error);
  }
  publish();
}

const observer = 'IntersectionObserver' in window && !G.options.has('all') ? new IntersectionObserver((seen) => {
  for (const item of seen) {
    if (!item.isIntersecting) continue;
    observer.unobserve(item.target);
    draw(item.target.gpubenchChart);
  }
}, {rootMargin: '800px 0px'}) : null;

// A chart of `config` in a new box of `height` px appended to `parent`; `name` names it
// in error messages.
G.chart = function(parent, name, config, height) {
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', name);
  const box = G.el('div', {class: 'chart-box'}, canvas);
  box.style.height = (height || 320) + 'px';
  parent.append(box);
  const entry = {name, canvas, config, chart: null, tried: false};
  box.gpubenchChart = entry;
  state.entries.push(entry);
  publish();
  if (observer)
    observer.observe(box);
  else
    draw(entry);
  return entry;
};

// Height for a horizontal chart of n categories.
G.rowsHeight = (n, perRow) => Math.max(180, 70 + n * (perRow || 22));

G.axisTitle = (text) => ({display: true, text});

// A horizontal bar chart over `labels`.
G.hbar = function(labels, datasets, xTitle, extra) {
  const config = {
    type: 'bar',
    data: {labels, datasets},
    options: {
      indexAxis: 'y',
      scales: {
        x: {title: G.axisTitle(xTitle), beginAtZero: true},
        y: {
          ticks: {
            autoSkip: false,
            callback(value) {
              return G.shortLabel(this.getLabelForValue(value));
            }
          }
        }
      },
      plugins: {legend: {position: 'top'}},
    },
  };
  Object.assign(config.options, extra || {});
  return config;
};
})();
