import { TEXT_MAX } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import type { SqlContext, Store } from '../../db/store.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { notFound, requireSomeChange, requireText, requireUuid, isGiven } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import type { SecretBox } from '../webhook/webhook.cipher.js';
import { slackUrlContext } from '../webhook/webhook-delivery.service.js';
import { createReceiverEndpoints } from '../webhook/webhook.service.js';
import type { EndpointValues, ReceiverEndpoints } from '../webhook/webhook.service.js';
import { ALERT_TYPES } from '../webhook/webhook.alerts.js';
import type { RuleInput } from '../webhook/webhook.rules.js';
import { checkEndpointUrl } from '../webhook/webhook.target.js';
import { createAlertRepository } from './alert.repository.js';
import type { AlertRepository, ReceiverRow, ReceiverRuleRow, TargetRow } from './alert.repository.js';

/** Meter's target types; SALESFORCE is in the enum but netgraph cannot deliver to it. */
export const ALERT_TARGET_TYPES = ['EMAIL', 'SALESFORCE', 'SLACK', 'WEBHOOK'] as const;

/** The alerts a receiver's rule may ask for: every webhook alert but CLIENT_COUNT_ABOVE, which has a threshold of its endpoint's. */
export const RECEIVER_ALERT_TYPES = ALERT_TYPES.filter((alert) => alert !== 'CLIENT_COUNT_ABOVE');

/** One target of a receiver as given: the field its type needs, and no other. */
export interface TargetInput {
  readonly type: string;
  /** WEBHOOK: one of the company's webhook endpoints. */
  readonly webhookEndpointId?: string | null;
  /** EMAIL: the recipient. */
  readonly emailAddress?: string | null;
  /** SLACK: the incoming-webhook URL, a secret: stored encrypted, never shown again. */
  readonly slackWebhookUrl?: string | null;
}

/** A new receiver: its label, 1 to 20 targets, and the alerts it receives. */
export interface CreateReceiverInput {
  readonly label: string;
  readonly targets: readonly TargetInput[];
  readonly rules: readonly RuleInput[];
}

/** Changes to a receiver: absent fields stay; `targets` and `rules` replace all of theirs. */
export interface UpdateReceiverInput {
  readonly receiverId: string;
  readonly label?: string;
  readonly targets?: readonly TargetInput[];
  readonly rules?: readonly RuleInput[];
}

/** A receiver as the API and the audit log show it: never a Slack URL. */
export interface ReceiverInfo {
  readonly id: string;
  readonly label: string;
  readonly targets: readonly { id: string; type: string; webhookEndpointId: string | null; emailAddress: string | null }[];
  readonly rules: readonly { alert: string; network: string | null }[];
}

/** A receiver as the dashboard lists it: each target with its state and what it delivers through (a Slack URL's origin only). */
export interface ReceiverListItem extends ReceiverInfo {
  readonly targetStates: readonly { id: string; enabled: boolean; disabledReason: string | null; endpointLabel: string; endpointUrl: string }[];
}

/** What the alert receiver service needs. */
export interface AlertServiceDeps {
  readonly store: Store;
  readonly writes: WriteService;
  readonly box: () => Promise<SecretBox>;
  readonly allowPrivateTargets: boolean;
  /** False when no SMTP server is configured: EMAIL targets are refused. */
  readonly canEmail: boolean;
  readonly now: () => Date;
}

const MAX_RECEIVERS = 100;
const MAX_TARGETS = 20;
/** True for an address an EMAIL target takes (the API's, the dashboard's and the import format's rule). */
export function isEmailAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && EMAIL.test(value);
}

const EMAIL = /^[^@\s<>(),;:"\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** A checked target, ready to match against the stored ones or to store. */
export type CheckedTarget =
  | { readonly type: 'WEBHOOK'; readonly endpointId: number; readonly endpointUuid: string }
  | { readonly type: 'EMAIL'; readonly address: string }
  | { readonly type: 'SLACK'; readonly url: string };

/**
 * Alert receivers (docs/alerts.md): a label, targets (a webhook endpoint of
 * the company, an email address, a Slack incoming webhook) and the alerts
 * they receive. An EMAIL or SLACK target delivers through a channel row of
 * the webhook outbox with the target's UUID, so its messages are claimed,
 * retried, logged and replayed exactly as a webhook's. Changes are one
 * audited transaction each; another company's receiver answers like a missing one.
 */
export function createAlertService(deps: AlertServiceDeps) {
  const { writes, now } = deps;

  async function getRow(alerts: AlertRepository, caller: Caller, receiverId: unknown): Promise<ReceiverRow> {
    const row = await alerts.findReceiver(caller.companyId, requireUuid(receiverId, 'receiverId'));
    if (row === undefined) throw notFound('receiverId');
    return row;
  }

  async function info(alerts: AlertRepository, row: ReceiverRow): Promise<ReceiverInfo> {
    const targets = await alerts.listTargets(row.id);
    return {
      id: row.uuid,
      label: row.label,
      targets: targets.map((t) => ({ id: t.uuid, type: t.type, webhookEndpointId: t.type === 'WEBHOOK' ? t.endpointUuid : null, emailAddress: t.type === 'EMAIL' ? t.target : null })),
      rules: (await alerts.listRules(row.id)).map((r) => ({ alert: r.alertType, network: r.networkUuid })),
    };
  }

  /** Checks one target; UNAUTHORIZED naming the field for a webhook endpoint the company does not have. */
  async function checkTarget(webhooks: ReceiverEndpoints, caller: Caller, input: TargetInput, at: string): Promise<CheckedTarget> {
    const type = input.type;
    const extra = (['webhookEndpointId', 'emailAddress', 'slackWebhookUrl'] as const).filter((name) => isGiven(input, name) && input[name] !== null);
    const only = (field: (typeof extra)[number]) => {
      const other = extra.find((name) => name !== field);
      if (other !== undefined) throw new AppError('BAD_USER_INPUT', `${at}.${other} does not apply to a ${type} target: leave it out.`, { field: `${at}.${other}` });
    };
    if (type === 'SALESFORCE') {
      throw new AppError('BAD_USER_INPUT', `${at}.type SALESFORCE cannot be created in netgraph: use WEBHOOK, EMAIL or SLACK.`, { field: `${at}.type` });
    }
    if (type === 'WEBHOOK') {
      only('webhookEndpointId');
      const endpoint = await webhooks.findEndpoint(caller.companyId, requireUuid(input.webhookEndpointId, `${at}.webhookEndpointId`));
      if (endpoint === undefined) throw notFound(`${at}.webhookEndpointId`);
      return { type, endpointId: endpoint.id, endpointUuid: endpoint.uuid };
    }
    if (type === 'EMAIL') {
      only('emailAddress');
      if (!deps.canEmail) throw new AppError('BAD_USER_INPUT', `${at}.type EMAIL needs an SMTP server: the operator sets SMTP_URL and SMTP_FROM.`, { field: `${at}.type` });
      const address = input.emailAddress;
      if (!isEmailAddress(address)) {
        throw new AppError('BAD_USER_INPUT', `${at}.emailAddress must be an email address such as noc@example.com.`, { field: `${at}.emailAddress` });
      }
      return { type, address };
    }
    if (type === 'SLACK') {
      only('slackWebhookUrl');
      return { type, url: checkSlackUrl(input.slackWebhookUrl, `${at}.slackWebhookUrl`, deps.allowPrivateTargets) };
    }
    throw new AppError('BAD_USER_INPUT', `${at}.type must be one of WEBHOOK, EMAIL, SLACK.`, { field: `${at}.type` });
  }

  async function checkTargets(webhooks: ReceiverEndpoints, caller: Caller, targets: unknown): Promise<CheckedTarget[]> {
    if (!Array.isArray(targets) || targets.length === 0 || targets.length > MAX_TARGETS) {
      throw new AppError('BAD_USER_INPUT', `targets must list 1 to ${MAX_TARGETS} targets.`, { field: 'targets' });
    }
    const checked: CheckedTarget[] = [];
    for (const [i, target] of (targets as TargetInput[]).entries()) {
      const next = await checkTarget(webhooks, caller, target, `targets[${i}]`);
      if (checked.some((other) => sameTarget(other, next))) throw new AppError('BAD_USER_INPUT', `targets[${i}] repeats an earlier target: list each once.`, { field: `targets[${i}]` });
      checked.push(next);
    }
    return checked;
  }

  async function checkReceiverRules(webhooks: ReceiverEndpoints, caller: Caller, rules: unknown) {
    if (Array.isArray(rules)) {
      for (const [i, rule] of (rules as RuleInput[]).entries()) {
        if (rule.alert === 'CLIENT_COUNT_ABOVE') {
          throw new AppError('BAD_USER_INPUT', `rules[${i}].alert CLIENT_COUNT_ABOVE is a webhook endpoint's rule only (it has a threshold): add it to the endpoint.`, { field: `rules[${i}].alert` });
        }
      }
    }
    return (await webhooks.checkRules(caller.companyId, rules)).map((rule) => ({ alertType: rule.alertType, networkId: rule.networkId }));
  }

  /** The stored target equal to a checked one (a Slack URL compared opened), if any. */
  function findStored(stored: readonly TargetRow[], target: CheckedTarget, box: SecretBox): TargetRow | undefined {
    return stored.find((row) => {
      if (row.type !== target.type) return false;
      if (target.type === 'WEBHOOK') return row.endpointId === target.endpointId;
      if (target.type === 'EMAIL') return row.target === target.address;
      return row.target !== null && openSlackUrl(box, row.target, row.endpointUuid) === target.url;
    });
  }

  /** Stores a new target: a WEBHOOK target names its endpoint; an EMAIL or SLACK target gets its own channel row. */
  async function addTarget(tx: { alerts: AlertRepository; webhooks: ReceiverEndpoints }, receiver: ReceiverRow, target: CheckedTarget, box: SecretBox, at: string): Promise<void> {
    const uuid = randomUUID();
    let endpointId: number;
    if (target.type === 'WEBHOOK') endpointId = target.endpointId;
    else {
      const channel = target.type === 'EMAIL' ? { kind: 'email' as const, target: target.address } : { kind: 'slack' as const, target: box.seal(target.url, slackUrlContext(uuid)) };
      const values = channelValues(target);
      endpointId = await tx.webhooks.insertEndpoint(receiver.companyId, uuid, values, at, channel);
    }
    await tx.alerts.insertTarget(receiver.id, receiver.companyId, { uuid, type: target.type, endpointId }, at);
  }

  /** Makes the receiver's targets the given ones: equal ones stay (with their UUID, log and channel, turned on again), others go or come. */
  async function replaceTargets(tx: { alerts: AlertRepository; webhooks: ReceiverEndpoints }, receiver: ReceiverRow, targets: readonly CheckedTarget[], box: SecretBox, at: string) {
    const stored = await tx.alerts.listTargets(receiver.id);
    const kept = new Set<number>();
    for (const target of targets) {
      const row = findStored(stored, target, box);
      if (row === undefined) await addTarget(tx, receiver, target, box, at);
      else {
        kept.add(row.id);
        // a person listing it again turns a channel netgraph turned off (GONE, FAILING) back on
        if (row.type !== 'WEBHOOK') await tx.webhooks.updateEndpoint(row.endpointId, channelValues(target));
      }
    }
    for (const row of stored.filter((r) => !kept.has(r.id))) {
      if (row.type === 'WEBHOOK') await tx.alerts.deleteTarget(row.id);
      else await tx.webhooks.deleteEndpoint(row.endpointId); // the target row and the channel's log go with it
    }
  }

  async function deleteChannels(tx: { alerts: AlertRepository; webhooks: ReceiverEndpoints }, receiver: ReceiverRow) {
    for (const row of await tx.alerts.listTargets(receiver.id)) if (row.type !== 'WEBHOOK') await tx.webhooks.deleteEndpoint(row.endpointId);
  }

  /** One audited change of a receiver's targets: `change` gets the receiver and the stored targets, in the write's transaction. */
  async function changeTargets(
    caller: Caller,
    receiverId: unknown,
    change: (tx: { alerts: AlertRepository; webhooks: ReceiverEndpoints }, row: ReceiverRow, stored: readonly TargetRow[], box: SecretBox, at: string) => Promise<void>,
  ): Promise<ReceiverInfo> {
    const box = await deps.box();
    return writes.run(caller, async (db) => {
      const tx = { alerts: createAlertRepository(db), webhooks: createReceiverEndpoints(db) };
      const row = await getRow(tx.alerts, caller, receiverId);
      const before = await info(tx.alerts, row);
      const at = now().toISOString();
      await change(tx, row, await tx.alerts.listTargets(row.id), box, at);
      await tx.alerts.updateReceiver(row.id, row.label, at);
      const after = await info(tx.alerts, await tx.alerts.receiverById(row.id));
      return { result: after, change: buildChange('alert_receiver.update', row.uuid, before, after) };
    });
  }

  return {
    /** The company's receivers with their targets' states, ordered by label (the dashboard's list; the API reads alertReceiversForCompany). */
    async listReceivers(caller: Caller): Promise<ReceiverListItem[]> {
      const alerts = createAlertRepository(deps.store);
      const list: ReceiverListItem[] = [];
      for (const row of await alerts.listReceivers(caller.companyId)) {
        const targets = await alerts.listTargets(row.id);
        const targetStates = targets.map((t) => ({ id: t.uuid, enabled: t.enabled, disabledReason: t.disabledReason, endpointLabel: t.endpointLabel, endpointUrl: t.endpointUrl }));
        list.push({ ...(await info(alerts, row)), targetStates });
      }
      return list;
    },

    /** Adds one target to a receiver (an equal one it has is refused); the other targets keep their UUID, log and secret. */
    async addTarget(caller: Caller, input: { receiverId: string; target: TargetInput }): Promise<ReceiverInfo> {
      return changeTargets(caller, input.receiverId, async (tx, row, stored, box, at) => {
        const target = await checkTarget(tx.webhooks, caller, input.target, 'target');
        if (findStored(stored, target, box) !== undefined) throw new AppError('BAD_USER_INPUT', 'target is one the receiver already has.', { field: 'target' });
        if (stored.length >= MAX_TARGETS) throw new AppError('BAD_USER_INPUT', `A receiver has at most ${MAX_TARGETS} targets: remove one first.`, { field: 'target' });
        await addTarget(tx, row, target, box, at);
      });
    },

    /** Removes one target (an EMAIL or SLACK target with its delivery log); a receiver keeps at least one. */
    async removeTarget(caller: Caller, input: { receiverId: string; targetId: string }): Promise<ReceiverInfo> {
      return changeTargets(caller, input.receiverId, async (tx, _row, stored) => {
        const targetId = requireUuid(input.targetId, 'targetId');
        const target = stored.find((t) => t.uuid === targetId);
        if (target === undefined) throw notFound('targetId');
        if (stored.length === 1) throw new AppError('BAD_USER_INPUT', 'A receiver needs at least one target: add another first, or delete the receiver.', { field: 'targetId' });
        if (target.type === 'WEBHOOK') await tx.alerts.deleteTarget(target.id);
        else await tx.webhooks.deleteEndpoint(target.endpointId); // the target row and the channel's log go with it
      });
    },

    /** Creates a receiver with its targets and rules. */
    async createReceiver(caller: Caller, input: CreateReceiverInput): Promise<ReceiverInfo> {
      const box = await deps.box();
      return writes.run(caller, async (db) => {
        const tx = { alerts: createAlertRepository(db), webhooks: createReceiverEndpoints(db) };
        const label = requireText(input.label, 'label', TEXT_MAX.alertReceiverLabel);
        const targets = await checkTargets(tx.webhooks, caller, input.targets);
        const rules = await checkReceiverRules(tx.webhooks, caller, input.rules);
        if ((await tx.alerts.countReceivers(caller.companyId)) >= MAX_RECEIVERS) {
          throw new AppError('BAD_USER_INPUT', `A company has at most ${MAX_RECEIVERS} alert receivers: delete one first.`, { field: '' });
        }
        const at = now().toISOString();
        const id = await tx.alerts.insertReceiver(caller.companyId, randomUUID(), label, at);
        const receiver = await tx.alerts.receiverById(id);
        for (const target of targets) await addTarget(tx, receiver, target, box, at);
        await tx.alerts.replaceRules(id, caller.companyId, rules);
        const after = await info(tx.alerts, receiver);
        return { result: after, change: buildChange('alert_receiver.create', receiver.uuid, null, after) };
      });
    },

    /** Changes a receiver's label, targets or rules. */
    async updateReceiver(caller: Caller, input: UpdateReceiverInput): Promise<ReceiverInfo> {
      const box = await deps.box();
      return writes.run(caller, async (db) => {
        const tx = { alerts: createAlertRepository(db), webhooks: createReceiverEndpoints(db) };
        const row = await getRow(tx.alerts, caller, input.receiverId);
        requireSomeChange(input, ['label', 'targets', 'rules']);
        const before = await info(tx.alerts, row);
        const label = isGiven(input, 'label') ? requireText(input.label, 'label', TEXT_MAX.alertReceiverLabel) : row.label;
        const targets = isGiven(input, 'targets') ? await checkTargets(tx.webhooks, caller, input.targets) : undefined;
        const rules = isGiven(input, 'rules') ? await checkReceiverRules(tx.webhooks, caller, input.rules) : undefined;
        const at = now().toISOString();
        await tx.alerts.updateReceiver(row.id, label, at);
        if (targets !== undefined) await replaceTargets(tx, row, targets, box, at);
        if (rules !== undefined) await tx.alerts.replaceRules(row.id, caller.companyId, rules);
        const after = await info(tx.alerts, await tx.alerts.receiverById(row.id));
        return { result: after, change: buildChange('alert_receiver.update', row.uuid, before, after) };
      });
    },

    /** Deletes a receiver with its rules, targets and their email and Slack channels (with their delivery log); webhook endpoints stay. */
    async deleteReceiver(caller: Caller, input: { receiverId: string }): Promise<ReceiverInfo> {
      return writes.run(caller, async (db) => {
        const tx = { alerts: createAlertRepository(db), webhooks: createReceiverEndpoints(db) };
        const row = await getRow(tx.alerts, caller, input.receiverId);
        const before = await info(tx.alerts, row);
        await deleteChannels(tx, row);
        await tx.alerts.deleteReceiver(row.id);
        return { result: before, change: buildChange('alert_receiver.delete', row.uuid, before, null) };
      });
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;

/** A receiver of the import format, checked (import.alerts.ts): its EMAIL targets' addresses and its rules' networks resolved. */
export interface EmailReceiverValues {
  readonly uuid: string;
  readonly label: string;
  readonly emailAddresses: readonly string[];
  readonly rules: readonly { alertType: string; networkId: number | null }[];
}

/**
 * Stores an imported receiver in the import's transaction `tx` as
 * createReceiver stores it: each EMAIL target with its own email channel
 * row of the webhook outbox.
 */
export async function insertEmailReceiver(tx: SqlContext, companyId: number, receiver: EmailReceiverValues, now: string): Promise<void> {
  const alerts = createAlertRepository(tx);
  const webhooks = createReceiverEndpoints(tx);
  const id = await alerts.insertReceiver(companyId, receiver.uuid, receiver.label, now);
  for (const address of receiver.emailAddresses) {
    const uuid = randomUUID();
    const endpointId = await webhooks.insertEndpoint(companyId, uuid, channelValues({ type: 'EMAIL', address }), now, { kind: 'email', target: address });
    await alerts.insertTarget(id, companyId, { uuid, type: 'EMAIL', endpointId }, now);
  }
  await alerts.replaceRules(id, companyId, receiver.rules);
}

/**
 * The company's receivers by label with their EMAIL targets' addresses and
 * their rules, read in `db` (the import format's export). A receiver whose
 * targets are all webhooks or Slack has nothing the format can carry: it is
 * left out, its rules unread.
 */
export async function listEmailReceivers(db: SqlContext, companyId: number): Promise<{ uuid: string; label: string; emailAddresses: string[]; rules: ReceiverRuleRow[] }[]> {
  const alerts = createAlertRepository(db);
  const out = [];
  for (const row of await alerts.listReceivers(companyId)) {
    const emailAddresses = (await alerts.listTargets(row.id)).filter((t) => t.type === 'EMAIL' && t.target !== null).map((t) => t.target as string);
    if (emailAddresses.length === 0) continue;
    out.push({ uuid: row.uuid, label: row.label, emailAddresses, rules: await alerts.listRules(row.id) });
  }
  return out;
}

/** A stored Slack URL, opened; undefined when it was sealed with another key (WEBHOOK_ENCRYPTION_KEY changed): it matches nothing, so the update replaces it. */
function openSlackUrl(box: SecretBox, sealed: string, targetUuid: string): string | undefined {
  try {
    return box.open(sealed, slackUrlContext(targetUuid));
  } catch {
    return undefined;
  }
}

function sameTarget(a: CheckedTarget, b: CheckedTarget): boolean {
  if (a.type === 'WEBHOOK' && b.type === 'WEBHOOK') return a.endpointId === b.endpointId;
  if (a.type === 'EMAIL' && b.type === 'EMAIL') return a.address.toLowerCase() === b.address.toLowerCase();
  return a.type === 'SLACK' && b.type === 'SLACK' && a.url === b.url;
}

/** The endpoint row's fields of an email or slack channel, on: its messages carry Meter's body, rendered as an email or a Slack message. */
export function channelValues(target: CheckedTarget): EndpointValues {
  const label = target.type === 'EMAIL' ? `email to ${target.address}` : 'Slack';
  const url = target.type === 'EMAIL' ? `mailto:${target.address}` : target.type === 'SLACK' ? new URL(target.url).origin : '';
  return { label, url, enabled: true, authKind: 'none', authValue: null, disabledReason: null, payloadFormat: 'meter' };
}

/** A Slack incoming-webhook URL: https (http only where private targets are allowed, for tests), checked as webhook URLs are; never quoted back. */
function checkSlackUrl(value: unknown, field: string, allowPrivate: boolean): string {
  const refuse = () => new AppError('BAD_USER_INPUT', `${field} must be a Slack incoming-webhook URL such as https://hooks.slack.com/services/T000/B000/XXXX.`, { field });
  try {
    const url = checkEndpointUrl(value, allowPrivate);
    if (!url.startsWith('https://') && !allowPrivate) throw refuse();
    return url;
  } catch (error) {
    // the URL is a secret: the message must not repeat it
    if (isAppError(error)) throw refuse();
    throw error;
  }
}
