import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import type { ActiveSession } from '../modules/user/user.service.js';
import { exactTime, humanizeEnum, relativeTime } from './format.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, emptyState, pageHeader } from './layout.js';
import { openEditState, renderSsidsForAdmin, renderVlansForAdmin } from './network-items.view.js';
import type { ItemsState } from './network-items.view.js';
import type { DeviceView, NetworkDetail, NetworkSummary } from './reads.js';

/** The networks list and one network's page, read through the API's executor for the session's company. */
export function registerNetworkPages(web: FastifyInstance, ctx: WebContext): void {
  web.get('/networks', async (request, reply) => {
    const networks = await ctx.reads.networks(callerOf(ctx, request), request.netgraph);
    const session = sessionOf(request);
    return sendPage(ctx, reply, 200, { title: 'Networks', session, section: 'networks', body: renderNetworks(networks, session) });
  });

  web.get('/networks/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const detail = await ctx.reads.network(callerOf(ctx, request), id, request.netgraph);
    // another company's network and a missing one look the same, as on the API
    if (!detail) throw new AppError('NOT_FOUND', 'There is no network at this address in your company.');
    const edit = (request.query as Record<string, string | undefined>).edit;
    const state = edit === undefined || sessionOf(request).user.role !== 'admin' ? undefined : openEditState(detail, edit);
    return sendNetworkPage(ctx, request, reply, 200, detail, state);
  });
}

/** A network's page; for admins with its VLAN and SSID forms, `state` naming the open one. */
export function sendNetworkPage(
  ctx: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  detail: NetworkDetail,
  state?: ItemsState,
): FastifyReply {
  const session = sessionOf(request);
  return sendPage(ctx, reply, status, { title: detail.network.label, session, section: 'networks', body: renderNetwork(detail, session, state, new Date()) });
}

function place(network: Pick<NetworkSummary, 'mailingAddress'>): string {
  const parts = [network.mailingAddress?.city, network.mailingAddress?.subdivisionCode].filter((p): p is string => Boolean(p));
  return parts.join(', ');
}

function renderNetworks(networks: readonly NetworkSummary[], session: ActiveSession): SafeHtml {
  const admin = session.user.role === 'admin';
  const header = pageHeader({
    title: 'Networks',
    description: `Every network of ${session.user.companyName}, with its devices and how many are online.`,
    ...(admin ? { actions: html`<a class="btn btn-primary" href="/networks/new">Add network</a>` } : {}),
  });
  if (networks.length === 0) {
    const hint = admin ? 'Add one here, or import them with netgraph import.' : 'Networks appear here once an admin adds or imports them.';
    return html`${header}<div class="card">${emptyState('No networks yet', hint)}</div>`;
  }
  const rows = networks.map(
    (n) => html`<tr>
  <td><a class="row-link" href="/networks/${n.UUID}">${n.label}</a></td>
  <td><code class="slug">${n.slug}</code></td>
  <td>${place(n) || html`<span class="muted">—</span>`}</td>
  <td>${n.isActive ? badge('success', 'Active') : badge('neutral', 'Inactive')}</td>
  <td class="num">${n.deviceCount}</td>
  <td class="num">${onlineMeter(n.onlineCount, n.deviceCount)}</td>
</tr>`,
  );
  return html`${header}
<div class="card card-flush">
  <table class="table">
    <thead><tr><th>Network</th><th>Slug</th><th>Location</th><th>Status</th><th class="num">Devices</th><th class="num">Online</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
</div>`;
}

function onlineMeter(online: number, total: number): SafeHtml {
  if (total === 0) return html`<span class="muted">—</span>`;
  const level = online === total ? 'ok' : online === 0 ? 'down' : 'partial';
  return html`<span class="online online-${level}"><span class="dot"></span>${online} of ${total}</span>`;
}

function renderNetwork(detail: NetworkDetail, session: ActiveSession, state: ItemsState | undefined, now: Date): SafeHtml {
  const admin = session.user.role === 'admin';
  const { network, devices, clients, vlans, ssids } = detail;
  const online = devices.filter((d) => d.isOnline).length;
  const where = place(network);
  const header = pageHeader({
    title: network.label,
    crumbs: [{ label: 'Networks', href: '/networks' }, { label: network.label }],
    description: html`<code class="slug">${network.slug}</code>${where ? html` · ${where}` : ''} · ${network.isActive ? badge('success', 'Active') : badge('neutral', 'Inactive')}`,
    ...(admin ? { actions: html`<a class="btn btn-secondary" href="/networks/${network.UUID}/edit">Edit network</a>` } : {}),
  });
  const stats = html`<div class="stats">
  ${stat('Devices', String(devices.length))}
  ${stat('Online', devices.length ? `${online} of ${devices.length}` : '—')}
  ${stat('Clients connected', String(clients.length))}
  ${stat('VLANs', String(vlans.length))}
  ${stat('SSIDs', String(ssids.length))}
</div>`;
  return html`${header}${stats}
${section('Virtual devices', devices.length, renderDevices(devices))}
${section('Connected clients', clients.length, renderClients(clients, now))}
<div class="grid-2">
  ${section('VLANs', vlans.length, admin ? renderVlansForAdmin(detail, session, state) : renderVlans(vlans), 'vlans')}
  ${section('SSIDs', ssids.length, admin ? renderSsidsForAdmin(detail, session, state) : renderSsids(ssids), 'ssids')}
</div>`;
}

function stat(label: string, value: string): SafeHtml {
  return html`<div class="stat"><div class="stat-value">${value}</div><div class="stat-label">${label}</div></div>`;
}

function section(title: string, count: number, content: SafeHtml, id?: string): SafeHtml {
  return html`<section class="section"${id ? html` id="${id}"` : ''}><h2>${title} <span class="count">${count}</span></h2><div class="card card-flush">${content}</div></section>`;
}

function renderDevices(devices: readonly DeviceView[]): SafeHtml {
  if (devices.length === 0) return emptyState('No devices', 'This network has no virtual devices yet.');
  const rows = devices.map(
    (d) => html`<tr>
  <td class="strong">${d.label}</td>
  <td>${humanizeEnum(d.deviceType)}</td>
  <td>${d.deviceModel}</td>
  <td>${d.isOnline ? badge('success', 'Online') : badge('danger', 'Offline')}</td>
  <td>${d.hardwareDevice ? html`<code>${d.hardwareDevice.serialNumber}</code>` : html`<span class="muted">No hardware</span>`}</td>
  <td>${d.hardwareDevice ? (d.hardwareDevice.isConnectedToBackend ? badge('success', 'Connected') : badge('warning', 'Disconnected')) : html`<span class="muted">—</span>`}</td>
</tr>`,
  );
  return html`<table class="table"><thead><tr><th>Label</th><th>Type</th><th>Model</th><th>Status</th><th>Hardware serial</th><th>Backend</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function renderClients(clients: NetworkDetail['clients'], now: Date): SafeHtml {
  if (clients.length === 0) return emptyState('No clients connected', 'Clients appear here while they are connected to this network.');
  const rows = clients.map(
    (c) => html`<tr>
  <td><code>${c.macAddress}</code></td>
  <td>${c.ip ? html`<code>${c.ip}</code>` : html`<span class="muted">No address yet</span>`}</td>
  <td><time datetime="${c.lastSeen}" title="${exactTime(c.lastSeen)}">${relativeTime(c.lastSeen, now)}</time></td>
</tr>`,
  );
  return html`<table class="table"><thead><tr><th>MAC address</th><th>IP address</th><th>Last seen</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function renderVlans(vlans: NetworkDetail['vlans']): SafeHtml {
  if (vlans.length === 0) return emptyState('No VLANs', 'This network has no VLANs.');
  const rows = vlans.map((v) => html`<tr><td class="strong">${v.name}</td><td class="num">${v.vlanID}</td><td>${v.isEnabled ? badge('success', 'Enabled') : badge('neutral', 'Disabled')}</td></tr>`);
  return html`<table class="table"><thead><tr><th>Name</th><th class="num">VLAN ID</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function renderSsids(ssids: NetworkDetail['ssids']): SafeHtml {
  if (ssids.length === 0) return emptyState('No SSIDs', 'This network broadcasts no wireless networks.');
  const rows = ssids.map((s) => html`<tr><td class="strong">${s.ssid}</td><td>${s.isEnabled ? badge('success', 'Enabled') : badge('neutral', 'Disabled')}</td></tr>`);
  return html`<table class="table"><thead><tr><th>SSID</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`;
}
