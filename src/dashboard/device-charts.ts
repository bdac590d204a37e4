import { renderChart } from './charts.view.js';
import type { ChartSeries, ChartSpec } from './charts.view.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { emptyState } from './layout.js';
import { CHART_WINDOWS } from './network-charts.js';
import type { ChartWindow } from './network-charts.js';
import type { DeviceDetail } from './documents.js';

/** The window a device page charts: the last 4 hours in 5-minute buckets (the rollups). */
export const DEVICE_CHART_WINDOW: ChartWindow = '4h';

type RadioView = DeviceDetail['channels'][number];
type UtilizationValue = RadioView['values'][number];

const BANDS: Record<string, string> = { BAND_2_4G: '2.4 GHz', BAND_5G: '5 GHz', BAND_6G: '6 GHz' };

/** A band's name as people say it ("5 GHz"). */
export const bandName = (band: string): string => BANDS[band] ?? band;

const seconds = (timestamp: string) => Math.floor(Date.parse(timestamp) / 1000);

/** The chart frame of the device page at `now`. */
function frame(now: Date): Pick<ChartSpec, 'window' | 'stepSeconds'> {
  const { durationSeconds, stepSeconds } = CHART_WINDOWS[DEVICE_CHART_WINDOW];
  const end = Math.floor(now.getTime() / 1000);
  return { window: [end - durationSeconds, end], stepSeconds };
}

/** The points of one utilization of a radio's values, leaving out buckets whose samples did not report it. */
function points(values: readonly UtilizationValue[], field: keyof Omit<UtilizationValue, 'timestamp'>): [number, number][] {
  return values.flatMap((v) => (v[field] === null ? [] : [[seconds(v.timestamp), v[field]] as [number, number]]));
}

/** One radio's chart: busy in total, receiving, transmitting, other networks and non-Wi-Fi, in % of the time. */
function radioChart(radio: RadioView, now: Date): ChartSpec {
  const series: ChartSeries[] = [
    { label: 'Busy (total)', points: points(radio.values, 'totalUtilization') },
    { label: 'Receiving', points: points(radio.values, 'rxUtilization') },
    { label: 'Transmitting', points: points(radio.values, 'txUtilization') },
    { label: 'Other networks', points: points(radio.values, 'obssUtilization') },
    { label: 'Non-Wi-Fi', points: points(radio.values, 'nonWifiUtilization') },
  ];
  return { id: `channel-${radio.band.toLowerCase()}`, title: `Channel utilization · ${bandName(radio.band)}`, unit: '%', ...frame(now), series };
}

const none = html`<span class="muted">—</span>`;

/**
 * An access point's radios: per band, the channel, width, power and noise
 * floor of its latest sample, and a chart of its channel's utilization
 * over the last 4 hours.
 */
export function renderChannels(detail: DeviceDetail, now: Date): SafeHtml {
  if (detail.channels.length === 0) {
    return emptyState('No channel utilization in the last 4 hours', 'Channels and their utilization appear once the access point reports its radios (radioChannels).');
  }
  const rows = detail.channels.map(
    (r) => html`<tr data-band="${r.band}">
  <td>${bandName(r.band)}</td>
  <td class="num">${r.channel ?? none}</td>
  <td class="num">${r.channelWidthMHz === null ? none : `${r.channelWidthMHz} MHz`}</td>
  <td class="num">${r.txPowerDbm === null ? none : `${r.txPowerDbm} dBm`}</td>
  <td class="num">${r.noiseFloorDbm === null ? none : `${r.noiseFloorDbm} dBm`}</td>
  <td class="num">${r.values.length === 0 ? none : `${Math.round((r.values[r.values.length - 1]?.totalUtilization ?? 0) * 10) / 10}%`}</td>
</tr>`,
  );
  const table = html`<table class="table channels-table"><thead><tr><th>Band</th><th class="num">Channel</th><th class="num">Width</th><th class="num">Transmit power</th><th class="num">Noise floor</th><th class="num">Busy, last 5 min</th></tr></thead><tbody>${rows}</tbody></table>`;
  return html`${table}<div class="charts device-charts">${detail.channels.map((r) => html`<div class="chart-card">${renderChart(radioChart(r, now))}</div>`)}</div>`;
}

/** A controller's DNS requests per second over the last 4 hours. */
export function renderDnsRate(detail: DeviceDetail, now: Date): SafeHtml {
  const series = [{ label: 'DNS requests', points: detail.dns.values.map((v): [number, number] => [seconds(v.timestamp), v.value]) }];
  return html`<div class="charts device-charts"><div class="chart-card">${renderChart({ id: 'dns-requests', title: 'DNS requests', unit: 'req/s', ...frame(now), series })}</div></div>`;
}
