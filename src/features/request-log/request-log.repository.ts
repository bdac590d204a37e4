import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Store } from '../../db/store.js';
import type { ApiRequestLogSetTable } from './request-log.tables.js';
import { dropPartitionsBefore, ensureDailyPartitions } from '../../ingest/partitions.repository.js';
import type { KeyRequest } from './request-log.writer.js';

/** The table the log is written to (migration 0041), partitioned by day on PostgreSQL; reads unnest it through the view `api_request_log`. */
export const REQUEST_LOG_TABLE = 'api_request_log_sets';

/** The most compact rows one INSERT writes (4 parameters each, well within SQLite's limit). */
const SET_BATCH = 500;

const DAY_MS = 86_400_000;

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

/**
 * A request as an entry of a compact row's `requests`: its fields in
 * migration 0041's order, its time as the milliseconds since the start of
 * `day` (the row's UTC day) where toISOString would cost 1.1 µs.
 */
function requestEntry(r: KeyRequest, day: number): unknown[] {
  return [
    Math.floor(r.at) - day * DAY_MS,
    r.requestId,
    r.method,
    r.path,
    r.operationName,
    r.rootFields.length === 0 ? null : r.rootFields.join(','),
    r.status,
    r.errorCodes.length === 0 ? null : r.errorCodes.join(','),
    r.cost === null ? null : Math.round(r.cost),
    r.durationMs,
    r.statements,
    r.clientAddress,
    r.userAgent,
  ];
}

/**
 * The requests as compact rows of api_request_log_sets: one per key and UTC
 * day (so that a row lies in one day's partition and expires with it), its
 * requests in the order recorded.
 */
export function requestSets(requests: readonly KeyRequest[]): ApiRequestLogSetTable[] {
  const sets = new Map<string, { keyId: number; first: number; last: number; entries: unknown[][] }>();
  for (const request of requests) {
    const day = Math.floor(request.at / DAY_MS);
    const id = `${request.keyId}:${day}`;
    const set = sets.get(id);
    if (set === undefined) {
      sets.set(id, { keyId: request.keyId, first: request.at, last: request.at, entries: [requestEntry(request, day)] });
      continue;
    }
    if (request.at < set.first) set.first = request.at;
    if (request.at > set.last) set.last = request.at;
    set.entries.push(requestEntry(request, day));
  }
  return [...sets.values()].map((set) => ({
    api_key_id: set.keyId,
    first_at: new Date(set.first).toISOString(),
    last_at: new Date(set.last).toISOString(),
    requests: JSON.stringify(set.entries),
  }));
}

/** SQL of the per-key request log: batched writes, a key's requests and hourly counts, retention. */
export function createRequestLogRepository(store: Store) {
  const { db, dialect } = store;

  const filtered = (keyId: number, filter: RequestFilter) => {
    // set_last_at first: whole compact rows older than the window are skipped through the index
    let query = db.selectFrom('api_request_log').where('api_key_id', '=', keyId).where('set_last_at', '>=', filter.since).where('requested_at', '>=', filter.since);
    if (filter.status !== undefined) query = query.where('status', '>=', filter.status[0]).where('status', '<=', filter.status[1]);
    if (filter.operationName !== undefined) query = query.where('operation_name', '=', filter.operationName);
    return query;
  };

  return {
    /**
     * Writes the requests as compact rows (requestSets), usually one per key
     * and flush, in one plain multi-row INSERT (SET_BATCH rows at most per
     * statement, all in one transaction when there are more): bound as
     * arrays (the row writer's form on PostgreSQL), each row's JSON text
     * would be escaped again as an array element, 4 µs a request.
     */
    async insert(requests: readonly KeyRequest[]): Promise<void> {
      const sets = requestSets(requests);
      if (sets.length <= SET_BATCH) {
        if (sets.length > 0) await db.insertInto(REQUEST_LOG_TABLE).values(sets).execute();
        return;
      }
      await store.lockingTransaction(async (tx) => {
        for (let i = 0; i < sets.length; i += SET_BATCH) await tx.db.insertInto(REQUEST_LOG_TABLE).values(sets.slice(i, i + SET_BATCH)).execute();
      });
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

    /** Deletes up to `limit` compact rows whose requests are all older than `before`; returns how many went. */
    async deleteBatch(before: string, limit: number): Promise<number> {
      const locator = sql.raw(dialect.rowLocator);
      const result = await sql`DELETE FROM api_request_log_sets WHERE (${locator}) IN (SELECT ${locator} FROM api_request_log_sets WHERE last_at < ${before} LIMIT ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

export type RequestLogRepository = ReturnType<typeof createRequestLogRepository>;
