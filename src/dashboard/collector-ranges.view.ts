import { SWEEP_LIMITS } from '../kernel/snmp-range.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { settingsShell } from './api-keys.view.js';
import { COLLECTORS_PATH, TARGET_FORM_FIELDS, pollFields, select } from './collector-form.view.js';
import { snmpCell } from './collectors.view.js';
import type { FormState } from './forms.js';
import { inputField } from './forms.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { csrfInput, emptyState, notice, pageHeader } from './layout.js';
import type { CollectorRangeItem } from './documents.js';

/** Where Settings > Collectors > Discovery ranges lives. */
export const RANGES_PATH = `${COLLECTORS_PATH}/ranges`;
/** The form's value for "every collector of the company" (collectorKeyUUID null). */
export const EVERY_COLLECTOR = '';
/** The range service's field names (its refusals name them) as the range form names them. */
export const RANGE_FORM_FIELDS: Readonly<Record<string, string>> = { ...TARGET_FORM_FIELDS, range: 'range', ratePerSecond: 'ratePerSecond', collectorKeyUUID: 'collectorKeyUUID' };

const CRUMBS = [{ label: 'Settings', href: COLLECTORS_PATH }, { label: 'Collectors', href: COLLECTORS_PATH }];

/** What the Discovery ranges page shows: the ranges, the company's collector keys to choose from, the add form's state. */
export interface RangesView {
  readonly session: ActiveSession;
  readonly ranges: readonly CollectorRangeItem[];
  /** The company's active ingest keys: id and label. */
  readonly collectors: readonly { readonly id: string; readonly label: string }[];
  readonly form: FormState;
  readonly done?: string;
}

function rangeRow(view: RangesView, r: CollectorRangeItem): SafeHtml {
  const admin = view.session.user.role === 'admin';
  return html`<tr data-range-id="${r.UUID}">
  <td class="nowrap"><code class="strong">${r.range}</code><br><span class="muted">UDP ${r.port}</span></td>
  <td>${snmpCell(r)}</td>
  <td class="nowrap">${r.ratePerSecond} addresses/s<br><span class="muted">every ${r.intervalSeconds} s</span></td>
  <td>${r.collectorKeyUUID === null ? html`<span class="muted">Every collector</span>` : html`<span class="strong">${r.collectorKeyLabel ?? ''}</span>`}${statusBadge(r)}</td>
  ${admin
    ? html`<td class="actions"><a class="btn btn-secondary btn-sm" href="${RANGES_PATH}/${r.UUID}/edit">Edit</a> <form method="post" action="${RANGES_PATH}/${r.UUID}/delete" class="inline-form" data-confirm="Delete the range ${r.range}? Collectors stop sweeping it when they next fetch their ranges.">
  ${csrfInput(view.session.csrfToken)}<button type="submit" class="btn btn-danger-outline btn-sm">Delete</button></form></td>`
    : ''}
</tr>`;
}

/**
 * A range no collector sweeps, because its collector's key was revoked or
 * has expired: a badge saying so, with what to do as its title. Nothing for
 * an active range.
 */
function statusBadge(r: CollectorRangeItem): SafeHtml | '' {
  if (r.status === 'ACTIVE') return '';
  const why = r.status === 'KEY_REVOKED' ? 'Key revoked' : 'Key expired';
  return html`<br><span class="badge badge-danger" data-range-status="${r.status}" title="No collector sweeps this range: choose another collector (Edit) or delete it.">${why}: swept by no one</span>`;
}

/** The fields of a range, add and edit alike: the CIDR, its collector, the sweep's rate and interval, the credentials. */
function rangeFields(form: FormState, collectorKeys: RangesView['collectors'], editing: CollectorRangeItem | null): SafeHtml {
  const { ratePerSecond: rate, intervalSeconds: interval } = SWEEP_LIMITS;
  const collectors: (readonly [string, string])[] = [[EVERY_COLLECTOR, 'Every collector of the company'], ...collectorKeys.map((c) => [c.id, c.label] as const), ...heldBy(editing, collectorKeys)];
  return html`${form.message ? notice('error', form.message) : ''}
  ${inputField(form, { name: 'range', label: 'Range (CIDR)', id: 'range-range', help: 'An IPv4 range of at most a /16, e.g. 10.0.0.0/24.', extra: 'required' })}
  ${select(form, 'collectorKeyUUID', 'Swept by', collectors, 'One collector (by its ingest key), or every collector of the company.')}
  ${inputField(form, { name: 'ratePerSecond', label: 'Rate (addresses a second)', id: 'range-ratePerSecond', type: 'number', help: `${rate.min} to ${rate.max}; blank: ${rate.default}.` })}
  ${pollFields(form, editing !== null, { label: 'Sweep interval (seconds)', help: `${interval.min} to ${interval.max}; blank: ${interval.default}.` })}`;
}

/**
 * The edited range's own collector when its key is no longer active (revoked
 * or expired): an option of its own, chosen until an admin picks another, so
 * that saving other settings does not hand the range to every collector.
 */
function heldBy(range: CollectorRangeItem | null, active: RangesView['collectors']): (readonly [string, string])[] {
  if (range === null || range.collectorKeyUUID === null || active.some((c) => c.id === range.collectorKeyUUID)) return [];
  const why = range.status === 'KEY_EXPIRED' ? 'key expired' : 'key revoked';
  return [[range.collectorKeyUUID, `${range.collectorKeyLabel ?? ''} (${why}: swept by no one)`]];
}

function addRangeForm(view: RangesView): SafeHtml {
  return html`<form method="post" action="${RANGES_PATH}" class="card webhook-form" id="add-range" novalidate>
  ${csrfInput(view.session.csrfToken)}
  <h2>Add range</h2>
  ${rangeFields(view.form, view.collectors, null)}
  <button type="submit" class="btn btn-primary">Add range</button>
</form>`;
}

/** A range's edit page: its settings filled in, its credentials never (blank keeps the stored ones). */
export function renderEditRange(view: Omit<RangesView, 'ranges' | 'done'> & { range: CollectorRangeItem }): SafeHtml {
  const { range, session } = view;
  const body = html`${pageHeader({
    title: `Range ${range.range}`,
    crumbs: [...CRUMBS, { label: 'Discovery ranges', href: RANGES_PATH }, { label: range.range }],
    description: html`Stored credentials: ${snmpCell(range)}. They are kept unless you enter new ones.`,
  })}
<form method="post" action="${RANGES_PATH}/${range.UUID}/edit" class="card webhook-form" id="edit-range" novalidate>
  ${csrfInput(session.csrfToken)}
  <h2>Settings</h2>
  ${rangeFields(view.form, view.collectors, range)}
  <p class="field-wide field-help">The credentials are replaced whole: to change the version, user, level or protocols, enter the passwords (or the community) again.</p>
  <div class="field-wide"><button type="submit" class="btn btn-primary">Save range</button> <a class="btn btn-secondary" href="${RANGES_PATH}">Cancel</a></div>
</form>`;
  return settingsShell(body, session, 'collectors');
}

/** The page: the company's discovery ranges (never their credentials), delete and the add form (admins). */
export function renderRanges(view: RangesView): SafeHtml {
  const { session } = view;
  const admin = session.user.role === 'admin';
  const actions = admin ? raw('<th class="actions"><span class="sr-only">Actions</span></th>') : '';
  const ranges = view.ranges.length === 0
    ? emptyState('No discovery ranges yet', admin ? 'Add a range below: your collectors sweep it for SNMP agents from their next fetch.' : 'An admin of your company can add ranges here.')
    : html`<table class="table" id="collector-ranges"><thead><tr><th>Range</th><th>SNMP</th><th>Sweep</th><th>Collector</th>${actions}</tr></thead>
<tbody>${view.ranges.map((r) => rangeRow(view, r))}</tbody></table>`;
  const body = html`${pageHeader({
    title: 'Discovery ranges',
    crumbs: [...CRUMBS, { label: 'Discovery ranges' }],
    description: html`The address ranges your collectors sweep for SNMP agents; what they find is listed under <a href="${COLLECTORS_PATH}/discovered">Discovered</a>. Credentials are stored encrypted and never shown: only your collectors' ingest keys receive them.`,
  })}
${view.done ? notice('success', view.done) : ''}
${admin ? '' : notice('info', 'You can see the discovery ranges of your company. Only admins can add, change or delete them.')}
<div class="card card-flush collector-table">${ranges}</div>
${admin ? addRangeForm(view) : ''}`;
  return settingsShell(body, session, 'collectors');
}
