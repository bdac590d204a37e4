import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { emptyState } from './layout.js';
import { timeAgo } from './network.view.js';
import type { DeviceDetail } from './documents.js';

type MacEntryView = DeviceDetail['macTable'][number];
type PortView = DeviceDetail['device']['phyInterfaces'][number];

/** Entries per page of a switch's MAC table. */
export const MAC_TABLE_PAGE_SIZE = 50;

/** Which part of a MAC table the device page shows: a search (`mac=`, '' for none) and a page (`page=`, from 1). */
export interface MacTableQuery {
  readonly search: string;
  readonly page: number;
}

/**
 * The entries a search finds: for a number (digits only), the entries on
 * that port or in that VLAN; otherwise those whose MAC address holds the
 * text (with `:`, `-`, `.` or no separators, any case).
 */
export function searchMacTable(entries: readonly MacEntryView[], search: string): readonly MacEntryView[] {
  const text = search.trim().toLowerCase();
  if (text === '') return entries;
  if (/^\d{1,5}$/.test(text)) return entries.filter((e) => e.portNumber === Number(text) || e.vlanID === Number(text));
  const hex = text.replace(/[:.\-\s]/g, '');
  if (!/^[0-9a-f]+$/.test(hex)) return [];
  return entries.filter((e) => e.macAddress.replaceAll(':', '').includes(hex));
}

/** The device page's URL with this search and page, at the table. */
function pageUrl(base: string, search: string, page: number): string {
  const params = new URLSearchParams();
  if (search !== '') params.set('mac', search);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `${base}${query ? `?${query}` : ''}#mac-table`;
}

/** A page of a switch's MAC table with its search form and pager; `base` is the device page's path. */
export function renderMacTable(entries: readonly MacEntryView[], ports: readonly PortView[], query: MacTableQuery, base: string, now: Date): SafeHtml {
  if (entries.length === 0) return emptyState('No MAC table reported', 'Entries appear once the switch reports its forwarding table.');
  const found = searchMacTable(entries, query.search);
  const pages = Math.max(1, Math.ceil(found.length / MAC_TABLE_PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const shown = found.slice((page - 1) * MAC_TABLE_PAGE_SIZE, page * MAC_TABLE_PAGE_SIZE);
  const labels = new Map(ports.map((p) => [p.portNumber, p.label]));
  const form = html`<form method="get" action="${base}#mac-table" class="filters mac-search" role="search">
  <div class="field"><label class="field-label" for="mac-search">Find</label><input type="search" name="mac" id="mac-search" value="${query.search}" placeholder="MAC, port or VLAN" maxlength="64"></div>
  <button type="submit" class="btn btn-secondary">Search</button>
  ${query.search !== '' ? html`<a class="btn btn-ghost" href="${base}#mac-table">Clear</a>` : ''}
</form>`;
  const rows = shown.map(
    (e) => html`<tr data-mac="${e.macAddress}">
  <td><code>${e.macAddress}</code></td>
  <td class="num">${e.vlanID ?? html`<span class="muted">—</span>`}</td>
  <td class="num">${e.portNumber}</td>
  <td class="nowrap">${labels.get(e.portNumber) ?? html`<span class="muted">—</span>`}</td>
  <td class="nowrap">${timeAgo(e.updatedAt, now)}</td>
</tr>`,
  );
  const table =
    shown.length === 0
      ? emptyState('No entry matches', html`Nothing in this table matches <code>${query.search}</code>.`)
      : html`<table class="table mac-table"><thead><tr><th>MAC address</th><th class="num">VLAN</th><th class="num">Port</th><th>Port label</th><th>On this port since</th></tr></thead><tbody>${rows}</tbody></table>`;
  const first = found.length === 0 ? 0 : (page - 1) * MAC_TABLE_PAGE_SIZE + 1;
  const pager = html`<nav class="pager mac-pager" aria-label="MAC table pages">
  ${page > 1 ? html`<a class="btn btn-secondary btn-sm" href="${pageUrl(base, query.search, page - 1)}" rel="prev">Previous</a>` : ''}
  ${page < pages ? html`<a class="btn btn-secondary btn-sm" href="${pageUrl(base, query.search, page + 1)}" rel="next">Next</a>` : ''}
  <span class="field-help pager-status">${first}–${first + shown.length - (shown.length > 0 ? 1 : 0)} of ${found.length}${found.length === entries.length ? '' : ` (of ${entries.length})`} · page ${page} of ${pages}</span>
</nav>`;
  return html`${form}${table}${pager}`;
}
