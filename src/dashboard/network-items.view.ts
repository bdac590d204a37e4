import { SSID_MAX_BYTES, TEXT_MAX, VLAN_ID } from '../kernel/rules.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { checkboxField, formState, inputField } from './forms.js';
import type { FormState } from './forms.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, csrfInput, emptyState, notice } from './layout.js';
import type { NetworkDetail } from './documents.js';

/** The attributes of a VLAN number input: the rule's bounds. */
const VLAN_ID_BOUNDS = `min="${VLAN_ID.min}" max="${VLAN_ID.max}"`;

/**
 * Which VLAN or SSID form of the network page is open, and what it holds:
 * `vlan-new` and `ssid-new` are the add forms, a UUID is that row's edit
 * form (opened with `?edit=<UUID>`, or re-shown after a refused submit).
 */
export interface ItemsState {
  readonly target: string;
  readonly form: FormState;
}

/** The form fields of a VLAN, by the names the VLAN service gives in its errors. */
export const VLAN_FIELDS: Record<string, string> = { name: 'name', vlanID: 'vlanID', isEnabled: 'enabled', isDefault: 'default', description: 'description' };
/** The form fields of an SSID, by the names the SSID service gives in its errors. */
export const SSID_FIELDS: Record<string, string> = {
  ssid: 'ssid',
  isEnabled: 'enabled',
  isGuest: 'guest',
  isHidden: 'hidden',
  encryptionProtocol: 'encryption',
  vlanID: 'vlan',
};

const on = (flag: boolean): string => (flag ? 'on' : '');

type Vlan = NetworkDetail['network']['vlans'][number];
type Ssid = NetworkDetail['network']['ssids'][number];

/** The state of a row's edit form as opened from the page: the stored values. */
export function openEditState(detail: NetworkDetail, uuid: string): ItemsState | undefined {
  const vlan = detail.network.vlans.find((v) => v.UUID === uuid);
  if (vlan) {
    const values = { name: vlan.name, vlanID: String(vlan.vlanID), enabled: on(vlan.isEnabled), default: on(vlan.isDefault), description: vlan.description ?? '' };
    return { target: uuid, form: formState(values) };
  }
  const ssid = detail.network.ssids.find((s) => s.UUID === uuid);
  if (ssid) {
    const values = {
      ssid: ssid.ssid,
      enabled: on(ssid.isEnabled),
      guest: on(ssid.isGuest),
      hidden: on(ssid.isHidden),
      encryption: ssid.encryptionProtocol ?? '',
      vlan: ssid.vlan === null ? '' : String(ssid.vlan.vlanID),
    };
    return { target: uuid, form: formState(values) };
  }
  return undefined;
}

function formOf(state: ItemsState | undefined, target: string, fallback: FormState): FormState {
  return state?.target === target ? state.form : fallback;
}

function enabledBadge(isEnabled: boolean): SafeHtml {
  return isEnabled ? badge('success', 'Enabled') : badge('neutral', 'Disabled');
}

/**
 * A row being edited: its inputs belong to a form in the last cell (forms
 * cannot wrap table rows). Delete asks first (web/app.js reads data-confirm;
 * without a script, Delete is still one step behind Edit).
 */
function editRow(base: string, uuid: string, cells: SafeHtml, session: ActiveSession, form: FormState, page: string, what: string): SafeHtml {
  const id = `edit-${uuid}`;
  return html`<tr class="row-editing" data-item="${uuid}">${cells}
  <td class="actions">
    <form method="post" action="${base}/${uuid}" id="${id}" class="inline-form">${csrfInput(session.csrfToken)}<button type="submit" class="btn btn-primary btn-sm">Save</button></form>
    <a class="btn btn-ghost btn-sm" href="${page}">Cancel</a>
    <form method="post" action="${base}/${uuid}/delete" class="inline-form" data-confirm="Delete ${what}? This cannot be undone.">${csrfInput(session.csrfToken)}<button type="submit" class="btn btn-danger-outline btn-sm">Delete</button></form>
  </td>
</tr>
${form.message ? html`<tr><td colspan="6">${notice('error', form.message)}</td></tr>` : ''}`;
}

/** An input of an edited row's cell, tied to the row's form. */
function cellInput(form: FormState, uuid: string, field: { name: string; label: string; type?: 'text' | 'number'; extra?: string }): SafeHtml {
  return html`<td>${inputField(form, { ...field, id: `${field.name}-${uuid}`, extra: `form="edit-${uuid}"${field.extra ? ` ${field.extra}` : ''}` })}</td>`;
}

function cellCheckbox(form: FormState, uuid: string, name = 'enabled', label = 'Enabled'): SafeHtml {
  return html`<td>${rowCheckbox(form, uuid, name, label)}</td>`;
}

/** A checkbox of an edited row, tied to the row's form, with its error. */
function rowCheckbox(form: FormState, uuid: string, name: string, label: string): SafeHtml {
  return html`<label class="field-check"><input type="checkbox" name="${name}" form="edit-${uuid}"${form.values[name] === 'on' ? html` checked` : ''}><span>${label}</span></label>${form.errors[name] ? html`<span class="field-error">${form.errors[name]}</span>` : ''}`;
}

/** Yes for a set flag, nothing otherwise. */
function flagCell(flag: boolean, label: string): SafeHtml {
  return html`<td>${flag ? badge('accent', label) : ''}</td>`;
}

function vlanRow(vlan: Vlan, base: string, page: string, session: ActiveSession, state: ItemsState | undefined): SafeHtml {
  if (state?.target === vlan.UUID) {
    const form = state.form;
    const cells = html`${cellInput(form, vlan.UUID, { name: 'name', label: 'Name', extra: `maxlength="${TEXT_MAX.vlanName}"` })}${cellInput(form, vlan.UUID, { name: 'vlanID', label: 'VLAN ID', type: 'number', extra: VLAN_ID_BOUNDS })}${cellInput(form, vlan.UUID, { name: 'description', label: 'Description', extra: `maxlength="${TEXT_MAX.description}"` })}${cellCheckbox(form, vlan.UUID, 'default', 'Default')}${cellCheckbox(form, vlan.UUID)}`;
    return editRow(base, vlan.UUID, cells, session, form, page, `the VLAN “${vlan.name}” (${vlan.vlanID})`);
  }
  return html`<tr data-item="${vlan.UUID}"><td class="strong">${vlan.name}</td><td class="num">${vlan.vlanID}</td><td>${vlan.description ?? ''}</td>${flagCell(vlan.isDefault, 'Default')}<td>${enabledBadge(vlan.isEnabled)}</td>
  <td class="actions"><a class="btn btn-secondary btn-sm" href="${page}?edit=${vlan.UUID}#vlans">Edit</a></td></tr>`;
}

function ssidRow(ssid: Ssid, base: string, page: string, session: ActiveSession, state: ItemsState | undefined): SafeHtml {
  if (state?.target === ssid.UUID) {
    const form = state.form;
    const cells = html`${cellInput(form, ssid.UUID, { name: 'ssid', label: 'SSID', extra: `maxlength="${SSID_MAX_BYTES}"` })}${cellInput(form, ssid.UUID, { name: 'encryption', label: 'Encryption', extra: `maxlength="${TEXT_MAX.encryption}"` })}${cellInput(form, ssid.UUID, { name: 'vlan', label: 'VLAN ID', type: 'number', extra: VLAN_ID_BOUNDS })}<td>${rowCheckbox(form, ssid.UUID, 'guest', 'Guest')}${rowCheckbox(form, ssid.UUID, 'hidden', 'Hidden')}</td>${cellCheckbox(form, ssid.UUID)}`;
    return editRow(base, ssid.UUID, cells, session, form, page, `the SSID “${ssid.ssid}”`);
  }
  const flags = html`${ssid.isGuest ? badge('accent', 'Guest') : ''} ${ssid.isHidden ? badge('neutral', 'Hidden') : ''}`;
  return html`<tr data-item="${ssid.UUID}"><td class="strong">${ssid.ssid}</td><td>${ssid.encryptionProtocol ?? ''}</td><td class="num">${ssid.vlan?.vlanID ?? ''}</td><td>${flags}</td><td>${enabledBadge(ssid.isEnabled)}</td>
  <td class="actions">
    <form method="post" action="${base}/${ssid.UUID}/enabled" class="inline-form">${csrfInput(session.csrfToken)}<input type="hidden" name="enabled" value="${ssid.isEnabled ? 'off' : 'on'}"><button type="submit" class="btn btn-ghost btn-sm">${ssid.isEnabled ? 'Disable' : 'Enable'}</button></form>
    <a class="btn btn-secondary btn-sm" href="${page}?edit=${ssid.UUID}#ssids">Edit</a>
  </td></tr>`;
}

function addForm(action: string, session: ActiveSession, form: FormState, fields: SafeHtml, button: string): SafeHtml {
  return html`<form method="post" action="${action}" class="add-item" novalidate>
  ${csrfInput(session.csrfToken)}
  ${form.message ? notice('error', form.message) : ''}
  <div class="add-item-fields">${fields}<button type="submit" class="btn btn-primary">${button}</button></div>
</form>`;
}

/** The VLANs of a network with an edit action per row and the add form, for admins. */
export function renderVlansForAdmin(detail: NetworkDetail, session: ActiveSession, state: ItemsState | undefined): SafeHtml {
  const page = `/networks/${detail.network.UUID}`;
  const base = `${page}/vlans`;
  const form = formOf(state, 'vlan-new', formState({ enabled: 'on' }));
  const table = detail.network.vlans.length === 0
    ? emptyState('No VLANs', 'Add the first VLAN of this network below.')
    : html`<table class="table"><thead><tr><th>Name</th><th class="num">VLAN ID</th><th>Description</th><th>Default</th><th>Status</th><th class="actions"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${detail.network.vlans.map((v) => vlanRow(v, base, page, session, state))}</tbody></table>`;
  const fields = html`${inputField(form, { name: 'name', label: 'Name', id: 'vlan-new-name', extra: `maxlength="${TEXT_MAX.vlanName}" placeholder="e.g. Staff"` })}
  ${inputField(form, { name: 'vlanID', label: 'VLAN ID', id: 'vlan-new-id', type: 'number', extra: `${VLAN_ID_BOUNDS} placeholder="${VLAN_ID.min}–${VLAN_ID.max}"` })}
  ${inputField(form, { name: 'description', label: 'Description', id: 'vlan-new-description', extra: `maxlength="${TEXT_MAX.description}" placeholder="optional"` })}
  ${checkboxField(form, { name: 'default', label: 'Default' })}
  ${checkboxField(form, { name: 'enabled', label: 'Enabled' })}`;
  return html`${table}${addForm(base, session, form, fields, 'Add VLAN')}`;
}

/** The SSIDs of a network with enable/disable and edit actions per row and the add form, for admins. */
export function renderSsidsForAdmin(detail: NetworkDetail, session: ActiveSession, state: ItemsState | undefined): SafeHtml {
  const page = `/networks/${detail.network.UUID}`;
  const base = `${page}/ssids`;
  const form = formOf(state, 'ssid-new', formState({ enabled: 'on' }));
  const table = detail.network.ssids.length === 0
    ? emptyState('No SSIDs', 'Add the first wireless network below.')
    : html`<table class="table"><thead><tr><th>SSID</th><th>Encryption</th><th class="num">VLAN ID</th><th>Flags</th><th>Status</th><th class="actions"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${detail.network.ssids.map((s) => ssidRow(s, base, page, session, state))}</tbody></table>`;
  const fields = html`${inputField(form, { name: 'ssid', label: 'SSID', id: 'ssid-new-name', extra: `maxlength="${SSID_MAX_BYTES}" placeholder="e.g. Acme Guest"` })}
  ${inputField(form, { name: 'encryption', label: 'Encryption', id: 'ssid-new-encryption', extra: `maxlength="${TEXT_MAX.encryption}" placeholder="e.g. WPA3"` })}
  ${inputField(form, { name: 'vlan', label: 'VLAN ID', id: 'ssid-new-vlan', type: 'number', extra: `${VLAN_ID_BOUNDS} placeholder="none"` })}
  ${checkboxField(form, { name: 'guest', label: 'Guest' })}
  ${checkboxField(form, { name: 'hidden', label: 'Hidden' })}
  ${checkboxField(form, { name: 'enabled', label: 'Enabled' })}`;
  return html`${table}${addForm(base, session, form, fields, 'Add SSID')}`;
}
