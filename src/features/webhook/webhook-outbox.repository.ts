import type { SqlContext } from '../../db/store.js';
import type { SqlDialect } from '../../db/dialect.js';

/** A message to insert into the outbox. */
export interface NewMessage {
  readonly uuid: string;
  readonly companyId: number;
  readonly endpointId: number;
  readonly alertType: string;
  readonly payload: string;
  readonly createdAt: string;
}

/** A message claimed for one attempt. */
export interface ClaimedMessage {
  readonly id: number;
  readonly uuid: string;
  readonly endpointId: number;
  readonly payload: string;
  /** Attempts so far, this one included. */
  readonly attempts: number;
}

/** A message of the delivery log, with its endpoint. */
export interface MessageRow {
  readonly id: number;
  readonly uuid: string;
  readonly endpointUuid: string;
  readonly endpointLabel: string;
  readonly alertType: string;
  readonly payload: string;
  readonly createdAt: string;
  readonly state: string;
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
}

/** An attempt of the delivery log. */
export interface AttemptRow {
  readonly messageId: number;
  readonly attemptedAt: string;
  readonly status: number | null;
  readonly durationMs: number;
  readonly response: string | null;
  readonly error: string | null;
}

/** What an attempt leaves the message as. */
export interface MessageOutcome {
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly nextAttemptAt: string | null;
}

/** An attempt of a message and the state it leaves the message in. */
export interface RecordedAttempt {
  readonly messageId: number;
  readonly attempt: Omit<AttemptRow, 'messageId'>;
  readonly outcome: MessageOutcome;
}

/** SQL of the outbox and the delivery log. */
export function createOutboxRepository({ db }: SqlContext, dialect: SqlDialect) {
  return {
    async insertMessages(messages: readonly NewMessage[]): Promise<void> {
      // 11 values a row: 2,000 rows stay below both stores' limits on bound parameters
      for (let i = 0; i < messages.length; i += 2_000) {
        await db
          .insertInto('webhook_messages')
          .values(
            messages.slice(i, i + 2_000).map((m) => ({
            uuid: m.uuid, company_id: m.companyId, endpoint_id: m.endpointId, alert_type: m.alertType, payload: m.payload,
              created_at: m.createdAt, state: 'pending', attempts: 0, next_attempt_at: m.createdAt, lease_token: null, lease_until: null,
            })),
          )
          .execute();
      }
    },

    /**
     * Claims up to `limit` due messages of enabled endpoints whose lease (if
     * any) has lapsed, for one attempt each: they get `token` and a lease
     * until `leaseUntil`, and their attempt count goes up. Rows another
     * transaction holds are skipped (PostgreSQL), so processes never claim
     * the same message at once.
     */
    async claimDue(now: string, leaseUntil: string, token: string, limit: number): Promise<ClaimedMessage[]> {
      let due = db
        .selectFrom('webhook_messages as m')
        .innerJoin('webhook_endpoints as e', 'e.id', 'm.endpoint_id')
        .select('m.id')
        .where('m.state', '=', 'pending')
        .where('m.next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('m.lease_until', 'is', null), eb('m.lease_until', '<=', now)]))
        .where('e.enabled', '=', true)
        .orderBy('m.next_attempt_at')
        .limit(limit);
      if (dialect.rowLocks) due = due.forUpdate('m').skipLocked();
      const ids = (await due.execute()).map((row) => Number(row.id));
      if (ids.length === 0) return [];
      const rows = await db
        .updateTable('webhook_messages')
        .set((eb) => ({ lease_token: token, lease_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', ids)
        .returning(['id', 'uuid', 'endpoint_id as endpointId', 'payload', 'attempts'])
        .execute();
      return rows.map((row) => ({ ...row, id: Number(row.id), endpointId: Number(row.endpointId), attempts: Number(row.attempts) }));
    },

    /** True when a message of an enabled endpoint may be due: a plain read, so an idle process takes no write lock. */
    async hasDue(now: string): Promise<boolean> {
      const row = await db
        .selectFrom('webhook_messages as m')
        .innerJoin('webhook_endpoints as e', 'e.id', 'm.endpoint_id')
        .select('m.id')
        .where('m.state', '=', 'pending')
        .where('m.next_attempt_at', '<=', now)
        .where('e.enabled', '=', true)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Deletes up to `limit` delivered or failed messages created before `before`, with their attempts; returns how many. */
    async deleteFinished(before: string, limit: number): Promise<number> {
      const ids = await db
        .selectFrom('webhook_messages')
        .select('id')
        .where('state', '!=', 'pending')
        .where('created_at', '<', before)
        .limit(limit)
        .execute();
      if (ids.length === 0) return 0;
      await db.deleteFrom('webhook_messages').where('id', 'in', ids.map((row) => Number(row.id))).execute();
      return ids.length;
    },

    /**
     * Records a batch of attempts and their outcomes, for the messages the
     * claim `token` still holds (a claim that lapsed and was taken over
     * records nothing): one UPDATE per distinct outcome and one multi-row
     * INSERT, so a batch costs a few statements, not a few per message. A
     * message replayed during its attempt (attempts 0 under a lease, see
     * requeue) keeps the state and due time the replay gave it: its fresh
     * round starts now, one attempt after the other.
     */
    async recordAttempts(token: string, entries: readonly RecordedAttempt[]): Promise<void> {
      const groups = new Map<string, RecordedAttempt[]>();
      for (const entry of entries) {
        const key = `${entry.outcome.state}/${entry.outcome.nextAttemptAt ?? ''}`;
        groups.set(key, [...(groups.get(key) ?? []), entry]);
      }
      const held = new Set<number>();
      for (const group of groups.values()) {
        const { outcome } = group[0] as RecordedAttempt;
        const rows = await db
          .updateTable('webhook_messages')
          .set((eb) => ({
            // decided row by row in this one statement, so a replay that commits before it is never overwritten
            state: eb.case().when('attempts', '=', 0).then(eb.ref('state')).else(outcome.state).end(),
            next_attempt_at: eb.case().when('attempts', '=', 0).then(eb.ref('next_attempt_at')).else(outcome.nextAttemptAt).end(),
            lease_token: null,
            lease_until: null,
          }))
          .where('id', 'in', group.map((entry) => entry.messageId))
          .where('lease_token', '=', token)
          .returning('id')
          .execute();
        for (const row of rows) held.add(Number(row.id));
      }
      const attempts = entries.filter((entry) => held.has(entry.messageId));
      if (attempts.length === 0) return;
      await db
        .insertInto('webhook_attempts')
        .values(
          attempts.map(({ messageId, attempt }) => ({
            message_id: messageId, attempted_at: attempt.attemptedAt, status: attempt.status, duration_ms: attempt.durationMs,
            response: attempt.response, error: attempt.error,
          })),
        )
        .execute();
    },

    /** Messages of the company, newest first: of one endpoint, since a time, at most `limit`. */
    async listMessages(filter: { companyId: number; since?: string; endpointId?: number; uuid?: string; limit: number }): Promise<MessageRow[]> {
      let query = db
        .selectFrom('webhook_messages as m')
        .innerJoin('webhook_endpoints as e', 'e.id', 'm.endpoint_id')
        .select([
          'm.id', 'm.uuid', 'e.uuid as endpointUuid', 'e.label as endpointLabel', 'm.alert_type as alertType', 'm.payload',
          'm.created_at as createdAt', 'm.state', 'm.attempts', 'm.next_attempt_at as nextAttemptAt',
        ])
        .where('m.company_id', '=', filter.companyId);
      if (filter.since !== undefined) query = query.where('m.created_at', '>=', filter.since);
      if (filter.endpointId !== undefined) query = query.where('m.endpoint_id', '=', filter.endpointId);
      if (filter.uuid !== undefined) query = query.where('m.uuid', '=', filter.uuid);
      const rows = await query.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(filter.limit).execute();
      return rows.map((row) => ({ ...row, id: Number(row.id), attempts: Number(row.attempts) }));
    },

    /** The attempts of these messages, oldest first. */
    async listAttempts(messageIds: readonly number[]): Promise<AttemptRow[]> {
      if (messageIds.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_attempts')
        .select(['message_id as messageId', 'attempted_at as attemptedAt', 'status', 'duration_ms as durationMs', 'response', 'error'])
        .where('message_id', 'in', messageIds)
        .orderBy('attempted_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ ...row, messageId: Number(row.messageId) }));
    },

    /** The company owning a message, for the CLI (which names a message by its webhook-id alone). */
    async companyOfMessage(uuid: string): Promise<number | undefined> {
      const row = await db.selectFrom('webhook_messages').select('company_id').where('uuid', '=', uuid).executeTakeFirst();
      return row === undefined ? undefined : Number(row.company_id);
    },

    /**
     * Queues the company's messages again for a fresh round of attempts, due
     * at `now`, with the same webhook-id: one by its UUID, or all created
     * since a time. Returns how many. A message mid-attempt (its lease not
     * lapsed) keeps its lease, so no second attempt starts beside it; its
     * attempts go to 0, which no claimed message otherwise has (claimDue
     * counts the attempt it claims), and recordAttempts leaves it queued
     * when that attempt ends. One statement: a claim or a record of the same
     * row runs wholly before or after it (row lock; SQLite's write lock).
     */
    async requeue(filter: { companyId: number; uuid?: string; since?: string }, now: string): Promise<number> {
      let query = db
        .updateTable('webhook_messages')
        .set((eb) => ({
          state: 'pending',
          next_attempt_at: now,
          attempts: 0,
          lease_token: eb.case().when('lease_until', '>', now).then(eb.ref('lease_token')).else(null).end(),
          lease_until: eb.case().when('lease_until', '>', now).then(eb.ref('lease_until')).else(null).end(),
        }))
        .where('company_id', '=', filter.companyId);
      if (filter.uuid !== undefined) query = query.where('uuid', '=', filter.uuid);
      if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since);
      return Number((await query.executeTakeFirst()).numUpdatedRows);
    },

    /** Starts an endpoint's failing clock unless it runs; returns when it started. */
    async markFailing(endpointId: number, now: string): Promise<string> {
      await db.updateTable('webhook_endpoints').set({ failing_since: now }).where('id', '=', endpointId).where('failing_since', 'is', null).execute();
      const row = await db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', endpointId).executeTakeFirst();
      return row?.failing_since ?? now;
    },

    async clearFailing(endpointId: number): Promise<void> {
      await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', endpointId).where('failing_since', 'is not', null).execute();
    },

    /** Turns an endpoint off for a reason (GONE, FAILING): its messages wait until a person turns it on. */
    async disableEndpoint(endpointId: number, reason: string): Promise<void> {
      await db.updateTable('webhook_endpoints').set({ enabled: false, disabled_reason: reason }).where('id', '=', endpointId).execute();
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
