import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * A client sample's fields in the order a compact row's `samples` holds them
 * (literal copies: migrations are history), each with its PostgreSQL type;
 * is_wireless is held as 0 or 1, and an array leaves out its trailing nulls
 * (a field past its end reads as null), so the fields most clients have come first.
 */
const FIELDS = [
  ['mac_address', 'text'],
  ['is_wireless', 'boolean'],
  ['signal', 'integer'],
  ['vlan_id', 'integer'],
  ['ssid', 'text'],
  ['radio_band', 'text'],
  ['channel', 'integer'],
  ['snr', 'integer'],
  ['rx_rate', 'double precision'],
  ['tx_rate', 'double precision'],
  ['rx_bytes', 'bigint'],
  ['tx_bytes', 'bigint'],
  ['hw_mode', 'text'],
] as const;

/**
 * Client samples as one compact row per report (issue 31, goals 1 and 3).
 * A report listing 20 clients wrote 20 rows of client_observations, each
 * with its own row header, network, device and time, and two index entries.
 * client_observation_sets holds one row per report instead: the network,
 * device and time once, and `samples`, a JSON array with one array per
 * client listed (FIELDS, in that order). `client_observations` becomes a
 * view that unnests them into exactly the rows the table held, with the
 * same columns and types (text in byte order on PostgreSQL), so every read
 * and every answer stay the same. An INSTEAD OF INSERT trigger takes rows
 * written to the view (the previous version's ingest during an upgrade) as
 * one compact row each. Retention and PostgreSQL's day partitions now name
 * client_observation_sets; the rows already stored are converted here, one
 * compact row per device, network and time, into partitions of the same days.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const table = db.schema
    .createTable('client_observation_sets')
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('samples', 'text', (c) => c.notNull());
  await (dialect.partitionsByTime ? table.modifyEnd(sql`PARTITION BY RANGE (observed_at)`) : table).execute();
  await db.schema.createIndex('client_observation_sets_network_idx').on('client_observation_sets').columns(['network_id', 'observed_at']).execute();
  await db.schema.createIndex('client_observation_sets_observed_idx').on('client_observation_sets').column('observed_at').execute();
  if (dialect.name === 'postgres') await convertOnPostgres(db);
  else await convertOnSqlite(db);
}

/** PostgreSQL: the day partitions of the days stored, the rows converted, the view and its trigger. */
async function convertOnPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE client_observation_sets_default PARTITION OF client_observation_sets DEFAULT`.execute(db);
  const days = await sql<{ name: string; bounds: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bounds FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'client_observations' AND p.relnamespace = current_schema()::regnamespace AND c.relname ~ '_p[0-9]{8}$'`.execute(db);
  for (const { name, bounds } of days.rows) {
    const day = name.slice(name.length - 8);
    await sql`CREATE TABLE ${sql.table(`client_observation_sets_p${day}`)} PARTITION OF client_observation_sets ${sql.raw(bounds)}`.execute(db);
  }
  const element = FIELDS.map(([name, type]) => (type === 'boolean' ? `CASE WHEN ${name} THEN 1 ELSE 0 END` : name)).join(', ');
  await sql`INSERT INTO client_observation_sets (network_id, hardware_device_id, observed_at, samples)
    SELECT network_id, hardware_device_id, observed_at, json_agg(${sql.raw(trimmed(`json_build_array(${element})::text`))}::json)::text
    FROM client_observations GROUP BY network_id, hardware_device_id, observed_at`.execute(db);
  await sql`DROP TABLE client_observations`.execute(db);
  // text in byte order, as the table's columns were (COLLATE "C")
  const columns = FIELDS.map(([name, type], i) =>
    type === 'text' ? `(e.v ->> ${i}) COLLATE "C" AS ${name}` : type === 'boolean' ? `(e.v ->> ${i})::integer <> 0 AS ${name}` : `(e.v ->> ${i})::${type} AS ${name}`,
  ).join(', ');
  await sql`CREATE VIEW client_observations AS SELECT s.network_id, s.hardware_device_id, s.observed_at, ${sql.raw(columns)}
    FROM client_observation_sets s CROSS JOIN LATERAL json_array_elements(s.samples::json) AS e(v)`.execute(db);
  const fresh = FIELDS.map(([name, type]) => (type === 'boolean' ? `CASE WHEN NEW.${name} THEN 1 ELSE 0 END` : `NEW.${name}`)).join(', ');
  await sql`CREATE FUNCTION client_observations_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO client_observation_sets (network_id, hardware_device_id, observed_at, samples)
    VALUES (NEW.network_id, NEW.hardware_device_id, NEW.observed_at, json_build_array(json_build_array(${sql.raw(fresh)}))::text);
    RETURN NEW; END $$`.execute(db);
  await sql`CREATE TRIGGER client_observations_insert INSTEAD OF INSERT ON client_observations FOR EACH ROW EXECUTE FUNCTION client_observations_insert()`.execute(db);
}

/** SQLite: the rows converted, the view and its trigger. */
async function convertOnSqlite(db: Kysely<unknown>): Promise<void> {
  const element = FIELDS.map(([name]) => name).join(', ');
  await sql`INSERT INTO client_observation_sets (network_id, hardware_device_id, observed_at, samples)
    SELECT network_id, hardware_device_id, observed_at, json_group_array(json(${sql.raw(trimmed(`json_array(${element})`))}))
    FROM client_observations GROUP BY network_id, hardware_device_id, observed_at`.execute(db);
  await sql`DROP TABLE client_observations`.execute(db);
  // the floats as REAL, as the table's columns held them (JSON keeps 2.0 as 2)
  const columns = FIELDS.map(([name, type], i) => (type === 'double precision' ? `CAST(j.value ->> ${i} AS REAL) AS ${name}` : `j.value ->> ${i} AS ${name}`)).join(', ');
  await sql`CREATE VIEW client_observations AS SELECT s.network_id, s.hardware_device_id, s.observed_at, ${sql.raw(columns)}
    FROM client_observation_sets s, json_each(s.samples) AS j`.execute(db);
  const fresh = FIELDS.map(([name]) => `NEW.${name}`).join(', ');
  await sql`CREATE TRIGGER client_observations_insert INSTEAD OF INSERT ON client_observations BEGIN
    INSERT INTO client_observation_sets (network_id, hardware_device_id, observed_at, samples)
    VALUES (NEW.network_id, NEW.hardware_device_id, NEW.observed_at, json_array(json_array(${sql.raw(fresh)}))); END`.execute(db);
}

/**
 * A JSON array's text without its trailing nulls: every value but the
 * first is a number, a string (which ends in a quote) or null, so what is
 * left after stripping the characters of ", null]" from the end is the
 * array up to its last value, the MAC address at least.
 */
function trimmed(array: string): string {
  return `(rtrim(${array}, ', nul]') || ']')`;
}
