import type { ChartSeries, ChartSpec } from './charts.view.js';
import type { MetricsWindow, NetworkMonitoring } from './documents.js';

/**
 * The windows the network page charts: the last 4 hours in 5-minute
 * buckets, the last 24 hours in 15-minute ones. Both steps are multiples of
 * 5 minutes, so they read the rollups, whose retention is at least a day
 * (raw samples may be kept for just an hour).
 */
export const CHART_WINDOWS = {
  '4h': { label: 'Last 4 hours', durationSeconds: 4 * 3600, stepSeconds: 300 },
  '24h': { label: 'Last 24 hours', durationSeconds: 24 * 3600, stepSeconds: 900 },
} as const satisfies Record<string, MetricsWindow & { label: string }>;

/** A window the network page offers. */
export type ChartWindow = keyof typeof CHART_WINDOWS;

/** The `?window=` value of a request, or the default (4 hours) for anything else. */
export function chartWindowOf(value: unknown): ChartWindow {
  return value === '24h' ? '24h' : '4h';
}

const seconds = (timestamp: string) => Math.floor(Date.parse(timestamp) / 1000);

/** A bucket of a series, as the metrics roots answer it. */
interface Point {
  readonly timestamp: string;
  readonly value: number;
}

/** Points of one key (a port, a port and direction), scaled into the chart's unit. */
function seriesBy<P extends Point>(points: readonly P[], keyOf: (p: P) => string, scale: number): Map<string, [number, number][]> {
  const series = new Map<string, [number, number][]>();
  for (const point of points) {
    const key = keyOf(point);
    const list = series.get(key) ?? [];
    list.push([seconds(point.timestamp), point.value * scale]);
    series.set(key, list);
  }
  return series;
}

/** The index of a series' port among the ports of a sorted list of "<port> ↓ download" / "<port> ↑ upload" series. */
function groupOf(series: readonly ChartSeries[], index: number): number {
  const port = (label: string) => label.replace(/ [↓↑] (download|upload)$/, '');
  const ports = [...new Set(series.map((s) => port(s.label)))];
  return ports.indexOf(port((series[index] as ChartSeries).label));
}

/**
 * The network page's charts over one window: uplink quality (% of probes
 * that got through) and throughput (Mbit/s, per direction) per uplink port,
 * labelled "<device> · <port>", and active clients, wired and wireless.
 */
export function networkCharts(monitoring: NetworkMonitoring, deviceLabels: ReadonlyMap<string, string>, window: ChartWindow, now: Date): ChartSpec[] {
  const { durationSeconds, stepSeconds } = CHART_WINDOWS[window];
  const end = Math.floor(now.getTime() / 1000);
  const frame = { window: [end - durationSeconds, end] as const, stepSeconds };
  const portLabel = new Map(monitoring.uplinks.map((p) => [p.UUID, `${deviceLabels.get(p.virtualDeviceUUID) ?? 'Device'} · ${p.label ?? `port ${p.portNumber}`}`]));
  const labelOf = (uuid: string | null | undefined) => (uuid ? (portLabel.get(uuid) ?? 'Uplink') : 'Uplink');
  // by port label; a port's download before its upload (RX sorts before TX)
  const toSeries = (map: Map<string, [number, number][]>, label: (key: string) => string): ChartSeries[] =>
    [...map]
      .map(([key, points]) => ({ label: label(key), points, order: `${label(key.split('|')[0] ?? '')}|${key.split('|')[1] ?? ''}` }))
      .sort((a, b) => a.order.localeCompare(b.order))
      .map(({ label: text, points }) => ({ label: text, points }));

  const quality = seriesBy(monitoring.quality.values, (p) => p.phyInterfaceUUID ?? '', 100);
  const throughput = seriesBy(monitoring.throughput.values, (p) => `${p.phyInterfaceUUID ?? ''}|${p.direction ?? ''}`, 1 / 1_000_000);
  const counts = (points: readonly Point[]) => points.map((p): [number, number] => [seconds(p.timestamp), p.value]);
  return [
    { id: 'uplink-quality', title: 'Uplink quality', unit: '%', ...frame, series: toSeries(quality, labelOf) },
    {
      id: 'uplink-throughput',
      title: 'Uplink throughput',
      unit: 'Mbit/s',
      ...frame,
      // a port's download and upload share its colour; upload is dashed
      series: toSeries(throughput, (key) => {
        const [uuid, direction] = key.split('|');
        return direction === undefined ? labelOf(uuid) : `${labelOf(uuid)} ${direction === 'TX' ? '↑ upload' : '↓ download'}`;
      }).map((s, i, all) => ({ ...s, group: groupOf(all, i), dashed: s.label.endsWith('upload') })),
    },
    {
      id: 'active-clients',
      title: 'Active clients',
      unit: 'clients',
      ...frame,
      series: [
        { label: 'Wireless', points: counts(monitoring.activeClients.wireless) },
        { label: 'Wired', points: counts(monitoring.activeClients.wired) },
      ],
    },
  ];
}
