import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { emptyState } from './layout.js';
import { timeAgo } from './network.view.js';
import type { DeviceDetail } from './documents.js';
import { renderListPager, renderSearchForm } from './search.view.js';
import type { ListPlace, ParsedListQuery } from './search.view.js';

type PortView = DeviceDetail['device']['phyInterfaces'][number];


/** Entries per page of a switch's MAC table. */
export const MAC_TABLE_PAGE_SIZE = 50;

/** Where a device page's MAC table is and how it is asked for: `?q=` (or the older `mac=`) and `page=`. */
export const macTablePlace = (base: string): ListPlace => ({ base, anchor: 'mac-table', searchName: 'q', pageName: 'page' });

/**
 * The page of a switch's MAC table that the server found for the search
 * (switchMACTablePage), with its search form and pager; `base` is the device page's path.
 */
export function renderMacTable(detail: DeviceDetail, ports: readonly PortView[], parsed: ParsedListQuery, base: string, now: Date): SafeHtml {
  const { macTable, macTableSize } = detail;
  const { query } = parsed;
  if (macTableSize.total === 0) return emptyState('No MAC table reported', 'Entries appear once the switch reports its forwarding table.');
  const place = macTablePlace(base);
  const labels = new Map(ports.map((p) => [p.portNumber, p.label]));
  const form = renderSearchForm(place, parsed, 'Find', 'MAC, port or VLAN');
  const rows = macTable.entries.map(
    (e) => html`<tr data-mac="${e.macAddress}">
  <td><code>${e.macAddress}</code></td>
  <td class="num">${e.vlanID ?? html`<span class="muted">—</span>`}</td>
  <td class="num">${e.portNumber}</td>
  <td class="nowrap">${labels.get(e.portNumber) ?? html`<span class="muted">—</span>`}</td>
  <td class="nowrap">${timeAgo(e.updatedAt, now)}</td>
</tr>`,
  );
  const table =
    macTable.total === 0
      ? emptyState('No entry matches', html`Nothing in this table matches <code>${query.search}</code>.`)
      : rows.length === 0
        ? emptyState('No entries on this page', 'The table has fewer pages: go back to its last page.')
        : html`<table class="table mac-table"><thead><tr><th>MAC address</th><th class="num">VLAN</th><th class="num">Port</th><th>Port label</th><th>On this port since</th></tr></thead><tbody>${rows}</tbody></table>`;
  const pager = renderListPager(place, query, MAC_TABLE_PAGE_SIZE, rows.length, macTable.total, macTableSize.total, 'MAC table pages');
  return html`${form}${table}${pager}`;
}
