// One report: environment, every row, and charts of throughput, step phases, memory, what
// each technique bought (and each recipe's ablation), loss curves.
'use strict';
(function() {
const G = window.gpubench;
const f = G.fmt;

// Two tables side by side, so that the measured rows start on the first screen.
function environment(root, data) {
  const section = G.section(root, 'Environment');
  const grid = G.el('div', {class: 'env-grid'});
  section.append(grid);
  const half = Math.ceil(data.env.length / 2);
  for (const part of [data.env.slice(0, half), data.env.slice(half)])
    if (part.length) G.table(grid, null, part.map(([label, value]) => [{text: label, class: 'id'}, {text: value, class: 'wrap'}]));
}

// A step's phases as one thin stacked bar, each phase's share of the step, the numbers on
// hover: a line of text a phase made every row four lines tall.
const PHASE_ORDER = ['data', 'h2d', 'forward', 'backward', 'optimizer', 'other'];  // G.palette's first six, in page.css
const PHASE_CLASSES = {data: 'ph-data', h2d: 'ph-h2d', forward: 'ph-forward', backward: 'ph-backward', optimizer: 'ph-optimizer'};
function phaseBar(phases) {
  const total = phases.reduce((sum, [, ms]) => sum + (G.isNumber(ms) && ms > 0 ? ms : 0), 0);
  if (!(total > 0)) return '-';
  const title = phases.map(([name, ms]) => name + ' ' + f.num(ms) + ' ms (' + f.pct(ms / total) + ')').join(' · ');
  const bar = G.el('div', {class: 'phase-bar', title});
  for (const [name, ms] of phases) {
    if (!(G.isNumber(ms) && ms > 0)) continue;
    const part = G.el('span', {class: 'ph ' + (PHASE_CLASSES[name] || 'ph-other')});
    part.style.width = (100 * ms / total).toFixed(2) + '%';  // CSSOM: not a style attribute
    bar.append(part);
  }
  return bar;
}

function phaseLegend() {
  const legend = G.el('p', {class: 'note'}, 'phases: ');
  for (const name of PHASE_ORDER)
    legend.append(G.el('span', {class: 'ph-key ' + (PHASE_CLASSES[name] || 'ph-other')}), name + ' ');
  return legend;
}

// The measured rows (ok and failed) in the table; the skipped ones after it, one folded line
// per reason: a report of 25 measured rows and 156 skipped was 16,000 pixels of skipped rows.
function rowsTable(root, data) {
  const section = G.section(
      root, 'Configurations',
      'samples/s and tokens/s: median [p10–p90] over measured steps. Phases: share of a step (CUDA rows: the device ' +
          'timeline; the numbers on hover). Peak memory: the device peak where measured, else host RSS.');
  const measured = data.rows.filter((r) => r.status !== 'skipped');
  const any = (test) => measured.some(test);
  // A column no measured row fills is left out (tokens/s of image models, MFU without FLOPs).
  const columns = [
    ['config', (r) => ({text: r.id, class: 'id'}), true],
    ['status', (r) => ({text: r.status, class: G.statusClass(r.status)}), true],
    ['samples/s', (r) => ({text: r.cells.samples_per_s, class: 'num'}), true],
    ['tokens/s', (r) => ({text: f.spread(r.tokens_per_s, f.num), class: 'num'}), any((r) => r.tokens_per_s)],
    ['step ms', (r) => ({text: r.cells.step_ms, class: 'num spread'}), true],
    ['TF/s · MFU', (r) => ({text: r.cells.utilization, class: 'num'}), any((r) => r.cells.utilization && r.cells.utilization !== '-')],
    ['phases', (r) => phaseBar(r.phases), true],
    ['peak memory', (r) => ({text: r.cells.peak_memory, class: 'num'}), true],
    ['loss', (r) => ({text: r.cells.loss, class: 'num'}), true],
    // "1.64x vs mlp/cpu/fp32": the ratio in the cell, against what on hover.
    ['speedup', (r) => ({text: String(r.cells.speedup).split(' vs ')[0], class: 'num', title: r.cells.speedup}),
     any((r) => r.cells.speedup && r.cells.speedup !== '-')],
    // The verdict's kind, its evidence on hover (a sentence a row made rows four lines tall);
    // a failed row's reason in full.
    ['verdict / reason',
     (r) => r.status === 'ok' ? {text: r.verdict.kind || '-', class: 'verdict', title: r.verdict.text} :
                                {text: r.reason, class: 'wrap'},
     true],
    ['warnings', (r) => ({text: r.warnings.join('; '), class: 'wrap warn'}), any((r) => r.warnings.length)],
  ].filter(([, , shown]) => shown);
  if (measured.length) {
    const table = G.table(section, columns.map(([header]) => header), measured.map((r) => columns.map(([, cell]) => cell(r))));
    table.id = 'rows';
    section.append(phaseLegend());
  } else {
    section.append(G.el('p', null, 'No configuration was measured.'));
  }
  skippedGroups(section, data.rows.filter((r) => r.status === 'skipped'));
}

function skippedGroups(section, skipped) {
  if (!skipped.length) return;
  section.append(G.el('h3', null, skipped.length + ' skipped, by reason (open one for its configs)'));
  G.foldedGroups(section, skipped.map((r) => ({id: r.id, reason: r.reason})), 'skipped');
}

function throughputChart(section, ok, key, unit) {
  const rows = ok.filter((r) => r[key]);
  if (!rows.length) return;
  const labels = rows.map((r) => r.id);
  G.chart(
      section, unit + ' per config',
      G.hbar(
          labels,
          [
            {label: 'median ' + unit, data: rows.map((r) => r[key].median), backgroundColor: G.color(0, 0.75)},
            {
              label: 'p10–p90',
              data: rows.map((r) => [r[key].p10, r[key].p90]),
              backgroundColor: 'rgba(30,30,30,0.55)',
              grouped: false,
              barPercentage: 0.25
            },
          ],
          unit),
      G.rowsHeight(rows.length));
}

function phasesChart(section, ok) {
  const rows = ok.filter((r) => r.phases.length);
  if (!rows.length) return;
  const names = [];
  for (const r of rows)
    for (const [name] of r.phases)
      if (!names.includes(name)) names.push(name);
  // A phase keeps its color wherever it is drawn (the table's bars: page.css's .ph-*).
  const datasets = names.map((name, i) => ({
                               label: name,
                               backgroundColor: G.color(PHASE_ORDER.includes(name) ? PHASE_ORDER.indexOf(name) : 6 + i, 0.85),
                               data: rows.map((r) => {
                                 const p = r.phases.find(([n]) => n === name);
                                 return p ? p[1] : 0;
                               }),
                             }));
  const labels = rows.map((r) => r.id + (r.phase_source === 'device' ? ' (device)' : ''));
  const config = G.hbar(labels, datasets, 'median ms per step');
  config.options.scales.x.stacked = true;
  config.options.scales.y.stacked = true;
  G.chart(section, 'step phases', config, G.rowsHeight(rows.length));
}

function memoryChart(section, ok) {
  const kinds = [
    ['host_peak_rss_bytes', 'host peak RSS'], ['cuda_peak_allocated_bytes', 'CUDA peak allocated'],
    ['cuda_peak_reserved_bytes', 'CUDA peak reserved']
  ];
  const present = kinds.filter(([key]) => ok.some((r) => G.isNumber(r.memory[key])));
  if (!present.length) return;
  const datasets = present.map(([key, label], i) => ({
                                 label,
                                 backgroundColor: G.color(i, 0.8),
                                 data: ok.map((r) => f.mib(r.memory[key])),
                               }));
  G.chart(
      section, 'memory peaks', G.hbar(ok.map((r) => r.id), datasets, 'MiB'),
      G.rowsHeight(ok.length, 14 + 8 * present.length));
}

const ciText = (c) =>
    c && c.speedup_ci95 ? ' [' + f.ratio(c.speedup_ci95[0]) + '–' + f.ratio(c.speedup_ci95[1]) + ']' : '';

function ratioChart(section, name, labels, items) {
  const config = G.hbar(
      labels,
      [
        {
          label: 'speedup (samples/s ratio)',
          backgroundColor: G.color(0, 0.8),
          data: items.map((c) => c ? c.speedup : null)
        },
        {label: 'memory ratio', backgroundColor: G.color(1, 0.8), data: items.map((c) => c ? c.memory_ratio : null)},
      ],
      '× the baseline (1 = no change)', {
        plugins: {
          tooltip: {
            callbacks: {
              label: (ctx) => {
                const c = items[ctx.dataIndex];
                return ctx.dataset.label + ': ' + f.ratio(ctx.raw) + (ctx.datasetIndex === 0 ? ciText(c) : '');
              }
            }
          }
        },
      });
  G.chart(section, name, config, G.rowsHeight(labels.length, 18));
}

function techniques(root, data) {
  if (!data.techniques.length) return;
  const section = G.section(
      root, 'What each technique bought',
      'Each comparison: a row against the same row without the technique (speedup = ratio of median samples/s; ' +
          'memory ratio on the memory both measured).');
  ratioChart(section, 'techniques', data.techniques.map((c) => c.kind + ': ' + c.candidate), data.techniques);
  // The chart's numbers, folded: forty comparisons were a second screen of table.
  const folded = G.el('details', null, G.el('summary', null, 'the ' + data.techniques.length + ' comparisons as a table'));
  section.append(folded);
  G.table(
      folded, ['kind', 'candidate', 'baseline', 'speedup', 'memory ratio', 'memory metric', 'loss ratio'],
      data.techniques.map(
          (c) =>
              [c.kind, {text: c.candidate, class: 'id'}, {text: c.baseline, class: 'id'},
               {text: f.ratio(c.speedup), class: 'num'}, {text: f.ratio(c.memory_ratio), class: 'num'}, c.memory_metric,
               {text: f.ratio(c.loss_ratio), class: 'num'}]));
}

function ablations(root, data) {
  if (!data.ablations.length) return;
  const section = G.section(
      root, 'What each part of a recipe buys (ablation)',
      'Per part: alone = the plain config plus the part, against the plain config; in the stack = the recipe against ' +
          'the recipe without the part. Brackets: the speedup\'s 95% interval from both rows\' median intervals.');
  const grid = G.el('div', {class: 'chart-grid'});  // the recipes side by side
  section.append(grid);
  for (const group of data.ablations) {
    const block = G.el('div');
    grid.append(block);
    block.append(G.el('h3', null, 'recipe ' + group.recipe));
    if (group.whole)
      block.append(G.el(
          'p', null,
          'whole recipe: ' + f.ratio(group.whole.speedup) + ciText(group.whole) + ', memory ' +
              f.ratio(group.whole.memory_ratio) + ' vs ' + group.whole.baseline));
    const labels = [], items = [];
    for (const part of group.parts) {
      labels.push(part.part + ' (alone)', part.part + ' (in the stack)');
      items.push(part.alone, part.in_stack);
    }
    if (group.whole) {
      labels.push('whole recipe');
      items.push(group.whole);
    }
    if (labels.length) ratioChart(block, 'ablation ' + group.recipe, labels, items);
    for (const s of group.scaling)
      block.append(G.el(
          'p', null,
          s.candidate + ': ' + f.ratio(s.speedup) + ' the recipe on ' + s.ranks + ' ranks, scaling efficiency ' +
              f.pct(s.efficiency)));
  }
}

function lossChart(section, ok) {
  const rows = ok.filter((r) => r.loss.values.length);
  if (!rows.length) return;
  const datasets = rows.map((r, i) => ({
                              label: r.id,
                              borderColor: G.color(i),
                              backgroundColor: G.color(i),
                              borderWidth: 1.5,
                              pointRadius: 0,
                              data: r.loss.values.map((y, k) => ({x: k * r.loss.every, y})),
                            }));
  G.chart(
      section, 'loss curves', {
        type: 'line',
        data: {datasets},
        options: {
          parsing: false,
          scales: {x: {type: 'linear', title: G.axisTitle('step')}, y: {title: G.axisTitle('loss')}},
          plugins: {legend: {position: 'top'}}
        },
      },
      360);
}

G.pages.report = function(data, root) {
  document.title = G.shown(data.title);
  root.append(G.el('h1', null, data.title));
  root.append(G.el(
      'p', {class: 'muted'},
      data.counts.ok + ' ok, ' + data.counts.skipped + ' skipped, ' + data.counts.failed + ' failed · created ' +
          (data.created_utc || '?') + ' UTC · ' + data.source));
  environment(root, data);
  rowsTable(root, data);
  const ok = data.rows.filter((r) => r.status === 'ok');
  if (ok.length) {
    // Side by side where the window is wide: three charts of every measured row stacked
    // were most of a full matrix's page.
    const grid = G.el('div', {class: 'chart-grid'});
    G.section(root, 'Throughput, step phases, memory').append(grid);
    throughputChart(grid, ok, 'samples_per_s', 'samples/s');
    throughputChart(grid, ok, 'tokens_per_s', 'tokens/s');
    phasesChart(grid, ok);
    memoryChart(grid, ok);
  }
  techniques(root, data);
  ablations(root, data);
  if (ok.length)
    lossChart(G.section(root, 'Loss curves', 'Loss per measured step (every k-th step on long runs).'), ok);
};
})();
