import { renderChart } from './charts.view.js';
import { renderSource } from './device-source.view.js';
import { exactTime, humanizeEnum } from './format.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, emptyState, pageHeader } from './layout.js';
import { bandName, renderChannels, renderDnsRate } from './device-charts.js';
import { renderEvents } from './events.view.js';
import { renderMacTable } from './mac-table.view.js';
import type { ParsedListQuery } from './search.view.js';
import { renderFirewallRules } from './security.view.js';
import { section, timeAgo } from './network.view.js';
import { renderPdu, showsPdu } from './pdu.view.js';
import { renderApHealth } from './ap-health.view.js';
import type { DeviceDetail } from './documents.js';

type PortView = DeviceDetail['device']['phyInterfaces'][number];
type PortStatView = DeviceDetail['portStats'][number];

const none = html`<span class="muted">—</span>`;

/** 1536 -> "1.5 KB": bytes in binary units, as switch counters are usually read. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

/** 93784 -> "1 d 2 h", 3900 -> "1 h 5 min": an uptime in its two largest units. */
export function formatUptime(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  return `${minutes} min`;
}

const count = (n: number) => n.toLocaleString('en-US');

function portState(port: PortView): SafeHtml {
  if (!port.isEnabled) return badge('neutral', 'Disabled');
  if (!port.isConnected) return badge('warning', 'No link');
  return badge('success', 'Up');
}

/** The port's spanning-tree state: blocking and broken stand out (they are the PORT_BLOCKED and STP_ERROR_PORT_BLOCKED events). */
function stpState(port: PortView): SafeHtml {
  switch (port.stpState) {
    case null:
      return none;
    case 'BLOCKING':
      return badge('warning', 'Blocking');
    case 'BROKEN':
      return badge('danger', 'Broken');
    default:
      return html`<span class="muted">${humanizeEnum(port.stpState)}</span>`;
  }
}

function portRole(port: PortView): SafeHtml {
  if (port.isUplink) return port.isUplinkActive ? badge('accent', 'Uplink, active') : badge('neutral', 'Uplink, standby');
  return port.isTrunkPort ? html`Trunk` : html`Access`;
}

/** The port's LLDP neighbour: the network's device it resolves to (a link to its page), else its system name or chassis id, with its port. */
function neighbour(port: PortView): SafeHtml {
  const n = port.lldpNeighbor;
  if (n === null) return none;
  const name = n.remoteDevice ? html`<a href="../devices/${n.remoteDevice.UUID}">${n.remoteDevice.label}</a>` : html`${n.systemName ?? n.chassisID}`;
  return html`<span class="nowrap">${name}${n.portID === null ? '' : html` <span class="muted">${n.portID}</span>`}</span>`;
}

/** "23.5%", or — when not reported. */
function percent(value: number | null): string {
  return value === null ? '—' : `${Math.round(value * 10) / 10}%`;
}

function portRow(port: PortView, stat: PortStatView | undefined): SafeHtml {
  const errors = stat ? stat.errorRxPackets + stat.errorTxPackets : null;
  return html`<tr data-port="${port.portNumber}">
  <td class="num">${port.portNumber}</td>
  <td class="nowrap">${port.label ?? none}</td>
  <td>${portState(port)}</td>
  <td>${stpState(port)}</td>
  <td class="num nowrap">${port.portSpeedMbps === null ? none : port.portSpeedMbps >= 1000 ? `${port.portSpeedMbps / 1000} Gbit/s` : `${port.portSpeedMbps} Mbit/s`}</td>
  <td>${portRole(port)}</td>
  <td>${port.nativeVLAN ? html`${port.nativeVLAN.name} <span class="muted">(${port.nativeVLAN.vlanID})</span>` : none}</td>
  <td>${neighbour(port)}</td>
  <td class="num">${stat ? formatBytes(stat.totalRxBytes) : none}</td>
  <td class="num">${stat ? formatBytes(stat.totalTxBytes) : none}</td>
  <td class="num">${stat ? count(stat.totalRxPackets + stat.totalTxPackets) : none}</td>
  <td class="num">${errors === null ? none : errors > 0 ? html`<span class="text-danger">${count(errors)}</span>` : '0'}</td>
</tr>`;
}

function renderPorts(detail: DeviceDetail): SafeHtml {
  const ports = detail.device.phyInterfaces;
  if (ports.length === 0) return emptyState('No ports reported', 'Ports appear once the device reports its interfaces.');
  const stats = new Map(detail.portStats.map((s) => [s.portNumber, s]));
  return html`<p class="table-note">Received, sent, packets and errors: what the port's counters grew over the last 24 hours, counted across reboots.</p>
<table class="table ports-table"><thead><tr><th class="num">Port</th><th>Label</th><th>State</th><th title="Spanning-tree state">STP</th><th class="num">Speed</th><th>Role</th><th>Native VLAN</th><th>LLDP neighbour</th>
<th class="num">Received</th><th class="num">Sent</th><th class="num">Packets</th><th class="num">Errors</th></tr></thead>
<tbody>${ports.map((p) => portRow(p, stats.get(p.portNumber)))}</tbody></table>`;
}

function renderRadios(detail: DeviceDetail): SafeHtml {
  if (detail.bssids.length === 0) return emptyState('No radios reported', 'Radios and their BSSIDs appear once an access point reports them.');
  const rows = detail.bssids.map(
    (b) => html`<tr><td><code>${b.BSSID}</code></td><td>${bandName(b.radioBand)}</td><td>${b.SSID ? html`<span class="strong">${b.SSID.ssid}</span>` : none}</td><td>${b.isActive ? badge('success', 'Active') : badge('neutral', 'Inactive')}</td></tr>`,
  );
  return html`<table class="table bssids-table"><thead><tr><th>BSSID</th><th>Band</th><th>SSID</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`;
}

type WirelessClientView = DeviceDetail['wirelessClients'][number];

/** A Wi-Fi generation as people say it: WIFI_6 -> "Wi-Fi 6". */
const generation = (mode: string | null | undefined): SafeHtml | string => (mode == null || mode === 'NA' ? none : mode.replace('WIFI_', 'Wi-Fi '));
/** A number rounded to one decimal with its unit, or — when not reported. */
const measured = (value: number | null, unit: string): SafeHtml | string => (value === null ? none : `${Math.round(value * 10) / 10} ${unit}`);

function wirelessClientRow(client: WirelessClientView): SafeHtml {
  const m = client.response.metadata;
  const mode = [...client.response.values].reverse().find((v) => v.hwMode !== null)?.hwMode;
  return html`<tr data-client="${client.macAddress}">
  <td><code>${client.macAddress}</code></td>
  <td class="num">${measured(m.signal, 'dBm')}</td>
  <td class="num">${m.snr === null ? none : m.snr < 20 ? html`<span class="text-danger">${measured(m.snr, 'dB')}</span>` : measured(m.snr, 'dB')}</td>
  <td class="num">${measured(m.rxRate, 'Mbit/s')}</td>
  <td class="num">${measured(m.txRate, 'Mbit/s')}</td>
  <td>${generation(mode)}</td>
  <td class="num">${formatBytes(m.rxBytes + m.txBytes)}</td>
</tr>`;
}

/** An access point's wireless clients of the last 15 minutes with their averages, and its clients' signal and SNR over 24 hours. */
function renderWirelessClients(detail: DeviceDetail, now: Date): SafeHtml {
  const end = Math.floor(now.getTime() / 1000);
  const points = (field: 'signal' | 'snr' | 'clientCount') =>
    detail.wirelessSeries.values.flatMap((v) => (v[field] === null ? [] : [[Date.parse(v.timestamp) / 1000, v[field] as number] as const]));
  const chart = (id: string, title: string, unit: 'dBm' | 'dB', field: 'signal' | 'snr') =>
    renderChart({ id, title, unit, window: [end - 86_400, end], stepSeconds: 900, series: [{ label: title, points: points(field) }] });
  const charts = html`<div class="charts">${chart('client-signal', 'Clients\' average signal, last 24 hours', 'dBm', 'signal')}${chart('client-snr', 'Clients\' average SNR, last 24 hours', 'dB', 'snr')}</div>`;
  if (detail.wirelessClients.length === 0) {
    return html`${charts}${emptyState('No wireless clients in the last 15 minutes', 'Clients appear with their signal, SNR and rates once the access point reports them.')}`;
  }
  return html`${charts}<p class="table-note">Averages of the samples of the last 15 minutes; traffic: what the client's counters grew.</p>
<table class="table wireless-clients-table"><thead><tr><th>MAC address</th><th class="num">Signal</th><th class="num">SNR</th><th class="num">Receive rate</th><th class="num">Send rate</th><th>Wi-Fi</th><th class="num">Traffic</th></tr></thead>
<tbody>${detail.wirelessClients.map(wirelessClientRow)}</tbody></table>`;
}

/** Connection events that went wrong, shown in red. */
const FAILURES: readonly string[] = ['ARP_FAILED', 'DHCP_FAILED', 'FAILED'];
/** A connection event type as people say it. */
const CONNECTION_EVENT_NAMES: Readonly<Record<string, string>> = {
  ARP_FAILED: 'ARP failed',
  ARP_LATE: 'ARP late',
  CONNECTED: 'Connected',
  DHCP_FAILED: 'DHCP failed',
  DHCP_OK: 'DHCP OK',
  DISASSOCIATED: 'Disassociated',
  FAILED: 'Failed to connect',
};

/** An access point's latest connection events of its wireless clients, newest first. */
function renderConnectionEvents(detail: DeviceDetail, now: Date): SafeHtml {
  const { events } = detail.connectionEvents;
  if (events.length === 0) return emptyState('No client connection events', 'Clients joining, getting an address and leaving appear here once the access point reports them.');
  const rows = events.map(
    (e) => html`<tr data-connection-event="${e.eventType}">
  <td class="nowrap">${timeAgo(e.generatedAt, now)}<br><span class="muted small">${exactTime(e.generatedAt)}</span></td>
  <td>${FAILURES.includes(e.eventType) ? html`<span class="text-danger strong">${CONNECTION_EVENT_NAMES[e.eventType]}</span>` : CONNECTION_EVENT_NAMES[e.eventType]}</td>
  <td><code>${e.macAddress}</code></td>
  <td>${e.reason ?? none}</td>
</tr>`,
  );
  const { total } = detail.connectionEvents;
  const note = total > events.length ? html`<p class="table-note">The latest ${events.length} of ${total}.</p>` : '';
  return html`${note}<table class="table connection-events-table"><thead><tr><th>When</th><th>Event</th><th>Client</th><th>Reason</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** "1.2 GB of 4.0 GB (30%)", or — when not reported. */
function memory(device: DeviceDetail['device']): string {
  const { memoryUsedBytes: used, memoryTotalBytes: total } = device;
  if (used === null) return '—';
  return total === null || total === 0 ? formatBytes(used) : `${formatBytes(used)} of ${formatBytes(total)} (${Math.round((used / total) * 100)}%)`;
}

/**
 * The body of a virtual device's page: what it is, its ports with 24-hour
 * counters, a PDU's outlets with its power and temperature charts, a
 * switch's MAC table (the page and search of `macQuery`), an access point's
 * channels with their utilization and its BSSIDs, a controller's DNS request
 * rate and its network's firewall rules, its latest events; where its reports
 * come from (a collector's latest poll, or the device itself).
 */
export function renderDevice(detail: DeviceDetail, now: Date, macQuery: ParsedListQuery = { query: { search: '', page: 1 }, typed: '' }): SafeHtml {
  const { network, device } = detail;
  const hardware = device.hardwareDevice;
  const base = `/networks/${network.UUID}`;
  const header = pageHeader({
    title: device.label,
    crumbs: [{ label: 'Networks', href: '/networks' }, { label: network.label, href: base }, { label: device.label }],
    description: html`${humanizeEnum(device.deviceType)} · ${device.deviceModel} · ${device.isOnline ? badge('success', 'Online') : badge('danger', 'Offline')}`,
    actions: html`<a class="btn btn-secondary" href="${base}/events?device=${device.UUID}">All events of this device</a>`,
  });
  const facts = html`<div class="stats stats-4">
  <div class="stat"><div class="stat-value mono-value">${hardware ? hardware.serialNumber : '—'}</div><div class="stat-label">Hardware serial</div></div>
  <div class="stat"><div class="stat-value mono-value">${hardware?.macAddress ?? '—'}</div><div class="stat-label">MAC address</div></div>
  <div class="stat"><div class="stat-value">${device.uptime === null ? '—' : formatUptime(device.uptime)}</div><div class="stat-label">Uptime at last report</div></div>
  <div class="stat"><div class="stat-value">${device.phyInterfaces.filter((p) => p.isConnected).length} of ${device.phyInterfaces.length}</div><div class="stat-label">Ports with link</div></div>
</div>
<div class="stats stats-4">
  <div class="stat" data-stat="cpu"><div class="stat-value">${percent(device.cpuUsagePercent)}</div><div class="stat-label">CPU load at last report</div></div>
  <div class="stat" data-stat="memory"><div class="stat-value">${memory(device)}</div><div class="stat-label">Memory in use at last report</div></div>
  <div class="stat"><div class="stat-value">${device.phyInterfaces.filter((p) => p.lldpNeighbor !== null).length}</div><div class="stat-label">LLDP neighbours</div></div>
  <div class="stat" data-stat="source"><div class="stat-source">${renderSource(device.source, now)}</div><div class="stat-label">Source</div></div>
</div>`;
  const macTable =
    device.deviceType === 'SWITCH' || detail.macTableSize.total > 0
      ? section('MAC table', detail.macTableSize.total, renderMacTable(detail, device.phyInterfaces, macQuery, `${base}/devices/${device.UUID}`, now), 'mac-table')
      : '';
  const accessPoint = device.deviceType === 'ACCESS_POINT';
  const channels = accessPoint || detail.channels.length > 0 ? section('Channels', detail.channels.length, renderChannels(detail, now), 'channels') : '';
  const health = accessPoint ? section('Health', null, renderApHealth(detail, now), 'health') : '';
  const radios = accessPoint || detail.bssids.length > 0 ? section('Radios and BSSIDs', detail.bssids.length, renderRadios(detail), 'radios') : '';
  const wireless =
    accessPoint || detail.wirelessClients.length > 0
      ? section('Wireless clients', detail.wirelessClients.length, renderWirelessClients(detail, now), 'wireless-clients')
      : '';
  const connections =
    accessPoint || detail.connectionEvents.total > 0
      ? section('Client connection events', detail.connectionEvents.total, renderConnectionEvents(detail, now), 'connection-events')
      : '';
  const dns = device.deviceType === 'CONTROLLER' || detail.dns.values.length > 0 ? section('DNS requests', null, renderDnsRate(detail, now), 'dns') : '';
  // a controller enforces its network's firewall rules: they are on its page, as on the network's security page
  const firewall =
    device.deviceType === 'CONTROLLER'
      ? section('Firewall rules', detail.rules.length, renderFirewallRules(detail.rules), 'firewall')
      : '';
  const outlets = showsPdu(detail) ? renderPdu(detail.pdu, now) : '';
  return html`${header}${facts}
${outlets}
${health}
${channels}
${dns}
${firewall}
${section('Ports', device.phyInterfaces.length, renderPorts(detail), 'ports')}
${macTable}
${radios}
${wireless}
${connections}
${section('Recent events', detail.events.total, renderEvents(detail.events.events, now, false), 'events')}`;
}
