import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { RowColumn } from '../../db/dialect.js';
import type { Store } from '../../db/store.js';
import { createRowWriter } from '../../ingest/report-rows.repository.js';
import type { RowWriter } from '../../ingest/report-rows.repository.js';
import { dropPartitionsBefore, ensureDailyPartitions } from '../../ingest/partitions.repository.js';
import type { KeyRequest } from './request-log.writer.js';

/** The table (migration 0020), partitioned by day on PostgreSQL. */
export const REQUEST_LOG_TABLE = 'api_request_log';

const COLUMNS: readonly RowColumn[] = [
  ['requested_at', 'timestamptz'],
  ['api_key_id', 'bigint'],
  ['request_id', 'text'],
  ['method', 'text'],
  ['path', 'text'],
  ['operation_name', 'text'],
  ['root_fields', 'text'],
  ['status', 'integer'],
  ['error_codes', 'text'],
  ['cost', 'integer'],
  ['duration_ms', 'float'],
  ['statements', 'integer'],
  ['client_address', 'text'],
  ['user_agent', 'text'],
];

/** Which of a key's requests a read wants. */
export interface RequestFilter {
  /** ISO time: requests at or after it. */
  readonly since: string;
  /** Statuses from `status[0]` to `status[1]`, both included. */
  readonly status?: readonly [number, number];
  readonly operationName?: string;
}

/** A logged request as read back. */
export interface RequestRow {
  readonly requestedAt: string;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly operationName: string | null;
  readonly rootFields: string | null;
  readonly status: number;
  readonly errorCodes: string | null;
  readonly cost: number | null;
  readonly durationMs: number;
  readonly statements: number;
  readonly clientAddress: string | null;
  readonly userAgent: string | null;
}

/** INSERTs the requests with `writer`, one row each. */
async function insertRows(writer: RowWriter, requests: readonly KeyRequest[]): Promise<void> {
  await writer.insert(
    REQUEST_LOG_TABLE,
    COLUMNS,
    requests.map((r) => ({
      requested_at: new Date(r.at).toISOString(),
      api_key_id: r.keyId,
      request_id: r.requestId,
      method: r.method,
      path: r.path,
      operation_name: r.operationName,
      root_fields: r.rootFields.length === 0 ? null : r.rootFields.join(','),
      status: r.status,
      error_codes: r.errorCodes.length === 0 ? null : r.errorCodes.join(','),
      cost: r.cost === null ? null : Math.round(r.cost),
      duration_ms: r.durationMs,
      statements: r.statements,
      client_address: r.clientAddress,
      user_agent: r.userAgent,
    })),
  );
}

/** SQL of the per-key request log: batched writes, a key's requests and hourly counts, retention. */
export function createRequestLogRepository(store: Store) {
  const { db, dialect } = store;
  const rows = createRowWriter(db, dialect);

  const filtered = (keyId: number, filter: RequestFilter) => {
    let query = db.selectFrom('api_request_log').where('api_key_id', '=', keyId).where('requested_at', '>=', filter.since);
    if (filter.status !== undefined) query = query.where('status', '>=', filter.status[0]).where('status', '<=', filter.status[1]);
    if (filter.operationName !== undefined) query = query.where('operation_name', '=', filter.operationName);
    return query;
  };

  return {
    /**
     * Writes the requests in one multi-row INSERT; where the dialect binds
     * them in chunks of a few fixed sizes (SQLite), all the chunks in one
     * transaction: one commit and one wait for the write lock per flush
     * instead of one per chunk, the other server processes' flushes and
     * writes queueing behind each (docs/benchmarks.md, the request log).
     */
    async insert(requests: readonly KeyRequest[]): Promise<void> {
      if (dialect.multiRowInsert === 'values' && requests.length > 1) {
        await store.lockingTransaction((tx) => insertRows(createRowWriter(tx.db, dialect), requests));
        return;
      }
      await insertRows(rows, requests);
    },

    /** The key's requests that match, newest first, `limit` of them after skipping `offset`. */
    async list(keyId: number, filter: RequestFilter, limit: number, offset: number): Promise<RequestRow[]> {
      return filtered(keyId, filter)
        .select([
          'requested_at as requestedAt',
          'request_id as requestId',
          'method',
          'path',
          'operation_name as operationName',
          'root_fields as rootFields',
          'status',
          'error_codes as errorCodes',
          'cost',
          'duration_ms as durationMs',
          'statements',
          'client_address as clientAddress',
          'user_agent as userAgent',
        ])
        .orderBy('requested_at', 'desc')
        .orderBy('request_id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    /** How many of the key's requests that match there were per hour (Unix seconds of its start) and status. */
    async hourly(keyId: number, filter: RequestFilter): Promise<{ hour: number; status: number; count: number }[]> {
      const hour = sql<number>`${sql.raw(dialect.epochBucket('requested_at', '3600'))}`;
      const found = await filtered(keyId, filter)
        .select([hour.as('hour'), 'status', (eb) => eb.fn.countAll<number>().as('count')])
        .groupBy([hour, 'status'])
        .orderBy('hour')
        .orderBy('status')
        .execute();
      return found.map((row) => ({ hour: Number(row.hour), status: Number(row.status), count: Number(row.count) }));
    },

    /** PostgreSQL: the day partitions from `fromMs` to `toMs` (partitions.repository.ts). */
    async preparePartitions(fromMs: number, toMs: number): Promise<void> {
      await ensureDailyPartitions(db as Kysely<unknown>, REQUEST_LOG_TABLE, fromMs, toMs);
    },

    /** PostgreSQL: drops the whole days before `cutoffMs`; returns how many. */
    async dropPartitionsBefore(cutoffMs: number): Promise<number> {
      return dropPartitionsBefore(db as Kysely<unknown>, REQUEST_LOG_TABLE, cutoffMs);
    },

    /** Deletes up to `limit` requests older than `before`; returns how many went. */
    async deleteBatch(before: string, limit: number): Promise<number> {
      const locator = sql.raw(dialect.rowLocator);
      const result = await sql`DELETE FROM api_request_log WHERE (${locator}) IN (SELECT ${locator} FROM api_request_log WHERE requested_at < ${before} LIMIT ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

export type RequestLogRepository = ReturnType<typeof createRequestLogRepository>;
