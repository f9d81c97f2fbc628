// A folder of reports over time: per config and metric a trend line (median, p10–p90
// band) in created_utc order, with the points gpubench compare calls a regression (red) or
// an improvement (green) against the previous report that ran the config.
'use strict';
(function() {
const G = window.gpubench;
const f = G.fmt;

const dateOf = (report) => (report.created_utc || '?').slice(0, 10);
const shortCommit = (report) => (report.commit || '?').slice(0, 10);

function wrapText(text, width) {
  const lines = [];
  for (let rest = String(text); rest.length; rest = rest.slice(width)) lines.push(rest.slice(0, width));
  return lines;
}

function lastNumber(values) {
  for (let i = values.length - 1; i >= 0; --i)
    if (G.isNumber(values[i])) return [i, values[i]];
  return [-1, null];
}
function firstNumber(values) {
  for (let i = 0; i < values.length; ++i)
    if (G.isNumber(values[i])) return [i, values[i]];
  return [-1, null];
}

function summaryTable(root, data) {
  const section = G.section(
      root, 'Summary',
      'Latest against first: the whole history\'s drift, which no single ' +
          'step may show. Marks: reports compare judged a regression or an improvement against the previous one.');
  const rows = [];
  data.configs.forEach((config, index) => {
    for (const metric of data.metrics) {
      const s = config.metrics[metric.name];
      if (!s) continue;
      const [, first] = firstNumber(s.median), [, last] = lastNumber(s.median);
      const regressions = s.marks.filter((m) => m.verdict === 'regression').length;
      const improvements = s.marks.length - regressions;
      const show = metric.unit === 'bytes' ? f.bytes : f.num;
      rows.push([
        G.el('a', {href: '#config-' + index, class: 'id'}, config.id), metric.name, {text: show(first), class: 'num'},
        {text: show(last), class: 'num'}, {text: first ? f.signedPct(last / first - 1) : '-', class: 'num'},
        {text: String(regressions), class: regressions ? 'regression num' : 'num'},
        {text: String(improvements), class: improvements ? 'improvement num' : 'num'}
      ]);
    }
  });
  G.table(section, ['config', 'metric', 'first', 'latest', 'latest vs first', 'regressions', 'improvements'], rows);
}

function trendChart(parent, data, config, metric, s) {
  const bytes = metric.unit === 'bytes';
  const scale = (v) => G.isNumber(v) ? (bytes ? f.mib(v) : v) : NaN;
  const line = (values) => values.map((v, x) => ({x, y: scale(v)}));
  const datasets = [];
  if (s.p10 && s.p90) {
    datasets.push({label: 'p10', data: line(s.p10), pointRadius: 0, borderWidth: 0, spanGaps: false});
    datasets.push({
      label: 'p10–p90',
      data: line(s.p90),
      pointRadius: 0,
      borderWidth: 0,
      spanGaps: false,
      fill: '-1',
      backgroundColor: G.color(0, 0.18)
    });
  }
  datasets.push({
    label: 'median',
    data: line(s.median),
    borderColor: G.color(0),
    backgroundColor: G.color(0),
    borderWidth: 1.5,
    pointRadius: s.median.length > 60 ? 0 : 2,
    spanGaps: false
  });
  for (const verdict of ['regression', 'improvement']) {
    const marks = s.marks.filter((m) => m.verdict === verdict);
    if (!marks.length) continue;
    datasets.push({
      label: verdict,
      showLine: false,
      pointStyle: 'triangle',
      pointRadius: 7,
      backgroundColor: G.verdictColor[verdict],
      borderColor: '#222',
      marks,
      data: marks.map((m) => ({x: m.report, y: scale(s.median[m.report])}))
    });
  }
  const reports = data.reports;
  G.chart(
      parent, config.id + ' ' + metric.name, {
        type: 'line',
        data: {datasets},
        options: {
          parsing: false,
          normalized: true,
          interaction: {mode: 'nearest', intersect: false},
          scales: {
            x: {
              type: 'linear',
              min: 0,
              max: Math.max(1, reports.length - 1),
              ticks: {maxTicksLimit: 8, callback: (v) => Number.isInteger(v) && reports[v] ? dateOf(reports[v]) : ''}
            },
            y: {title: G.axisTitle(metric.name + ' (' + (bytes ? 'MiB' : metric.unit) + ')')},
          },
          plugins: {
            legend: {display: false},
            title: {display: true, text: metric.name},
            tooltip: {
              callbacks: {
                title: (items) => {
                  const r = reports[items[0].raw.x];
                  return r ? dateOf(r) + ' · ' + shortCommit(r) + ' · ' + r.file : '';
                },
                label: (ctx) => {
                  const mark = ctx.dataset.marks ? ctx.dataset.marks[ctx.dataIndex] : null;
                  const text = ctx.dataset.label + ': ' + f.num(ctx.raw.y);
                  if (!mark) return text;
                  return [
                    text,
                    'vs ' + dateOf(reports[mark.against]) + ': ' + f.signedPct(mark.change) + ' [' +
                        f.signedPct(mark.low) + ', ' + f.signedPct(mark.high) + '], p ' + f.p(mark.p_value)
                  ].concat(wrapText(mark.reason, 90));
                },
              }
            },
          },
        },
      },
      240);
}

function reportsTable(root, data) {
  const section = G.section(root, 'Reports', 'In the order drawn (created_utc, then file name).');
  const details = G.el('details', null, G.el('summary', null, data.reports.length + ' reports'));
  section.append(details);
  G.table(
      details, ['#', 'created (UTC)', 'commit', 'version', 'file', 'environment changes'],
      data.reports.map(
          (r, i) =>
              [{text: String(i), class: 'num'}, r.created_utc || '?', {text: r.commit, class: 'id'}, r.version,
               {text: r.file, class: 'id'}, {text: r.env_changes.join('; '), class: 'wrap'}]));
}

G.pages.history = function(data, root) {
  document.title = G.shown(data.title);
  root.append(G.el('h1', null, data.title));
  const n = data.reports.length;
  root.append(G.el(
      'p', {class: 'muted'},
      n + ' reports, ' + (n ? dateOf(data.reports[0]) + ' to ' + dateOf(data.reports[n - 1]) : '') + ' · ' +
          data.configs.length + ' configs'));
  root.append(G.el(
      'p', {class: 'note'},
      'Each point is judged as gpubench compare PREVIOUS NEW would (threshold ' + data.threshold * 100 + '%, alpha ' +
          data.alpha + '), against the previous report that ran the config; a ' +
          'report where it did not run is a gap. Hover a mark for the change, its interval and compare\'s reason.'));
  if (data.warnings.length) G.list(root, data.warnings.map((w) => 'warning: ' + w));
  summaryTable(root, data);
  const trends = G.section(root, 'Trends');
  data.configs.forEach((config, index) => {
    trends.append(G.el('h3', {id: 'config-' + index}, config.id));
    const grid = G.el('div', {class: 'chart-grid'});
    trends.append(grid);
    for (const metric of data.metrics) {
      const s = config.metrics[metric.name];
      if (s) trendChart(grid, data, config, metric, s);
    }
  });
  reportsTable(root, data);
};
})();
