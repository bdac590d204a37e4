import { sql } from 'kysely';
import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The per-key request log (issue 29, docs/operations.md "Request log"): one
 * row per request made with an API key, refused ones included, written in
 * batches off the request's path (features/request-log). Partitioned by day
 * on requested_at on PostgreSQL, like the raw series, so retention
 * (API_REQUEST_LOG_DAYS) drops whole days. Additive: a new table that
 * servers of the previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  const table = db.schema
    .createTable('api_request_log')
    .addColumn('requested_at', t.timestamp, (c) => c.notNull())
    .addColumn('api_key_id', t.id, (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('request_id', t.text, (c) => c.notNull())
    .addColumn('method', t.text, (c) => c.notNull())
    .addColumn('path', t.text, (c) => c.notNull())
    .addColumn('operation_name', t.text)
    // GraphQL field names, comma-separated (a name holds no comma)
    .addColumn('root_fields', t.text)
    .addColumn('status', t.integer, (c) => c.notNull())
    // extensions.code values, comma-separated
    .addColumn('error_codes', t.text)
    .addColumn('cost', t.integer)
    .addColumn('duration_ms', float, (c) => c.notNull())
    .addColumn('statements', t.integer, (c) => c.notNull())
    .addColumn('client_address', t.text)
    .addColumn('user_agent', t.text);
  await (dialect.partitionsByTime ? table.modifyEnd(sql`PARTITION BY RANGE (requested_at)`) : table).execute();
  await db.schema.createIndex('api_request_log_key_idx').on('api_request_log').columns(['api_key_id', 'requested_at']).execute();
  await db.schema.createIndex('api_request_log_requested_idx').on('api_request_log').column('requested_at').execute();
  if (dialect.partitionsByTime) await sql`CREATE TABLE api_request_log_default PARTITION OF api_request_log DEFAULT`.execute(db);
}
