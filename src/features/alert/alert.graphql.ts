import { TEXT_MAX } from '../../kernel/rules.js';
import { AppError, isAppError } from '../../kernel/errors.js';
import { dateTime, inCompany, isCompany, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping, MutationInput, ObjectReference, SqlContext } from '../../engine/read.model.js';
import type { RuleInput } from '../webhook/webhook.rules.js';
import type { AlertService, TargetInput } from './alert.service.js';

const receiver = (uuid: string): ObjectReference => ({ root: 'alertReceiverByUUID', arg: uuid });

/** A receiver's rules, one per alert and "all networks or a set" (the rule table has a row per network). */
const RULES_OF_RECEIVER: ListMapping = {
  kind: 'list',
  table:
    '(SELECT ar.receiver_id, ar.alert_type, (ar.network_id IS NULL) AS all_networks, min(ar.id) AS id ' +
    'FROM alert_receiver_rules ar GROUP BY ar.receiver_id, ar.alert_type, (ar.network_id IS NULL))',
  join: (r, a) => `${r}.receiver_id = ${a}.id`,
  orderBy: (r) => `${r}.alert_type, ${r}.all_networks`,
};

/** The UUIDs of a rule group's networks (a JSON array, by UUID); null when it covers every network. */
const networkUuidsOfRule = (r: string, c: SqlContext): string =>
  `(CASE WHEN ${r}.all_networks THEN NULL ELSE ${c.dialect.jsonArray(
    c.dialect.jsonString('arn.uuid'),
    `alert_receiver_rules arr JOIN networks arn ON arn.id = arr.network_id WHERE arr.receiver_id = ${r}.receiver_id AND arr.alert_type = ${r}.alert_type`,
    'arn.uuid',
  )} END)`;

/** A column of the endpoint row a target delivers through. */
const endpointColumn = (t: string, column: string): string => `(SELECT ate.${column} FROM webhook_endpoints ate WHERE ate.id = ${t}.endpoint_id)`;

/** The service's field names as this API's inputs name them. */
const INPUT_NAMES: readonly (readonly [RegExp, string])[] = [
  [/^receiverId$/, 'receiverUUID'],
  [/\.webhookEndpointId$/, '.webhookEndpointUUID'],
  [/\.slackWebhookUrl$/, '.slackWebhookURL'],
  [/\.networks(?=$|\[)/, '.networkUUIDs'],
];

/** Runs a service call; a refusal names the field as the GraphQL input does. */
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

/** The GraphQL receiver input (create or update) as the service takes it: only the fields given. */
function toReceiverInput(input: MutationInput) {
  const targets = input['targets'] as { type: string; webhookEndpointUUID?: string | null; emailAddress?: string | null; slackWebhookURL?: string | null }[] | null | undefined;
  const rules = input['rules'] as { alert: string; networkUUIDs?: string[] | null }[] | null | undefined;
  return {
    ...(input['label'] != null ? { label: input['label'] as string } : {}),
    ...(targets != null
      ? {
          targets: targets.map(
            (t): TargetInput => ({ type: t.type, webhookEndpointId: t.webhookEndpointUUID ?? null, emailAddress: t.emailAddress ?? null, slackWebhookUrl: t.slackWebhookURL ?? null }),
          ),
        }
      : {}),
    ...(rules != null ? { rules: rules.map((r): RuleInput => ({ alert: r.alert, networks: r.networkUUIDs ?? null })) } : {}),
  };
}

/** Alert receivers: Meter's targets of alerts, with their rules (docs/alerts.md). */
export const ALERT_FEATURE = {
  sdl: /* GraphQL */ `
"""Where an alert receiver's target delivers (Meter's AlertTargetType)."""
enum AlertTargetType {
  """An email through the server's SMTP server (SMTP_URL)."""
  EMAIL
  """Meter's Salesforce target: netgraph cannot deliver to Salesforce, and refuses to create one."""
  SALESFORCE
  """A Slack incoming webhook."""
  SLACK
  """One of the company's webhook endpoints."""
  WEBHOOK
}

"""
An alert receiver of the API key's company: targets, and the alerts of
which networks they receive.
"""
type AlertReceiver {
  UUID: UUID!
  companyUUID: UUID!
  label: String!
  createdAt: DateTime!
  """When the receiver, its targets or its rules last changed."""
  updatedAt: DateTime!
  """The targets, in the order they were added."""
  targets: [AlertTarget!]!
  """Which alerts of which networks go to every target, ordered by alert."""
  rules: [AlertReceiverRule!]!
}

"""
One target of a receiver. An EMAIL or SLACK target's messages are in
webhookDeliveries under its UUID; a Slack URL is never shown.
"""
type AlertTarget {
  UUID: UUID!
  type: AlertTargetType!
  """WEBHOOK: the webhook endpoint; null for other types."""
  webhookEndpointUUID: UUID
  """EMAIL: the recipient; null for other types."""
  emailAddress: String
  """False when netgraph turned the target off (GONE, FAILING) or, for WEBHOOK, its endpoint is off."""
  isEnabled: Boolean!
  """Why netgraph turned it off: GONE or FAILING; null otherwise."""
  disabledReason: String
  createdAt: DateTime!
}

"""Which alert of which networks goes to a receiver's targets."""
type AlertReceiverRule {
  alert: WebhookAlert!
  """The networks; null for every network of the company, those made later too."""
  networkUUIDs: [UUID!]
}

extend type Query {
  """One alert receiver by its UUID."""
  alertReceiver("The receiver's UUID." UUID: UUID!): AlertReceiver

  """The company's alert receivers, ordered by label, then UUID."""
  alertReceiversForCompany("The company's UUID." companyUUID: UUID!): [AlertReceiver!]
}

extend type Mutation {
  """Adds an alert receiver with its targets and rules."""
  createAlertReceiver("The new receiver." input: CreateAlertReceiverInput!): CreateAlertReceiverPayload

  """Changes the given fields of a receiver; targets and rules replace all of theirs (equal targets keep their UUID and log)."""
  updateAlertReceiver("The receiver and the fields to change." input: UpdateAlertReceiverInput!): UpdateAlertReceiverPayload

  """Deletes a receiver with its rules and targets (and the delivery log of its EMAIL and SLACK targets); webhook endpoints stay."""
  deleteAlertReceiver("The receiver to delete." input: AlertReceiverInput!): DeleteAlertReceiverPayload
}

"""A target: the field its type needs, and no other."""
input AlertTargetInput {
  type: AlertTargetType!
  "WEBHOOK: one of the company's webhook endpoints."
  webhookEndpointUUID: UUID
  "EMAIL: the recipient."
  emailAddress: String
  "SLACK: the incoming-webhook URL; a secret, stored encrypted and never shown."
  slackWebhookURL: String
}

"""An alert to deliver to a receiver, for every network or a set of them (CLIENT_COUNT_ABOVE is a webhook rule only)."""
input AlertReceiverRuleInput {
  alert: WebhookAlert!
  "The company's networks; absent or null for all of them."
  networkUUIDs: [UUID!]
}

"""A new alert receiver."""
input CreateAlertReceiverInput {
  "1 to ${TEXT_MAX.alertReceiverLabel} characters."
  label: String!
  "1 to 20 targets."
  targets: [AlertTargetInput!]!
  "1 to 100 rules."
  rules: [AlertReceiverRuleInput!]!
}

"""Changes to a receiver: absent fields stay as they are."""
input UpdateAlertReceiverInput {
  receiverUUID: UUID!
  label: String
  "Replaces every target; a target equal to one it has keeps its UUID and log, and is turned on again."
  targets: [AlertTargetInput!]
  "Replaces every rule."
  rules: [AlertReceiverRuleInput!]
}

"""A receiver, by UUID."""
input AlertReceiverInput {
  receiverUUID: UUID!
}

"""The result of createAlertReceiver."""
type CreateAlertReceiverPayload {
  receiver: AlertReceiver!
}

"""The result of updateAlertReceiver."""
type UpdateAlertReceiverPayload {
  receiver: AlertReceiver!
}

"""The result of deleteAlertReceiver."""
type DeleteAlertReceiverPayload {
  deletedReceiverUUID: UUID!
}
`,
  readModel: {
    AlertReceiver: {
      UUID: text('uuid'),
      companyUUID: { kind: 'computed', type: 'string', sql: (r) => `(SELECT arc.uuid FROM companies arc WHERE arc.id = ${r}.company_id)` },
      label: text('label'),
      createdAt: dateTime('created_at'),
      updatedAt: dateTime('updated_at'),
      targets: { kind: 'list', table: 'alert_receiver_targets', join: (t, r) => `${t}.receiver_id = ${r}.id`, orderBy: (t) => `${t}.id` },
      rules: RULES_OF_RECEIVER,
    },
    AlertTarget: {
      UUID: text('uuid'),
      type: text('type'),
      webhookEndpointUUID: { kind: 'computed', type: 'string', nullable: true, sql: (t) => `(CASE WHEN ${t}.type = 'WEBHOOK' THEN ${endpointColumn(t, 'uuid')} END)` },
      emailAddress: { kind: 'computed', type: 'string', nullable: true, sql: (t) => `(CASE WHEN ${t}.type = 'EMAIL' THEN ${endpointColumn(t, 'target')} END)` },
      isEnabled: { kind: 'computed', type: 'boolean', sql: (t) => endpointColumn(t, 'enabled') },
      disabledReason: { kind: 'computed', type: 'string', nullable: true, sql: (t) => endpointColumn(t, 'disabled_reason') },
      createdAt: dateTime('created_at'),
    },
    AlertReceiverRule: {
      alert: text('alert_type'),
      networkUUIDs: { kind: 'computed', type: 'json', nullable: true, sql: networkUuidsOfRule },
    },
  },
  roots: {
    alertReceiver: { table: 'alert_receivers', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
    alertReceiversForCompany: {
      table: 'companies',
      arguments: uuidArgument('companyUUID'),
      where: isCompany('uuid', 'companyUUID'),
      list: { kind: 'list', table: 'alert_receivers', join: (r, co) => `${r}.company_id = ${co}.id`, orderBy: (r) => `${r}.label, ${r}.uuid` },
    },
  },
  internalRoots: {
    // the mutations read a receiver back through this
    alertReceiverByUUID: { table: 'alert_receivers', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
  },
  mutations: {
    createAlertReceiver: async (s, caller, input) => {
      const created = await withInputNames(s.alerts.createReceiver(caller, toReceiverInput(input) as Parameters<AlertService['createReceiver']>[1]));
      return { objects: { receiver: receiver(created.id) } };
    },
    updateAlertReceiver: async (s, caller, input) => {
      const updated = await withInputNames(s.alerts.updateReceiver(caller, { receiverId: input['receiverUUID'] as string, ...toReceiverInput(input) }));
      return { objects: { receiver: receiver(updated.id) } };
    },
    deleteAlertReceiver: async (s, caller, input) => ({
      values: { deletedReceiverUUID: (await withInputNames(s.alerts.deleteReceiver(caller, { receiverId: input['receiverUUID'] as string }))).id },
    }),
  },
} satisfies GraphQLFeature<{ alerts: AlertService }>;
