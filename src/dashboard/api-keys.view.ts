import { TEXT_MAX } from '../kernel/rules.js';
import type { ApiKeyInfo } from '../features/api-key/api-key.service.js';
import { EXPIRY_WARNING_DAYS, expiryState } from '../features/api-key/api-key.rules.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { exactTime, relativeTime, shortDate } from './format.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, csrfInput, emptyState, notice, pageHeader } from './layout.js';

const PATH = '/settings/integrations/api-keys';
/** Where Settings > Account > Password lives. */
export const PASSWORD_PATH = '/settings/account/password';
const CRUMBS = [{ label: 'Settings', href: PATH }, { label: 'Integrations', href: PATH }, { label: 'API keys' }];

/**
 * The settings area: its side navigation and the page. The audit log is
 * listed for admins only, as only they may open it.
 */
export function settingsShell(content: SafeHtml, session: ActiveSession, current: 'api-keys' | 'webhooks' | 'alert-receivers' | 'collectors' | 'discovered' | 'audit-log' | 'password' = 'api-keys'): SafeHtml {
  const link = (href: string, page: typeof current, label: string) =>
    html`<a href="${href}"${current === page ? raw(' aria-current="page"') : ''}>${label}</a>`;
  return html`<div class="settings">
  <aside class="subnav" aria-label="Settings">
    <p class="subnav-title">Settings</p>
    <p class="subnav-group">Integrations</p>
    ${link(PATH, 'api-keys', 'API keys')}
    ${link('/settings/integrations/webhooks', 'webhooks', 'Webhooks')}
    ${link('/settings/integrations/alert-receivers', 'alert-receivers', 'Alert receivers')}
    <p class="subnav-group">Devices</p>
    ${link('/settings/collectors', 'collectors', 'Collectors')}
    ${link('/settings/collectors/discovered', 'discovered', 'Discovered')}
    ${session.user.role === 'admin' ? html`<p class="subnav-group">Security</p>${link('/settings/audit-log', 'audit-log', 'Audit log')}` : ''}
    <p class="subnav-group">Account</p>
    ${link(PASSWORD_PATH, 'password', 'Password')}
  </aside>
  <div class="settings-main">${content}</div>
</div>`;
}

function timeCell(at: string | null, now: Date, never: string): SafeHtml {
  if (at === null) return html`<span class="muted">${never}</span>`;
  return html`<time datetime="${at}" title="${exactTime(at)}">${relativeTime(at, now)}</time>`;
}

/** When the key expires; a warning badge within EXPIRY_WARNING_DAYS of it (the list and the key's page). */
export function expiryCell(key: ApiKeyInfo, now: Date): SafeHtml {
  if (key.expiresAt === null) return html`<span class="muted">Never</span>`;
  const time = html`<time datetime="${key.expiresAt}" title="${exactTime(key.expiresAt)}">${shortDate(key.expiresAt)}</time>`;
  return expiryState(key.expiresAt, now) === 'soon' && key.revokedAt === null
    ? html`${time} <span data-expiry-warning>${badge('warning', `Expires ${relativeTime(key.expiresAt, now)}`)}</span>`
    : time;
}

/** The last use, and the client address it came from (the list and the key's page). */
export function lastUseCell(key: ApiKeyInfo, now: Date): SafeHtml {
  if (key.lastUsedAt === null || key.lastUsedAddress === null) return timeCell(key.lastUsedAt, now, 'Never');
  return html`${timeCell(key.lastUsedAt, now, 'Never')}<br><span class="muted">from <code data-last-used-address>${key.lastUsedAddress}</code></span>`;
}

/** The CIDR prefixes the key is allowed from (the list and the key's page). */
export function allowedCell(key: ApiKeyInfo): SafeHtml {
  return key.allowedAddresses.length === 0 ? html`<span class="muted">Any address</span>` : html`${key.allowedAddresses.map((prefix) => html`<code>${prefix}</code> `)}`;
}

/** Active, Revoked or Expired (the list and the key's page). */
export function keyStatusBadge(key: ApiKeyInfo, now: Date): SafeHtml {
  if (key.revokedAt) return html`<span title="Revoked ${exactTime(key.revokedAt)}">${badge('danger', 'Revoked')}</span>`;
  if (expiryState(key.expiresAt, now) === 'expired') return html`<span title="Expired ${exactTime(key.expiresAt as string)}">${badge('danger', 'Expired')}</span>`;
  return badge('success', 'Active');
}

function keyRow(key: ApiKeyInfo, session: ActiveSession, now: Date): SafeHtml {
  const admin = session.user.role === 'admin';
  const live = key.revokedAt === null && expiryState(key.expiresAt, now) !== 'expired';
  const action =
    admin && live
      ? html`<a class="btn btn-danger-outline btn-sm" href="${PATH}/${key.id}/revoke" data-revoke="${key.id}" data-label="${key.label}">Revoke</a>`
      : '';
  return html`<tr${key.revokedAt ? raw(' class="row-muted"') : ''} data-key-id="${key.id}">
  <td class="strong">${admin ? html`<a href="${PATH}/${key.id}" data-key-page>${key.label}</a>` : key.label}</td>
  <td><code class="key-prefix">${key.prefix}…</code></td>
  <td>${key.scope === 'read_write' ? badge('warning', 'Read and write') : key.scope === 'ingest' ? badge('neutral', 'Ingest') : badge('neutral', 'Read only')}</td>
  <td><time datetime="${key.createdAt}" title="${exactTime(key.createdAt)}">${shortDate(key.createdAt)}</time></td>
  <td>${expiryCell(key, now)}</td>
  <td>${allowedCell(key)}</td>
  <td>${lastUseCell(key, now)}</td>
  <td>${keyStatusBadge(key, now)}</td>
  ${admin ? html`<td class="actions">${action}</td>` : ''}
</tr>`;
}

/** What the add form holds: what was typed, and why a field was refused. */
export interface KeyForm {
  readonly label: string;
  readonly scope: string;
  readonly expires: string;
  readonly allow: string;
  readonly error?: { readonly field: 'label' | 'expires' | 'allow'; readonly message: string };
}

/** A text field of the add form, with its help or its error. */
function textField(form: KeyForm, field: 'label' | 'expires' | 'allow', label: string, attributes: { placeholder: string; maxlength?: number; help: string; grow?: boolean }): SafeHtml {
  const error = form.error?.field === field ? form.error.message : undefined;
  return html`<label class="field${attributes.grow ? ' field-grow' : ''}">
    <span class="field-label">${label}</span>
    <input type="text" name="${field}" value="${form[field]}"${attributes.maxlength === undefined ? '' : raw(` maxlength="${attributes.maxlength}"`)}${field === 'label' ? raw(' required') : ''} placeholder="${attributes.placeholder}" aria-describedby="${field}-help"${error ? raw(' aria-invalid="true"') : ''}>
    ${error ? html`<span class="field-error" id="${field}-help">${error}</span>` : html`<span class="field-help" id="${field}-help">${attributes.help}</span>`}
  </label>`;
}

function scopeOption(value: string, label: string, form: KeyForm): SafeHtml {
  return html`<option value="${value}"${form.scope === value ? raw(' selected') : ''}>${label}</option>`;
}

function addForm(session: ActiveSession, form: KeyForm): SafeHtml {
  return html`<form method="post" action="${PATH}" class="card add-key" novalidate>
  ${csrfInput(session.csrfToken)}
  ${textField(form, 'label', 'Label', { placeholder: 'e.g. billing-sync', maxlength: TEXT_MAX.apiKeyLabel, help: 'Say what will use the key, so you know what breaks when you revoke it.', grow: true })}
  <label class="field">
    <span class="field-label">Scope</span>
    <select name="scope">${scopeOption('read', 'Read only', form)}${scopeOption('read_write', 'Read and write', form)}${scopeOption('ingest', 'Ingest (device reports)', form)}</select>
  </label>
  ${textField(form, 'expires', 'Expires', { placeholder: 'never', help: `Empty for never, a lifetime (90d, 12h) or a date (2027-01-31). Flagged ${EXPIRY_WARNING_DAYS} days ahead.` })}
  ${textField(form, 'allow', 'Allowed from', { placeholder: 'any address', help: 'Empty for any address, or CIDRs separated by spaces: 10.0.0.0/8 2001:db8::/32.', grow: true })}
  <button type="submit" class="btn btn-primary">Add API key</button>
</form>`;
}

function revokeDialog(session: ActiveSession): SafeHtml {
  return html`<dialog class="dialog" id="revoke-dialog" aria-labelledby="revoke-title">
  <form method="post" action="" class="dialog-body">
    ${csrfInput(session.csrfToken)}
    <h2 id="revoke-title">Revoke <span data-dialog-label></span>?</h2>
    <p>Requests with this key are refused immediately, on every server. This cannot be undone.</p>
    <div class="dialog-actions">
      <button type="button" class="btn btn-secondary" data-dialog-cancel>Cancel</button>
      <button type="submit" class="btn btn-danger">Revoke key</button>
    </div>
  </form>
</dialog>`;
}

/** The key list, with the add form and revoke actions for admins. */
export function renderKeyList(view: {
  session: ActiveSession;
  keys: readonly ApiKeyInfo[];
  form: KeyForm;
  revoked: ApiKeyInfo | undefined;
  /** The discovery ranges the revoked key held, and where they are listed. */
  revokedRanges?: HeldRanges;
}): SafeHtml {
  const { session, keys } = view;
  const admin = session.user.role === 'admin';
  const now = new Date();
  const table = keys.length === 0
    ? emptyState('No API keys yet', admin ? 'Add a key for each script or integration, so you can revoke them one by one.' : 'An admin of your company can add keys here.')
    : html`<table class="table">
  <thead><tr><th>Label</th><th>Key</th><th>Scope</th><th>Created</th><th>Expires</th><th>Allowed from</th><th>Last used</th><th>Status</th>${admin ? raw('<th class="actions"><span class="sr-only">Actions</span></th>') : ''}</tr></thead>
  <tbody>${keys.map((k) => keyRow(k, session, now))}</tbody>
</table>`;
  return html`${pageHeader({
    title: 'API keys',
    crumbs: CRUMBS,
    description: html`Keys let scripts and integrations read the data of ${session.user.companyName} through the GraphQL API, and change it with the read and write scope. Each key works for this company only; give every integration its own, so you can revoke one without breaking the others.`,
  })}
${view.revoked ? notice('success', html`Revoked <strong>${view.revoked.label}</strong>. Requests with it now get 401.`) : ''}
${view.revoked && view.revokedRanges && view.revokedRanges.count > 0 ? notice('warning', html`<strong>${view.revoked.label}</strong> ${heldText(view.revokedRanges, 'held')}`) : ''}
${admin ? addForm(session, view.form) : notice('info', 'You can see the keys of your company. Only admins can add or revoke API keys.')}
<div class="card card-flush key-table">${table}</div>
${admin ? revokeDialog(session) : ''}`;
}

/** The one screen that shows a new key's value, with a copy button and the warning that it will not be shown again. */
export function renderCreatedKey(key: ApiKeyInfo & { key: string }): SafeHtml {
  return html`${pageHeader({ title: 'API key created', crumbs: CRUMBS })}
${notice('warning', html`<strong>Copy the key now.</strong> This is the only time it is shown: netgraph keeps only a hash of it, so it cannot be shown again. Store it in your secret manager.`)}
<div class="card new-key">
  <p class="field-label">New ${key.scope === 'read_write' ? 'read and write' : key.scope === 'ingest' ? 'ingest' : 'read-only'} key for <strong>${key.label}</strong></p>
  <div class="copy-row">
    <input type="text" id="new-key" class="key-value" value="${key.key}" readonly aria-label="The new API key" autocomplete="off" spellcheck="false">
    <button type="button" class="btn btn-primary" data-copy-target="new-key">Copy</button>
  </div>
  <p class="field-help">Send it as <code>Authorization: Bearer &lt;key&gt;</code>. Visible part: <code>${key.prefix}…</code></p>
  <p><a class="btn btn-secondary" href="${PATH}">Done, back to API keys</a></p>
</div>`;
}

/** The discovery ranges a collector's key holds alone (swept by no one once it is revoked), and the page that lists them. */
export interface HeldRanges {
  readonly count: number;
  readonly href: string;
}

/** "holds 2 discovery ranges, which no collector sweeps once it is revoked …", in the tense of `verb`. */
function heldText(held: HeldRanges, verb: 'holds' | 'held'): SafeHtml {
  const ranges = held.count === 1 ? '1 discovery range' : `${held.count} discovery ranges`;
  const when = verb === 'held' ? 'which no collector sweeps now' : 'which no collector sweeps once it is revoked';
  return html`${verb} <a href="${held.href}">${ranges}</a>, ${when}: they are not handed to another collector (their credentials were given for this one). Choose another collector for each, or delete them.`;
}

/** The confirmation page of a revocation, used when JavaScript is off; it says which discovery ranges the key leaves unswept. */
export function renderRevokeConfirmation(key: ApiKeyInfo, session: ActiveSession, held?: HeldRanges): SafeHtml {
  return html`${pageHeader({ title: 'Revoke API key', crumbs: CRUMBS })}
<form method="post" action="${PATH}/${key.id}/revoke" class="card confirm">
  ${csrfInput(session.csrfToken)}
  <h2>Revoke <strong>${key.label}</strong> (<code>${key.prefix}…</code>)?</h2>
  <p>Requests with this key are refused immediately, on every server. This cannot be undone.</p>
  ${held && held.count > 0 ? notice('warning', html`This key ${heldText(held, 'holds')}`) : ''}
  <div class="dialog-actions">
    <a class="btn btn-secondary" href="${PATH}">Cancel</a>
    <button type="submit" class="btn btn-danger">Revoke key</button>
  </div>
</form>`;
}
