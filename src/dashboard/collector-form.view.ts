import { INTERVAL_SECONDS } from '../kernel/snmp-target.js';
import type { ActiveSession } from '../features/user/user.service.js';
import type { FormState } from './forms.js';
import { inputField } from './forms.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { csrfInput, notice } from './layout.js';
import type { CollectorNetwork } from './documents.js';

/** Where Settings > Collectors lives. */
export const COLLECTORS_PATH = '/settings/collectors';

/** The service's field names (its refusals name them) as the target form names them. */
export const TARGET_FORM_FIELDS: Readonly<Record<string, string>> = {
  virtualDeviceUUID: 'virtualDeviceUUID',
  host: 'host',
  port: 'port',
  intervalSeconds: 'intervalSeconds',
  snmp: 'version',
  'snmp.version': 'version',
  'snmp.community': 'community',
  'snmp.user': 'user',
  'snmp.level': 'level',
  'snmp.authProtocol': 'authProtocol',
  'snmp.authKey': 'authKey',
  'snmp.privProtocol': 'privProtocol',
  'snmp.privKey': 'privKey',
  uplinks: 'uplinks',
  uplinkProbes: 'uplinkProbes',
};

/** The form's choices: the SHA-2 family for authentication (SHA-1 only where a target has it already), AES for privacy. */
const AUTH_PROTOCOLS = [['sha256', 'SHA-256'], ['sha224', 'SHA-224'], ['sha384', 'SHA-384'], ['sha512', 'SHA-512']] as const;
const PRIV_PROTOCOLS = [['aes', 'AES-128'], ['aes256b', 'AES-256 (Blumenthal key extension)'], ['aes256r', 'AES-256 (Reeder key extension)']] as const;
/** The credential fields: password inputs, never filled from anything stored or typed before. */
export const SECRET_FIELDS = ['community', 'authKey', 'privKey'] as const;

/** A select with its label beside it, and the field's error (or help) below it; ids are `target-NAME`. */
export function select(form: FormState, name: string, label: string, options: readonly (readonly [string, string])[], help?: string, extra = ''): SafeHtml {
  const error = form.errors[name];
  const id = `target-${name}`;
  // a label beside the select, not around it: its accessible name is the label alone, not the label and the chosen option
  return html`<div class="field"><label class="field-label" for="${id}">${label}</label>
    <select name="${name}" id="${id}"${raw(extra)}${error || help ? html` aria-describedby="${id}-help"` : ''}>${options.map(([value, text]) => html`<option value="${value}"${form.values[name] === value ? raw(' selected') : ''}>${text}</option>`)}</select>
    ${error ? html`<span class="field-error" id="${id}-help">${error}</span>` : help ? html`<span class="field-help" id="${id}-help">${help}</span>` : ''}
  </div>`;
}

/** A password input that never carries a value: what was stored or typed is not sent back into a page. */
function secretField(form: FormState, name: (typeof SECRET_FIELDS)[number], label: string, help: string): SafeHtml {
  return inputField({ values: {}, errors: form.errors }, { name, label, id: `target-${name}`, type: 'password', help, extra: 'autocomplete="new-password"' });
}

/** The device choice of the add form: each network's devices with hardware assigned and no target yet. */
function deviceField(form: FormState, networks: readonly CollectorNetwork[], taken: ReadonlySet<string>): SafeHtml {
  const groups = networks
    .map((n) => ({ label: n.label, devices: n.virtualDevices.filter((d) => d.hardwareDevice !== null && !taken.has(d.UUID)) }))
    .filter((g) => g.devices.length > 0);
  const error = form.errors['virtualDeviceUUID'];
  return html`<div class="field field-wide"><label class="field-label" for="target-virtualDeviceUUID">Device</label>
    <select name="virtualDeviceUUID" id="target-virtualDeviceUUID" aria-describedby="target-virtualDeviceUUID-help">${groups.length === 0 ? html`<option value="">No device without a target</option>` : ''}${groups.map(
      (g) => html`<optgroup label="${g.label}">${g.devices.map(
        (d) => html`<option value="${d.UUID}"${form.values['virtualDeviceUUID'] === d.UUID ? raw(' selected') : ''}>${d.label} (${d.hardwareDevice?.serialNumber ?? ''})</option>`,
      )}</optgroup>`,
    )}</select>
    ${error ? html`<span class="field-error" id="target-virtualDeviceUUID-help">${error}</span>` : html`<span class="field-help" id="target-virtualDeviceUUID-help">The collector reports what it reads as this device's hardware (serial number in brackets). Devices without hardware assigned, or with a target already, are not listed.</span>`}
  </div>`;
}

/** The fields of a target, add and edit alike: the agent, SNMPv2c or v3 credentials, the interval and the uplinks. */
function targetFields(form: FormState, editing: boolean): SafeHtml {
  return html`${inputField(form, { name: 'host', label: 'Agent address', id: 'target-host', help: 'The device\'s management IP address or host name.', extra: 'required' })}
  ${pollFields(form, editing)}
  ${inputField(form, { name: 'uplinks', label: 'Uplinks', id: 'target-uplinks', help: 'Interface names (ifName), separated by spaces or commas, e.g. ge-0/0/47.' })}
  ${inputField(form, { name: 'uplinkProbes', label: 'Uplink probes', id: 'target-uplinkProbes', help: 'uplink=host:port, one per uplink, e.g. eth0=198.51.100.1:443.' })}`;
}

const POLL_INTERVAL = { label: 'Poll interval (seconds)', help: `${INTERVAL_SECONDS.min} to ${INTERVAL_SECONDS.max}; blank: ${INTERVAL_SECONDS.default}.` };

/**
 * How a target is polled, for the target forms and the adoption form alike:
 * the UDP port, SNMPv2c or v3 credentials (password fields, never filled)
 * and the interval (a discovery range's form names its own).
 */
export function pollFields(form: FormState, editing: boolean, interval: { label: string; help: string } = POLL_INTERVAL): SafeHtml {
  const keep = editing ? ' Leave blank to keep the stored one.' : '';
  const auth = form.values['authProtocol'] === 'sha' ? [...AUTH_PROTOCOLS, ['sha', 'SHA-1 (legacy)'] as const] : AUTH_PROTOCOLS;
  return html`${inputField(form, { name: 'port', label: 'UDP port', id: 'target-port', type: 'number', help: 'Blank: 161.' })}
  ${select(form, 'version', 'SNMP version', [['3', 'SNMPv3 (USM)'], ['2c', 'SNMPv2c (community)']], 'Prefer v3: a v2c community crosses the network in the clear.', ' data-snmp-version')}
  ${inputField(form, { name: 'intervalSeconds', label: interval.label, id: 'target-intervalSeconds', type: 'number', help: interval.help })}
  <fieldset class="field field-wide target-v3" data-snmp-fields="3"><legend class="field-label">SNMPv3</legend>
    <div class="form-grid">
    ${inputField(form, { name: 'user', label: 'User', id: 'target-user', extra: 'autocomplete="off"' })}
    ${select(form, 'level', 'Security level', [['authPriv', 'authPriv (authenticated, encrypted)'], ['authNoPriv', 'authNoPriv (authenticated only)']])}
    ${select(form, 'authProtocol', 'Authentication', auth)}
    ${secretField(form, 'authKey', 'Authentication password', `8 to 255 characters; stored encrypted, never shown.${keep}`)}
    ${select(form, 'privProtocol', 'Privacy', PRIV_PROTOCOLS, 'For authPriv.')}
    ${secretField(form, 'privKey', 'Privacy password', `For authPriv; 8 to 255 characters, stored encrypted, never shown.${keep}`)}
    </div>
  </fieldset>
  <fieldset class="field field-wide target-v2c" data-snmp-fields="2c"><legend class="field-label">SNMPv2c</legend>
    <div class="form-grid">
    ${secretField(form, 'community', 'Community', `Stored encrypted, never shown.${keep}`)}
    </div>
  </fieldset>`;
}

/** The add form: a device, the agent and its credentials. */
export function addTargetForm(session: ActiveSession, form: FormState, networks: readonly CollectorNetwork[], taken: ReadonlySet<string>): SafeHtml {
  return html`<form method="post" action="${COLLECTORS_PATH}" class="card webhook-form" id="add-target" novalidate>
  ${csrfInput(session.csrfToken)}
  <h2>Add target</h2>
  ${form.message ? notice('error', form.message) : ''}
  ${deviceField(form, networks, taken)}
  ${targetFields(form, false)}
  <button type="submit" class="btn btn-primary">Add target</button>
</form>`;
}

/** A target's edit form: its settings filled in, its credentials never. */
export function editTargetForm(session: ActiveSession, targetUUID: string, form: FormState): SafeHtml {
  return html`<form method="post" action="${COLLECTORS_PATH}/${targetUUID}/edit" class="card webhook-form" id="edit-target" novalidate>
  ${csrfInput(session.csrfToken)}
  <h2>Settings</h2>
  ${form.message ? notice('error', form.message) : ''}
  ${targetFields(form, true)}
  <p class="field-wide field-help">The credentials are replaced whole: to change the version, user, level or protocols, enter the passwords (or the community) again.</p>
  <div class="field-wide"><button type="submit" class="btn btn-primary">Save target</button> <a class="btn btn-secondary" href="${COLLECTORS_PATH}">Cancel</a></div>
</form>`;
}
