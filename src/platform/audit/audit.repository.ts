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
      let query = selectRows();
      if (filter.companyId !== undefined) query = query.where('a.company_id', '=', filter.companyId);
      if (filter.since !== undefined) query = query.where('a.occurred_at', '>=', filter.since);
      return query.orderBy('a.occurred_at').orderBy('a.id').execute();
    },

    /**
     * Up to `limit` entries of the company, newest first, older than the
     * entry `before` (a UUID) when given: keyset paging in the list's order,
     * so a page costs the same however long the log is. An unknown `before`
     * gives no entries.
     */
    async newestPage(filter: { companyId: number; before?: string; limit: number }): Promise<AuditRow[]> {
      let query = selectRows().where('a.company_id', '=', filter.companyId);
      if (filter.before !== undefined) {
        const cursor = await db
          .selectFrom('audit_log')
          .select(['id', 'occurred_at'])
          .where('uuid', '=', filter.before)
          .where('company_id', '=', filter.companyId)
          .executeTakeFirst();
        if (cursor === undefined) return [];
        query = query.where((eb) =>
          eb.or([
            eb('a.occurred_at', '<', cursor.occurred_at),
            eb.and([eb('a.occurred_at', '=', cursor.occurred_at), eb('a.id', '<', cursor.id)]),
          ]),
        );
      }
      return query.orderBy('a.occurred_at', 'desc').orderBy('a.id', 'desc').limit(filter.limit).execute();
    },
  };

  function selectRows() {
    return db
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
  }
}
