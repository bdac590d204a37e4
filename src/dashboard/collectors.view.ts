import type { ActiveSession } from '../features/user/user.service.js';
import { settingsShell } from './api-keys.view.js';
import { addTargetForm, editTargetForm, COLLECTORS_PATH } from './collector-form.view.js';
import { renderSource } from './device-source.view.js';
import type { FormState } from './forms.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, csrfInput, emptyState, notice, pageHeader } from './layout.js';
import type { CollectorNetwork, CollectorTargetItem } from './documents.js';

const CRUMBS = [{ label: 'Settings', href: COLLECTORS_PATH }, { label: 'Collectors', href: COLLECTORS_PATH }];
const API_KEYS_PATH = '/settings/integrations/api-keys';

/** What Settings > Collectors shows: the company's devices with their sources, its targets, and the add form's state. */
export interface CollectorsView {
  readonly session: ActiveSession;
  readonly networks: readonly CollectorNetwork[];
  readonly targets: readonly CollectorTargetItem[];
  /** How many discovered devices wait to be adopted or ignored. */
  readonly newDiscovered: number;
  readonly form: FormState;
  /** The server's address as the browser reached it, for the collector's --server. */
  readonly serverUrl: string;
  readonly now: Date;
  readonly done?: string;
}

type Device = CollectorNetwork['virtualDevices'][number];

/** Each device of the company by UUID, with its network. */
export function devicesOf(networks: readonly CollectorNetwork[]): Map<string, { network: CollectorNetwork; device: Device }> {
  return new Map(networks.flatMap((network) => network.virtualDevices.map((device) => [device.UUID, { network, device }] as const)));
}

/** The credentials' kind, never the credentials: "v3 authPriv · user netgraph · SHA-256 / AES-128" (a target's or a discovery range's). */
export function snmpCell(t: Pick<CollectorTargetItem, 'snmpVersion' | 'snmpUser' | 'snmpLevel' | 'authProtocol' | 'privProtocol'>): SafeHtml {
  if (t.snmpVersion === '2c') return html`v2c<br><span class="muted">community</span>`;
  const protocols = [t.snmpLevel, t.authProtocol?.toUpperCase().replace(/^SHA(\d)/, 'SHA-$1'), t.privProtocol === null ? null : t.privProtocol === 'aes' ? 'AES-128' : 'AES-256'].filter((p) => p != null);
  return html`v3, user <span class="strong">${t.snmpUser ?? ''}</span><br><span class="muted nowrap">${protocols.join(' · ')}</span>`;
}

function targetRow(view: CollectorsView, t: CollectorTargetItem, found: { network: CollectorNetwork; device: Device } | undefined): SafeHtml {
  const admin = view.session.user.role === 'admin';
  const source = found?.device.source ?? null;
  const device = found
    ? html`<a class="nowrap" href="/networks/${found.network.UUID}/devices/${found.device.UUID}">${found.device.label}</a><br><span class="muted">${found.network.label}</span><br><code class="muted">${found.device.hardwareDevice?.serialNumber ?? ''}</code>`
    : html`<code class="muted">${t.virtualDeviceUUID}</code>`;
  return html`<tr data-target-id="${t.UUID}">
  <td class="nowrap"><code class="strong">${t.host}:${t.port}</code><br><span class="muted" data-interval>every ${t.intervalSeconds} s</span></td>
  <td>${snmpCell(t)}</td>
  <td>${device}</td>
  <td class="target-source">${source?.kind === 'COLLECTOR' ? renderSource(source, view.now) : source === null ? html`<span class="muted">Not polled yet</span>` : renderSource(source, view.now)}</td>
  ${admin
    ? html`<td class="actions"><div class="target-actions"><a class="btn btn-secondary btn-sm" href="${COLLECTORS_PATH}/${t.UUID}/edit">Edit</a>
  <form method="post" action="${COLLECTORS_PATH}/${t.UUID}/delete" class="inline-form" data-confirm="Delete the target ${t.host}? Collectors stop polling it when they next fetch their targets.">
  ${csrfInput(view.session.csrfToken)}<button type="submit" class="btn btn-danger-outline btn-sm">Delete</button></form></div></td>`
    : ''}
</tr>`;
}

/** How to run a collector for the company: an ingest key in a file, the server's address. */
function runCollector(serverUrl: string): SafeHtml {
  return html`<section class="card run-collector" id="run-collector">
  <h2>Run a collector</h2>
  <p>A collector polls these targets over SNMP and posts what it reads to this server. It needs an API key of your company with the <strong>Ingest</strong> scope: create one under <a href="${API_KEYS_PATH}">Settings › API keys</a>, bound to the collector's address (allowed addresses) and with an expiry. Then, in a netgraph installation on a machine that reaches the devices (UDP 161) and this server, as a user of its own:</p>
  <pre class="command"><code>umask 077; printf '%s\\n' 'ngk_…' &gt; collector.key   # the ingest key
npx netgraph collector --server ${serverUrl} --key-file collector.key \\
    --spool /var/lib/netgraph-collector/spool</code></pre>
  <p class="field-help">It fetches the targets and its discovery ranges at start and every minute, polls each target at its interval, sweeps each range at its own, and keeps reports in the spool while this server cannot be reached. <code>--once --json</code> polls once and prints what it would send. Behind HTTPS where the path leaves a trusted network: the answer to the collector carries the credentials. docs/collector.md says more.</p>
</section>`;
}

/** The page: the targets with the source of their devices, edit and delete, the add form (admins), how to run a collector. */
export function renderCollectors(view: CollectorsView): SafeHtml {
  const { session } = view;
  const admin = session.user.role === 'admin';
  const devices = devicesOf(view.networks);
  const actions = admin ? raw('<th class="actions"><span class="sr-only">Actions</span></th>') : '';
  const targets = view.targets.length === 0
    ? emptyState('No collector targets yet', admin ? 'Add a device\'s SNMP agent below, then run a collector.' : 'An admin of your company can add targets here.')
    : html`<table class="table" id="collector-targets"><thead><tr><th>Agent</th><th>SNMP</th><th>Device</th><th>Latest poll</th>${actions}</tr></thead>
<tbody>${view.targets.map((t) => targetRow(view, t, devices.get(t.virtualDeviceUUID)))}</tbody></table>`;
  const body = html`${pageHeader({
    title: 'Collectors',
    crumbs: [{ label: 'Settings', href: COLLECTORS_PATH }, { label: 'Collectors' }],
    description: 'The devices your SNMP collectors poll (targets), with each one\'s latest poll. Credentials are stored encrypted and never shown: only your collectors\' ingest keys receive them.',
  })}
${view.done ? notice('success', view.done) : ''}
${admin ? '' : notice('info', 'You can see the collector targets of your company. Only admins can add or change them.')}
<p class="discovered-link"><a href="${COLLECTORS_PATH}/discovered" id="discovered-link">Discovered devices</a> <span data-discovered-count>${badge(view.newDiscovered > 0 ? 'accent' : 'neutral', `${view.newDiscovered} new`)}</span> · <a href="${COLLECTORS_PATH}/ranges" id="ranges-link">Discovery ranges</a></p>
<div class="card card-flush collector-table">${targets}</div>
${admin ? addTargetForm(session, view.form, view.networks, new Set(view.targets.map((t) => t.virtualDeviceUUID))) : ''}
${runCollector(view.serverUrl)}`;
  return settingsShell(body, session, 'collectors');
}

/** A target's edit page: what it polls, its settings (credentials never) and its latest poll. */
export function renderEditTarget(view: Omit<CollectorsView, 'targets' | 'done' | 'serverUrl' | 'newDiscovered'> & { target: CollectorTargetItem }): SafeHtml {
  const { target } = view;
  const found = devicesOf(view.networks).get(target.virtualDeviceUUID);
  const body = html`${pageHeader({
    title: `Target ${target.host}`,
    crumbs: [...CRUMBS, { label: target.host }],
    description: html`Polled as ${found ? html`<strong>${found.device.label}</strong> of ${found.network.label}` : target.virtualDeviceUUID}. Latest poll: ${found?.device.source ? renderSource(found.device.source, view.now) : 'none yet'}.`,
  })}
${editTargetForm(view.session, target.UUID, view.form)}`;
  return settingsShell(body, view.session, 'collectors');
}
