import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NETWORK_NOT_FOUND } from '../kernel/errors.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, emptyState, pageHeader } from './layout.js';
import { CHART_WINDOWS, chartWindowOf } from './network-charts.js';
import { openEditState } from './network-items.view.js';
import type { ItemsState } from './network-items.view.js';
import { place, renderNetwork } from './network.view.js';
import { listQueryOf } from './search.view.js';
import type { ParsedListQuery } from './search.view.js';
import type { NetworkDetail, NetworkListItem } from './documents.js';

/** The networks list and one network's page, read through the API's executor for the session's company. */
export function registerNetworkPages(web: FastifyInstance, ctx: WebContext): void {
  web.get('/networks', async (request, reply) => {
    const networks = await ctx.reads.networks(callerOf(ctx, request), request.netgraph);
    const session = sessionOf(request);
    return sendPage(ctx, reply, 200, { title: 'Networks', session, section: 'networks', body: renderNetworks(networks, session) });
  });

  web.get('/networks/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const params = request.query as Record<string, string | undefined>;
    const clients = listQueryOf(params, ['q'], 'page');
    const detail = clients && (await ctx.reads.network(callerOf(ctx, request), id, request.netgraph, clients.query));
    // another company's network and a missing one look the same, as on the API; so does a page number that is none
    if (!clients || !detail) throw NETWORK_NOT_FOUND.create();
    const state = params.edit === undefined || sessionOf(request).user.role !== 'admin' ? undefined : openEditState(detail, params.edit);
    return sendNetworkPage(ctx, request, reply, clients.problem ? 400 : 200, detail, state, clients);
  });
}

/**
 * A network's page; for admins with its VLAN and SSID forms, `state` naming
 * the open one. Its charts and offline times are a second read (the
 * metrics roots of the public schema, for the `?window=` asked for).
 * `clients` is the search and page the client list shows (read with `detail`).
 */
export async function sendNetworkPage(
  ctx: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  detail: NetworkDetail,
  state?: ItemsState,
  clients: ParsedListQuery = { query: { search: '', page: 1 }, typed: '' },
): Promise<FastifyReply> {
  const session = sessionOf(request);
  const window = chartWindowOf((request.query as Record<string, unknown> | undefined)?.window);
  const { durationSeconds, stepSeconds } = CHART_WINDOWS[window];
  const monitoring = await ctx.reads.networkMonitoring(callerOf(ctx, request), detail.network.UUID, { durationSeconds, stepSeconds }, request.netgraph);
  // the network was just read for this caller: it cannot be another company's now, only deleted in between
  if (!monitoring) throw NETWORK_NOT_FOUND.create();
  const body = renderNetwork({ detail, monitoring, window, state, clients, now: new Date() }, session);
  return sendPage(ctx, reply, status, { title: detail.network.label, session, section: 'networks', charts: true, body });
}

function renderNetworks(networks: readonly NetworkListItem[], session: ActiveSession): SafeHtml {
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
  const rows = networks.map((n) => {
    const online = n.virtualDevices.filter((d) => d.isOnline).length;
    return html`<tr>
  <td><a class="row-link" href="/networks/${n.UUID}">${n.label}</a></td>
  <td><code class="slug">${n.slug}</code></td>
  <td>${place(n) || html`<span class="muted">—</span>`}</td>
  <td>${n.isActive ? badge('success', 'Active') : badge('neutral', 'Inactive')}</td>
  <td class="num">${n.virtualDevices.length}</td>
  <td class="num">${onlineMeter(online, n.virtualDevices.length)}</td>
</tr>`;
  });
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
