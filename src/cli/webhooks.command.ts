import { AppError } from '../kernel/errors.js';
import type { DeliveryInfo } from '../features/webhook/webhook.service.js';
import type { AuthorizationInput, EndpointInfo, RuleInput } from '../features/webhook/webhook.rules.js';
import { ALERT_TYPES } from '../features/webhook/webhook.alerts.js';
import type { Command, CommandContext, OperandSpec, OptionSpec } from './io.js';
import { printJson, printTable, required } from './io.js';
import type { WithServices } from './options.js';

// `netgraph webhooks ...`: thin over the webhook service, as the operator of the named company (CLI_ACTOR in the audit log)

const COMPANY: OptionSpec = { type: 'string', value: 'SLUG', description: 'the company, by its slug', required: true };
const SINCE: OptionSpec = { type: 'string', value: 'TIME', description: 'only messages created at or after this time (RFC 3339)', default: 'from the start' };
const ENDPOINT_ID: OperandSpec = { usage: 'ID', description: 'the endpoint\'s id, from "netgraph webhooks list"' };

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
      summary: 'add a webhook endpoint; its signing secret is printed once',
      options: {
        company: COMPANY,
        label: { type: 'string', value: 'TEXT', description: 'a name for the endpoint', required: true },
        url: { type: 'string', value: 'URL', description: 'where deliveries are posted (https, not a private address)', required: true },
        alerts: { type: 'string', value: 'ALERT,...', description: `the alerts it receives, comma-separated: ${ALERT_TYPES.join(', ')}`, required: true },
        networks: { type: 'string', value: 'UUID,...', description: 'only these networks', default: 'every network, also later ones' },
        'client-threshold': { type: 'string', value: 'N', description: 'the client count above which CLIENT_COUNT_ABOVE fires; required with that alert', default: 'none' },
        bearer: { type: 'string', value: 'TOKEN', description: 'send Authorization: Bearer TOKEN', default: 'no Authorization' },
        basic: { type: 'string', value: 'USER:PASSWORD', description: 'send Authorization: Basic', default: 'no Authorization' },
        'payload-format': {
          type: 'string',
          value: 'FORMAT',
          description: "the body: standard (Standard Webhooks) or meter (Meter's alert body, also signed with X-Meter-Signature)",
          default: 'standard',
          choices: ['standard', 'meter'],
        },
      },
      examples: ['netgraph webhooks create --company acme --label pager --url https://hooks.example.com/netgraph --alerts DEVICE_OFFLINE,DEVICE_ONLINE'],
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
      summary: 'a company\'s webhook endpoints and their health',
      options: { company: COMPANY },
      examples: ['netgraph webhooks list --company acme'],
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
      summary: 'the delivery log, newest first, with each message\'s last answer',
      options: { company: COMPANY, since: SINCE, limit: { type: 'string', value: 'N', description: 'at most this many messages, 1 to 1000', default: '100' } },
      examples: ['netgraph webhooks deliveries --company acme --since 2026-11-25T00:00:00Z'],
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
      summary: 'deliver a message (or every message since a time) again, with the same webhook-id',
      operands: { usage: '[MESSAGE_ID]', description: 'the message\'s webhook-id, from "netgraph webhooks deliveries"; or --company with --since' },
      options: {
        company: { ...COMPANY, description: 'the company whose messages to replay (with --since)', required: false, default: 'none' },
        since: { ...SINCE, description: 'replay every message created at or after this time (RFC 3339)', default: 'none: replay MESSAGE_ID' },
      },
      examples: ['netgraph webhooks replay msg_4f1c2b9e8a7d6c5b4a3f2e1d0c9b8a7f', 'netgraph webhooks replay --company acme --since 2026-11-25T00:00:00Z'],
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
      summary: 'a new signing secret; the previous ones keep signing for a grace period',
      operands: ENDPOINT_ID,
      options: { grace: { type: 'string', value: 'SECONDS', description: 'how long the previous secrets keep signing, 0 to 2592000', default: '86400 (a day)' } },
      examples: ['netgraph webhooks rotate-secret 5d0c9a8e-1f2b-4c3d-8e4f-6a7b8c9d0e1f --grace 3600'],
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
      summary: 'delete an endpoint with its delivery log',
      operands: ENDPOINT_ID,
      options: {},
      examples: ['netgraph webhooks delete 5d0c9a8e-1f2b-4c3d-8e4f-6a7b8c9d0e1f'],
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
      summary: 'queue a test event to an endpoint; a running server delivers it',
      operands: ENDPOINT_ID,
      options: {},
      examples: ['netgraph webhooks test 5d0c9a8e-1f2b-4c3d-8e4f-6a7b8c9d0e1f'],
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
