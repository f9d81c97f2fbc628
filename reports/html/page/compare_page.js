// Two reports or two folders of runs: per metric, what `gpubench compare` decided (its
// own result, computed by gpubench; nothing is tested here), both sides' distributions
// next to the shift with its interval and the verdict.
'use strict';
(function() {
const G = window.gpubench;
const f = G.fmt;
const runLevel = (c) => c.decision === 'run_t_test' || c.decision === 'paired_run_t_test';
// The change compare prints: the t-test's estimate on runs, else the ratio of medians.
const changeOf = (c) => runLevel(c) ? c.shift : c.median_change;
const jitter = (k) => ((k * 0.6180339887) % 1 - 0.5) * 0.16;  // deterministic: stable screenshots

// A linear y axis of config rows (0 at the top) labelled with their ids.
function rowAxis(labels) {
  return {
    type: 'linear',
    reverse: true,
    min: -0.6,
    max: labels.length - 0.4,
    ticks: {
      stepSize: 1,
      autoSkip: false,
      callback: (v) => Number.isInteger(v) && v >= 0 && v < labels.length ? G.shortLabel(labels[v]) : ''
    },
    grid: {display: false}
  };
}

// Horizontal segments [lo, hi] at row y (+offset), as one line dataset broken by NaN.
function segments(rows, offset) {
  const points = [];
  rows.forEach(([lo, hi], y) => {
    if (G.isNumber(lo) && G.isNumber(hi)) points.push({x: lo, y: y + offset}, {x: hi, y: y + offset});
    points.push({x: NaN, y: NaN});
  });
  return points;
}

// Values relative to each config's BASE median, in %: configs of 20 and 8000 samples/s
// share one axis, and it lines up with the shift chart below it.
function distributionChart(section, m, configs) {
  const labels = configs.map((c) => c.config_id);
  const relative = (c, v) => G.isNumber(v) && c.base.median > 0 ? (v / c.base.median - 1) * 100 : NaN;
  const datasets = [];
  [['base', -0.18, 7, 'BASE'], ['new', 0.18, 0, 'NEW']].forEach(([side, offset, color, name]) => {
    const dots = [];
    configs.forEach(
        (c, y) => (m.values[c.config_id] ? m.values[c.config_id][side] : [])
                      .forEach((v, k) => dots.push({x: relative(c, v), y: y + offset + jitter(k), raw: v})));
    datasets.push(
        {label: name + ' values', data: dots, pointRadius: 1.6, backgroundColor: G.color(color, 0.45), borderWidth: 0});
    datasets.push({
      label: name + ' p10–p90',
      showLine: true,
      spanGaps: false,
      pointRadius: 0,
      borderWidth: 5,
      borderColor: G.color(color, 0.5),
      data: segments(configs.map((c) => [relative(c, c[side].p10), relative(c, c[side].p90)]), offset)
    });
    datasets.push({
      label: name + ' median',
      pointStyle: 'rectRot',
      pointRadius: 5,
      backgroundColor: G.color(color),
      borderColor: '#222',
      data: configs.map((c, y) => ({x: relative(c, c[side].median), y: y + offset, raw: c[side].median}))
    });
  });
  const unit = m.result.metric.unit;
  const show = unit === 'bytes' ? f.bytes : (v) => f.num(v) + ' ' + unit;
  G.chart(
      section, m.name + ' distributions', {
        type: 'scatter',
        data: {datasets},
        options: {
          scales: {x: {title: G.axisTitle(m.name + ': % from the BASE median')}, y: rowAxis(labels)},
          plugins: {
            legend: {position: 'top'},
            tooltip: {
              callbacks: {
                label: (ctx) => ctx.dataset.label + ': ' + (G.isNumber(ctx.raw.raw) ? show(ctx.raw.raw) + ' (' : '(') +
                    f.signedPct(ctx.raw.x / 100) + ')'
              }
            }
          }
        },
      },
      G.rowsHeight(labels.length, 34));
}

function shiftChart(section, m, configs) {
  const labels = configs.map((c) => c.config_id);
  const pct = (v) => G.isNumber(v) ? v * 100 : NaN;
  const t = m.result.threshold * 100, n = labels.length;
  const datasets = [{
    label: m.result.confidence * 100 + '% interval',
    showLine: true,
    spanGaps: false,
    pointRadius: 0,
    borderWidth: 4,
    borderColor: 'rgba(60,60,60,0.55)',
    data: segments(configs.map((c) => c.shift_ci ? [pct(c.shift_ci[0]), pct(c.shift_ci[1])] : [NaN, NaN]), 0)
  }];
  for (const verdict of ['regression', 'improvement', 'no_change']) {
    const points = [];
    configs.forEach((c, y) => {
      if (c.verdict === verdict && G.isNumber(changeOf(c))) points.push({x: pct(changeOf(c)), y});
    });
    datasets.push({
      label: verdict.replace('_', ' '),
      data: points,
      pointRadius: 6,
      pointStyle: 'circle',
      backgroundColor: G.verdictColor[verdict],
      borderColor: '#222'
    });
  }
  for (const [x, label] of [[-t, '−threshold'], [t, '+threshold']])
    datasets.push({
      label,
      data: [{x, y: -0.6}, {x, y: n - 0.4}],
      showLine: true,
      pointRadius: 0,
      borderDash: [6, 4],
      borderWidth: 1.5,
      borderColor: '#9a6700'
    });
  const better = m.result.metric.higher_is_better ? 'higher is better' : 'lower is better';
  G.chart(
      section, m.name + ' shift', {
        type: 'scatter',
        data: {datasets},
        options: {
          scales: {x: {title: G.axisTitle('change NEW vs BASE, % (' + better + ')')}, y: rowAxis(labels)},
          plugins: {legend: {position: 'top'}}
        },
      },
      G.rowsHeight(n, 26));
}

// "median (p10–p90, cv)"; one value (a single run's peak memory) alone.
function sideText(s, unitBytes) {
  const v = unitBytes ? f.bytes : f.num;
  if (s.count === 1) return v(s.median);
  return v(s.median) + ' (' + v(s.p10) + '–' + v(s.p90) + ', cv ' + f.pct(s.cv) + ')';
}

function metricSection(root, m, primary) {
  const r = m.result;
  const title = m.name + (m.name === primary ? ' (the verdict gpubench compare exits with)' : '');
  const s = r.summary;
  const section = G.section(
      root, title,
      r.metric.unit + ', ' + (r.metric.higher_is_better ? 'higher' : 'lower') + ' is better · threshold ' +
          (r.threshold * 100) + '%, alpha ' + r.alpha + (r.paired ? ', paired runs' : '') + ' · ' + s.compared +
          ' compared: ' + s.regressions + ' regressions, ' + s.improvements + ' improvements, ' + s.unchanged +
          ' unchanged, ' + s.not_compared + ' not compared');
  const unitBytes = r.metric.unit === 'bytes';
  G.table(
      section,
      [
        'config', 'n base/new', 'BASE median (p10–p90, cv)', 'NEW median (p10–p90, cv)', 'change',
        Math.round(r.confidence * 1000) / 10 + '% CI', 'p-value', 'decided by', 'verdict', 'why'
      ],
      r.configs.map(
          (c) =>
              [{text: c.config_id, class: 'id'}, {text: c.base.count + '/' + c.new.count, class: 'num'},
               {text: sideText(c.base, unitBytes), class: 'num'}, {text: sideText(c.new, unitBytes), class: 'num'},
               {text: f.signedPct(changeOf(c)), class: 'num'}, {
                 text: c.shift_ci ? '[' + f.signedPct(c.shift_ci[0]) + ', ' + f.signedPct(c.shift_ci[1]) + ']' : '-',
                 class: 'num'
               },
               {text: f.p(c.p_value), class: 'num'}, c.decision.replace(/_/g, ' '),
               {text: c.verdict.replace('_', ' '), class: G.verdictClass(c.verdict)},
               {text: c.reason, class: 'wrap'}]));
  if (r.configs.length) {
    distributionChart(section, m, r.configs);
    shiftChart(section, m, r.configs);
  }
  const notes = [];
  for (const id of r.only_in_base) notes.push('only in BASE: ' + id);
  for (const id of r.only_in_new) notes.push('only in NEW: ' + id);
  for (const w of r.warnings) notes.push('warning: ' + w);
  if (notes.length) G.list(section, notes);
  // Configs neither side measured (skipped on both): folded, a line per reason.
  G.foldedGroups(section, r.not_compared.map((n) => ({id: n.config_id, reason: n.reason})), 'not compared');
  G.details(section, 'gpubench compare --metric ' + m.name + ' prints', m.text);
}

G.pages.compare = function(data, root) {
  document.title = G.shown(data.title);
  root.append(G.el('h1', null, data.title));
  for (const [role, side] of [['BASE', data.base], ['NEW', data.new]])
    root.append(G.el(
        'p', {class: 'muted'},
        role + ': ' + side.path + ' · ' + side.runs + (side.runs > 1 ? ' runs' : ' run') + ' · created ' +
            (side.created_utc || '?') + ' UTC'));
  root.append(G.el(
      'div', {class: 'banner ' + (data.regression ? 'bad' : 'good')},
      data.regression ? 'REGRESSION in ' + data.primary + ': gpubench compare exits 1' :
                        'no regression in ' + data.primary + ': gpubench compare exits 0'));
  for (const m of data.metrics) metricSection(root, m, data.primary);
  if (data.not_compared_metrics.length) {
    const section = G.section(root, 'Metrics not compared');
    G.list(section, data.not_compared_metrics.map((n) => n.metric + ': ' + n.reason));
  }
  const env = G.section(root, 'Environments', 'The first run of each side.');
  const labels = [];
  for (const [label] of data.base.env.concat(data.new.env))
    if (!labels.includes(label)) labels.push(label);
  const value = (rows, label) => {
    const row = rows.find(([l]) => l === label);
    return row ? row[1] : '-';
  };
  G.table(
      env, ['', 'BASE', 'NEW'],
      labels.map((label) => [{text: label, class: 'id'}, value(data.base.env, label), value(data.new.env, label)]));
};
})();
