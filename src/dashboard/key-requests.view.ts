import type { KeyRequests } from '../features/request-log/request-log.service.js';
import { allowedCell, expiryCell, keyStatusBadge, lastUseCell } from './api-keys.view.js';
import { renderChart } from './charts.view.js';
import type { ChartColor, ChartSeries } from './charts.view.js';
import { exactTime, relativeTime } from './format.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, emptyState, pageHeader } from './layout.js';

const KEYS_PATH = '/settings/integrations/api-keys';

/** The windows the page offers, as `since` values and their ms. */
export const REQUEST_WINDOWS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RequestWindow = keyof typeof REQUEST_WINDOWS;

/** What the page was asked: window, status class, operation, page. */
export interface KeyRequestQuery {
  readonly since: RequestWindow;
  readonly status: '' | '2xx' | '4xx' | '5xx';
  readonly operation: string;
  readonly page: number;
}

/** The page's URL for `query` with some of it changed. */
function pageUrl(keyId: string, query: KeyRequestQuery, change: Partial<KeyRequestQuery> = {}): string {
  const q = { ...query, ...change };
  const params = new URLSearchParams({ since: q.since });
  if (q.status !== '') params.set('status', q.status);
  if (q.operation !== '') params.set('operation', q.operation);
  if (q.page > 1) params.set('page', String(q.page));
  return `${KEYS_PATH}/${keyId}?${params.toString()}`;
}

function statusBadge(status: number): SafeHtml {
  // a refused key (401, 403) is red-ish as in the chart (statusColor)
  return badge(status >= 500 || status === 401 || status === 403 ? 'danger' : status >= 400 ? 'warning' : 'success', String(status));
}

function filters(keyId: string, query: KeyRequestQuery): SafeHtml {
  const option = (value: string, label: string, selected: string) => html`<option value="${value}"${value === selected ? raw(' selected') : ''}>${label}</option>`;
  return html`<form method="get" action="${KEYS_PATH}/${keyId}" class="filters">
  <div class="field"><label class="field-label" for="filter-since">Window</label><select name="since" id="filter-since">${option('24h', 'Last 24 hours', query.since)}${option('7d', 'Last 7 days', query.since)}${option('30d', 'Last 30 days', query.since)}</select></div>
  <div class="field"><label class="field-label" for="filter-status">Status</label><select name="status" id="filter-status">${option('', 'All statuses', query.status)}${option('2xx', '2xx success', query.status)}${option('4xx', '4xx refused', query.status)}${option('5xx', '5xx failed', query.status)}</select></div>
  <div class="field"><label class="field-label" for="filter-operation">Operation</label><input type="text" name="operation" id="filter-operation" value="${query.operation}" placeholder="any" maxlength="200"></div>
  <button type="submit" class="btn btn-secondary">Filter</button>
  ${query.status !== '' || query.operation !== '' ? html`<a class="btn btn-ghost" href="${pageUrl(keyId, { ...query, status: '', operation: '', page: 1 })}">Clear filters</a>` : ''}
</form>`;
}

/**
 * A status's colour in the chart, by its class and the same whatever other
 * statuses the window has (docs/operations.md, "Request log"): 2xx green,
 * 401 and 403 (a key refused: revoked, expired, from a disallowed address,
 * without the scope) pink, red-ish as they want a look but apart from the
 * server's failures, 429 (a limit) purple, other 4xx (the caller's mistakes)
 * amber, 5xx red, anything else gray.
 */
export function statusColor(status: number): ChartColor {
  if (status >= 200 && status < 300) return 'green';
  if (status === 401 || status === 403) return 'pink';
  if (status === 429) return 'purple';
  if (status >= 400 && status < 500) return 'amber';
  if (status >= 500 && status < 600) return 'red';
  return 'gray';
}

/** The chart: requests per hour, one stacked bar per status, coloured by its class. */
function hourlyChart(log: KeyRequests, windowMs: number, now: Date): SafeHtml {
  const byStatus = new Map<number, [number, number][]>();
  for (const { hour, status, count } of log.hourly) {
    const points = byStatus.get(status) ?? [];
    points.push([Date.parse(hour) / 1000, count]);
    byStatus.set(status, points);
  }
  const series: ChartSeries[] = [...byStatus].sort(([a], [b]) => a - b).map(([status, points]) => ({ label: String(status), points, color: statusColor(status) }));
  const end = Math.ceil(now.getTime() / 3_600_000) * 3600;
  return renderChart({ id: 'key-requests', title: 'Requests per hour by status', unit: 'requests', kind: 'stacked-bars', window: [end - windowMs / 1000, end], stepSeconds: 3600, series });
}

/**
 * What the key is besides its requests: its expiry (warned of
 * EXPIRY_WARNING_DAYS ahead, as in the list) and whether its API_KEY_EXPIRING
 * alert went out, its last use, its allowlist and its status.
 */
function keyFacts(key: KeyRequests['key'], now: Date): SafeHtml {
  const alerted = key.expiryAlertedAt === null
    ? ''
    : html`<div class="stat-label" data-expiry-alert>Expiry alert sent <time datetime="${key.expiryAlertedAt}" title="${exactTime(key.expiryAlertedAt)}">${relativeTime(key.expiryAlertedAt, now)}</time></div>`;
  return html`<div class="stats stats-4 key-facts">
  <div class="stat" data-stat="expiry"><div class="stat-value">${expiryCell(key, now)}</div><div class="stat-label">Expires</div>${alerted}</div>
  <div class="stat" data-stat="last-used"><div class="stat-value">${lastUseCell(key, now)}</div><div class="stat-label">Last used</div></div>
  <div class="stat" data-stat="allowed"><div class="stat-value">${allowedCell(key)}</div><div class="stat-label">Allowed from</div></div>
  <div class="stat" data-stat="status"><div class="stat-value">${keyStatusBadge(key, now)}</div><div class="stat-label">Status</div></div>
</div>`;
}

/** A request's exact time as two lines, its date over its time of day, so the column stays narrow. */
function dateOverTime(at: string): SafeHtml {
  const exact = exactTime(at);
  const [date, ...time] = exact.split(' ');
  return html`<time datetime="${at}" title="${exact}">${date ?? ''}<br>${time.join(' ')}</time>`;
}

function requestRow(r: KeyRequests['requests'][number]): SafeHtml {
  return html`<tr data-request-id="${r.requestId}">
  <td>${dateOverTime(r.requestedAt)}</td>
  <td>${statusBadge(r.status)}</td>
  <td><code>${r.method} ${r.path}</code>${r.operationName === null ? '' : html`<br><span class="muted">${r.operationName}</span>`}</td>
  <td>${r.rootFields === null ? html`<span class="muted">—</span>` : html`<code>${r.rootFields.split(',').join(', ')}</code>`}</td>
  <td>${r.errorCodes === null ? html`<span class="muted">—</span>` : html`<code>${r.errorCodes.split(',').join(', ')}</code>`}</td>
  <td class="num">${r.cost === null ? '—' : String(r.cost)}</td>
  <td class="num">${r.durationMs.toFixed(1)}</td>
  <td class="num">${String(r.statements)}</td>
  <td>${r.clientAddress === null ? '—' : html`<code>${r.clientAddress}</code>`}<br><span class="muted user-agent" title="${r.userAgent ?? ''}">${r.userAgent ?? ''}</span></td>
</tr>`;
}

/** A key's page: what the key is (its expiry and expiry alert, last use, allowlist, status), a chart of its requests per hour by status, and its requests, filtered and paged. */
export function renderKeyRequests(log: KeyRequests, query: KeyRequestQuery, now: Date): SafeHtml {
  const { key } = log;
  const header = pageHeader({
    title: key.label,
    crumbs: [{ label: 'Settings', href: KEYS_PATH }, { label: 'API keys', href: KEYS_PATH }, { label: key.label }],
    description: html`Requests made with <code>${key.prefix}…</code> (scope ${key.scope}), refused ones included, newest first. They are kept for a limited time (API_REQUEST_LOG_DAYS).`,
  });
  const table = log.requests.length === 0
    ? emptyState('No requests', query.status !== '' || query.operation !== '' ? 'No request in this window matches the filters.' : 'This key made no request in this window.')
    : html`<table class="table">
  <thead><tr><th>Time</th><th>Status</th><th>Request</th><th>Root fields</th><th>Errors</th><th class="num">Cost</th><th class="num">ms</th><th class="num">SQL</th><th>From</th></tr></thead>
  <tbody>${log.requests.map(requestRow)}</tbody>
</table>`;
  const pager = html`<nav class="pager" aria-label="Request pages">
  ${query.page > 1 ? html`<a class="btn btn-secondary btn-sm" href="${pageUrl(key.id, query, { page: query.page - 1 })}" rel="prev">Newer</a>` : ''}
  ${log.more ? html`<a class="btn btn-secondary btn-sm" href="${pageUrl(key.id, query, { page: query.page + 1 })}" rel="next">Older</a>` : ''}
  <span class="field-help pager-status">page ${query.page}</span>
</nav>`;
  return html`${header}${keyFacts(key, now)}
${filters(key.id, query)}
<div class="card">${hourlyChart(log, REQUEST_WINDOWS[query.since], now)}</div>
<div class="card card-flush key-requests">${table}</div>
${pager}`;
}
