import { TEXT_MAX } from '../kernel/rules.js';
import { RECEIVER_ALERT_TYPES } from '../features/alert/alert.service.js';
import type { ReceiverListItem } from '../features/alert/alert.service.js';
import type { EndpointInfo } from '../features/webhook/webhook.rules.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { settingsShell } from './api-keys.view.js';
import { humanizeEnum } from './format.js';
import type { FormState } from './forms.js';
import { checkboxField, inputField } from './forms.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';
import { badge, csrfInput, emptyState, notice, pageHeader } from './layout.js';
import type { NetworkListItem } from './documents.js';
import { WEBHOOKS_PATH, alertLabel } from './webhooks.view.js';

/** Where Settings > Integrations > Alert receivers lives. */
export const ALERT_RECEIVERS_PATH = '/settings/integrations/alert-receivers';
const CRUMBS = [{ label: 'Settings', href: ALERT_RECEIVERS_PATH }, { label: 'Integrations', href: ALERT_RECEIVERS_PATH }, { label: 'Alert receivers' }];

/** What the page shows: the receivers, what their forms can choose from, and the state of a refused form. */
export interface AlertReceiversView {
  readonly session: ActiveSession;
  readonly receivers: readonly ReceiverListItem[];
  readonly endpoints: readonly EndpointInfo[];
  readonly networks: readonly NetworkListItem[];
  /** False without an SMTP server (SMTP_URL): EMAIL targets can be neither added nor delivered. */
  readonly canEmail: boolean;
  /** The add-receiver form. */
  readonly form: FormState;
  /** A refused add-target form, with the receiver it was for. */
  readonly targetForm?: { readonly receiverId: string; readonly state: FormState };
  readonly done?: string;
  /** Why an action on a receiver or target was refused. */
  readonly refused?: string;
}

type TargetOfList = ReceiverListItem['targets'][number];
type TargetState = ReceiverListItem['targetStates'][number];

/** A target as a person recognises it: the webhook's label and URL, the address, or Slack with its host only (the URL is a secret). */
function targetCell(target: TargetOfList, state: TargetState | undefined): SafeHtml {
  if (target.type === 'WEBHOOK') return html`<span class="strong">${state?.endpointLabel ?? 'Webhook'}</span><br><code class="muted">${state?.endpointUrl ?? ''}</code>`;
  if (target.type === 'EMAIL') return html`<code>${target.emailAddress ?? ''}</code>`;
  return html`Incoming webhook <code class="muted">${state?.endpointUrl ?? ''}/…</code>`;
}

function targetBadge(target: TargetOfList, state: TargetState | undefined, canEmail: boolean): SafeHtml {
  if (state?.disabledReason === 'GONE') return badge('danger', 'Disabled (410 Gone)');
  if (state?.disabledReason === 'FAILING') return badge('danger', 'Disabled (failing)');
  if (state !== undefined && !state.enabled) return badge('neutral', 'Webhook disabled');
  if (target.type === 'EMAIL' && !canEmail) return badge('warning', 'No SMTP server');
  return badge('success', 'Enabled');
}

/** A button that POSTs one action under the page's path. */
function actionButton(session: ActiveSession, action: string, label: string, kind = 'btn-secondary', confirm?: string): SafeHtml {
  return html`<form method="post" action="${ALERT_RECEIVERS_PATH}/${action}" class="inline-form"${confirm ? html` data-confirm="${confirm}"` : ''}>
  ${csrfInput(session.csrfToken)}<button type="submit" class="btn ${kind} btn-sm">${label}</button>
</form>`;
}

/** The choice of a target's type and the field each type needs: one of the company's webhooks, an address, a Slack URL. */
function targetFields(form: FormState, endpoints: readonly EndpointInfo[], canEmail: boolean, idPrefix: string): SafeHtml {
  const types = [['WEBHOOK', 'Webhook'], ['EMAIL', canEmail ? 'Email' : 'Email (needs an SMTP server)'], ['SLACK', 'Slack']] as const;
  const selected = form.values['targetType'] ?? 'WEBHOOK';
  return html`<label class="field"><span class="field-label">Target type</span>
    <select name="targetType" id="${idPrefix}-type">${types.map(([value, label]) => html`<option value="${value}"${selected === value ? raw(' selected') : ''}${value === 'EMAIL' && !canEmail ? raw(' disabled') : ''}>${label}</option>`)}</select>
  </label>
  <div class="field"><label class="field-label" for="${idPrefix}-webhook">Webhook</label>
    <select name="webhookEndpointUUID" id="${idPrefix}-webhook">${endpoints.length === 0 ? html`<option value="">No webhooks yet</option>` : ''}${endpoints.map(
      (e) => html`<option value="${e.id}"${form.values['webhookEndpointUUID'] === e.id ? raw(' selected') : ''}>${e.label}</option>`,
    )}</select>
    ${form.errors['webhookEndpointUUID'] ? html`<span class="field-error">${form.errors['webhookEndpointUUID']}</span>` : html`<span class="field-help">For a Webhook target; add webhooks under <a href="${WEBHOOKS_PATH}">Webhooks</a>.</span>`}
  </div>
  ${inputField(form, { name: 'emailAddress', label: 'Email address', id: `${idPrefix}-email`, help: 'For an Email target, e.g. noc@example.com' })}
  ${inputField(form, { name: 'slackWebhookURL', label: 'Slack incoming-webhook URL', id: `${idPrefix}-slack`, type: 'password', help: 'For a Slack target; stored encrypted, never shown again.' })}`;
}

function receiverCard(view: AlertReceiversView, receiver: ReceiverListItem): SafeHtml {
  const { session } = view;
  const admin = session.user.role === 'admin';
  const alerts = receiver.rules.map((r) => `${alertLabel(r.alert)}${r.network === null ? '' : ` (${view.networks.find((n) => n.UUID === r.network)?.label ?? r.network})`}`);
  const rows = receiver.targets.map((target) => {
    const state = receiver.targetStates.find((s) => s.id === target.id);
    return html`<tr data-target-id="${target.id}">
  <td>${humanizeEnum(target.type)}</td>
  <td>${targetCell(target, state)}</td>
  <td>${targetBadge(target, state, view.canEmail)}</td>
  ${admin ? html`<td class="actions">${actionButton(session, `${receiver.id}/targets/${target.id}/delete`, 'Remove', 'btn-danger-outline', 'Remove this target and its delivery log?')}</td>` : ''}
</tr>`;
  });
  const refused = view.targetForm?.receiverId === receiver.id ? view.targetForm.state : undefined;
  const targetForm = refused ?? { values: {}, errors: {} };
  return html`<section class="card receiver" data-receiver-id="${receiver.id}" aria-label="${receiver.label}">
  <div class="receiver-head"><h2>${receiver.label}</h2>
  ${admin ? actionButton(session, `${receiver.id}/delete`, 'Delete receiver', 'btn-danger-outline', `Delete the receiver “${receiver.label}” and the log of its email and Slack targets?`) : ''}</div>
  <p class="muted">Receives: ${[...new Set(alerts)].join(', ')}</p>
  <table class="table receiver-targets"><thead><tr><th>Type</th><th>Target</th><th>State</th>${admin ? raw('<th class="actions"><span class="sr-only">Actions</span></th>') : ''}</tr></thead>
  <tbody>${rows}</tbody></table>
  ${admin
    ? html`<form method="post" action="${ALERT_RECEIVERS_PATH}/${receiver.id}/targets" class="webhook-form receiver-target-form" novalidate>
  ${csrfInput(session.csrfToken)}
  <h3>Add a target</h3>
  ${targetForm.message ? notice('error', targetForm.message) : ''}
  ${targetFields(targetForm, view.endpoints, view.canEmail, `target-${receiver.id}`)}
  <button type="submit" class="btn btn-secondary">Add target</button>
</form>`
    : ''}
</section>`;
}

function addForm(view: AlertReceiversView): SafeHtml {
  const { session, form } = view;
  return html`<form method="post" action="${ALERT_RECEIVERS_PATH}" class="card webhook-form" id="add-receiver" novalidate>
  ${csrfInput(session.csrfToken)}
  <h2>Add alert receiver</h2>
  ${form.message ? notice('error', form.message) : ''}
  ${inputField(form, { name: 'label', label: 'Label', id: 'receiver-label', extra: `maxlength="${TEXT_MAX.alertReceiverLabel}" required` })}
  <span></span>
  <fieldset class="field"><legend class="field-label">Alerts</legend>
    <div class="check-grid">${RECEIVER_ALERT_TYPES.map((alert) => checkboxField(form, { name: `alert_${alert}`, label: alertLabel(alert) }))}</div>
    ${form.errors['rules'] ? html`<span class="field-error">${form.errors['rules']}</span>` : ''}
  </fieldset>
  <fieldset class="field"><legend class="field-label">Networks (none checked: all of them)</legend>
    <div class="check-grid">${view.networks.map((n) => checkboxField(form, { name: `network_${n.UUID}`, label: n.label }))}</div>
  </fieldset>
  <p class="field-wide field-label">First target (add more once it exists)</p>
  ${targetFields(form, view.endpoints, view.canEmail, 'receiver-target')}
  <button type="submit" class="btn btn-primary">Add receiver</button>
</form>`;
}

/** The page: each receiver with its alerts and targets (remove, add a target), the add form for admins. */
export function renderAlertReceivers(view: AlertReceiversView): SafeHtml {
  const { session } = view;
  const admin = session.user.role === 'admin';
  const receivers = view.receivers.length === 0
    ? html`<div class="card card-flush">${emptyState('No alert receivers yet', admin ? 'Add one to send alerts to webhooks, email addresses and Slack channels.' : 'An admin of your company can add alert receivers here.')}</div>`
    : html`<div id="alert-receivers">${view.receivers.map((r) => receiverCard(view, r))}</div>`;
  const body = html`${pageHeader({
    title: 'Alert receivers',
    crumbs: CRUMBS,
    description: 'A receiver sends the alerts it receives to each of its targets: a webhook (in its body format), an email, a Slack channel. Deliveries are retried and logged like webhooks (docs/alerts.md).',
  })}
${view.done ? notice('success', view.done) : ''}
${view.refused ? notice('error', view.refused) : ''}
${view.canEmail ? '' : notice('info', 'No SMTP server is configured (SMTP_URL, SMTP_FROM): Email targets cannot be added, and existing ones receive nothing until the operator sets one.')}
${admin ? '' : notice('info', 'You can see the alert receivers of your company. Only admins can add or change them.')}
${receivers}
${admin ? addForm(view) : ''}`;
  return settingsShell(body, session, 'alert-receivers');
}
