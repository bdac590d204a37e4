// netgraph dashboard: draws the page's charts with uPlot (loaded before this file).
// The series are data in the page (<script type="application/json" class="chart-data">
// inside each <figure class="chart" data-chart>), so no inline script is needed;
// nothing is fetched from here. Times are shown in the viewer's local time zone.
'use strict';

(() => {
  // the order of PALETTE in src/dashboard/charts.view.ts: blue, green, amber, purple, red, cyan, gray, pink
  const COLORS = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626', '#0891b2', '#4b5563', '#db2777'];
  const HEIGHT = 220;

  /** A value with its unit, as the axis ticks and the legend show it. */
  function format(unit, value) {
    if (value === null || value === undefined || Number.isNaN(value)) return '—';
    if (unit === 'clients') return `${Math.round(value)} ${value === 1 ? 'client' : 'clients'}`;
    if (unit === '%') return `${value >= 99.95 || value === 0 ? value.toFixed(0) : value.toFixed(1)} %`;
    if (unit === 'Mbit/s') return `${value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(2)} Mbit/s`;
    if (unit === 'req/s') return `${value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(2)} req/s`;
    if (unit === 'ms') return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ms`;
    if (unit === 'dBm' || unit === 'dB') return `${value.toFixed(1)} ${unit}`;
    if (unit === 'W') return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} W`;
    if (unit === '°C') return `${value.toFixed(1)} °C`;
    if (unit === 'score') return `${value.toFixed(0)} / 100`;
    if (unit === 'requests') return `${Math.round(value)} ${value === 1 ? 'request' : 'requests'}`;
    return String(value);
  }

  /** A tick label: the unit once, shortened, so labels do not crowd the axis. */
  function tick(unit, value) {
    if (unit === 'clients' || unit === 'requests') return String(value);
    if (unit === '%') return `${value}%`;
    return `${value}`;
  }

  /** The hover time: date and time in the viewer's zone. */
  const timeFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

  /**
   * The bucket the legend shows while the pointer is off the chart: the
   * newest one that holds a value, so a chart reads "now" at a glance; the
   * hovered bucket while it is on (uPlot passes a null index off the chart).
   */
  function latestIndex(chart) {
    for (let j = chart.data[0].length - 1; j >= 0; j--) {
      if (chart.data.slice(1).some((column) => column[j] !== null && column[j] !== undefined)) return j;
    }
    return null;
  }

  function options(figure, chart, width) {
    const unit = chart.unit;
    const latest = latestIndex(chart);
    const shown = (idx) => idx ?? latest;
    // quality sits near 100 %: start the axis a little under the lowest value, so dips show (never below 0)
    // a temperature drifts a few degrees: an axis around its values, not from 0; a score runs from 0 to 100: the whole
    // scale, so a poor score looks poor
    const yRange = unit === '%'
      ? (_u, min) => [Math.max(0, Math.floor((Math.min(min, 95) - 2) / 5) * 5), 100]
      : unit === '°C'
        ? (_u, min, max) => [Math.floor(min / 5) * 5 - 5, Math.ceil(max / 5) * 5 + 5]
        : unit === 'score' ? () => [0, 100] : (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1];
    return {
      width,
      height: HEIGHT,
      scales: { x: { time: true, range: () => [chart.window[0], chart.window[1]] }, y: { range: yRange } },
      axes: [
        { stroke: '#6b7280', grid: { stroke: '#eef0f3' }, ticks: { stroke: '#e5e7eb' } },
        {
          stroke: '#6b7280',
          grid: { stroke: '#eef0f3' },
          ticks: { stroke: '#e5e7eb' },
          size: 56,
          label: unit,
          labelSize: 18,
          values: (_u, splits) => splits.map((v) => tick(unit, v)),
          // whole clients and requests only
          ...(unit === 'clients' || unit === 'requests' ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000] } : {}),
        },
      ],
      series: [
        { label: 'Time', value: (_u, _ts, _s, idx) => (shown(idx) === null ? '—' : timeFormat.format(new Date(chart.data[0][shown(idx)] * 1000))) },
        ...chart.labels.map((label, i) => ({
          label,
          stroke: COLORS[chart.styles[i].color % COLORS.length],
          width: 2,
          ...(chart.styles[i].dashed ? { dash: [6, 4] } : {}),
          // markers only where buckets are few enough to tell apart
          points: { show: chart.data[0].length <= 30, size: 5 },
          // a missing bucket is a gap, not a line across it
          spanGaps: false,
          value: (_u, _v, _s, idx) => (shown(idx) === null ? '—' : format(unit, chart.data[i + 1][shown(idx)])),
        })),
      ],
      // a vertical line at the hovered time; no horizontal one, no zoom by dragging
      cursor: { y: false, drag: { x: false, y: false } },
      legend: { live: true },
    };
  }

  /**
   * Stacked bars: each series drawn as a bar from 0 to the sum of it and the
   * series before it, the tallest first, so each shows as its own band; the
   * legend shows each series' own count.
   */
  function stacked(figure, chart, width) {
    const [times, ...columns] = chart.data;
    const sums = [];
    columns.forEach((column, i) => sums.push(column.map((v, j) => (v ?? 0) + (i === 0 ? 0 : sums[i - 1][j]))));
    const order = columns.map((_, i) => columns.length - 1 - i);
    const base = options(figure, chart, width);
    const latest = latestIndex(chart);
    const bars = uPlot.paths.bars({ size: [0.8, 40] });
    base.series = [
      base.series[0],
      ...order.map((i) => ({
        label: chart.labels[i],
        stroke: COLORS[chart.styles[i].color % COLORS.length],
        fill: COLORS[chart.styles[i].color % COLORS.length],
        width: 0,
        paths: bars,
        points: { show: false },
        value: (_u, _v, _s, idx) => ((idx ?? latest) === null ? '—' : format(chart.unit, columns[i][idx ?? latest] ?? 0)),
      })),
    ];
    // the x scale spans whole buckets, so the first and last bars are not cut in half
    base.scales.x.range = () => [chart.window[0] - chart.step / 2, chart.window[1] + chart.step / 2];
    return { opts: base, data: [times, ...order.map((i) => sums[i])] };
  }

  function draw(figure) {
    const source = figure.querySelector('script.chart-data');
    const plot = figure.querySelector('.chart-plot');
    if (!source || !plot || typeof uPlot !== 'function') return;
    const chart = JSON.parse(source.textContent);
    const width = () => Math.max(280, plot.clientWidth);
    const drawn = chart.kind === 'stacked-bars' ? stacked(figure, chart, width()) : { opts: options(figure, chart, width()), data: chart.data };
    const u = new uPlot(drawn.opts, drawn.data, plot);
    figure.dataset.drawn = 'true';
    let pending = 0;
    window.addEventListener('resize', () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => u.setSize({ width: width(), height: HEIGHT }));
    });
  }

  document.addEventListener('DOMContentLoaded', () => {
    for (const figure of document.querySelectorAll('figure.chart[data-chart]')) draw(figure);
  });
})();
