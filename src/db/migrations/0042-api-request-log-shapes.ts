import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The fields of a logged request (literal copies: migrations are history):
 * each with its PostgreSQL type, its place in an entry of `requests` as
 * migration 0041 wrote it (`old`), and its place in the new layout: in the
 * entry (`entry`) or in the row's shape the entry names (`shape`).
 */
const FIELDS = [
  { name: 'requested_at', type: 'timestamptz', old: 0, entry: 0 },
  { name: 'request_id', type: 'text', old: 1, entry: 1 },
  { name: 'method', type: 'text', old: 2, shape: 0 },
  { name: 'path', type: 'text', old: 3, shape: 1 },
  { name: 'operation_name', type: 'text', old: 4, shape: 2 },
  { name: 'root_fields', type: 'text', old: 5, shape: 3 },
  { name: 'status', type: 'integer', old: 6, entry: 3 },
  { name: 'error_codes', type: 'text', old: 7, shape: 4 },
  { name: 'cost', type: 'integer', old: 8, entry: 4 },
  { name: 'duration_ms', type: 'double precision', old: 9, entry: 5 },
  { name: 'statements', type: 'integer', old: 10, entry: 6 },
  { name: 'client_address', type: 'text', old: 11, shape: 5 },
  { name: 'user_agent', type: 'text', old: 12, shape: 6 },
] as const;

/** Where an entry of the new layout names its shape. */
const SHAPE_INDEX = 2;

type Field = (typeof FIELDS)[number];

/**
 * The request log's compact rows with their repeated fields once per row
 * (issue 29: point lookups at most 3% slower with the log on). A script
 * sends the same operation from the same address with the same User-Agent
 * again and again, and 0041's rows repeated those fields in every request,
 * 130 bytes a request of which the writer built, sent and PostgreSQL stored
 * every byte at each flush. A row now has `shapes`, a JSON array of the
 * distinct [method, path, operation_name, root_fields, error_codes,
 * client_address, user_agent] of its requests, and each entry of `requests`
 * is [ms of the day, request_id, shape, status, cost, duration_ms,
 * statements]. Rows with `shapes` NULL keep 0041's layout (rows already
 * written, and those of servers of the previous version during an upgrade):
 * the view `api_request_log` reads both, with the same columns as before,
 * and its INSTEAD OF INSERT trigger still writes 0041's layout.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await db.schema.alterTable('api_request_log_sets').addColumn('shapes', 'text').execute();
  await sql`DROP VIEW api_request_log`.execute(db);
  if (dialect.name === 'postgres') {
    await compressWithLz4(db);
    await viewOnPostgres(db);
  } else {
    await viewOnSqlite(db);
  }
}

/**
 * PostgreSQL: a flush's `requests` (about 200 KB for 3,500 requests) is
 * compressed as it is stored, and pglz, the default, cost the database
 * 1.1 µs a request more than lz4 (`node bench/request-log-write.mjs`). So
 * the columns use lz4: the table, for the partitions made from now on (they
 * take the table's setting), and each partition that exists (which does not
 * follow the table's). Values already stored keep their compression. A
 * server built without lz4 (`feature_not_supported`) keeps pglz.
 */
async function compressWithLz4(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$
    DECLARE part regclass;
    BEGIN
      FOR part IN SELECT 'api_request_log_sets'::regclass UNION ALL SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'api_request_log_sets'::regclass LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN requests SET COMPRESSION lz4, ALTER COLUMN shapes SET COMPRESSION lz4', part);
      END LOOP;
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`.execute(db);
}

/** PostgreSQL: a field's text from the entry `e.v` in either layout. */
function pgText(field: Field): string {
  const now = 'entry' in field ? `e.v ->> ${field.entry}` : `(s.shapes::json -> ((e.v ->> ${SHAPE_INDEX})::int)) ->> ${field.shape}`;
  return `CASE WHEN s.shapes IS NULL THEN e.v ->> ${field.old} ELSE ${now} END`;
}

async function viewOnPostgres(db: Kysely<unknown>): Promise<void> {
  // text in byte order, as the table's columns were (COLLATE "C")
  const columns = FIELDS.map((field) =>
    field.name === 'requested_at'
      ? `((s.first_at AT TIME ZONE 'UTC')::date + (e.v ->> 0)::bigint * interval '1 millisecond') AT TIME ZONE 'UTC' AS ${field.name}`
      : field.type === 'text'
        ? `(${pgText(field)}) COLLATE "C" AS ${field.name}`
        : `(${pgText(field)})::${field.type} AS ${field.name}`,
  );
  columns.splice(1, 0, 's.api_key_id');
  await sql`CREATE VIEW api_request_log AS SELECT ${sql.raw(columns.join(', '))}, s.last_at AS set_last_at
    FROM api_request_log_sets s CROSS JOIN LATERAL json_array_elements(s.requests::json) AS e(v)`.execute(db);
  const fresh = FIELDS.map(({ name }) => (name === 'requested_at' ? pgMsOfDay('NEW.requested_at') : `NEW.${name}`)).join(', ');
  await sql`CREATE OR REPLACE FUNCTION api_request_log_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO api_request_log_sets (api_key_id, first_at, last_at, requests)
    VALUES (NEW.api_key_id, NEW.requested_at, NEW.requested_at, json_build_array(json_build_array(${sql.raw(fresh)}))::text);
    RETURN NEW; END $$`.execute(db);
  await sql`CREATE TRIGGER api_request_log_insert INSTEAD OF INSERT ON api_request_log FOR EACH ROW EXECUTE FUNCTION api_request_log_insert()`.execute(db);
}

/** SQLite: a field's JSON value from the entry `j.value` in either layout (`->` with an integer is an array index). */
function sqliteValue(field: Field): string {
  const now = 'entry' in field ? `j.value ->> ${field.entry}` : `(s.shapes -> (j.value ->> ${SHAPE_INDEX})) ->> ${field.shape}`;
  return `CASE WHEN s.shapes IS NULL THEN j.value ->> ${field.old} ELSE ${now} END`;
}

async function viewOnSqlite(db: Kysely<unknown>): Promise<void> {
  // the floats as REAL, as the table's column held them (JSON keeps 2.0 as 2)
  // the time as RFC 3339 UTC text with milliseconds, as the writer's toISOString gave it, in integer arithmetic
  const ms = '(j.value ->> 0)';
  const at = `substr(s.first_at, 1, 10) || printf('T%02d:%02d:%02d.%03dZ', ${ms} / 3600000, ${ms} / 60000 % 60, ${ms} / 1000 % 60, ${ms} % 1000)`;
  const columns = FIELDS.map((field) =>
    field.name === 'requested_at'
      ? `${at} AS ${field.name}`
      : field.type === 'double precision'
        ? `CAST(${sqliteValue(field)} AS REAL) AS ${field.name}`
        : `${sqliteValue(field)} AS ${field.name}`,
  );
  columns.splice(1, 0, 's.api_key_id');
  await sql`CREATE VIEW api_request_log AS SELECT ${sql.raw(columns.join(', '))}, s.last_at AS set_last_at
    FROM api_request_log_sets s, json_each(s.requests) AS j`.execute(db);
  const fresh = FIELDS.map(({ name }) => (name === 'requested_at' ? sqliteMsOfDay('NEW.requested_at') : `NEW.${name}`)).join(', ');
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
