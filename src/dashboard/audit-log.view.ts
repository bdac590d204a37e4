import type { AuditEntry } from '../platform/audit/audit.service.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { exactTime, relativeTime } from './format.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, emptyState, pageHeader } from './layout.js';

/** Where Settings > Audit log lives. */
export const AUDIT_LOG_PATH = '/settings/audit-log';

/** A value in a diff is cut here: the CLI's `audit list --json` has the whole entry. */
const MAX_VALUE_CHARS = 80;

/** One changed field of an entry: its name and its values before and after (undefined when absent on that side). */
export interface FieldChange {
  readonly field: string;
  readonly before?: string;
  readonly after?: string;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The fields an entry changed, in the order they first appear: for an update
 * only those whose value differs, for a create every field after, for a
 * delete every field before. The object's own id is the entry's Object
 * column, so it is left out.
 */
export function diffEntry(before: unknown, after: unknown): FieldChange[] {
  const old = fieldsOf(before);
  const now = fieldsOf(after);
  const names = [...new Set([...Object.keys(old), ...Object.keys(now)])].filter((name) => name !== 'UUID' && name !== 'id');
  const changes: FieldChange[] = [];
  for (const name of names) {
    const had = before !== null && name in old;
    const has = after !== null && name in now;
    if (had && has && JSON.stringify(old[name]) === JSON.stringify(now[name])) continue;
    changes.push({ field: name, ...(had ? { before: show(old[name]) } : {}), ...(has ? { after: show(now[name]) } : {}) });
  }
  return changes;
}

const ACTOR_NAMES = { api_key: 'API key', user: 'User', cli: 'CLI' } as const;

function renderDiff(entry: AuditEntry): SafeHtml {
  const changes = diffEntry(entry.before, entry.after);
  if (changes.length === 0) return html`<span class="muted">No field changed</span>`;
  return html`<ul class="diff">${changes.map(
    (c) => html`<li><span class="diff-field">${c.field}</span> ${c.before !== undefined ? html`<del>${c.before}</del>` : ''}${c.before !== undefined && c.after !== undefined ? ' → ' : ''}${c.after !== undefined ? html`<ins>${c.after}</ins>` : ''}</li>`,
  )}</ul>`;
}

function entryRow(entry: AuditEntry, now: Date): SafeHtml {
  const verb = entry.action.split('.').pop() ?? entry.action;
  const kind = verb === 'delete' || verb === 'revoke' ? 'danger' : verb === 'create' ? 'success' : 'accent';
  return html`<tr data-action="${entry.action}" data-entry="${entry.id}">
  <td><time datetime="${entry.occurredAt}" title="${exactTime(entry.occurredAt)}">${relativeTime(entry.occurredAt, now)}</time></td>
  <td><span class="muted">${ACTOR_NAMES[entry.actor.type]}</span> ${entry.actor.label}</td>
  <td>${badge(kind, entry.action)}</td>
  <td><span class="muted">${entry.objectType}</span> <code>${entry.objectId}</code></td>
  <td>${renderDiff(entry)}</td>
</tr>`;
}

/**
 * The audit log page: the company's entries newest first, a page at a time,
 * with a compact diff of each. `older` is the cursor of the next older page;
 * `paged` says this is not the newest page.
 */
export function renderAuditLog(session: ActiveSession, entries: readonly AuditEntry[], page: { older: string | null; paged: boolean }): SafeHtml {
  const now = new Date();
  const table = entries.length === 0
    ? emptyState(page.paged ? 'No older changes' : 'No changes yet', 'Every change made through the API, the dashboard or the CLI appears here.')
    : html`<table class="table audit-table">
  <thead><tr><th>When</th><th>Who</th><th>Action</th><th>Object</th><th>Changes</th></tr></thead>
  <tbody>${entries.map((e) => entryRow(e, now))}</tbody>
</table>`;
  const links = [
    page.paged ? html`<a class="btn btn-secondary btn-sm" href="${AUDIT_LOG_PATH}">Newest entries</a>` : '',
    page.older !== null ? html`<a class="btn btn-secondary btn-sm" href="${AUDIT_LOG_PATH}?before=${page.older}" rel="next">Older entries</a>` : '',
  ];
  const pager =
    page.paged || page.older !== null
      ? html`<nav class="pager" aria-label="Audit log pages">${links}<span class="field-help"><code>netgraph audit list --company ${session.user.company}</code> lists every entry.</span></nav>`
      : '';
  return html`${pageHeader({
    title: 'Audit log',
    crumbs: [{ label: 'Settings', href: AUDIT_LOG_PATH }, { label: 'Audit log' }],
    description: html`Who changed what in ${session.user.companyName}, and when: every write through the API, the dashboard and the CLI, and every API key added or revoked. Key values are never recorded.`,
  })}
<div class="card card-flush">${table}</div>
${pager}`;
}
