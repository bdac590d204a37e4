import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ALERT_TYPES } from '../features/webhook/webhook.alerts.js';
import type { AuthorizationInput, RuleInput } from '../features/webhook/webhook.rules.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { formState, numberValue, refusedForm, requireAdmin } from './forms.js';
import type { FormState } from './forms.js';
import { WEBHOOKS_PATH, renderSecret, renderWebhooks } from './webhooks.view.js';

const ADMINS_ONLY = 'Only admins can add or change webhooks. Ask an admin of your company.';
/** The service's field names, as the add form names them. */
const FORM_FIELDS: Record<string, string> = { label: 'label', url: 'url', rules: 'rules', 'rules[0].threshold': 'threshold', 'authorization.username': 'username', payloadFormat: 'payloadFormat' };

/**
 * Settings > Integrations > Webhooks: the endpoints with their state, the
 * delivery log, and (admins) add, enable/disable, test, rotate, delete and
 * replay. Every POST calls one method of the webhook service, the CLI's and
 * the GraphQL mutations', with the session's caller.
 */
export function registerWebhookPages(web: FastifyInstance, ctx: WebContext): void {
  web.get(WEBHOOKS_PATH, async (request, reply) => sendList(ctx, request, reply, 200, formState({ authKind: 'NONE', payloadFormat: 'STANDARD' })));
  web.post(WEBHOOKS_PATH, async (request, reply) => createEndpoint(ctx, request, reply));
  const act = (name: string, run: (caller: ReturnType<typeof callerOf>, id: string) => Promise<string>) =>
    web.post(`${WEBHOOKS_PATH}/${name}`, async (request, reply) => {
      requireAdmin(sessionOf(request), ADMINS_ONLY);
      const done = await run(callerOf(ctx, request), (request.params as { id: string }).id).catch((error: unknown) => {
        refusedForm(error, {}, {}, 'webhook');
        throw error;
      });
      return reply.redirect(`${WEBHOOKS_PATH}?done=${encodeURIComponent(done)}`, 303);
    });
  const webhooks = ctx.services.webhooks;
  act(':id/enable', async (caller, id) => `Enabled ${(await webhooks.updateEndpoint(caller, { endpointId: id, enabled: true })).label}.`);
  act(':id/disable', async (caller, id) => `Disabled ${(await webhooks.updateEndpoint(caller, { endpointId: id, enabled: false })).label}.`);
  act(':id/test', async (caller, id) => `Queued test event ${(await webhooks.sendTestEvent(caller, { endpointId: id })).id}.`);
  act(':id/delete', async (caller, id) => `Deleted ${(await webhooks.deleteEndpoint(caller, { endpointId: id })).label}.`);
  act('deliveries/:id/replay', async (caller, id) => (await webhooks.replay(caller, { messageId: id }), `Queued ${id} again.`));
  web.post(`${WEBHOOKS_PATH}/:id/rotate`, async (request, reply) => {
    const session = sessionOf(request);
    requireAdmin(session, ADMINS_ONLY);
    const rotated = await webhooks.rotateSecret(callerOf(ctx, request), { endpointId: (request.params as { id: string }).id }).catch((error: unknown) => {
      refusedForm(error, {}, {}, 'webhook');
      throw error;
    });
    return sendPage(ctx, reply, 200, { title: 'Signing secret rotated', session, section: 'settings', replaceUrl: WEBHOOKS_PATH, body: renderSecret(session, rotated.endpoint, rotated.secret, true) });
  });
}

async function sendList(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, form: FormState): Promise<FastifyReply> {
  const session = sessionOf(request);
  const caller = callerOf(ctx, request);
  const [endpoints, deliveries, networks] = await Promise.all([
    ctx.services.webhooks.listEndpoints(caller),
    ctx.services.webhooks.listDeliveries(caller, { limit: 50 }),
    ctx.reads.networks(caller, request.netgraph),
  ]);
  const done = (request.query as Record<string, string | undefined>).done;
  const body = renderWebhooks({ session, endpoints, deliveries, networks, form, ...(done !== undefined ? { done } : {}) });
  return sendPage(ctx, reply, status, { title: 'Webhooks', session, section: 'settings', body });
}

/** The add form's fields as the service's input: checked alerts, checked networks (none: all), the Authorization chosen. */
function endpointInput(values: Record<string, string>) {
  const networks = Object.keys(values).filter((k) => k.startsWith('network_') && values[k] === 'on').map((k) => k.slice('network_'.length));
  const rules: RuleInput[] = ALERT_TYPES.filter((alert) => values[`alert_${alert}`] === 'on').map((alert) => ({
    alert,
    networks: networks.length === 0 ? null : networks,
    threshold: alert === 'CLIENT_COUNT_ABOVE' ? numberValue(values['threshold']) : null,
  }));
  const kind = (values['authKind'] ?? 'NONE') as AuthorizationInput['kind'];
  const authorization: AuthorizationInput = kind === 'BASIC' ? { kind, username: values['username'] ?? '', password: values['secret'] ?? '' } : kind === 'BEARER' ? { kind, token: values['secret'] ?? '' } : { kind };
  return { label: values['label'] ?? '', url: values['url'] ?? '', rules, authorization, payloadFormat: (values['payloadFormat'] ?? 'STANDARD') as 'STANDARD' | 'METER' };
}

/** FORM_FIELDS plus where the field the service names (rules[i]..., authorization.*) shows in the form. */
function formFieldsFor(error: unknown): Record<string, string> {
  const field = (error as { details?: { field?: string } }).details?.field ?? '';
  const formField = field.startsWith('rules') ? (field.endsWith('threshold') ? 'threshold' : 'rules') : field.startsWith('authorization') ? 'secret' : undefined;
  return formField === undefined || Object.hasOwn(FORM_FIELDS, field) ? FORM_FIELDS : { ...FORM_FIELDS, [field]: formField };
}

/** Adds an endpoint and shows its signing secret in this response only; a refusal shows next to its field. */
async function createEndpoint(ctx: WebContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const session = sessionOf(request);
  requireAdmin(session, ADMINS_ONLY);
  const values = { ...(request.body as Record<string, string>) };
  delete values['_csrf'];
  try {
    const created = await ctx.services.webhooks.createEndpoint(callerOf(ctx, request), endpointInput(values));
    return sendPage(ctx, reply, 200, { title: 'Webhook added', session, section: 'settings', replaceUrl: WEBHOOKS_PATH, body: renderSecret(session, created.endpoint, created.secret, false) });
  } catch (error) {
    // a refused password or token is not sent back into the page
    delete values['secret'];
    return sendList(ctx, request, reply, 400, refusedForm(error, values, formFieldsFor(error), 'webhook'));
  }
}
