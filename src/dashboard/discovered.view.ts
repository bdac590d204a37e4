import type { ActiveSession } from '../features/user/user.service.js';
import { settingsShell } from './api-keys.view.js';
import { COLLECTORS_PATH, pollFields, select } from './collector-form.view.js';
import { exactTime, relativeTime } from './format.js';
import type { FormState } from './forms.js';
import { inputField } from './forms.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { csrfInput, emptyState, notice, pageHeader } from './layout.js';
import type { AdoptionNetwork, DiscoveredDeviceItem } from './documents.js';

/** Where Settings > Collectors > Discovered lives. */
export const DISCOVERED_PATH = `${COLLECTORS_PATH}/discovered`;
/** The device types a discovered device can be adopted as (the hardware's: OBSERVER takes none). */
const DEVICE_TYPES = [['SWITCH', 'Switch'], ['ACCESS_POINT', 'Access point'], ['CELLULAR_GATEWAY', 'Cellular gateway'], ['CONTROLLER', 'Controller'], ['POWER_DISTRIBUTION_UNIT', 'Power distribution unit']] as const;
const CRUMBS = [{ label: 'Settings', href: COLLECTORS_PATH }, { label: 'Collectors', href: COLLECTORS_PATH }];

/** What the Discovered page shows. */
export interface DiscoveredView {
  readonly session: ActiveSession;
  readonly devices: readonly DiscoveredDeviceItem[];
  readonly now: Date;
  readonly done?: string;
}

function timeCell(at: string, now: Date): SafeHtml {
  return html`<time datetime="${at}" title="${exactTime(at)}">${relativeTime(at, now)}</time>`;
}

/** What the agent says it is: vendor and model, its sysDescr as a tooltip. */
function identity(d: DiscoveredDeviceItem): SafeHtml {
  const kind = [d.vendor, d.model].filter((part) => part !== null).join(' ');
  return html`<span title="${d.sysDescr ?? ''}">${kind === '' ? html`<span class="muted">unknown</span>` : kind}</span>`;
}

function deviceRow(view: DiscoveredView, d: DiscoveredDeviceItem): SafeHtml {
  const admin = view.session.user.role === 'admin';
  const actions = admin
    ? html`<td class="actions"><div class="target-actions"><a class="btn btn-primary btn-sm" href="${DISCOVERED_PATH}/${d.UUID}/adopt">Adopt</a>
  <form method="post" action="${DISCOVERED_PATH}/${d.UUID}/ignore" class="inline-form">${csrfInput(view.session.csrfToken)}<button type="submit" class="btn btn-secondary btn-sm">Ignore</button></form></div></td>`
    : '';
  return html`<tr data-discovered-id="${d.UUID}">
  <td><span class="strong">${d.sysName ?? d.address}</span><br><code class="muted">${d.address}</code> <span class="muted">v${d.snmpVersion}</span></td>
  <td>${identity(d)}</td>
  <td>${d.serialNumber === null ? html`<span class="muted">none</span>` : html`<code>${d.serialNumber}</code>`}</td>
  <td class="nowrap">${timeCell(d.firstSeenAt, view.now)}<br><span class="muted">last ${timeCell(d.lastSeenAt, view.now)}</span></td>
  <td>${d.collectorName ?? html`<span class="muted">unknown</span>`}</td>
  ${actions}
</tr>`;
}

/** The adopted devices, each linked to the virtual device it became. */
function adoptedList(devices: readonly DiscoveredDeviceItem[]): SafeHtml {
  if (devices.length === 0) return html``;
  return html`<section class="card" id="adopted-devices"><h2>Adopted</h2><ul>${devices.map(
    (d) => html`<li><span class="strong">${d.sysName ?? d.address}</span> <code class="muted">${d.address}</code>${d.virtualDeviceUUID === null ? html` <span class="muted">(its device was deleted)</span>` : ''}</li>`,
  )}</ul></section>`;
}

/** The page: the devices waiting to be adopted or ignored (admins get the buttons), the adopted ones, and how many are ignored. */
export function renderDiscovered(view: DiscoveredView): SafeHtml {
  const { session } = view;
  const admin = session.user.role === 'admin';
  const waiting = view.devices.filter((d) => d.state === 'NEW');
  const ignored = view.devices.filter((d) => d.state === 'IGNORED').length;
  const actionsHead = admin ? raw('<th class="actions"><span class="sr-only">Actions</span></th>') : '';
  const table = waiting.length === 0
    ? emptyState('No discovered devices to adopt', 'A collector with a discovery range lists the SNMP agents it finds here (docs/collector.md, Discovery).')
    : html`<table class="table" id="discovered-devices"><thead><tr><th>Device</th><th>Vendor and model</th><th>Serial number</th><th>First seen</th><th>Collector</th>${actionsHead}</tr></thead>
<tbody>${waiting.map((d) => deviceRow(view, d))}</tbody></table>`;
  const body = html`${pageHeader({
    title: 'Discovered devices',
    crumbs: [...CRUMBS, { label: 'Discovered' }],
    description: 'SNMP agents your collectors found by sweeping their discovery ranges. Adopting one adds it to a network (its hardware, a virtual device and a collector target), so your collectors poll it; ignoring one hides it here.',
  })}
${view.done ? notice('success', view.done) : ''}
${admin ? '' : notice('info', 'You can see the devices your collectors found. Only admins can adopt or ignore them.')}
<div class="card card-flush collector-table">${table}</div>
${ignored > 0 ? html`<p class="muted" id="ignored-count">${ignored === 1 ? '1 ignored device is' : `${ignored} ignored devices are`} not listed.</p>` : ''}
${adoptedList(view.devices.filter((d) => d.state === 'ADOPTED'))}`;
  return settingsShell(body, session, 'discovered');
}

/** A discovered device's adoption page: what it is, and the form (network, label, type, and how its collector target polls it). */
export function renderAdopt(view: { session: ActiveSession; device: DiscoveredDeviceItem; networks: readonly AdoptionNetwork[]; form: FormState }): SafeHtml {
  const { device: d, form } = view;
  const name = d.sysName ?? d.address;
  const networks = view.networks.map((n) => [n.UUID, n.label] as const);
  const body = html`${pageHeader({
    title: `Adopt ${name}`,
    crumbs: [...CRUMBS, { label: 'Discovered', href: DISCOVERED_PATH }, { label: name }],
    description: html`${[d.vendor, d.model].filter((p) => p !== null).join(' ') || 'Unknown vendor'} at <code>${d.address}</code>, serial number <code>${d.serialNumber ?? 'none'}</code>. Adopting it registers that hardware, creates a virtual device with it assigned, and a collector target at its address with the credentials below, so your collectors poll it from their next fetch.`,
  })}
<form method="post" action="${DISCOVERED_PATH}/${d.UUID}/adopt" class="card webhook-form" id="adopt-device" novalidate>
  ${csrfInput(view.session.csrfToken)}
  ${form.message ? notice('error', form.message) : ''}
  ${select(form, 'networkUUID', 'Network', networks, 'The network the device joins.')}
  ${inputField(form, { name: 'label', label: 'Label', id: 'target-label', help: 'Its name in netgraph; blank: its sysName, else its address.' })}
  ${select(form, 'deviceType', 'Device type', DEVICE_TYPES)}
  ${pollFields(form, false)}
  <p class="field-wide field-help">netgraph keeps no credentials a sweep used: enter the ones its collector target polls with (stored encrypted, never shown).</p>
  <div class="field-wide"><button type="submit" class="btn btn-primary">Adopt device</button> <a class="btn btn-secondary" href="${DISCOVERED_PATH}">Cancel</a></div>
</form>`;
  return settingsShell(body, view.session, 'discovered');
}
