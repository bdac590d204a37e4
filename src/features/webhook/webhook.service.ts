import { TEXT_MAX } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import type { SqlContext, Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { CLI_ACTOR, buildChange } from '../../platform/audit/audit.service.js';
import { toCanonicalDateTime } from '../../kernel/formats.js';
import { isGiven, notFound, requireBoolean, requireSomeChange, requireText, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { TEST_ALERT, serializePayload, testPayload } from './webhook.alerts.js';
import type { SecretBox } from './webhook.cipher.js';
import { meterPayloadOf } from './webhook.meter.js';
import { authorizationContext, secretContext } from './webhook-delivery.service.js';
import { newMessageId } from './webhook-dispatch.service.js';
import { createOutboxRepository } from './webhook-outbox.repository.js';
import type { AttemptRow, MessageRow } from './webhook-outbox.repository.js';
import { createWebhookRepository } from './webhook.repository.js';
import type { Channel, EndpointRow, EndpointValues, WebhookRepository } from './webhook.repository.js';
import { checkAuthorization, checkPayloadFormat, checkRules, toEndpointInfo } from './webhook.rules.js';
import type { AuthorizationInput, EndpointInfo, RuleInput } from './webhook.rules.js';
import { generateSigningSecret } from './webhook.signing.js';
import { checkEndpointUrl } from './webhook.target.js';

/** A new endpoint. `enabled` defaults to true, `authorization` to none. */
export interface CreateEndpointInput {
  readonly label: string;
  readonly url: string;
  readonly enabled?: boolean;
  readonly authorization?: AuthorizationInput | null;
  /** STANDARD (the default) or METER. */
  readonly payloadFormat?: 'STANDARD' | 'METER';
  readonly rules: readonly RuleInput[];
}

/** Changes to an endpoint: absent fields stay; `rules` replaces all of them. */
export interface UpdateEndpointInput {
  readonly endpointId: string;
  readonly label?: string;
  readonly url?: string;
  readonly enabled?: boolean;
  readonly authorization?: AuthorizationInput | null;
  readonly payloadFormat?: 'STANDARD' | 'METER';
  readonly rules?: readonly RuleInput[];
}

/** One attempt of a delivery as the log shows it. */
export interface AttemptInfo {
  readonly attemptedAt: string;
  readonly status: number | null;
  readonly durationMs: number;
  readonly response: string | null;
  readonly error: string | null;
}

/** A message and its attempts as the delivery log shows it; `id` is its webhook-id. */
export interface DeliveryInfo {
  readonly id: string;
  readonly endpointId: string;
  readonly endpointLabel: string;
  readonly alert: string;
  readonly createdAt: string;
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
  readonly payload: unknown;
  readonly log: readonly AttemptInfo[];
}

/** What the webhook service needs besides the store. */
export interface WebhookServiceDeps {
  readonly store: Store;
  readonly writes: WriteService;
  readonly companies: { getBySlug(slug: string): Promise<{ readonly id: number; readonly slug: string }>; findById(id: number): Promise<{ readonly slug: string } | undefined> };
  readonly box: () => Promise<SecretBox>;
  readonly allowPrivateTargets: boolean;
  /** The clock of webhooks (messages' times, rotation): the delivery schedule's, so a test event is due at once. */
  readonly now: () => Date;
}

const MAX_ENDPOINTS = 100;
/** How long a rotated secret keeps signing by default (Standard Webhooks suggests a day). */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
const DEFAULT_DELIVERY_LIMIT = 100;
const MAX_DELIVERY_LIMIT = 1_000;

/**
 * Webhook endpoints, their rules and secrets, the delivery log, replay and
 * test events, for the caller's company only: every method takes the caller
 * and finds rows by id *and* company, so another company's endpoint or
 * message is answered like a missing one. Changes are one audited
 * transaction each (write.service.ts).
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { store, writes, now } = deps;

  async function getRow(repository: WebhookRepository, caller: Caller, endpointId: unknown): Promise<EndpointRow> {
    const row = await repository.findEndpoint(caller.companyId, requireUuid(endpointId, 'endpointId'));
    if (row === undefined) throw notFound('endpointId');
    return row;
  }

  async function info(repository: WebhookRepository, row: EndpointRow): Promise<EndpointInfo> {
    return toEndpointInfo(row, await repository.listRules([row.id]));
  }

  /** The endpoint's fields with the given changes, checked; the Authorization sealed for the endpoint. */
  function values(input: Partial<CreateEndpointInput>, row: EndpointRow | undefined, uuid: string, box: SecretBox): EndpointValues {
    const enabled = isGiven(input, 'enabled') ? requireBoolean(input.enabled, 'enabled') : (row?.enabled ?? true);
    const auth = isGiven(input, 'authorization') || row === undefined ? checkAuthorization(input.authorization) : undefined;
    return {
      label: isGiven(input, 'label') || row === undefined ? requireText(input.label, 'label', TEXT_MAX.webhookLabel) : row.label,
      url: isGiven(input, 'url') || row === undefined ? checkEndpointUrl(input.url, deps.allowPrivateTargets) : row.url,
      enabled,
      authKind: auth?.kind ?? row?.authKind ?? 'none',
      authValue: auth === undefined ? (row?.authValue ?? null) : auth.plain === null ? null : box.seal(auth.plain, authorizationContext(uuid)),
      // a person turning it on (or keeping it off) clears what netgraph said about it
      disabledReason: isGiven(input, 'enabled') ? null : (row?.disabledReason ?? null),
      payloadFormat: isGiven(input, 'payloadFormat') ? checkPayloadFormat(input.payloadFormat) : (row?.payloadFormat ?? 'standard'),
    };
  }

  return {
    /** Creates an endpoint with its rules and a signing secret, returned only here. */
    async createEndpoint(caller: Caller, input: CreateEndpointInput): Promise<{ endpoint: EndpointInfo; secret: string }> {
      // the key first: on SQLite the transaction holds the one connection its first load needs
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const repository = createWebhookRepository(tx);
        const uuid = randomUUID();
        const fields = values(input, undefined, uuid, box);
        const rules = await checkRules(repository, caller.companyId, input.rules);
        if ((await repository.listEndpoints(caller.companyId)).length >= MAX_ENDPOINTS) {
          throw new AppError('BAD_USER_INPUT', `A company has at most ${MAX_ENDPOINTS} webhook endpoints: delete one first.`, { field: '' });
        }
        const at = now().toISOString();
        const id = await repository.insertEndpoint(caller.companyId, uuid, fields, at);
        await repository.replaceRules(id, caller.companyId, rules);
        const secret = generateSigningSecret();
        await repository.insertSecret(id, box.seal(secret, secretContext(uuid)), at);
        const endpoint = await info(repository, (await repository.endpointById(id)) as EndpointRow);
        return { result: { endpoint, secret }, change: buildChange('webhook.create', uuid, null, endpoint) };
      });
    },

    /** The company's endpoints, oldest first. */
    async listEndpoints(caller: Caller): Promise<EndpointInfo[]> {
      const repository = createWebhookRepository(store);
      const rows = await repository.listEndpoints(caller.companyId);
      const rules = await repository.listRules(rows.map((row) => row.id));
      return rows.map((row) => toEndpointInfo(row, rules));
    },

    /** One endpoint of the company; UNAUTHORIZED for another company's or a missing one. */
    async getEndpoint(caller: Caller, endpointId: string): Promise<EndpointInfo> {
      const repository = createWebhookRepository(store);
      return info(repository, await getRow(repository, caller, endpointId));
    },

    /** Changes an endpoint; turning it on again clears why netgraph turned it off and its failing clock. */
    async updateEndpoint(caller: Caller, input: UpdateEndpointInput): Promise<EndpointInfo> {
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const repository = createWebhookRepository(tx);
        const row = await getRow(repository, caller, input.endpointId);
        requireSomeChange(input, ['label', 'url', 'enabled', 'authorization', 'payloadFormat', 'rules']);
        const before = await info(repository, row);
        await repository.updateEndpoint(row.id, values(input, row, row.uuid, box));
        if (isGiven(input, 'rules')) await repository.replaceRules(row.id, caller.companyId, await checkRules(repository, caller.companyId, input.rules));
        const after = await info(repository, (await repository.endpointById(row.id)) as EndpointRow);
        return { result: after, change: buildChange('webhook.update', row.uuid, before, after) };
      });
    },

    /** Deletes an endpoint with its secrets, rules, messages and their log. */
    async deleteEndpoint(caller: Caller, input: { endpointId: string }): Promise<EndpointInfo> {
      return writes.run(caller, async (tx) => {
        const repository = createWebhookRepository(tx);
        const row = await getRow(repository, caller, input.endpointId);
        const before = await info(repository, row);
        await repository.deleteEndpoint(row.id);
        return { result: before, change: buildChange('webhook.delete', row.uuid, before, null) };
      });
    },

    /**
     * Adds a new signing secret, returned only here; the secrets valid until
     * now keep signing for `graceSeconds` (default a day), so deliveries carry
     * both signatures until receivers switch.
     */
    async rotateSecret(caller: Caller, input: { endpointId: string; graceSeconds?: number }): Promise<{ endpoint: EndpointInfo; secret: string; previousValidUntil: string }> {
      const grace = input.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
      if (!Number.isSafeInteger(grace) || grace < 0 || grace > 30 * 86_400) {
        throw new AppError('BAD_USER_INPUT', 'graceSeconds must be a whole number of seconds from 0 to 2592000 (30 days).', { field: 'graceSeconds' });
      }
      const box = await deps.box();
      return writes.run(caller, async (tx) => {
        const repository = createWebhookRepository(tx);
        const row = await getRow(repository, caller, input.endpointId);
        const at = now();
        const until = new Date(at.getTime() + grace * 1000).toISOString();
        await repository.deleteExpiredSecrets(at.toISOString());
        await repository.expireSecrets(row.id, at.toISOString(), until);
        const secret = generateSigningSecret();
        await repository.insertSecret(row.id, box.seal(secret, secretContext(row.uuid)), at.toISOString());
        const endpoint = await info(repository, row);
        return { result: { endpoint, secret, previousValidUntil: until }, change: buildChange('webhook.rotate_secret', row.uuid, null, { previousValidUntil: until }) };
      });
    },

    /** Queues a TEST message to the endpoint (delivered like any other, even when the endpoint has no rule for it). */
    async sendTestEvent(caller: Caller, input: { endpointId: string }): Promise<DeliveryInfo> {
      const id = await writes.run(caller, async (tx) => {
        const row = await getRow(createWebhookRepository(tx), caller, input.endpointId);
        const at = now().toISOString();
        const uuid = newMessageId();
        const standard = testPayload(row.uuid, at);
        const payload = serializePayload(row.payloadFormat === 'meter' ? meterPayloadOf(TEST_ALERT, standard) : standard);
        await createOutboxRepository(tx, store.dialect).insertMessages([{ uuid, companyId: caller.companyId, endpointId: row.id, alertType: TEST_ALERT, payload, createdAt: at }]);
        return { result: uuid, change: buildChange('webhook.test', row.uuid, null, { messageId: uuid }) };
      });
      return (await this.listDeliveries(caller, { messageId: id }))[0] as DeliveryInfo;
    },

    /** The delivery log, newest first: of one endpoint or message, since a time (RFC 3339), at most `limit` (100, up to 1000). */
    async listDeliveries(caller: Caller, filter: { since?: string; endpointId?: string; messageId?: string; limit?: number } = {}): Promise<DeliveryInfo[]> {
      const limit = filter.limit ?? DEFAULT_DELIVERY_LIMIT;
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_DELIVERY_LIMIT) {
        throw new AppError('BAD_USER_INPUT', `limit must be from 1 to ${MAX_DELIVERY_LIMIT}.`, { field: 'limit' });
      }
      const endpoint = filter.endpointId === undefined ? undefined : await getRow(createWebhookRepository(store), caller, filter.endpointId);
      const since = filter.since === undefined ? undefined : checkSince(filter.since);
      // one snapshot: messages and their attempts as of the same moment, never a message behind its last attempt
      return store.transaction(async (tx) => {
        const outbox = createOutboxRepository(tx, store.dialect);
        const messages = await outbox.listMessages({
          companyId: caller.companyId,
          limit,
          ...(since !== undefined ? { since } : {}),
          ...(endpoint !== undefined ? { endpointId: endpoint.id } : {}),
          ...(filter.messageId !== undefined ? { uuid: filter.messageId } : {}),
        });
        const attempts = await outbox.listAttempts(messages.map((m) => m.id));
        return messages.map((message) => toDelivery(message, attempts));
      });
    },

    /**
     * Delivers again, with a fresh round of attempts and the same webhook-id:
     * one message (`messageId`) or every message since a time. Returns how
     * many were queued.
     */
    async replay(caller: Caller, input: { messageId?: string; since?: string }): Promise<{ requeued: number }> {
      if ((input.messageId === undefined) === (input.since === undefined)) {
        throw new AppError('BAD_USER_INPUT', 'Name one message id or a since time to replay, not both.', { field: 'messageId' });
      }
      return writes.run(caller, async (tx) => {
        const outbox = createOutboxRepository(tx, store.dialect);
        const filter = input.messageId !== undefined ? { uuid: input.messageId } : { since: checkSince(input.since as string) };
        const requeued = await outbox.requeue({ companyId: caller.companyId, ...filter }, now().toISOString());
        if (input.messageId !== undefined && requeued === 0) throw notFound('messageId');
        return { result: { requeued }, change: buildChange('webhook.replay', input.messageId ?? `since ${filter.since}`, null, { ...input, requeued }) };
      });
    },

    /** The CLI's caller for a company: the operator, with read_write scope, recorded as the CLI. */
    async cliCaller(companySlug: string): Promise<Caller> {
      const company = await deps.companies.getBySlug(companySlug);
      return cliCallerOf(company.id, company.slug);
    },

    /** The CLI's caller for whichever company owns an endpoint (or a message): the CLI names them by id alone. */
    async cliCallerFor(kind: 'endpoint' | 'message', id: string): Promise<Caller> {
      const companyId =
        kind === 'endpoint'
          ? await createWebhookRepository(store).companyOfEndpoint(requireUuid(id, 'endpointId'))
          : await createOutboxRepository(store, store.dialect).companyOfMessage(id);
      const company = companyId === undefined ? undefined : await deps.companies.findById(companyId);
      if (companyId === undefined || company === undefined) throw new AppError('NOT_FOUND', `No webhook ${kind} with id "${id}".`, { field: 'id' });
      return cliCallerOf(companyId, company.slug);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

export type { EndpointValues } from './webhook.repository.js';

/**
 * The endpoint rows an alert receiver's write keeps, in that write's
 * transaction `tx` (alert.service.ts, the import format): the company's
 * webhook endpoints its targets name, its email and Slack channels (endpoint
 * rows of the outbox), and the rules' check. Other features reach endpoints
 * through this, never through webhook.repository.ts; each call is the one
 * statement of the repository's it names.
 */
export function createReceiverEndpoints(tx: SqlContext) {
  const repository = createWebhookRepository(tx);
  return {
    /** The company's webhook endpoint with this UUID (never a channel row), if any. */
    findEndpoint: (companyId: number, uuid: string) => repository.findEndpoint(companyId, uuid),
    /** Stores an endpoint row (a receiver's email or Slack channel); answers its id. */
    insertEndpoint: (companyId: number, uuid: string, values: EndpointValues, createdAt: string, channel: { kind: Channel; target: string | null }) =>
      repository.insertEndpoint(companyId, uuid, values, createdAt, channel),
    /** Overwrites an endpoint row's stored fields. */
    updateEndpoint: (id: number, values: EndpointValues) => repository.updateEndpoint(id, values),
    /** Deletes an endpoint row with its rules, messages and their log. */
    deleteEndpoint: (id: number) => repository.deleteEndpoint(id),
    /** checkRules() of webhook.rules.ts: the rules checked, their networks the company's. */
    checkRules: (companyId: number, rules: unknown) => checkRules(repository, companyId, rules),
  };
}

/** What createReceiverEndpoints() gives. */
export type ReceiverEndpoints = ReturnType<typeof createReceiverEndpoints>;

function cliCallerOf(companyId: number, companySlug: string): Caller {
  return { companyId, companySlug, keyId: null, keyUuid: null, label: CLI_ACTOR.label, scope: 'read_write', actor: CLI_ACTOR };
}

function checkSince(since: string): string {
  const canonical = toCanonicalDateTime(since);
  if (canonical !== undefined) return canonical;
  throw new AppError('BAD_USER_INPUT', `since "${since}" is not an RFC 3339 timestamp such as 2026-11-21T17:03:00Z.`, { field: 'since' });
}

function toDelivery(message: MessageRow, attempts: readonly AttemptRow[]): DeliveryInfo {
  return {
    id: message.uuid,
    endpointId: message.endpointUuid,
    endpointLabel: message.endpointLabel,
    alert: message.alertType,
    createdAt: message.createdAt,
    state: message.state as DeliveryInfo['state'],
    attempts: message.attempts,
    nextAttemptAt: message.nextAttemptAt,
    payload: JSON.parse(message.payload) as unknown,
    log: attempts.filter((a) => a.messageId === message.id).map(({ messageId: _id, ...attempt }) => attempt),
  };
}
