import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RECEIVER_ALERT_TYPES } from '../features/alert/alert.service.js';
import type { TargetInput } from '../features/alert/alert.service.js';
import type { RuleInput } from '../features/webhook/webhook.rules.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { formState, optionalValue, refusedForm, requireAdmin } from './forms.js';
import type { FormState } from './forms.js';
import { ALERT_RECEIVERS_PATH, renderAlertReceivers } from './alert-receivers.view.js';
import type { AlertReceiversView } from './alert-receivers.view.js';

const ADMINS_ONLY = 'Only admins can add or change alert receivers. Ask an admin of your company.';

/** Where a field the service names shows in a form: `at` is `targets[0]` (add receiver) or `target` (add target). */
function formFields(at: string): Record<string, string> {
  return {
    label: 'label',
    rules: 'rules',
    [at]: 'targetType',
    [`${at}.type`]: 'targetType',
    [`${at}.webhookEndpointId`]: 'webhookEndpointUUID',
    [`${at}.emailAddress`]: 'emailAddress',
    [`${at}.slackWebhookUrl`]: 'slackWebhookURL',
  };
}

/** The refused field's place in the form: a rule's alert or network shows at the alerts. */
function fieldsFor(error: unknown, at: string): Record<string, string> {
  const field = (error as { details?: { field?: string } }).details?.field ?? '';
  return field.startsWith('rules') ? { ...formFields(at), [field]: 'rules' } : formFields(at);
}

/** The target the form's fields describe: its type and the one field that type needs. */
function targetInput(values: Record<string, string>): TargetInput {
  const type = values['targetType'] ?? '';
  if (type === 'WEBHOOK') return { type, webhookEndpointId: optionalValue(values['webhookEndpointUUID']) };
  if (type === 'EMAIL') return { type, emailAddress: optionalValue(values['emailAddress']) };
  if (type === 'SLACK') return { type, slackWebhookUrl: optionalValue(values['slackWebhookURL']) };
  return { type };
}

/** The add form as the service's input: checked alerts for the checked networks (none: all), one target. */
function receiverInput(values: Record<string, string>) {
  const networks = Object.keys(values).filter((k) => k.startsWith('network_') && values[k] === 'on').map((k) => k.slice('network_'.length));
  const rules: RuleInput[] = RECEIVER_ALERT_TYPES.filter((alert) => values[`alert_${alert}`] === 'on').map((alert) => ({ alert, networks: networks.length === 0 ? null : networks }));
  return { label: values['label'] ?? '', targets: [targetInput(values)], rules };
}

/** The form's values without the CSRF token and (after a refusal) without the Slack URL, a secret never sent back. */
function formValues(request: FastifyRequest): Record<string, string> {
  const values = { ...(request.body as Record<string, string>) };
  delete values['_csrf'];
  return values;
}

/**
 * Settings > Integrations > Alert receivers: each receiver with its alerts
 * and targets, and (admins) add a receiver, add or remove a target, delete a
 * receiver. Every POST calls one method of the alert service, the GraphQL
 * mutations', with the session's caller; each is one audited write.
 */
export function registerAlertReceiverPages(web: FastifyInstance, ctx: WebContext): void {
  const alerts = ctx.services.alerts;
  web.get(ALERT_RECEIVERS_PATH, async (request, reply) => sendList(ctx, request, reply, 200, {}));

  web.post(ALERT_RECEIVERS_PATH, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const values = formValues(request);
    try {
      const created = await alerts.createReceiver(callerOf(ctx, request), receiverInput(values));
      return reply.redirect(`${ALERT_RECEIVERS_PATH}?done=${encodeURIComponent(`Added ${created.label}.`)}`, 303);
    } catch (error) {
      delete values['slackWebhookURL'];
      return sendList(ctx, request, reply, 400, { form: refusedForm(error, values, fieldsFor(error, 'targets[0]'), 'alert receiver') });
    }
  });

  web.post(`${ALERT_RECEIVERS_PATH}/:id/targets`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const receiverId = (request.params as { id: string }).id;
    const values = formValues(request);
    try {
      const changed = await alerts.addTarget(callerOf(ctx, request), { receiverId, target: targetInput(values) });
      return reply.redirect(`${ALERT_RECEIVERS_PATH}?done=${encodeURIComponent(`Added a target to ${changed.label}.`)}`, 303);
    } catch (error) {
      delete values['slackWebhookURL'];
      return sendList(ctx, request, reply, 400, { targetForm: { receiverId, state: refusedForm(error, values, formFields('target'), 'alert receiver') } });
    }
  });

  const act = (path: string, run: (caller: ReturnType<typeof callerOf>, params: Record<string, string>) => Promise<string>) =>
    web.post(`${ALERT_RECEIVERS_PATH}/${path}`, async (request, reply) => {
      requireAdmin(sessionOf(request), ADMINS_ONLY);
      const done = await run(callerOf(ctx, request), request.params as Record<string, string>).catch((error: unknown) => refusedForm(error, {}, {}, 'alert receiver or target'));
      // a refusal of the whole action (the last target) shows at the top of the page
      if (typeof done !== 'string') return sendList(ctx, request, reply, 400, { refused: done.message ?? '' });
      return reply.redirect(`${ALERT_RECEIVERS_PATH}?done=${encodeURIComponent(done)}`, 303);
    });
  act(':id/delete', async (caller, p) => `Deleted ${(await alerts.deleteReceiver(caller, { receiverId: p['id'] ?? '' })).label}.`);
  act(':id/targets/:target/delete', async (caller, p) => `Removed a target of ${(await alerts.removeTarget(caller, { receiverId: p['id'] ?? '', targetId: p['target'] ?? '' })).label}.`);
}

async function sendList(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, forms: Pick<Partial<AlertReceiversView>, 'form' | 'targetForm' | 'refused'>): Promise<FastifyReply> {
  const session = sessionOf(request);
  const caller = callerOf(ctx, request);
  const [receivers, endpoints, networks] = await Promise.all([
    ctx.services.alerts.listReceivers(caller),
    ctx.services.webhooks.listEndpoints(caller),
    ctx.reads.networks(caller, request.netgraph),
  ]);
  const done = (request.query as Record<string, string | undefined>).done;
  const form: FormState = forms.form ?? formState({ targetType: 'WEBHOOK' });
  const body = renderAlertReceivers({
    session, receivers, endpoints, networks, canEmail: ctx.config.webhooks.smtp !== null, form,
    ...(forms.targetForm !== undefined ? { targetForm: forms.targetForm } : {}),
    ...(forms.refused !== undefined ? { refused: forms.refused } : {}),
    ...(done !== undefined ? { done } : {}),
  });
  return sendPage(ctx, reply, status, { title: 'Alert receivers', session, section: 'settings', body });
}
