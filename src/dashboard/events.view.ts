import { exactTime } from './format.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { emptyState, pageHeader } from './layout.js';
import { section, timeAgo } from './network.view.js';
import type { EventLog, EventRow } from './documents.js';
import type { EventQuery } from './reads.js';

/** Events per page of the event log. */
export const EVENT_PAGE_SIZE = 25;

/** An event's details (JSON text) as short `key: value` pairs; the JSON itself when it is not an object. */
function detailsOf(details: string | null): SafeHtml {
  if (details === null) return html`<span class="muted">—</span>`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    return html`<code>${details}</code>`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return html`<code>${details}</code>`;
  const pairs = Object.entries(parsed).map(([key, value]) => html`<span class="detail"><span class="muted">${key}:</span> ${typeof value === 'string' ? value : JSON.stringify(value)}</span>`);
  return html`${pairs}`;
}

/** A table of events, newest first; `withDevice` adds the device column (the network's log). */
export function renderEvents(events: readonly EventRow[], now: Date, withDevice: boolean, networkId?: string): SafeHtml {
  if (events.length === 0) return emptyState('No events', 'Events appear here as devices report them, and when a device goes offline or comes back.');
  const device = (e: EventRow) => {
    if (!e.virtualDevice) return html`<span class="muted">—</span>`;
    return networkId ? html`<a href="/networks/${networkId}/devices/${e.virtualDevice.UUID}">${e.virtualDevice.label}</a>` : html`${e.virtualDevice.label}`;
  };
  const rows = events.map(
    (e) => html`<tr>
  <td class="nowrap">${timeAgo(e.generatedAt, now)}<br><span class="muted small">${exactTime(e.generatedAt)}</span></td>
  <td><span class="strong">${e.eventType}</span><br><code class="muted small">${e.eventTypeAPIName}</code></td>
  ${withDevice ? html`<td>${device(e)}</td>` : ''}
  <td class="details">${detailsOf(e.details)}</td>
</tr>`,
  );
  return html`<table class="table events-table"><thead><tr><th>When</th><th>Type</th>${withDevice ? html`<th>Device</th>` : ''}<th>Details</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The page's URL with these filters and page number (1 is left out). */
function pageUrl(base: string, query: EventQuery, page: number): string {
  const params = new URLSearchParams();
  if (query.type !== null) params.set('type', query.type);
  if (query.device !== null) params.set('device', query.device);
  if (page > 1) params.set('page', String(page));
  const search = params.toString();
  return search ? `${base}?${search}` : base;
}

function filters(log: EventLog, query: EventQuery, base: string): SafeHtml {
  // the types of the network's latest 100 events, by API name, with their readable names
  const types = new Map(log.recent.events.map((e) => [e.eventTypeAPIName, e.eventType]));
  // a type asked for by URL stays selectable even when none of the latest 100 has it
  if (query.type !== null && !types.has(query.type)) types.set(query.type, query.type);
  const typeOptions = [...types].sort(([a], [b]) => a.localeCompare(b)).map(([api, name]) => html`<option value="${api}"${api === query.type ? html` selected` : ''}>${name} (${api})</option>`);
  const deviceOptions = log.network.virtualDevices.map((d) => html`<option value="${d.UUID}"${d.UUID === query.device ? html` selected` : ''}>${d.label}</option>`);
  return html`<form method="get" action="${base}" class="filters">
  <div class="field"><label class="field-label" for="filter-type">Type</label><select name="type" id="filter-type"><option value="">All types</option>${typeOptions}</select></div>
  <div class="field"><label class="field-label" for="filter-device">Device</label><select name="device" id="filter-device"><option value="">All devices</option>${deviceOptions}</select></div>
  <button type="submit" class="btn btn-secondary">Filter</button>
  ${query.type !== null || query.device !== null ? html`<a class="btn btn-ghost" href="${base}">Clear filters</a>` : ''}
</form>`;
}

/** The event log page of a network: filters by type and device, a page of events, and links to newer and older pages. */
export function renderEventLog(log: EventLog, query: EventQuery, now: Date): SafeHtml {
  const network = log.network;
  const base = `/networks/${network.UUID}/events`;
  const page = Math.floor(query.offset / query.limit) + 1;
  const pages = Math.max(1, Math.ceil(log.page.total / query.limit));
  const header = pageHeader({
    title: 'Event log',
    crumbs: [{ label: 'Networks', href: '/networks' }, { label: network.label, href: `/networks/${network.UUID}` }, { label: 'Event log' }],
    description: `What the devices of ${network.label} reported, and when they went offline or came back, newest first.`,
  });
  const first = log.page.total === 0 ? 0 : query.offset + 1;
  const last = Math.min(query.offset + log.page.events.length, log.page.total);
  const pager = html`<nav class="pager" aria-label="Event log pages">
  ${page > 1 ? html`<a class="btn btn-secondary btn-sm" href="${pageUrl(base, query, page - 1)}" rel="prev">Newer</a>` : ''}
  ${page < pages ? html`<a class="btn btn-secondary btn-sm" href="${pageUrl(base, query, page + 1)}" rel="next">Older</a>` : ''}
  <span class="field-help pager-status">${first}–${last} of ${log.page.total} · page ${page} of ${pages}</span>
</nav>`;
  return html`${header}${filters(log, query, base)}
${section('Events', log.page.total, renderEvents(log.page.events, now, true, network.UUID), 'events')}
${pager}`;
}
