import { AppError } from '../errors.js';
import type { DeliveryInfo } from '../modules/webhook/webhook.service.js';
import type { AuthorizationInput, EndpointInfo, RuleInput } from '../modules/webhook/webhook.rules.js';
import type { Command, CommandContext } from './io.js';
import { printJson, printTable, required } from './io.js';
import type { WithServices } from './simulate.command.js';

// `netgraph webhooks ...`: thin over the webhook service, as the operator of the named company (CLI_ACTOR in the audit log)

const json = { type: 'boolean' } as const;

function list(value: string | boolean | undefined): string[] | undefined {
  return typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter((item) => item !== '') : undefined;
}

function positional(context: CommandContext, what: string): string {
  const id = context.positionals[0];
  if (id === undefined) throw new AppError('BAD_USER_INPUT', `name the ${what} by its id, from "netgraph webhooks ${what === 'message' ? 'deliveries' : 'list'}"`);
  return id;
}

/** --alerts, --networks and --client-threshold as rules: every alert for the same networks. */
function rulesOf(context: CommandContext): RuleInput[] {
  const alerts = list(required(context, 'alerts', 'DEVICE_OFFLINE,DEVICE_ONLINE')) ?? [];
  const networks = list(context.values.networks) ?? null;
  const raw = context.values['client-threshold'];
  const threshold = typeof raw === 'string' ? Number(raw) : undefined;
  return alerts.map((alert) => ({ alert, networks, ...(alert === 'CLIENT_COUNT_ABOVE' ? { threshold: threshold ?? Number.NaN } : {}) }));
}

/** --bearer TOKEN or --basic USER:PASSWORD. */
function authorizationOf(context: CommandContext): AuthorizationInput | null {
  const { bearer, basic } = context.values;
  if (typeof bearer === 'string') return { kind: 'BEARER', token: bearer };
  if (typeof basic !== 'string') return null;
  const colon = basic.indexOf(':');
  return { kind: 'BASIC', username: basic.slice(0, Math.max(0, colon)), password: colon < 0 ? '' : basic.slice(colon + 1) };
}

function endpointRow(endpoint: EndpointInfo): string[] {
  const state = endpoint.enabled ? 'enabled' : `disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`;
  const alerts = endpoint.rules.map((rule) => (rule.threshold === null ? rule.alert : `${rule.alert}>${rule.threshold}`)).join(',');
  return [endpoint.id, endpoint.label, endpoint.url, alerts, state, endpoint.failingSince ? `failing since ${endpoint.failingSince}` : ''];
}

function deliveryRow(delivery: DeliveryInfo): string[] {
  const last = delivery.log.at(-1);
  const answer = last === undefined ? '' : last.status !== null ? String(last.status) : (last.error ?? '');
  return [delivery.createdAt, delivery.id, delivery.endpointLabel, delivery.alert, delivery.state, String(delivery.attempts), answer, delivery.nextAttemptAt ?? ''];
}

/** The `webhooks` commands, over the CLI's `withServices`. */
export function webhookCommands(withServices: WithServices): Command[] {
  return [
    {
      path: ['webhooks', 'create'],
      options: {
        json, company: { type: 'string' }, label: { type: 'string' }, url: { type: 'string' }, alerts: { type: 'string' },
        networks: { type: 'string' }, 'client-threshold': { type: 'string' }, bearer: { type: 'string' }, basic: { type: 'string' },
        'payload-format': { type: 'string' },
      },
      async run(context) {
        const company = required(context, 'company', 'acme');
        const format = context.values['payload-format'];
        const input = {
          label: required(context, 'label', 'pager'), url: required(context, 'url', 'https://hooks.example.com/netgraph'), rules: rulesOf(context), authorization: authorizationOf(context),
          // standard or meter (docs/alerts.md); the service refuses anything else, naming payloadFormat
          ...(typeof format === 'string' ? { payloadFormat: format.toUpperCase() as 'STANDARD' | 'METER' } : {}),
        };
        const { endpoint, secret } = await withServices(context.config, async (services) => services.webhooks.createEndpoint(await services.webhooks.cliCaller(company), input));
        const alerts = endpoint.rules.map((rule) => rule.alert);
        if (context.values.json) printJson(context.io, { id: endpoint.id, label: endpoint.label, url: endpoint.url, secret, alerts });
        else {
          context.io.out(
            [`Created webhook "${endpoint.label}" (id ${endpoint.id}) to ${endpoint.url} for ${alerts.join(', ')}.`, '', `  Signing secret: ${secret}`, '',
              'This is the only time the secret is shown: verify deliveries with it (docs/webhooks.md).'].join('\n'),
          );
        }
        return 0;
      },
    },
    {
      path: ['webhooks', 'list'],
      options: { json, company: { type: 'string' } },
      async run(context) {
        const company = required(context, 'company', 'acme');
        const endpoints = await withServices(context.config, async (services) => services.webhooks.listEndpoints(await services.webhooks.cliCaller(company)));
        if (context.values.json) printJson(context.io, endpoints);
        else if (endpoints.length === 0) context.io.out(`No webhooks for ${company}.`);
        else printTable(context.io, ['ID', 'LABEL', 'URL', 'ALERTS', 'STATE', 'HEALTH'], endpoints.map(endpointRow));
        return 0;
      },
    },
    {
      path: ['webhooks', 'deliveries'],
      options: { json, company: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
      async run(context) {
        const company = required(context, 'company', 'acme');
        const since = typeof context.values.since === 'string' ? context.values.since : undefined;
        const limit = typeof context.values.limit === 'string' ? Number(context.values.limit) : undefined;
        const deliveries = await withServices(context.config, async (services) =>
          services.webhooks.listDeliveries(await services.webhooks.cliCaller(company), { ...(since !== undefined ? { since } : {}), ...(limit !== undefined ? { limit } : {}) }),
        );
        if (context.values.json) printJson(context.io, deliveries);
        else if (deliveries.length === 0) context.io.out(`No webhook deliveries for ${company}.`);
        else printTable(context.io, ['CREATED', 'WEBHOOK-ID', 'ENDPOINT', 'ALERT', 'STATE', 'ATTEMPTS', 'LAST ANSWER', 'NEXT ATTEMPT'], deliveries.map(deliveryRow));
        return 0;
      },
    },
    {
      path: ['webhooks', 'replay'],
      options: { json, company: { type: 'string' }, since: { type: 'string' } },
      async run(context) {
        const since = typeof context.values.since === 'string' ? context.values.since : undefined;
        const { requeued } = await withServices(context.config, async (services) => {
          if (since !== undefined) return services.webhooks.replay(await services.webhooks.cliCaller(required(context, 'company', 'acme')), { since });
          const id = positional(context, 'message');
          return services.webhooks.replay(await services.webhooks.cliCallerFor('message', id), { messageId: id });
        });
        if (context.values.json) printJson(context.io, { requeued });
        else context.io.out(`netgraph webhooks replay: queued ${requeued} message${requeued === 1 ? '' : 's'} again, with the same webhook-id.`);
        return 0;
      },
    },
    {
      path: ['webhooks', 'rotate-secret'],
      options: { json, grace: { type: 'string' } },
      async run(context) {
        const id = positional(context, 'endpoint');
        const grace = typeof context.values.grace === 'string' ? Number(context.values.grace) : undefined;
        const rotated = await withServices(context.config, async (services) =>
          services.webhooks.rotateSecret(await services.webhooks.cliCallerFor('endpoint', id), { endpointId: id, ...(grace !== undefined ? { graceSeconds: grace } : {}) }),
        );
        if (context.values.json) printJson(context.io, { id: rotated.endpoint.id, secret: rotated.secret, previousValidUntil: rotated.previousValidUntil });
        else {
          context.io.out(
            [`New signing secret for "${rotated.endpoint.label}" (${rotated.endpoint.id}); the previous one signs too until ${rotated.previousValidUntil}.`, '',
              `  Signing secret: ${rotated.secret}`, '', 'This is the only time the secret is shown.'].join('\n'),
          );
        }
        return 0;
      },
    },
    {
      path: ['webhooks', 'delete'],
      options: { json },
      async run(context) {
        const id = positional(context, 'endpoint');
        const endpoint = await withServices(context.config, async (services) => services.webhooks.deleteEndpoint(await services.webhooks.cliCallerFor('endpoint', id), { endpointId: id }));
        if (context.values.json) printJson(context.io, endpoint);
        else context.io.out(`netgraph webhooks delete: "${endpoint.label}" (${endpoint.id}) is deleted with its delivery log.`);
        return 0;
      },
    },
    {
      path: ['webhooks', 'test'],
      options: { json },
      async run(context) {
        const id = positional(context, 'endpoint');
        const delivery = await withServices(context.config, async (services) => services.webhooks.sendTestEvent(await services.webhooks.cliCallerFor('endpoint', id), { endpointId: id }));
        if (context.values.json) printJson(context.io, delivery);
        else context.io.out(`netgraph webhooks test: queued ${delivery.id} to "${delivery.endpointLabel}"; a running server delivers it.`);
        return 0;
      },
    },
  ];
}
