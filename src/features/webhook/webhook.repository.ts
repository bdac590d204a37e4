import type { SqlContext } from '../../db/store.js';
import type { PayloadFormat } from './webhook.meter.js';

/** The stored fields of an endpoint. */
export interface EndpointValues {
  readonly label: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly authKind: string;
  /** Sealed (webhook.cipher.ts), or null. */
  readonly authValue: string | null;
  readonly disabledReason: string | null;
  /** The body its messages carry. */
  readonly payloadFormat: PayloadFormat;
}

/** What an endpoint row delivers through: a webhook endpoint, or an alert receiver's email or slack channel. */
export type Channel = 'webhook' | 'email' | 'slack';

/** An endpoint row as the service reads it. */
export interface EndpointRow extends EndpointValues {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly failingSince: string | null;
  readonly createdAt: string;
  readonly channel: Channel;
  /** An email channel's address; a slack channel's URL, sealed; null for a webhook endpoint. */
  readonly target: string | null;
}

/** A rule as stored: the network's UUID when it names one. */
export interface RuleRow {
  readonly id: number;
  readonly endpointId: number;
  readonly alertType: string;
  readonly networkUuid: string | null;
  readonly threshold: number | null;
}

/** A rule to store: network ids resolved. */
export interface RuleValues {
  readonly alertType: string;
  readonly networkId: number | null;
  readonly threshold: number | null;
}

/** SQL of endpoints, their secrets and their rules. */
export function createWebhookRepository({ db }: SqlContext) {
  const endpoints = () =>
    db
      .selectFrom('webhook_endpoints')
      .select([
        'id', 'uuid', 'company_id as companyId', 'label', 'url', 'enabled', 'auth_kind as authKind', 'auth_value as authValue',
        'disabled_reason as disabledReason', 'failing_since as failingSince', 'created_at as createdAt', 'payload_format as payloadFormat',
        'channel', 'target',
      ]);
  // the API's webhook endpoints: a receiver's email and slack channels are reached through the receiver only
  const webhookEndpoints = () => endpoints().where('channel', '=', 'webhook');
  type Row = Omit<EndpointRow, 'enabled' | 'channel' | 'payloadFormat'> & { enabled: boolean | number; channel: string; payloadFormat: string };
  const toEndpoint = (row: Row): EndpointRow => ({ ...row, enabled: Boolean(row.enabled), channel: row.channel as Channel, payloadFormat: row.payloadFormat as PayloadFormat });

  return {
    /** Inserts an endpoint row: a webhook endpoint, or (with `channel`) a receiver's email or slack channel and its target. */
    async insertEndpoint(companyId: number, uuid: string, values: EndpointValues, createdAt: string, channel: { kind: Channel; target: string | null } = { kind: 'webhook', target: null }): Promise<number> {
      const row = await db
        .insertInto('webhook_endpoints')
        .values({
          uuid, company_id: companyId, label: values.label, url: values.url, enabled: values.enabled, auth_kind: values.authKind,
          auth_value: values.authValue, disabled_reason: values.disabledReason, failing_since: null, created_at: createdAt,
          payload_format: values.payloadFormat, channel: channel.kind, target: channel.target,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** The company's endpoint with this UUID; undefined for another company's. */
    async findEndpoint(companyId: number, uuid: string): Promise<EndpointRow | undefined> {
      const row = await webhookEndpoints().where('company_id', '=', companyId).where('uuid', '=', uuid).executeTakeFirst();
      return row && toEndpoint(row);
    },

    async endpointById(id: number): Promise<EndpointRow | undefined> {
      const row = await endpoints().where('id', '=', id).executeTakeFirst();
      return row && toEndpoint(row);
    },

    /** The company owning an endpoint, for the CLI (which names an endpoint by its id alone). */
    async companyOfEndpoint(uuid: string): Promise<number | undefined> {
      const row = await db.selectFrom('webhook_endpoints').select('company_id').where('uuid', '=', uuid).where('channel', '=', 'webhook').executeTakeFirst();
      return row === undefined ? undefined : Number(row.company_id);
    },

    async listEndpoints(companyId: number): Promise<EndpointRow[]> {
      return (await webhookEndpoints().where('company_id', '=', companyId).orderBy('created_at').orderBy('id').execute()).map(toEndpoint);
    },

    async updateEndpoint(id: number, values: EndpointValues): Promise<void> {
      await db
        .updateTable('webhook_endpoints')
        .set({
          label: values.label, url: values.url, enabled: values.enabled, auth_kind: values.authKind, auth_value: values.authValue,
          disabled_reason: values.disabledReason, payload_format: values.payloadFormat,
          // turned on again by a person: the failing clock starts over
          ...(values.enabled ? { failing_since: null } : {}),
        })
        .where('id', '=', id)
        .execute();
    },

    async deleteEndpoint(id: number): Promise<void> {
      await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    },

    async insertSecret(endpointId: number, sealed: string, createdAt: string): Promise<void> {
      await db.insertInto('webhook_secrets').values({ endpoint_id: endpointId, secret: sealed, created_at: createdAt, expires_at: null }).execute();
    },

    /** Lets the endpoint's secrets valid now lapse at `expiresAt` (a rotation's grace period). */
    async expireSecrets(endpointId: number, now: string, expiresAt: string): Promise<void> {
      await db
        .updateTable('webhook_secrets')
        .set({ expires_at: expiresAt })
        .where('endpoint_id', '=', endpointId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .execute();
    },

    /** The sealed secrets that sign at `now`, newest first; expired ones are deleted on the way. */
    async validSecrets(endpointId: number, now: string): Promise<string[]> {
      const rows = await db
        .selectFrom('webhook_secrets')
        .select('secret')
        .where('endpoint_id', '=', endpointId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('id', 'desc')
        .execute();
      return rows.map((row) => row.secret);
    },

    async deleteExpiredSecrets(now: string): Promise<void> {
      await db.deleteFrom('webhook_secrets').where('expires_at', '<=', now).execute();
    },

    async replaceRules(endpointId: number, companyId: number, rules: readonly RuleValues[]): Promise<void> {
      await db.deleteFrom('webhook_rules').where('endpoint_id', '=', endpointId).execute();
      if (rules.length === 0) return;
      await db
        .insertInto('webhook_rules')
        .values(rules.map((rule) => ({ endpoint_id: endpointId, company_id: companyId, alert_type: rule.alertType, network_id: rule.networkId, threshold: rule.threshold })))
        .execute();
    },

    /** The rules of these endpoints, in the order they were written. */
    async listRules(endpointIds: readonly number[]): Promise<RuleRow[]> {
      if (endpointIds.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_rules as r')
        .leftJoin('networks as n', 'n.id', 'r.network_id')
        .select(['r.id', 'r.endpoint_id as endpointId', 'r.alert_type as alertType', 'n.uuid as networkUuid', 'r.threshold'])
        .where('r.endpoint_id', 'in', endpointIds)
        .orderBy('r.id')
        .execute();
      return rows.map((row) => ({ ...row, id: Number(row.id), endpointId: Number(row.endpointId) }));
    },

    /** The company's networks among these UUIDs: UUID to row id. */
    async networkIds(companyId: number, uuids: readonly string[]): Promise<Map<string, number>> {
      if (uuids.length === 0) return new Map();
      const rows = await db.selectFrom('networks').select(['id', 'uuid']).where('company_id', '=', companyId).where('uuid', 'in', uuids).execute();
      return new Map(rows.map((row) => [row.uuid, Number(row.id)]));
    },

    /** Reads a setting webhooks keep in the database. */
    async setting(name: string): Promise<string | undefined> {
      return (await db.selectFrom('webhook_settings').select('value').where('name', '=', name).executeTakeFirst())?.value;
    },

    /** Writes a setting unless it exists (the first process to generate the key wins). */
    async insertSettingOnce(name: string, value: string): Promise<void> {
      await db.insertInto('webhook_settings').values({ name, value }).onConflict((oc) => oc.column('name').doNothing()).execute();
    },
  };
}

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;
