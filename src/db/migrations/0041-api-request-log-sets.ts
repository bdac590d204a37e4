import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * A logged request's fields in the order an entry of a compact row's
 * `requests` holds them (literal copies: migrations are history), each with
 * its PostgreSQL type. requested_at is held as the milliseconds since the
 * start of the UTC day of the row's first_at (a row holds one day's
 * requests): an integer, where a time's text cost the writer a
 * `toISOString` (1.1 µs) per request.
 */
const FIELDS = [
  ['requested_at', 'timestamptz'],
  ['request_id', 'text'],
  ['method', 'text'],
  ['path', 'text'],
  ['operation_name', 'text'],
  ['root_fields', 'text'],
  ['status', 'integer'],
  ['error_codes', 'text'],
  ['cost', 'integer'],
  ['duration_ms', 'double precision'],
  ['statements', 'integer'],
  ['client_address', 'text'],
  ['user_agent', 'text'],
] as const;

/**
 * The request log as one compact row per key and flush (issue 29: point
 * lookups at most 3% slower with the log on). One row per request, each
 * with two index entries, cost every server process 15 to 20 µs of CPU a
 * request on either store, and on SQLite each flush's pages made the other
 * processes' reads of the same file drop their page cache several times a
 * second (docs/benchmarks.md, the request log). api_request_log_sets holds
 * one row per key and flush instead: the key, the first and last request's
 * times, and `requests`, a JSON array with one array per request (FIELDS,
 * in that order). `api_request_log` becomes a view that unnests them into
 * the rows the table held, with the same columns and types, plus the row's
 * `set_last_at`, by which reads skip whole rows older than their window
 * through the index. An INSTEAD OF INSERT trigger takes rows written to the
 * view (the previous version's servers during an upgrade) as one compact
 * row each. The rows already stored are converted, one compact row per key
 * and minute, into partitions of the same days on PostgreSQL.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const table = db.schema
    .createTable('api_request_log_sets')
    .addColumn('api_key_id', t.id, (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('first_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_at', t.timestamp, (c) => c.notNull())
    .addColumn('requests', 'text', (c) => c.notNull());
  await (dialect.partitionsByTime ? table.modifyEnd(sql`PARTITION BY RANGE (first_at)`) : table).execute();
  await db.schema.createIndex('api_request_log_sets_key_idx').on('api_request_log_sets').columns(['api_key_id', 'last_at']).execute();
  await db.schema.createIndex('api_request_log_sets_last_idx').on('api_request_log_sets').column('last_at').execute();
  if (dialect.name === 'postgres') await convertOnPostgres(db);
  else await convertOnSqlite(db);
}

/** PostgreSQL: the day partitions of the days stored, the rows converted, the view and its trigger. */
async function convertOnPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE api_request_log_sets_default PARTITION OF api_request_log_sets DEFAULT`.execute(db);
  const days = await sql<{ name: string; bounds: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bounds FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'api_request_log' AND p.relnamespace = current_schema()::regnamespace AND c.relname ~ '_p[0-9]{8}$'`.execute(db);
  for (const { name, bounds } of days.rows) {
    const day = name.slice(name.length - 8);
    await sql`CREATE TABLE ${sql.table(`api_request_log_sets_p${day}`)} PARTITION OF api_request_log_sets ${sql.raw(bounds)}`.execute(db);
  }
  const element = FIELDS.map(([name]) => (name === 'requested_at' ? pgMsOfDay('requested_at') : name)).join(', ');
  await sql`INSERT INTO api_request_log_sets (api_key_id, first_at, last_at, requests)
    SELECT api_key_id, min(requested_at), max(requested_at), json_agg(json_build_array(${sql.raw(element)}) ORDER BY requested_at)::text
    FROM api_request_log GROUP BY api_key_id, date_trunc('minute', requested_at)`.execute(db);
  await sql`DROP TABLE api_request_log`.execute(db);
  // text in byte order, as the table's columns were (COLLATE "C")
  const columns = FIELDS.map(([name, type], i) =>
    name === 'requested_at'
      ? `((s.first_at AT TIME ZONE 'UTC')::date + (e.v ->> ${i})::bigint * interval '1 millisecond') AT TIME ZONE 'UTC' AS ${name}`
      : type === 'text'
        ? `(e.v ->> ${i}) COLLATE "C" AS ${name}`
        : `(e.v ->> ${i})::${type} AS ${name}`,
  );
  columns.splice(1, 0, 's.api_key_id');
  await sql`CREATE VIEW api_request_log AS SELECT ${sql.raw(columns.join(', '))}, s.last_at AS set_last_at
    FROM api_request_log_sets s CROSS JOIN LATERAL json_array_elements(s.requests::json) AS e(v)`.execute(db);
  const fresh = FIELDS.map(([name]) => (name === 'requested_at' ? pgMsOfDay('NEW.requested_at') : `NEW.${name}`)).join(', ');
  await sql`CREATE FUNCTION api_request_log_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO api_request_log_sets (api_key_id, first_at, last_at, requests)
    VALUES (NEW.api_key_id, NEW.requested_at, NEW.requested_at, json_build_array(json_build_array(${sql.raw(fresh)}))::text);
    RETURN NEW; END $$`.execute(db);
  await sql`CREATE TRIGGER api_request_log_insert INSTEAD OF INSERT ON api_request_log FOR EACH ROW EXECUTE FUNCTION api_request_log_insert()`.execute(db);
}

/** SQLite: the rows converted, the view and its trigger. */
async function convertOnSqlite(db: Kysely<unknown>): Promise<void> {
  const element = FIELDS.map(([name]) => (name === 'requested_at' ? sqliteMsOfDay('requested_at') : name)).join(', ');
  await sql`INSERT INTO api_request_log_sets (api_key_id, first_at, last_at, requests)
    SELECT api_key_id, min(requested_at), max(requested_at), json_group_array(json_array(${sql.raw(element)}))
    FROM (SELECT * FROM api_request_log ORDER BY requested_at) GROUP BY api_key_id, substr(requested_at, 1, 16)`.execute(db);
  await sql`DROP TABLE api_request_log`.execute(db);
  // the floats as REAL, as the table's column held them (JSON keeps 2.0 as 2)
  // the time as RFC 3339 UTC text with milliseconds, as the writer's toISOString gave it, in integer arithmetic
  const ms = (i: number) => `(j.value ->> ${i})`;
  const at = (i: number) =>
    `substr(s.first_at, 1, 10) || printf('T%02d:%02d:%02d.%03dZ', ${ms(i)} / 3600000, ${ms(i)} / 60000 % 60, ${ms(i)} / 1000 % 60, ${ms(i)} % 1000)`;
  const columns = FIELDS.map(([name, type], i) =>
    name === 'requested_at' ? `${at(i)} AS ${name}` : type === 'double precision' ? `CAST(j.value ->> ${i} AS REAL) AS ${name}` : `j.value ->> ${i} AS ${name}`,
  );
  columns.splice(1, 0, 's.api_key_id');
  await sql`CREATE VIEW api_request_log AS SELECT ${sql.raw(columns.join(', '))}, s.last_at AS set_last_at
    FROM api_request_log_sets s, json_each(s.requests) AS j`.execute(db);
  const fresh = FIELDS.map(([name]) => (name === 'requested_at' ? sqliteMsOfDay('NEW.requested_at') : `NEW.${name}`)).join(', ');
  await sql`CREATE TRIGGER api_request_log_insert INSTEAD OF INSERT ON api_request_log BEGIN
    INSERT INTO api_request_log_sets (api_key_id, first_at, last_at, requests)
    VALUES (NEW.api_key_id, NEW.requested_at, NEW.requested_at, json_array(json_array(${sql.raw(fresh)}))); END`.execute(db);
}

/** PostgreSQL: the milliseconds since the start of its UTC day of a timestamptz expression. */
function pgMsOfDay(at: string): string {
  return `floor(extract(epoch FROM (${at} AT TIME ZONE 'UTC') - date_trunc('day', ${at} AT TIME ZONE 'UTC')) * 1000)::bigint`;
}

/** SQLite: the milliseconds since the start of its UTC day of an RFC 3339 UTC text with milliseconds. */
function sqliteMsOfDay(at: string): string {
  return `(unixepoch(${at}) % 86400) * 1000 + CAST(substr(${at}, 21, 3) AS INTEGER)`;
}
