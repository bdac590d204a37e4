import { TEXT_MAX } from '../kernel/rules.js';
import { ALERT_TYPES } from '../features/webhook/webhook.alerts.js';
import type { EndpointInfo } from '../features/webhook/webhook.rules.js';
import type { DeliveryInfo } from '../features/webhook/webhook.service.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { settingsShell } from './api-keys.view.js';
import { exactTime, humanizeEnum, shortDate } from './format.js';
import type { FormState } from './forms.js';
import { checkboxField, inputField } from './forms.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, csrfInput, emptyState, notice, pageHeader } from './layout.js';
import type { NetworkListItem } from './documents.js';

/** Where Settings > Integrations > Webhooks lives. */
export const WEBHOOKS_PATH = '/settings/integrations/webhooks';
const CRUMBS = [{ label: 'Settings', href: WEBHOOKS_PATH }, { label: 'Integrations', href: WEBHOOKS_PATH }, { label: 'Webhooks' }];

/** The body formats as the page names them. */
const PAYLOAD_FORMAT_LABELS = { STANDARD: 'Standard Webhooks', METER: 'Meter' } as const;

/** The endpoint's state, with why netgraph turned it off and since when it fails. */
function stateBadge(endpoint: EndpointInfo): SafeHtml {
  if (endpoint.disabledReason === 'GONE') return badge('danger', 'Disabled (410 Gone)');
  if (endpoint.disabledReason === 'FAILING') {
    return badge('danger', `Disabled (failing since ${endpoint.failingSince === null ? 'long' : exactTime(endpoint.failingSince)})`);
  }
  if (!endpoint.enabled) return badge('neutral', 'Disabled');
  if (endpoint.failingSince !== null) return badge('warning', `Failing since ${exactTime(endpoint.failingSince)}`);
  return badge('success', 'Enabled');
}

/** A button that POSTs one action of an endpoint or message. */
function actionButton(session: ActiveSession, action: string, label: string, kind = 'btn-secondary', confirm?: string): SafeHtml {
  return html`<form method="post" action="${WEBHOOKS_PATH}/${action}" class="inline-form"${confirm ? html` data-confirm="${confirm}"` : ''}>
  ${csrfInput(session.csrfToken)}<button type="submit" class="btn ${kind} btn-sm">${label}</button>
</form>`;
}

function endpointRow(endpoint: EndpointInfo, session: ActiveSession): SafeHtml {
  const admin = session.user.role === 'admin';
  const alerts = endpoint.rules.map((r) => `${r.alert}${r.threshold === null ? '' : ` > ${r.threshold}`}${r.networks === null ? '' : ` (${r.networks.length} networks)`}`).join(', ');
  const id = endpoint.id;
  return html`<tr data-endpoint-id="${id}">
  <td class="strong">${endpoint.label}<br><code class="muted">${endpoint.url}</code></td>
  <td>${alerts}</td>
  <td>${PAYLOAD_FORMAT_LABELS[endpoint.payloadFormat]}</td>
  <td>${endpoint.authorization === 'NONE' ? 'None' : humanizeEnum(endpoint.authorization)}</td>
  <td>${stateBadge(endpoint)}</td>
  ${admin
    ? html`<td class="actions webhook-actions-cell"><div class="webhook-actions">${actionButton(session, `${id}/${endpoint.enabled ? 'disable' : 'enable'}`, endpoint.enabled ? 'Disable' : 'Enable')}
    ${actionButton(session, `${id}/test`, 'Send test event')}${actionButton(session, `${id}/rotate`, 'Rotate secret')}
    ${actionButton(session, `${id}/delete`, 'Delete', 'btn-danger-outline', `Delete the webhook “${endpoint.label}” and its delivery log?`)}</div></td>`
    : ''}
</tr>`;
}

function deliveryRow(delivery: DeliveryInfo, session: ActiveSession): SafeHtml {
  const last = delivery.log[delivery.log.length - 1];
  const status = last === undefined ? 'pending' : last.status === null ? (last.error ?? 'no answer') : String(last.status);
  return html`<tr data-message-id="${delivery.id}">
  <td><time datetime="${last?.attemptedAt ?? delivery.createdAt}" title="${exactTime(last?.attemptedAt ?? delivery.createdAt)}">${exactTime(last?.attemptedAt ?? delivery.createdAt)}</time></td>
  <td>${delivery.endpointLabel}</td>
  <td><code>${delivery.alert}</code><br><code class="muted">${delivery.id}</code></td>
  <td>${delivery.state === 'delivered' ? badge('success', status) : delivery.state === 'failed' ? badge('danger', status) : badge('neutral', status)}</td>
  <td>${last === undefined ? '' : `${last.durationMs} ms`}</td>
  <td><code>${(last?.response ?? '').slice(0, 120)}</code></td>
  ${session.user.role === 'admin' ? html`<td class="actions">${actionButton(session, `deliveries/${delivery.id}/replay`, 'Replay')}</td>` : ''}
</tr>`;
}

/** An alert's name as the form shows it: WAN stays upper case. */
export function alertLabel(alert: string): string {
  // acronyms stay upper case: WAN up, SNMP authentication failure, High CPU usage, API key expiring, STP error port blocked
  return humanizeEnum(alert).replace(/\b(wan|snmp|cpu|api|stp)\b/gi, (word) => word.toUpperCase());
}

function addForm(session: ActiveSession, form: FormState, networks: readonly NetworkListItem[]): SafeHtml {
  return html`<form method="post" action="${WEBHOOKS_PATH}" class="card webhook-form" novalidate>
  ${csrfInput(session.csrfToken)}
  <h2>Add webhook</h2>
  ${form.message ? notice('error', form.message) : ''}
  ${inputField(form, { name: 'label', label: 'Label', id: 'webhook-label', extra: `maxlength="${TEXT_MAX.webhookLabel}" required` })}
  ${inputField(form, { name: 'url', label: 'URL', id: 'webhook-url', help: 'Where netgraph POSTs each alert, e.g. https://hooks.example.com/netgraph' })}
  <fieldset class="field"><legend class="field-label">Alerts</legend>
    <div class="check-grid">${ALERT_TYPES.map((alert) => checkboxField(form, { name: `alert_${alert}`, label: alertLabel(alert) }))}</div>
    ${inputField(form, { name: 'threshold', label: 'Client count threshold', id: 'webhook-threshold', type: 'number', help: 'For Client count above only.' })}
    ${form.errors['rules'] ? html`<span class="field-error">${form.errors['rules']}</span>` : ''}
  </fieldset>
  <fieldset class="field"><legend class="field-label">Networks (none checked: all of them)</legend>
    <div class="check-grid">${networks.map((n) => checkboxField(form, { name: `network_${n.UUID}`, label: n.label }))}</div>
  </fieldset>
  <label class="field"><span class="field-label">Body</span>
    <select name="payloadFormat">${(['STANDARD', 'METER'] as const).map((k) => html`<option value="${k}"${form.values['payloadFormat'] === k ? raw(' selected') : ''}>${PAYLOAD_FORMAT_LABELS[k]}</option>`)}</select>
    <span class="field-help">Meter's body and X-Meter-Signature, for receivers written for Meter's alerts (docs/alerts.md).</span>
  </label>
  <span></span>
  <label class="field"><span class="field-label">Authorization</span>
    <select name="authKind">${['NONE', 'BASIC', 'BEARER'].map((k) => html`<option value="${k}"${form.values['authKind'] === k ? raw(' selected') : ''}>${humanizeEnum(k)}</option>`)}</select>
  </label>
  <span></span>
  ${inputField(form, { name: 'username', label: 'Basic user name', id: 'webhook-username' })}
  ${inputField(form, { name: 'secret', label: 'Basic password or Bearer token', id: 'webhook-auth-secret', type: 'password' })}
  <button type="submit" class="btn btn-primary">Add webhook</button>
</form>`;
}

/** The page: endpoints with their state and actions, the add form for admins, the delivery log with Replay. */
export function renderWebhooks(view: {
  session: ActiveSession;
  endpoints: readonly EndpointInfo[];
  deliveries: readonly DeliveryInfo[];
  networks: readonly NetworkListItem[];
  form: FormState;
  done?: string;
}): SafeHtml {
  const { session } = view;
  const admin = session.user.role === 'admin';
  const actions = admin ? raw('<th class="actions"><span class="sr-only">Actions</span></th>') : '';
  const endpoints = view.endpoints.length === 0
    ? emptyState('No webhooks yet', admin ? 'Add one to have alerts POSTed to your systems.' : 'An admin of your company can add webhooks here.')
    : html`<table class="table" id="webhook-endpoints"><thead><tr><th>Webhook</th><th>Alerts</th><th>Body</th><th>Authorization</th><th>State</th>${actions}</tr></thead>
<tbody>${view.endpoints.map((e) => endpointRow(e, session))}</tbody></table>`;
  const deliveries = view.deliveries.length === 0
    ? emptyState('No deliveries yet', 'Every message and its last attempt shows here.')
    : html`<table class="table" id="webhook-deliveries"><thead><tr><th>Time</th><th>Webhook</th><th>Alert</th><th>Status</th><th>Duration</th><th>Answer</th>${actions}</tr></thead>
<tbody>${view.deliveries.map((d) => deliveryRow(d, session))}</tbody></table>`;
  const body = html`${pageHeader({
    title: 'Webhooks',
    crumbs: CRUMBS,
    description: 'netgraph POSTs alerts to these URLs, signed the Standard Webhooks way (docs/webhooks.md), retried for about three days, and logged below.',
  })}
${view.done ? notice('success', view.done) : ''}
${admin ? '' : notice('info', 'You can see the webhooks of your company. Only admins can add or change them.')}
<div class="card card-flush">${endpoints}</div>
${admin ? addForm(session, view.form, view.networks) : ''}
<h2 class="section-title">Delivery log</h2>
<div class="card card-flush">${deliveries}</div>`;
  return settingsShell(body, session, 'webhooks');
}

/** The one screen that shows a signing secret, with a copy button. */
export function renderSecret(session: ActiveSession, endpoint: EndpointInfo, secret: string, rotated: boolean): SafeHtml {
  return settingsShell(
    html`${pageHeader({ title: rotated ? 'Signing secret rotated' : 'Webhook added', crumbs: CRUMBS })}
${notice('warning', html`<strong>Copy the signing secret now.</strong> This is the only time it is shown.${rotated ? ' The previous secret keeps signing for a day.' : ''}`)}
<div class="card new-key">
  <p class="field-label">Signing secret of <strong>${endpoint.label}</strong></p>
  <div class="copy-row">
    <input type="text" id="new-secret" class="key-value" value="${secret}" readonly aria-label="The signing secret" autocomplete="off" spellcheck="false">
    <button type="button" class="btn btn-primary" data-copy-target="new-secret">Copy</button>
  </div>
  <p class="field-help">Verify deliveries with it: <code>new Webhook(secret).verify(body, headers)</code> (standardwebhooks). Created ${shortDate(endpoint.createdAt)}.</p>
  <p><a class="btn btn-secondary" href="${WEBHOOKS_PATH}">Done, back to webhooks</a></p>
</div>`,
    session,
    'webhooks',
  );
}
