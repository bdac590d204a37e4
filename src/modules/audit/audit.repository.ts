import type { SqlContext } from '../../db/store.js';

/** A row of the audit log as written. */
export interface NewAuditRow {
  readonly uuid: string;
  readonly companyId: number;
  readonly occurredAt: string;
  readonly actorType: string;
  readonly actorId: string | null;
  readonly actorLabel: string;
  readonly action: string;
  readonly objectType: string;
  readonly objectId: string;
  /** JSON text, or null. */
  readonly before: string | null;
  readonly after: string | null;
}

/** A row of the audit log as read, with its company's slug. */
export interface AuditRow extends Omit<NewAuditRow, 'companyId'> {
  readonly companySlug: string;
}

/** SQL of the audit log. */
export function createAuditRepository({ db }: SqlContext) {
  return {
    async insert(row: NewAuditRow): Promise<void> {
      await db
        .insertInto('audit_log')
        .values({
          uuid: row.uuid,
          company_id: row.companyId,
          occurred_at: row.occurredAt,
          actor_type: row.actorType,
          actor_id: row.actorId,
          actor_label: row.actorLabel,
          action: row.action,
          object_type: row.objectType,
          object_id: row.objectId,
          before: row.before,
          after: row.after,
        })
        .execute();
    },

    /** Entries oldest first, in the order they were written; of one company when `companyId` is given. */
    async list(filter: { companyId?: number; since?: string }): Promise<AuditRow[]> {
      let query = db
        .selectFrom('audit_log as a')
        .innerJoin('companies as c', 'c.id', 'a.company_id')
        .select([
          'a.uuid',
          'c.slug as companySlug',
          'a.occurred_at as occurredAt',
          'a.actor_type as actorType',
          'a.actor_id as actorId',
          'a.actor_label as actorLabel',
          'a.action',
          'a.object_type as objectType',
          'a.object_id as objectId',
          'a.before',
          'a.after',
        ]);
      if (filter.companyId !== undefined) query = query.where('a.company_id', '=', filter.companyId);
      if (filter.since !== undefined) query = query.where('a.occurred_at', '>=', filter.since);
      return query.orderBy('a.occurred_at').orderBy('a.id').execute();
    },
  };
}
