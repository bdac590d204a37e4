import { renderChart } from './charts.view.js';
import type { ChartSpec } from './charts.view.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { emptyState } from './layout.js';
import type { DeviceDetail } from './documents.js';

type HealthValue = DeviceDetail['health'][number];

/** The points of one field of the scores, leaving out buckets where it is null. */
function points(values: readonly HealthValue[], field: keyof Omit<HealthValue, 'timestamp'>): [number, number][] {
  return values.flatMap((v) => (v[field] === null ? [] : [[Math.floor(Date.parse(v.timestamp) / 1000), v[field]] as [number, number]]));
}

/**
 * An access point's health over the last 24 hours (15-minute buckets): its
 * overall, RF, performance and system scores (0 to 100, docs/metrics.md),
 * and the CPU and memory use behind the system score.
 */
export function renderApHealth(detail: DeviceDetail, now: Date): SafeHtml {
  const values = detail.health;
  if (values.length === 0) {
    return emptyState('No health scores in the last 24 hours', 'Scores appear once the access point reports its radios, clients with SNR, or CPU and memory.');
  }
  const end = Math.floor(now.getTime() / 1000);
  const frame = { window: [end - 86_400, end] as const, stepSeconds: 900 };
  const scores: ChartSpec = {
    id: 'health-scores',
    title: 'Health scores, last 24 hours',
    unit: 'score',
    ...frame,
    series: [
      { label: 'Overall', points: points(values, 'overallScore') },
      { label: 'RF (channel utilization)', points: points(values, 'rfScore') },
      { label: 'Performance (client SNR)', points: points(values, 'performanceScore') },
      { label: 'System (CPU, memory)', points: points(values, 'systemScore') },
    ],
  };
  const system: ChartSpec = {
    id: 'health-system',
    title: 'CPU and memory, last 24 hours',
    unit: '%',
    ...frame,
    series: [
      { label: 'CPU', points: points(values, 'cpuPercent') },
      { label: 'Memory', points: points(values, 'memoryPercent') },
    ],
  };
  const latest = values[values.length - 1];
  const note = latest === undefined ? '' : html`<p class="table-note">Latest overall score: <strong>${Math.round(latest.overallScore)}</strong> / 100. RF = 100 − channel utilization; performance from clients' SNR (10 dB → 0, 40 dB → 100); system = 100 − the larger of CPU and memory.</p>`;
  return html`${note}<div class="charts device-charts"><div class="chart-card">${renderChart(scores)}</div><div class="chart-card">${renderChart(system)}</div></div>`;
}
