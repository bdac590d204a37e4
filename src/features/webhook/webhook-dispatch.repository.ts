import type { SqlDialect } from '../../db/dialect.js';
import { sql } from 'kysely';
import { sqlWithValue } from '../../db/sql-text.js';
import type { SqlContext } from '../../db/store.js';
import { onlineSql } from '../../kernel/online.js';
import { encodeCursor } from '../change/change.cursor.js';
import type { DispatchAuditEntry, DispatchEvent, ExpiringKey } from './webhook.alerts.js';
import type { PayloadFormat } from './webhook.meter.js';

/**
 * A rule of an enabled endpoint, as the dispatcher matches it: an endpoint's
 * own rule, or an alert receiver's rule for one of its targets' endpoints.
 */
export interface ActiveRule {
  /** The webhook rule's id (CLIENT_COUNT_ABOVE keeps its state by it); a receiver's rule's id otherwise. */
  readonly id: number;
  readonly endpointId: number;
  /** The body the endpoint's messages carry. */
  readonly format: PayloadFormat;
  readonly companyId: number;
  readonly alertType: string;
  /** null: every network of the company. */
  readonly networkId: number | null;
  readonly threshold: number | null;
  /** When the endpoint was created, in ms since the epoch: it hears no audit entry written before (dispatchAudit). */
  readonly endpointCreatedMs: number;
}

/** A network's connected clients right now. */
export interface NetworkClientCount {
  readonly networkId: number;
  readonly companyId: number;
  readonly uuid: string;
  readonly label: string;
  readonly clients: number;
}

/**
 * SQL of the dispatcher: events and audit entries not yet turned into
 * messages (claimed with FOR UPDATE SKIP LOCKED on PostgreSQL, so two
 * processes never take the same row), with the change feed's cursor of what
 * they wrote, the rules they match, and the connected-client counts of
 * CLIENT_COUNT_ABOVE.
 */
export function createDispatchRepository({ db }: SqlContext, dialect: SqlDialect) {
  /**
   * True for a row (of `uuid`, a column) whose changes the feed serves now:
   * none of them is of a transaction the feed still holds back. A delivery
   * carrying their cursor is then never ahead of a change the feed has yet
   * to serve below it, so a receiver can resume from that cursor.
   */
  const changesServed = (uuid: string) =>
    sql<boolean>`NOT EXISTS (SELECT 1 FROM changes cs WHERE cs.source_uuid = ${sql.ref(uuid)} AND NOT (${sql.raw(dialect.finishedTransaction('cs.txid'))}))`;

  /** The cursor of each source's last change, by source UUID; sources without changes are absent. */
  async function changeCursors(sourceUuids: readonly string[]): Promise<Map<string, string>> {
    if (sourceUuids.length === 0) return new Map();
    const rows = await db
      .selectFrom('changes')
      .select((eb) => ['source_uuid', eb.fn.max('txid').as('txid'), eb.fn.max('id').as('id')])
      .where('source_uuid', 'in', sourceUuids)
      .groupBy('source_uuid')
      .execute();
    // one source's changes are of one transaction: the largest id is its last change
    return new Map(rows.map((row) => [row.source_uuid as string, encodeCursor(Number(row.txid), Number(row.id))]));
  }

  return {
    /** True when some event or audit entry waits for dispatch: a plain read, so an idle process takes no write lock. */
    async hasUndispatched(table: 'events' | 'audit_log'): Promise<boolean> {
      return (await db.selectFrom(table).select('id').where('dispatched_at', 'is', null).limit(1).executeTakeFirst()) !== undefined;
    },

    async takeEvents(limit: number): Promise<DispatchEvent[]> {
      let query = db
        .selectFrom('events as ev')
        .leftJoin('networks as n', 'n.id', 'ev.network_id')
        .leftJoin('virtual_devices as v', 'v.id', 'ev.virtual_device_id')
        .leftJoin('hardware_devices as h', 'h.id', 'ev.hardware_device_id')
        .select([
          'ev.id', 'ev.uuid', 'ev.company_id as companyId', 'ev.network_id as networkId', 'n.uuid as networkUuid', 'n.label as networkLabel',
          'v.uuid as virtualDeviceUuid', 'v.label as deviceLabel', 'v.device_type as deviceType', 'h.serial_number as serialNumber', 'ev.type', 'ev.observed_at as observedAt', 'ev.details',
        ])
        .where('ev.dispatched_at', 'is', null)
        .where(changesServed('ev.uuid'))
        .orderBy('ev.id')
        .limit(limit);
      if (dialect.rowLocks) query = query.forUpdate('ev').skipLocked();
      const rows = await query.execute();
      const cursors = await changeCursors(rows.map((row) => row.uuid));
      return rows.map((row) => ({
        ...row, id: Number(row.id), companyId: Number(row.companyId), networkId: row.networkId === null ? null : Number(row.networkId),
        changeCursor: cursors.get(row.uuid) ?? null,
      }));
    },

    async markEventsDispatched(ids: readonly number[], at: string): Promise<void> {
      if (ids.length > 0) await db.updateTable('events').set({ dispatched_at: at }).where('id', 'in', ids).execute();
    },

    async takeAuditEntries(limit: number): Promise<DispatchAuditEntry[]> {
      let query = db
        .selectFrom('audit_log')
        .select([
          'id', 'uuid', 'company_id as companyId', 'occurred_at as occurredAt', 'actor_type as actorType', 'actor_id as actorId',
          'actor_label as actorLabel', 'action', 'object_type as objectType', 'object_id as objectId', 'before', 'after',
        ])
        .where('dispatched_at', 'is', null)
        .where(changesServed('audit_log.uuid'))
        .orderBy('id')
        .limit(limit);
      if (dialect.rowLocks) query = query.forUpdate().skipLocked();
      const rows = await query.execute();
      const cursors = await changeCursors(rows.map((row) => row.uuid));
      return rows.map((row) => ({ ...row, id: Number(row.id), companyId: Number(row.companyId), changeCursor: cursors.get(row.uuid) ?? null }));
    },

    async markAuditDispatched(ids: readonly number[], at: string): Promise<void> {
      if (ids.length > 0) await db.updateTable('audit_log').set({ dispatched_at: at }).where('id', 'in', ids).execute();
    },

    /**
     * The rules of enabled endpoints for these alerts, of these companies
     * (all companies when `companyIds` is undefined): the endpoints' own, then
     * the alert receivers' rules, one per target of the receiver.
     */
    async activeRules(alertTypes: readonly string[], companyIds?: readonly number[], withEmail = true): Promise<ActiveRule[]> {
      if (companyIds !== undefined && companyIds.length === 0) return [];
      let own = db
        .selectFrom('webhook_rules as r')
        .innerJoin('webhook_endpoints as e', 'e.id', 'r.endpoint_id')
        .select(['r.id', 'r.endpoint_id as endpointId', 'e.payload_format as format', 'r.company_id as companyId', 'r.alert_type as alertType', 'r.network_id as networkId', 'r.threshold', 'e.created_at as endpointCreatedAt'])
        .where('e.enabled', '=', true)
        .where('r.alert_type', 'in', alertTypes);
      let received = db
        .selectFrom('alert_receiver_rules as r')
        .innerJoin('alert_receiver_targets as t', 't.receiver_id', 'r.receiver_id')
        .innerJoin('webhook_endpoints as e', 'e.id', 't.endpoint_id')
        .select(['r.id', 't.endpoint_id as endpointId', 'e.payload_format as format', 'r.company_id as companyId', 'r.alert_type as alertType', 'r.network_id as networkId', 'e.created_at as endpointCreatedAt'])
        .where('e.enabled', '=', true)
        .where('r.alert_type', 'in', alertTypes);
      // without an SMTP server an email channel's messages could only fail: none are queued (docs/alerts.md#email)
      if (!withEmail) received = received.where('e.channel', '<>', 'email');
      if (companyIds !== undefined) {
        own = own.where('r.company_id', 'in', companyIds);
        received = received.where('r.company_id', 'in', companyIds);
      }
      const rows = [...(await own.orderBy('r.id').execute()), ...(await received.orderBy('r.id').orderBy('t.id').execute()).map((row) => ({ ...row, threshold: null }))];
      return rows.map(({ endpointCreatedAt, ...row }) => ({
        ...row, endpointCreatedMs: new Date(endpointCreatedAt).getTime(), id: Number(row.id), endpointId: Number(row.endpointId), companyId: Number(row.companyId), format: row.format as PayloadFormat,
        networkId: row.networkId === null ? null : Number(row.networkId),
      }));
    },

    /**
     * Claims the API_KEY_EXPIRING alert of the companies' unrevoked keys
     * expiring in (`now`, `until`] not claimed before, and returns them. The
     * update's condition is evaluated again on a row another transaction
     * claimed meanwhile (PostgreSQL's READ COMMITTED), so a key is claimed once.
     */
    async claimExpiringKeys(companyIds: readonly number[], now: string, until: string): Promise<ExpiringKey[]> {
      if (companyIds.length === 0) return [];
      const rows = await db
        .updateTable('api_keys')
        .set({ expiry_alerted_at: now })
        .where('company_id', 'in', companyIds)
        .where('revoked_at', 'is', null)
        .where('expiry_alerted_at', 'is', null)
        .where('expires_at', '>', now)
        .where('expires_at', '<=', until)
        .returning(['id', 'uuid', 'company_id as companyId', 'prefix', 'label', 'expires_at as expiresAt'])
        .execute();
      return rows
        .map((row) => ({ ...row, id: Number(row.id), companyId: Number(row.companyId), expiresAt: row.expiresAt ?? '' }))
        .sort((a, b) => a.id - b.id);
    },

    /** How many email channels (EMAIL targets) are enabled, of every company. */
    async countEmailChannels(): Promise<number> {
      const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('channel', '=', 'email').where('enabled', '=', true).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /**
     * Connected clients of the companies' networks (as networkClients counts
     * them: connected, and listed last by a device seen since `onlineSince`
     * or imported).
     */
    async clientCounts(companyIds: readonly number[], onlineSince: string): Promise<NetworkClientCount[]> {
      if (companyIds.length === 0) return [];
      const rows = await db
        .selectFrom('networks as n')
        .leftJoin('network_clients as c', (join) => join.onRef('c.network_id', '=', 'n.id').on('c.is_connected', '=', true))
        .leftJoin('hardware_devices as h', 'h.id', 'c.hardware_device_id')
        .select((eb) => [
          'n.id as networkId', 'n.company_id as companyId', 'n.uuid', 'n.label',
          eb.fn
            .count<number>('c.id')
            .filterWhere((w) => w.or([w('c.hardware_device_id', 'is', null), sqlWithValue<boolean>((since) => onlineSql('h.last_seen_at', since), onlineSince)]))
            .as('clients'),
        ])
        .where('n.company_id', 'in', companyIds)
        .groupBy(['n.id', 'n.company_id', 'n.uuid', 'n.label'])
        .execute();
      return rows.map((row) => ({ ...row, networkId: Number(row.networkId), companyId: Number(row.companyId), clients: Number(row.clients) }));
    },

    /**
     * Records whether the network is above the rule's threshold; true only
     * when this call moved it from not above (or unknown) to above, so of
     * processes checking at once exactly one sees the crossing.
     */
    async crossAbove(ruleId: number, networkId: number, above: boolean): Promise<boolean> {
      await db
        .insertInto('webhook_client_counts')
        .values({ rule_id: ruleId, network_id: networkId, above: false })
        .onConflict((oc) => oc.columns(['rule_id', 'network_id']).doNothing())
        .execute();
      const changed = await db
        .updateTable('webhook_client_counts')
        .set({ above })
        .where('rule_id', '=', ruleId)
        .where('network_id', '=', networkId)
        .where('above', '=', !above)
        .executeTakeFirst();
      return above && Number(changed.numUpdatedRows) > 0;
    },
  };
}
