import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { timeAgo } from './network.view.js';
import type { DeviceSourceView } from './documents.js';

/** A poll's duration as people read it: "42 ms", "1,250 ms". */
function duration(ms: number): string {
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

/**
 * Where a device's reports come from (VirtualDevice.source): "Collector
 * <name>, last poll <time>, <duration>, last error <...>" for netgraph's SNMP
 * collector, "Reports itself" for a sender of the report protocol, and a
 * muted line before the first report. The error shows in red.
 */
export function renderSource(source: DeviceSourceView | null, now: Date): SafeHtml {
  if (source === null) return html`<span class="muted">No report yet</span>`;
  if (source.kind === 'REPORTS') return html`Reports itself <span class="muted">(report protocol, key ${source.collectorName}), last report ${timeAgo(source.lastPollAt, now)}</span>`;
  const ms = source.pollDurationMs === null ? '' : html`, ${duration(source.pollDurationMs)}`;
  const error = source.lastError === null ? html`, no error` : html`, last error <span class="text-danger" data-source-error>${source.lastError}</span>`;
  return html`Collector <strong>${source.collectorName}</strong>, last poll ${timeAgo(source.lastPollAt, now)}${ms}${error}`;
}
