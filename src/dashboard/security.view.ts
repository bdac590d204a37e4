import { exactTime } from './format.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { emptyState, pageHeader } from './layout.js';
import { section, timeAgo } from './network.view.js';
import type { SecurityDetail } from './documents.js';

/** IDS and IPS events per page of the security page. */
export const DETECTION_PAGE_SIZE = 25;

type Detection = SecurityDetail['ids']['events'][number];
type Observer = SecurityDetail['rogues'][number]['observers'][number];
type FirewallRuleView = SecurityDetail['rules'][number];

const dash = html`<span class="muted">—</span>`;

/** An address with its port, when it has one. */
const endpoint = (ip: string, port: number | null): SafeHtml => html`<code>${ip}${port === null ? '' : `:${port}`}</code>`;

/** The access points that heard a foreign BSSID, strongest first, each linked to its page. */
function observers(networkId: string, list: readonly Observer[]): SafeHtml {
  if (list.length === 0) return dash;
  return html`${list.map((o, i) => html`${i > 0 ? ', ' : ''}${o.virtualDevice ? html`<a href="/networks/${networkId}/devices/${o.virtualDevice.UUID}">${o.virtualDevice.label}</a>` : 'a deleted device'} <span class="muted small">${o.rssi} dBm</span>`)}`;
}

function detections(networkId: string, events: readonly Detection[], now: Date, what: string): SafeHtml {
  if (events.length === 0) return emptyState(`No ${what} events`, `${what} events appear here as the network's controllers report the traffic their rules match (last 24 hours).`);
  const rows = events.map(
    (e) => html`<tr>
  <td class="nowrap">${timeAgo(e.observedAt, now)}<br><span class="muted small">${exactTime(e.observedAt)}</span></td>
  <td>${e.signature ?? dash}</td>
  <td>${endpoint(e.srcIP, e.srcPort)} → ${endpoint(e.dstIP, e.dstPort)}</td>
  <td>${e.protocol} <span class="muted small">${e.direction === 'RX' ? 'inbound' : 'outbound'}</span></td>
  <td>${e.virtualDevice ? html`<a href="/networks/${networkId}/devices/${e.virtualDevice.UUID}">${e.virtualDevice.label}</a>` : dash}</td>
</tr>`,
  );
  return html`<table class="table"><thead><tr><th>When</th><th>Rule</th><th>Source → destination</th><th>Protocol</th><th>Controller</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function rogues(detail: SecurityDetail, now: Date): SafeHtml {
  const id = detail.network.UUID;
  if (detail.rogues.length === 0) return emptyState('No rogue access points', 'A foreign access point heard by your access points whose MAC address is also on a switch port of this network appears here.');
  const rows = detail.rogues.map(
    (r) => html`<tr>
  <td><code>${r.BSSID}</code><br><span class="muted small">${r.ssid ?? 'hidden SSID'}</span></td>
  <td><code>${r.wiredMACAddress}</code> <span class="muted small">port ${r.wiredPortNumber}</span></td>
  <td class="nowrap">${timeAgo(r.lastObservedAt, now)}<br><span class="muted small">since ${exactTime(r.firstObservedAt)}</span></td>
  <td>${observers(id, r.observers)}</td>
</tr>`,
  );
  return html`<table class="table"><thead><tr><th>BSSID</th><th>On the wire</th><th>Last heard</th><th>Heard by</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function honeypots(detail: SecurityDetail, now: Date): SafeHtml {
  const id = detail.network.UUID;
  if (detail.honeypots.length === 0) return emptyState('No honeypot SSIDs', "A foreign access point broadcasting the name of one of this network's SSIDs appears here.");
  const rows = detail.honeypots.map(
    (h) => html`<tr>
  <td><span class="strong">${h.ssid}</span></td>
  <td><code>${h.BSSID}</code></td>
  <td class="nowrap">${timeAgo(h.lastObservedAt, now)}<br><span class="muted small">since ${exactTime(h.firstObservedAt)}</span></td>
  <td>${observers(id, h.observers)}</td>
</tr>`,
  );
  return html`<table class="table"><thead><tr><th>Imitated SSID</th><th>BSSID</th><th>Last heard</th><th>Heard by</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** A network's firewall rules in priority order, as firewallRulesForNetwork lists them. */
export function renderFirewallRules(rules: readonly FirewallRuleView[]): SafeHtml {
  if (rules.length === 0) return emptyState('No firewall rules', 'Rules written through the API (createFirewallRule) or an import appear here in priority order.');
  const rows = rules.map(
    (r) => html`<tr><td>${r.priority}</td><td>${r.name}</td><td><span class="strong">${r.action}</span>${r.isEnabled ? '' : html` <span class="muted small">disabled</span>`}</td><td><code>${r.srcPrefix ?? 'any'}</code></td><td><code>${r.dstPrefix ?? 'any'}</code></td></tr>`,
  );
  return html`<table class="table"><thead><tr><th>Priority</th><th>Name</th><th>Action</th><th>Source</th><th>Destination</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** A pager over the IDS and IPS events together: the next page while either has more. */
function pager(detail: SecurityDetail, page: number): SafeHtml {
  const base = `/networks/${detail.network.UUID}/security`;
  const pages = Math.max(1, Math.ceil(Math.max(detail.ids.total, detail.ips.total) / DETECTION_PAGE_SIZE));
  return html`<nav class="pager" aria-label="Event pages">
  ${page > 1 ? html`<a class="btn btn-secondary btn-sm" href="${page === 2 ? base : `${base}?page=${page - 1}`}" rel="prev">Newer</a>` : ''}
  ${page < pages ? html`<a class="btn btn-secondary btn-sm" href="${base}?page=${page + 1}" rel="next">Older</a>` : ''}
  <span class="field-help pager-status">IDS and IPS events: page ${page} of ${pages}</span>
</nav>`;
}

/** A network's security page: IDS/IPS mode, rogue access points and honeypots of the last day, IDS and IPS events (paged), firewall rules. */
export function renderSecurity(detail: SecurityDetail, page: number, now: Date): SafeHtml {
  const network = detail.network;
  const mode = network.idsIPSConfig?.mode ?? null;
  const header = pageHeader({
    title: 'Security',
    crumbs: [{ label: 'Networks', href: '/networks' }, { label: network.label, href: `/networks/${network.UUID}` }, { label: 'Security' }],
    description: `IDS/IPS: ${mode === null ? 'not configured' : mode === 'IPS' ? 'prevention (IPS)' : 'detection only (IDS)'}. What the devices of ${network.label} saw in the last 24 hours.`,
  });
  return html`${header}
${section('Rogue access points', detail.rogues.length, rogues(detail, now), 'rogues')}
${section('Honeypot SSIDs', detail.honeypots.length, honeypots(detail, now), 'honeypots')}
${section('IDS events', detail.ids.total, detections(network.UUID, detail.ids.events, now, 'IDS'), 'ids-events')}
${section('IPS events', detail.ips.total, detections(network.UUID, detail.ips.events, now, 'IPS'), 'ips-events')}
${pager(detail, page)}
${section('Firewall rules', detail.rules.length, renderFirewallRules(detail.rules), 'firewall')}`;
}
