import type { ActiveSession } from '../features/user/user.service.js';
import { renderChart } from './charts.view.js';
import { exactTime, humanizeEnum, relativeTime } from './format.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, emptyState, pageHeader } from './layout.js';
import { CHART_WINDOWS, networkCharts } from './network-charts.js';
import type { ChartWindow } from './network-charts.js';
import { renderSsidsForAdmin, renderVlansForAdmin } from './network-items.view.js';
import type { ItemsState } from './network-items.view.js';
import type { NETWORK_CLIENT, NETWORK_DEVICE, NetworkDetail, NetworkListItem, NetworkMonitoring } from './documents.js';
import type { ResultOf } from './graphql.js';
import { renderTopology } from './topology.view.js';
import { renderListPager, renderSearchForm } from './search.view.js';
import type { ListPlace, ParsedListQuery } from './search.view.js';

/** Connected clients per page of a network's page. */
export const CLIENT_PAGE_SIZE = 50;

/** Where a network page's client list is and how it is asked for: `?q=&page=`. */
export const clientsPlace = (networkId: string): ListPlace => ({ base: `/networks/${networkId}`, anchor: 'clients', searchName: 'q', pageName: 'page' });

type DeviceView = ResultOf<typeof NETWORK_DEVICE>;
type ClientView = ResultOf<typeof NETWORK_CLIENT>;

/** What a network's page shows: the network, its report data over one chart window, and the open form (admins). */
export interface NetworkPage {
  readonly detail: NetworkDetail;
  readonly monitoring: NetworkMonitoring;
  readonly window: ChartWindow;
  readonly state: ItemsState | undefined;
  /** The client list's search and page, as the address asked for them. */
  readonly clients: ParsedListQuery;
  readonly now: Date;
}

/** "San Francisco, CA", or '' without an address. */
export function place(network: Pick<NetworkListItem, 'mailingAddress'>): string {
  const parts = [network.mailingAddress?.city, network.mailingAddress?.subdivisionCode].filter((p): p is string => Boolean(p));
  return parts.join(', ');
}

/** A time as "5 minutes ago", with the exact UTC time on hover. */
export function timeAgo(at: string, now: Date): SafeHtml {
  return html`<time datetime="${at}" title="${exactTime(at)}">${relativeTime(at, now)}</time>`;
}

/** A section with a heading, a count and a card. */
export function section(title: string, count: number | null, content: SafeHtml, id?: string, actions?: SafeHtml): SafeHtml {
  return html`<section class="section"${id ? html` id="${id}"` : ''}><h2>${title}${count === null ? '' : html` <span class="count">${count}</span>`}${actions ? html`<span class="section-actions">${actions}</span>` : ''}</h2><div class="card card-flush">${content}</div></section>`;
}

/** The body of a network's page. */
export function renderNetwork(page: NetworkPage, session: ActiveSession): SafeHtml {
  const { detail, state, now } = page;
  const admin = session.user.role === 'admin';
  const { network, connected } = detail;
  const { virtualDevices: devices, vlans, ssids } = network;
  const online = devices.filter((d) => d.isOnline).length;
  const where = place(network);
  const header = pageHeader({
    title: network.label,
    crumbs: [{ label: 'Networks', href: '/networks' }, { label: network.label }],
    description: html`<code class="slug">${network.slug}</code>${where ? html` · ${where}` : ''} · ${network.isActive ? badge('success', 'Active') : badge('neutral', 'Inactive')}`,
    actions: html`<a class="btn btn-secondary" href="/networks/${network.UUID}/events">Event log</a><a class="btn btn-secondary" href="/networks/${network.UUID}/security">Security</a>${admin ? html`<a class="btn btn-secondary" href="/networks/${network.UUID}/edit">Edit network</a>` : ''}`,
  });
  const stats = html`<div class="stats">
  ${stat('Devices', String(devices.length))}
  ${stat('Online', devices.length ? `${online} of ${devices.length}` : '—')}
  ${stat('Clients connected', String(connected.total))}
  ${stat('VLANs', String(vlans.length))}
  ${stat('SSIDs', String(ssids.length))}
</div>`;
  return html`${header}${stats}
${renderCharts(page)}
${section('Topology', null, renderTopology(network.UUID, page.monitoring.topology), 'topology')}
${section('Virtual devices', devices.length, renderDevices(network.UUID, devices, offlineSince(page.monitoring), now), 'devices')}
${section('Connected clients', connected.total, renderClients(detail, page.clients, now), 'clients')}
<div class="grid-2">
  ${section('VLANs', vlans.length, admin ? renderVlansForAdmin(detail, session, state) : renderVlans(vlans), 'vlans')}
  ${section('SSIDs', ssids.length, admin ? renderSsidsForAdmin(detail, session, state) : renderSsids(ssids), 'ssids')}
</div>`;
}

/** When each device of the network went offline last: its newest DEVICE_OFFLINE event, by virtual device UUID. */
function offlineSince(monitoring: NetworkMonitoring): Map<string, string> {
  const since = new Map<string, string>();
  // newest first: the first DEVICE_OFFLINE of a device is its latest
  for (const event of monitoring.offline.events) if (event.virtualDevice && !since.has(event.virtualDevice.UUID)) since.set(event.virtualDevice.UUID, event.generatedAt);
  return since;
}

function stat(label: string, value: string): SafeHtml {
  return html`<div class="stat"><div class="stat-value">${value}</div><div class="stat-label">${label}</div></div>`;
}

/** The charts of the chosen window, with links to the other (a plain link: the page is read again for it). */
function renderCharts(page: NetworkPage): SafeHtml {
  const base = `/networks/${page.detail.network.UUID}`;
  const toggle = html`<nav class="segmented" aria-label="Chart window">${(Object.keys(CHART_WINDOWS) as ChartWindow[]).map((w) =>
    html`<a href="${base}?window=${w}#charts"${w === page.window ? html` aria-current="true"` : ''}>${CHART_WINDOWS[w].label}</a>`)}</nav>`;
  const labels = new Map(page.detail.network.virtualDevices.map((d) => [d.UUID, d.label]));
  const charts = networkCharts(page.monitoring, labels, page.window, page.now);
  return html`<section class="section" id="charts"><h2>Uplinks and clients<span class="section-actions">${toggle}</span></h2>
<div class="charts">${charts.map((c) => html`<div class="card chart-card">${renderChart(c)}</div>`)}</div></section>`;
}

function renderDevices(networkId: string, devices: readonly DeviceView[], offlineSince: ReadonlyMap<string, string>, now: Date): SafeHtml {
  if (devices.length === 0) return emptyState('No devices', 'This network has no virtual devices yet.');
  const status = (d: DeviceView) => {
    if (d.isOnline) return badge('success', 'Online');
    const since = offlineSince.get(d.UUID);
    return html`${badge('danger', 'Offline')}${since ? html` <span class="muted since">since ${timeAgo(since, now)}</span>` : ''}`;
  };
  const rows = devices.map(
    (d) => html`<tr data-device="${d.UUID}">
  <td><a class="row-link" href="/networks/${networkId}/devices/${d.UUID}">${d.label}</a></td>
  <td>${humanizeEnum(d.deviceType)}</td>
  <td>${d.deviceModel}</td>
  <td>${status(d)}</td>
  <td>${d.hardwareDevice ? html`<code>${d.hardwareDevice.serialNumber}</code>` : html`<span class="muted">No hardware</span>`}</td>
  <td>${d.hardwareDevice ? (d.hardwareDevice.isConnectedToBackend ? badge('success', 'Connected') : badge('warning', 'Disconnected')) : html`<span class="muted">—</span>`}</td>
</tr>`,
  );
  return html`<table class="table"><thead><tr><th>Label</th><th>Type</th><th>Model</th><th>Status</th><th>Hardware serial</th><th>Backend</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Where each wired client is plugged in, by MAC address: "Switch 01 · Port 7". */
function wiredPorts(devices: readonly DeviceView[]): Map<string, string> {
  const ports = new Map<string, string>();
  for (const device of devices) {
    for (const port of device.phyInterfaces) {
      for (const { client } of port.connectedDevices) if (client) ports.set(client.macAddress, `${device.label} · ${port.label ?? `Port ${port.portNumber}`}`);
    }
  }
  return ports;
}

const none = html`<span class="muted">—</span>`;

function connection(client: ClientView, ports: ReadonlyMap<string, string>): SafeHtml {
  if (client.isWireless) return client.connectedSSID ? html`<span class="strong">${client.connectedSSID.ssid}</span>` : html`<span class="muted">Wireless</span>`;
  const port = ports.get(client.macAddress);
  return port ? html`${port}` : html`<span class="muted">Wired</span>`;
}

/** The page of the connected clients that the server found for the search, with its search form and pager. */
function renderClients(detail: NetworkDetail, parsed: ParsedListQuery, now: Date): SafeHtml {
  const { clients, total } = detail.clients;
  if (detail.connected.total === 0) return emptyState('No clients connected', 'Clients appear here while they are connected to this network.');
  const place = clientsPlace(detail.network.UUID);
  const ports = wiredPorts(detail.network.virtualDevices);
  const rows = clients.map(
    (c) => html`<tr data-client="${c.macAddress}">
  <td>${c.clientName ? html`<span class="strong">${c.clientName}</span>` : html`<span class="muted">Unnamed</span>`}<br><code class="muted">${c.macAddress}</code></td>
  <td>${c.ip ? html`<code>${c.ip}</code>` : html`<span class="muted">No address yet</span>`}</td>
  <td>${connection(c, ports)}</td>
  <td>${c.connectedVLAN ? html`${c.connectedVLAN.name} <span class="muted">(${c.connectedVLAN.vlanID})</span>` : none}</td>
  <td class="num">${c.signal === null ? none : `${c.signal} dBm`}</td>
  <td>${c.accessPoint ? html`<a href="/networks/${detail.network.UUID}/devices/${c.accessPoint.UUID}">${c.accessPoint.label}</a>` : none}</td>
  <td>${timeAgo(c.lastSeen, now)}</td>
</tr>`,
  );
  const table =
    total === 0
      ? emptyState('No client matches', html`No connected client has a MAC address, IP address or name matching <code>${parsed.query.search}</code>.`)
      : rows.length === 0
        ? emptyState('No clients on this page', 'The list has fewer pages: go back to its last page.')
        : html`<table class="table clients-table"><thead><tr><th>Client</th><th>IP address</th><th>SSID or port</th><th>VLAN</th><th class="num">Signal</th><th>Access point</th><th>Last seen</th></tr></thead><tbody>${rows}</tbody></table>`;
  const form = renderSearchForm(place, parsed, 'Find a client', 'MAC, IP address or name');
  return html`${form}${table}${renderListPager(place, parsed.query, CLIENT_PAGE_SIZE, rows.length, total, detail.connected.total, 'Client pages')}`;
}

function renderVlans(vlans: NetworkDetail['network']['vlans']): SafeHtml {
  if (vlans.length === 0) return emptyState('No VLANs', 'This network has no VLANs.');
  const rows = vlans.map((v) => html`<tr><td class="strong">${v.name}</td><td class="num">${v.vlanID}</td><td>${v.isEnabled ? badge('success', 'Enabled') : badge('neutral', 'Disabled')}</td></tr>`);
  return html`<table class="table"><thead><tr><th>Name</th><th class="num">VLAN ID</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function renderSsids(ssids: NetworkDetail['network']['ssids']): SafeHtml {
  if (ssids.length === 0) return emptyState('No SSIDs', 'This network broadcasts no wireless networks.');
  const rows = ssids.map((s) => html`<tr><td class="strong">${s.ssid}</td><td>${s.isEnabled ? badge('success', 'Enabled') : badge('neutral', 'Disabled')}</td></tr>`);
  return html`<table class="table"><thead><tr><th>SSID</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`;
}
