import { TEXT_MAX } from '../../kernel/rules.js';
import { bool, dateTime, inCompany, integer, nullable, text, uuidArgument } from '../../engine/read.model.js';
import type { ArgumentValues, FieldMapping, GraphQLFeature, ListMapping, MutationInput, ObjectReference, SqlContext } from '../../engine/read.model.js';
import type { AuthorizationInput, RuleInput } from './webhook.rules.js';
import type { CreateEndpointInput, WebhookService } from './webhook.service.js';
import { AppError, isAppError } from '../../kernel/errors.js';
import { asInput } from '../../platform/write/write.rules.js';

const endpoint = (uuid: string): ObjectReference => ({ root: 'webhookEndpointByUUID', arg: uuid });
const MAX_DELIVERIES = 1_000;

/** An endpoint's rules, one per alert, threshold and "all networks or a set" (the rule table has a row per network). */
const RULES_OF_ENDPOINT: ListMapping = {
  kind: 'list',
  table:
    '(SELECT wr.endpoint_id, wr.alert_type, wr.threshold, (wr.network_id IS NULL) AS all_networks, min(wr.id) AS id ' +
    'FROM webhook_rules wr GROUP BY wr.endpoint_id, wr.alert_type, wr.threshold, (wr.network_id IS NULL))',
  join: (r, e) => `${r}.endpoint_id = ${e}.id`,
  orderBy: (r) => `${r}.alert_type, ${r}.all_networks, ${r}.threshold`,
};

/** The UUIDs of a rule group's networks (a JSON array, by UUID); null when it covers every network. */
const networkUuidsOfRule = (r: string, c: SqlContext): string =>
  `(CASE WHEN ${r}.all_networks THEN NULL ELSE ${c.dialect.jsonArray(
    c.dialect.jsonString('rn.uuid'),
    `webhook_rules rr JOIN networks rn ON rn.id = rr.network_id WHERE rr.endpoint_id = ${r}.endpoint_id AND rr.alert_type = ${r}.alert_type ` +
      `AND coalesce(rr.threshold, -1) = coalesce(${r}.threshold, -1)`,
    'rn.uuid',
  )} END)`;

/**
 * The company's messages, newest first, at most `limit`, of one endpoint
 * (the root's CASE answers null for another company's) or of all, created
 * at or after `since` when given.
 */
const DELIVERIES: ListMapping = {
  kind: 'list',
  table: (c) =>
    `(SELECT m.* FROM webhook_messages m WHERE m.company_id = ${c.company()} ` +
    `AND m.endpoint_id = coalesce((SELECT de.id FROM webhook_endpoints de WHERE de.uuid = ${c.arg('endpointUUID')} AND de.company_id = ${c.company()}), m.endpoint_id) ` +
    `AND m.created_at >= coalesce(${c.arg('since')}, m.created_at) ORDER BY m.created_at DESC, m.id DESC LIMIT ${c.arg('limit')})`,
  join: () => '1 = 1',
  orderBy: (m) => `${m}.created_at DESC, ${m}.id DESC`,
};

const ATTEMPTS_OF_MESSAGE: ListMapping = {
  kind: 'list',
  table: 'webhook_attempts',
  join: (a, m) => `${a}.message_id = ${m}.id`,
  orderBy: (a) => `${a}.attempted_at, ${a}.id`,
};

const upper = (column: string): FieldMapping => ({ kind: 'computed', type: 'string', sql: (t) => `upper(${t}.${column})` });

/** The root's `limit`: 1 to 1000. */
function checkDeliveryLimit(args: ArgumentValues) {
  const limit = args['limit'];
  if (typeof limit === 'number' && (limit < 1 || limit > MAX_DELIVERIES)) {
    return { argument: 'limit', message: `must be from 1 to ${MAX_DELIVERIES}: ask for fewer deliveries, or page with since.` };
  }
  return undefined;
}

/** The GraphQL rule inputs as the service takes them. */
function toRules(rules: unknown): RuleInput[] | undefined {
  if (!Array.isArray(rules)) return undefined;
  return (rules as { alert: string; networkUUIDs?: string[] | null; threshold?: number | null }[]).map((r) => ({
    alert: r.alert,
    networks: r.networkUUIDs ?? null,
    threshold: r.threshold ?? null,
  }));
}

/** The GraphQL endpoint input (create or update) as the service takes it: only the fields given. */
function toEndpointInput(input: MutationInput) {
  const auth = input['authorization'] as { type: string; username?: string; password?: string; token?: string } | null | undefined;
  return {
    ...(input['label'] !== undefined ? { label: input['label'] as string } : {}),
    ...(input['url'] !== undefined ? { url: input['url'] as string } : {}),
    ...(input['isEnabled'] !== undefined ? { enabled: input['isEnabled'] as boolean } : {}),
    ...(input['payloadFormat'] != null ? { payloadFormat: input['payloadFormat'] as 'STANDARD' | 'METER' } : {}),
    ...(auth !== undefined ? { authorization: auth === null ? null : ({ ...auth, kind: auth.type } as AuthorizationInput) } : {}),
    ...(input['rules'] !== undefined ? { rules: toRules(input['rules']) ?? [] } : {}),
  };
}

const endpointUuidOf = (input: MutationInput): string => input['endpointUUID'] as string;

/** The service's field names (shared with the CLI and the dashboard) as this API's inputs name them. */
const INPUT_NAMES: readonly (readonly [RegExp, string])[] = [
  [/^endpointId$/, 'endpointUUID'],
  [/^enabled$/, 'isEnabled'],
  [/\.networks(?=$|\[)/, '.networkUUIDs'],
  [/^authorization\.kind$/, 'authorization.type'],
];

/** Runs a service call; a refusal names the field as the GraphQL input does, so an error points at what the caller sent. */
async function withInputNames<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    const field = isAppError(error) ? error.details.field : undefined;
    if (!isAppError(error) || field === undefined) throw error;
    const renamed = INPUT_NAMES.reduce((name, [pattern, to]) => name.replace(pattern, to), field);
    throw renamed === field ? error : new AppError(error.code, error.message.split(field).join(renamed), { ...error.details, field: renamed });
  }
}

/** Webhooks: endpoints with their rules, the delivery log, and the writes that manage them (docs/webhooks.md). */
export const WEBHOOK_FEATURE = {
  sdl: /* GraphQL */ `
"""An alert a webhook rule asks for (docs/webhooks.md and docs/alerts.md have a payload of each and the rule that fires it)."""
enum WebhookAlert {
  DEVICE_OFFLINE
  DEVICE_ONLINE
  DEVICE_BOOT
  WAN_DOWN
  WAN_UP
  """A port went down: a device's PORT_DOWN event or an SNMP linkDown trap (LINK_DOWN)."""
  PORT_DOWN
  """A port came up: a device's PORT_UP event or an SNMP linkUp trap (LINK_UP)."""
  PORT_UP
  """An SNMP authenticationFailure trap: someone asked a device with wrong credentials."""
  SNMP_AUTHENTICATION_FAILURE
  """A device's reported CPU went above 90% (once per crossing)."""
  HIGH_CPU_USAGE
  """A port's spanning-tree state went to BLOCKING from LISTENING, LEARNING or FORWARDING (docs/alerts.md)."""
  PORT_BLOCKED
  """A port so blocked went back to LISTENING, LEARNING or FORWARDING."""
  PORT_UNBLOCKED
  """A port's spanning-tree state went to BROKEN."""
  STP_ERROR_PORT_BLOCKED
  """A port left BROKEN."""
  STP_ERROR_PORT_UNBLOCKED
  """An access point heard a rogue access point (a foreign BSSID on the network's wire), first in 24 hours."""
  ROGUE_ACCESS_POINT_DETECTED
  """An access point heard a honeypot (a foreign BSSID with one of the network's SSIDs), first in 24 hours."""
  HONEYPOT_ACCESS_POINT_DETECTED
  CLIENT_COUNT_ABOVE
  """An API key of the company expires within 7 days (once per key)."""
  API_KEY_EXPIRING
  AUDIT_LOG
}

"""
The body an endpoint's deliveries carry (docs/alerts.md). Both are signed
with the Standard Webhooks headers; METER adds X-Meter-Signature.
"""
enum WebhookPayloadFormat {
  """netgraph's body: ALERT_ names, camelCase ids in data."""
  STANDARD
  """Meter's body: Meter's alert names (e.g. "Device offline"), snake_case data, and X-Meter-Signature."""
  METER
}

"""The Authorization header deliveries carry."""
enum WebhookAuthorizationType {
  NONE
  BASIC
  BEARER
}

"""Where a message of the delivery log stands."""
enum WebhookDeliveryState {
  """Not delivered yet: an attempt is due at nextAttemptAt."""
  PENDING
  """A receiver answered 2xx."""
  DELIVERED
  """Every attempt failed (the schedule ran out, or the endpoint was turned off)."""
  FAILED
}

"""
A webhook endpoint of the API key's company. Its signing secret is shown
only by createWebhookEndpoint and rotateWebhookSecret, its Authorization
value never.
"""
type WebhookEndpoint {
  UUID: UUID!
  label: String!
  url: String!
  isEnabled: Boolean!
  authorizationType: WebhookAuthorizationType!
  """Why netgraph turned the endpoint off: GONE (the receiver answered 410) or FAILING (failing for 5 days); null otherwise."""
  disabledReason: String
  """Since when every attempt has failed; null when the last one succeeded."""
  failingSince: DateTime
  createdAt: DateTime!
  """The body its deliveries carry."""
  payloadFormat: WebhookPayloadFormat!
  """Which alerts of which networks go to the endpoint, ordered by alert."""
  rules: [WebhookRule!]!
}

"""Which alert of which networks goes to an endpoint."""
type WebhookRule {
  alert: WebhookAlert!
  """The networks; null for every network of the company, those made later too."""
  networkUUIDs: [UUID!]
  """CLIENT_COUNT_ABOVE: fires when a network's connected clients go above it; null for other alerts."""
  threshold: Int
}

"""One message to an endpoint with its delivery attempts."""
type WebhookDelivery {
  """The message's webhook-id header, the same on every attempt and replay."""
  messageId: String!
  """The webhook endpoint's UUID, or the alert receiver target's (an EMAIL or SLACK target's messages)."""
  endpointUUID: UUID!
  endpointLabel: String!
  """The alert (TEST for a test event)."""
  alert: String!
  createdAt: DateTime!
  state: WebhookDeliveryState!
  attemptCount: Int!
  """When the next attempt is due; null when none is."""
  nextAttemptAt: DateTime
  """The JSON body every attempt sends."""
  payload: String!
  """The latest attempt; null before the first."""
  lastAttempt: WebhookDeliveryAttempt
  """Every attempt, oldest first."""
  attempts: [WebhookDeliveryAttempt!]!
}

"""One delivery attempt."""
type WebhookDeliveryAttempt {
  attemptedAt: DateTime!
  """The receiver's HTTP status; null when there was no answer."""
  status: Int
  durationMs: Int!
  """SUCCESS for a 2xx answer, FAILURE otherwise."""
  outcome: String!
  """The first bytes of the receiver's answer; null when none."""
  responseExcerpt: String
  """Why there was no answer (timeout, refused address, connection error); null when there was one."""
  error: String
}

extend type Query {
  """The API key's company's webhook endpoints, oldest first."""
  webhookEndpoints: [WebhookEndpoint!]

  """
  The delivery log, newest first: the company's messages (of one endpoint
  when given) created at or after since, at most limit (1 to 1000). Null
  with UNAUTHORIZED when the endpoint is not the API key's company's.
  """
  webhookDeliveries(
    "One webhook endpoint's (or alert receiver target's) messages only."
    endpointUUID: UUID
    "Messages created at or after this time only."
    since: DateTime
    "At most this many, 1 to 1000."
    limit: Int = 100
  ): [WebhookDelivery!]
}

extend type Mutation {
  """Adds a webhook endpoint; the payload holds its signing secret, shown this once."""
  createWebhookEndpoint("The new endpoint." input: CreateWebhookEndpointInput!): CreateWebhookEndpointPayload

  """Changes the given fields of an endpoint; turning it on clears why netgraph turned it off."""
  updateWebhookEndpoint("The endpoint and the fields to change." input: UpdateWebhookEndpointInput!): UpdateWebhookEndpointPayload

  """Deletes an endpoint with its secrets, rules and delivery log."""
  deleteWebhookEndpoint("The endpoint to delete." input: WebhookEndpointInput!): DeleteWebhookEndpointPayload

  """Adds a new signing secret, shown this once; the old ones keep signing for graceSeconds."""
  rotateWebhookSecret("The endpoint and the grace period." input: RotateWebhookSecretInput!): RotateWebhookSecretPayload

  """Queues a TEST message to the endpoint, delivered like any other."""
  sendWebhookTestEvent("The endpoint to send to." input: WebhookEndpointInput!): SendWebhookTestEventPayload

  """Delivers again, with the same webhook-id: one message, or every message since a time."""
  replayWebhookMessages("One message id or a since time." input: ReplayWebhookMessagesInput!): ReplayWebhookMessagesPayload
}

"""An endpoint's Authorization header: Basic takes username and password, Bearer a token."""
input WebhookAuthorizationInput {
  type: WebhookAuthorizationType!
  "Basic: the user name, without a colon."
  username: String
  "Basic: the password, 1 to 1000 visible ASCII characters."
  password: String
  "Bearer: the token, 1 to 1000 visible ASCII characters."
  token: String
}

"""An alert to deliver, for every network or a set of them."""
input WebhookRuleInput {
  alert: WebhookAlert!
  "The company's networks; absent or null for all of them."
  networkUUIDs: [UUID!]
  "CLIENT_COUNT_ABOVE only: fires above this many clients (0 to 1000000)."
  threshold: Int
}

"""A new webhook endpoint."""
input CreateWebhookEndpointInput {
  "1 to ${TEXT_MAX.webhookLabel} characters."
  label: String!
  "An http(s) URL; private and loopback addresses are refused unless the server allows them."
  url: String!
  isEnabled: Boolean! = true
  "None when absent or null."
  authorization: WebhookAuthorizationInput
  "The body deliveries carry."
  payloadFormat: WebhookPayloadFormat! = STANDARD
  "1 to 100 rules."
  rules: [WebhookRuleInput!]!
}

"""Changes to an endpoint: absent fields stay as they are."""
input UpdateWebhookEndpointInput {
  endpointUUID: UUID!
  label: String
  url: String
  "Turning it on clears disabledReason and failingSince."
  isEnabled: Boolean
  "Replaces the Authorization; null removes it."
  authorization: WebhookAuthorizationInput
  "The body deliveries carry from now on (messages already queued keep theirs)."
  payloadFormat: WebhookPayloadFormat
  "Replaces every rule."
  rules: [WebhookRuleInput!]
}

"""An endpoint, by UUID."""
input WebhookEndpointInput {
  endpointUUID: UUID!
}

"""The endpoint whose secret to rotate."""
input RotateWebhookSecretInput {
  endpointUUID: UUID!
  "How long the secrets valid until now keep signing, 0 to 2592000 seconds (default a day)."
  graceSeconds: Int
}

"""What to deliver again: one messageId, or every message since a time."""
input ReplayWebhookMessagesInput {
  "A message's webhook-id."
  messageId: String
  since: DateTime
}

"""The result of createWebhookEndpoint."""
type CreateWebhookEndpointPayload {
  endpoint: WebhookEndpoint!
  """The whsec_ signing secret: shown only here, store it now."""
  secret: String!
}

"""The result of updateWebhookEndpoint."""
type UpdateWebhookEndpointPayload {
  endpoint: WebhookEndpoint!
}

"""The result of deleteWebhookEndpoint."""
type DeleteWebhookEndpointPayload {
  deletedEndpointUUID: UUID!
}

"""The result of rotateWebhookSecret."""
type RotateWebhookSecretPayload {
  endpoint: WebhookEndpoint!
  """The new whsec_ signing secret: shown only here."""
  secret: String!
  """Until when the previous secrets keep signing."""
  previousSecretValidUntil: DateTime!
}

"""The result of sendWebhookTestEvent."""
type SendWebhookTestEventPayload {
  """The queued TEST message."""
  delivery: WebhookDelivery!
}

"""The result of replayWebhookMessages."""
type ReplayWebhookMessagesPayload {
  """How many messages were queued again."""
  requeued: Int!
}
`,
  readModel: {
    WebhookEndpoint: {
      UUID: text('uuid'),
      label: text('label'),
      url: text('url'),
      isEnabled: bool('enabled'),
      authorizationType: upper('auth_kind'),
      disabledReason: text('disabled_reason', true),
      failingSince: nullable('failing_since', 'datetime'),
      createdAt: dateTime('created_at'),
      payloadFormat: upper('payload_format'),
      rules: RULES_OF_ENDPOINT,
    },
    WebhookRule: {
      alert: text('alert_type'),
      networkUUIDs: { kind: 'computed', type: 'json', nullable: true, sql: networkUuidsOfRule },
      threshold: nullable('threshold', 'integer'),
    },
    WebhookDelivery: {
      messageId: text('uuid'),
      endpointUUID: { kind: 'computed', type: 'string', sql: (m) => `(SELECT me.uuid FROM webhook_endpoints me WHERE me.id = ${m}.endpoint_id)` },
      endpointLabel: { kind: 'computed', type: 'string', sql: (m) => `(SELECT me.label FROM webhook_endpoints me WHERE me.id = ${m}.endpoint_id)` },
      alert: text('alert_type'),
      createdAt: dateTime('created_at'),
      state: upper('state'),
      attemptCount: integer('attempts'),
      nextAttemptAt: nullable('next_attempt_at', 'datetime'),
      payload: text('payload'),
      lastAttempt: {
        kind: 'object',
        table: 'webhook_attempts',
        join: (a, m) => `${a}.id = (SELECT max(la.id) FROM webhook_attempts la WHERE la.message_id = ${m}.id)`,
      },
      attempts: ATTEMPTS_OF_MESSAGE,
    },
    WebhookDeliveryAttempt: {
      attemptedAt: dateTime('attempted_at'),
      status: nullable('status', 'integer'),
      durationMs: integer('duration_ms'),
      outcome: { kind: 'computed', type: 'string', sql: (a) => `(CASE WHEN ${a}.status BETWEEN 200 AND 299 THEN 'SUCCESS' ELSE 'FAILURE' END)` },
      responseExcerpt: text('response', true),
      error: text('error', true),
    },
  },
  roots: {
    webhookEndpoints: {
      table: 'companies',
      arguments: [],
      where: (t, c) => `${t}.id = ${c.company()}`,
      // a receiver's email and slack channels are no webhook endpoints: the receiver shows them
      list: { kind: 'list', table: 'webhook_endpoints', join: (e, co) => `${e}.company_id = ${co}.id AND ${e}.channel = 'webhook'`, orderBy: (e) => `${e}.created_at, ${e}.id` },
    },
    webhookDeliveries: {
      kind: 'value',
      arguments: [
        { name: 'endpointUUID', type: 'uuid' },
        { name: 'since', type: 'datetime' },
        { name: 'limit', type: 'int', default: 100 },
      ],
      check: checkDeliveryLimit,
      // NULL (UNAUTHORIZED) when an endpoint is named and it is not the caller's company's, like a missing one
      json: (c, selection) =>
        `(CASE WHEN (SELECT count(*) FROM webhook_endpoints ce WHERE ce.uuid = ${c.arg('endpointUUID')} AND ce.company_id = ${c.company()}) = ` +
        `${c.value('integer', (args) => (args['endpointUUID'] == null ? 0 : 1))} THEN ${c.list(DELIVERIES, selection, '')} END)`,
    },
  },
  internalRoots: {
    // the mutations read an endpoint, or a test event's message, back through these
    webhookEndpointByUUID: { table: 'webhook_endpoints', arguments: uuidArgument('UUID'), where: (t, c) => `${inCompany('uuid', 'UUID')(t, c)} AND ${t}.channel = 'webhook'` },
    webhookDeliveryById: { table: 'webhook_messages', arguments: [{ name: 'messageId', type: 'text', check: () => true, rule: 'a webhook-id' }], where: inCompany('uuid', 'messageId') },
  },
  mutations: {
    createWebhookEndpoint: async (s, caller, input) => {
      const created = await withInputNames(s.webhooks.createEndpoint(caller, asInput<CreateEndpointInput>(toEndpointInput(input))));
      return { values: { secret: created.secret }, objects: { endpoint: endpoint(created.endpoint.id) } };
    },
    updateWebhookEndpoint: async (s, caller, input) => {
      const updated = await withInputNames(s.webhooks.updateEndpoint(caller, { endpointId: endpointUuidOf(input), ...toEndpointInput(input) }));
      return { objects: { endpoint: endpoint(updated.id) } };
    },
    deleteWebhookEndpoint: async (s, caller, input) => ({
      values: { deletedEndpointUUID: (await withInputNames(s.webhooks.deleteEndpoint(caller, { endpointId: endpointUuidOf(input) }))).id },
    }),
    rotateWebhookSecret: async (s, caller, input) => {
      const graceSeconds = input['graceSeconds'] as number | null | undefined;
      const rotated = await withInputNames(s.webhooks.rotateSecret(caller, { endpointId: endpointUuidOf(input), ...(graceSeconds != null ? { graceSeconds } : {}) }));
      return { values: { secret: rotated.secret, previousSecretValidUntil: rotated.previousValidUntil }, objects: { endpoint: endpoint(rotated.endpoint.id) } };
    },
    sendWebhookTestEvent: async (s, caller, input) => {
      const delivery = await withInputNames(s.webhooks.sendTestEvent(caller, { endpointId: endpointUuidOf(input) }));
      return { objects: { delivery: { root: 'webhookDeliveryById', arg: delivery.id } } };
    },
    replayWebhookMessages: async (s, caller, input) => {
      const messageId = input['messageId'] as string | null | undefined;
      const since = input['since'] as string | null | undefined;
      const replayed = await withInputNames(s.webhooks.replay(caller, { ...(messageId != null ? { messageId } : {}), ...(since != null ? { since } : {}) }));
      return { values: { requeued: replayed.requeued } };
    },
  },
} satisfies GraphQLFeature<{ webhooks: WebhookService }>;
