import { renderChart } from './charts.view.js';
import type { ChartSeries, ChartSpec } from './charts.view.js';
import type { DeviceDetail } from './documents.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, emptyState } from './layout.js';
import { section } from './network.view.js';

type PduView = DeviceDetail['pdu'];
type OutletView = PduView['outlets'][number];

/** The window the PDU's charts show: the document's 4 hours in 5-minute buckets. */
const WINDOW_SECONDS = 4 * 3600;
const STEP_SECONDS = 300;

const none = html`<span class="muted">—</span>`;
const seconds = (timestamp: string) => Math.floor(Date.parse(timestamp) / 1000);
/** A reading rounded for the table, with its unit; — when not reported. */
const reading = (value: number | null, unit: string, digits: number) => (value === null ? none : html`${value.toFixed(digits)} ${unit}`);

function outletRow(outlet: OutletView): SafeHtml {
  const state = outlet.isOn === null ? badge('neutral', 'Unknown') : outlet.isOn ? badge('success', 'On') : badge('neutral', 'Off');
  return html`<tr data-outlet="${outlet.outletNumber}">
  <td class="num">${outlet.outletNumber}</td>
  <td class="nowrap">${outlet.label ?? none}</td>
  <td>${state}</td>
  <td class="num">${reading(outlet.powerWatts, 'W', 1)}</td>
  <td class="num">${reading(outlet.currentAmps, 'A', 2)}</td>
  <td class="num">${reading(outlet.voltageVolts, 'V', 1)}</td>
  <td class="num">${reading(outlet.energyKWh, 'kWh', 1)}</td>
</tr>`;
}

function renderOutlets(pdu: PduView): SafeHtml {
  if (pdu.outlets.length === 0) return emptyState('No outlets reported', 'Outlets appear once the PDU reports them.');
  return html`<p class="table-note">As the PDU's latest report gives them. Energy: since the outlet's counter was last reset.</p>
<table class="table outlets-table"><thead><tr><th class="num">Outlet</th><th>Label</th><th>State</th><th class="num">Power</th><th class="num">Current</th><th class="num">Voltage</th><th class="num">Energy</th></tr></thead>
<tbody>${pdu.outlets.map(outletRow)}</tbody></table>`;
}

/**
 * The PDU's charts over the last 4 hours: each outlet's power (one line per
 * outlet, labelled "<number> · <label>"), and its temperature.
 */
export function pduCharts(pdu: PduView, now: Date): ChartSpec[] {
  const end = Math.floor(now.getTime() / 1000);
  const frame = { window: [end - WINDOW_SECONDS, end] as const, stepSeconds: STEP_SECONDS };
  const byOutlet = new Map<number, { label: string; points: [number, number][] }>();
  for (const v of pdu.powerWatts.values) {
    const line = byOutlet.get(v.outletNumber) ?? { label: `${v.outletNumber} · ${v.label ?? `outlet ${v.outletNumber}`}`, points: [] };
    line.points.push([seconds(v.timestamp), v.value]);
    byOutlet.set(v.outletNumber, line);
  }
  const power: ChartSeries[] = [...byOutlet].sort(([a], [b]) => a - b).map(([, line]) => line);
  const temperature: ChartSeries = { label: 'Temperature', points: pdu.temperatureCelsius.values.map((v): [number, number] => [seconds(v.timestamp), v.value]) };
  return [
    { id: 'outlet-power', title: 'Power per outlet, last 4 hours', unit: 'W', ...frame, series: power },
    { id: 'temperature', title: 'Temperature, last 4 hours', unit: '°C', ...frame, series: [temperature] },
  ];
}

/** True when a device's page shows PDU sections: a PDU's, or any device's that reports outlets. */
export function showsPdu(detail: DeviceDetail): boolean {
  return detail.device.deviceType === 'POWER_DISTRIBUTION_UNIT' || detail.pdu.outlets.length > 0;
}

/** A PDU's sections: its outlets (number, label, on or off, power now), then its power and temperature charts. */
export function renderPdu(pdu: PduView, now: Date): SafeHtml {
  const charts = pduCharts(pdu, now);
  return html`${section('Outlets', pdu.outlets.length, renderOutlets(pdu), 'outlets')}
<section class="section" id="pdu-charts"><h2>Power and temperature</h2>
<div class="charts">${charts.map((c) => html`<div class="card chart-card">${renderChart(c)}</div>`)}</div></section>`;
}
