import { sql } from 'kysely';
import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/** The presence tiers (literal copies: migrations are history): the table of migrations 0004 and 0030, the new one, and the bucket width in seconds. */
const TIERS = [
  ['client_presence_rollups', 'client_presence_set_rollups', 300],
  ['client_presence_rollups_hourly', 'client_presence_set_rollups_hourly', 3_600],
  ['client_presence_rollups_daily', 'client_presence_set_rollups_daily', 86_400],
] as const;

/**
 * activeClients' distinct clients as one compact row per device and bucket
 * (issue 31, goal 1). client_presence_rollups and its hourly and daily tiers
 * held one row per network, bucket, client MAC address and kind, each with a
 * row header and two index entries: a device listing 20 clients added 20 rows
 * to each tier's every bucket. client_presence_set_rollups (and `_hourly`,
 * `_daily`) hold one row per network, bucket and device instead, with the
 * MAC addresses of the clients the device listed in that bucket as two JSON
 * arrays of text, sorted: `wireless_macs` and `wired_macs`. A bucket's
 * distinct clients are those of its rows' arrays together, so activeClients
 * counts exactly what it counted. `hardware_device_id` is 0 for the rows
 * converted here and those an earlier version writes during an upgrade (the
 * old rows named no device), and no foreign key: deleting a device keeps its
 * networks' history, as before.
 *
 * The rows already stored are converted here, one row per network and
 * bucket. The old tables stay, empty: a server of the previous version still
 * running during a rolling upgrade inserts into client_presence_rollups, and
 * a trigger adds each of its rows to the three new tiers instead (device 0)
 * and skips the insert, so its `RETURNING` gives nothing and it writes nothing
 * to the old tiers (docs/operations.md, "Upgrading").
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const postgres = dialect.name === 'postgres';
  for (const [old, table] of TIERS) {
    await db.schema
      .createTable(table)
      .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .addColumn('bucket', big, (c) => c.notNull())
      .addColumn('hardware_device_id', big, (c) => c.notNull())
      .addColumn('wireless_macs', 'text', (c) => c.notNull())
      .addColumn('wired_macs', 'text', (c) => c.notNull())
      .addUniqueConstraint(`${table}_key`, ['network_id', 'bucket', 'hardware_device_id'])
      .execute();
    await db.schema.createIndex(`${table}_bucket_idx`).on(table).column('bucket').execute();
    const macs = (wireless: boolean) =>
      postgres
        ? `coalesce('[' || string_agg(to_json(mac_address)::text, ',' ORDER BY mac_address) FILTER (WHERE ${wireless ? '' : 'NOT '}is_wireless) || ']', '[]')`
        : `(SELECT json_group_array(m.mac) FROM (SELECT o.mac_address AS mac FROM ${old} o WHERE o.network_id = g.network_id AND o.bucket = g.bucket AND o.is_wireless = ${wireless ? 1 : 0} ORDER BY o.mac_address) m)`;
    await sql
      .raw(
        postgres
          ? `INSERT INTO ${table} (network_id, bucket, hardware_device_id, wireless_macs, wired_macs) SELECT network_id, bucket, 0, ${macs(true)}, ${macs(false)} FROM ${old} GROUP BY network_id, bucket`
          : `INSERT INTO ${table} (network_id, bucket, hardware_device_id, wireless_macs, wired_macs) SELECT g.network_id, g.bucket, 0, ${macs(true)}, ${macs(false)} FROM (SELECT DISTINCT network_id, bucket FROM ${old}) g`,
      )
      .execute(db);
    await sql.raw(`DELETE FROM ${old}`).execute(db);
  }
  if (postgres) await redirectOnPostgres(db);
  else await redirectOnSqlite(db);
}

/** PostgreSQL: a row inserted into client_presence_rollups goes into the three new tiers instead. */
async function redirectOnPostgres(db: Kysely<unknown>): Promise<void> {
  const merge = (table: string, column: string) =>
    `${column} = (SELECT '[' || string_agg(to_json(u.value)::text, ',' ORDER BY u.value) || ']' FROM ` +
    `(SELECT value FROM json_array_elements_text(${table}.${column}::json) UNION SELECT value FROM json_array_elements_text(excluded.${column}::json)) u)`;
  const upserts = TIERS.map(
    ([, table, seconds]) =>
      `INSERT INTO ${table} (network_id, bucket, hardware_device_id, wireless_macs, wired_macs) ` +
      `VALUES (NEW.network_id, NEW.bucket - NEW.bucket % ${seconds}, 0, ` +
      `CASE WHEN NEW.is_wireless THEN json_build_array(NEW.mac_address)::text ELSE '[]' END, CASE WHEN NEW.is_wireless THEN '[]' ELSE json_build_array(NEW.mac_address)::text END) ` +
      `ON CONFLICT (network_id, bucket, hardware_device_id) DO UPDATE SET ${merge(table, 'wireless_macs')}, ${merge(table, 'wired_macs')};`,
  ).join('\n');
  await sql.raw(`CREATE FUNCTION client_presence_rollups_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN\n${upserts}\nRETURN NULL; END $$`).execute(db);
  await sql`CREATE TRIGGER client_presence_rollups_insert BEFORE INSERT ON client_presence_rollups FOR EACH ROW EXECUTE FUNCTION client_presence_rollups_insert()`.execute(db);
}

/** SQLite: the same, with RAISE(IGNORE) skipping the insert. */
async function redirectOnSqlite(db: Kysely<unknown>): Promise<void> {
  const merge = (table: string, column: string) =>
    `${column} = (SELECT json_group_array(u.value) FROM (SELECT value FROM json_each(${table}.${column}) UNION SELECT value FROM json_each(excluded.${column}) ORDER BY value) u)`;
  const upserts = TIERS.map(
    ([, table, seconds]) =>
      `INSERT INTO ${table} (network_id, bucket, hardware_device_id, wireless_macs, wired_macs) ` +
      `VALUES (NEW.network_id, NEW.bucket - NEW.bucket % ${seconds}, 0, ` +
      `CASE WHEN NEW.is_wireless THEN json_array(NEW.mac_address) ELSE '[]' END, CASE WHEN NEW.is_wireless THEN '[]' ELSE json_array(NEW.mac_address) END) ` +
      `ON CONFLICT (network_id, bucket, hardware_device_id) DO UPDATE SET ${merge(table, 'wireless_macs')}, ${merge(table, 'wired_macs')};`,
  ).join('\n');
  await sql.raw(`CREATE TRIGGER client_presence_rollups_insert BEFORE INSERT ON client_presence_rollups BEGIN\n${upserts}\nSELECT RAISE(IGNORE); END`).execute(db);
}
