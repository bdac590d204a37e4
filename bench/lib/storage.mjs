// What reports take on disk: the bytes of the tables ingest writes, with
// their indexes, grouped by how long they are kept.
import pg from 'pg';
import { RAW_SERIES_TABLES, RETENTION_DEFAULTS } from '../../dist/kernel/telemetry.js';

/**
 * The groups of tables ingest writes, each kept for its default retention
 * (src/kernel/telemetry.ts): raw samples and receipts, the 5-minute rollups,
 * their hourly and daily tiers (every `<rollup>_hourly` and `<rollup>_daily`
 * table), and events and client history; state per device is bounded.
 * `bucketHours` is a tier's bucket width: a series adds 24 / bucketHours rows
 * a day to it, however few hours the measurement ran.
 */
export const STORAGE_GROUPS = {
  raw: { days: RETENTION_DEFAULTS.rawRetentionHours / 24, bucketHours: 0 },
  rollups: { days: RETENTION_DEFAULTS.rollupRetentionDays, bucketHours: 300 / 3600 },
  hourly: { days: RETENTION_DEFAULTS.hourlyRetentionDays, bucketHours: 1 },
  daily: { days: RETENTION_DEFAULTS.dailyRetentionDays, bucketHours: 24 },
  history: { days: RETENTION_DEFAULTS.eventRetentionDays, bucketHours: 0 },
};
const STATE = ['device_ports', 'device_radios', 'network_clients', 'hardware_devices', 'client_sessions'];

/** The group of a table of the schema, or undefined for one ingest does not write. */
function groupOf(table) {
  if (RAW_SERIES_TABLES.includes(table) || table === 'report_receipts') return 'raw';
  // a client's session is opened once and lives while the client stays (the bench's clients never leave): state here, not history
  if (table === 'events' || table === 'client_connection_events') return 'history';
  if (table.endsWith('_rollups_hourly')) return 'hourly';
  if (table.endsWith('_rollups_daily')) return 'daily';
  if (table.endsWith('_rollups')) return 'rollups';
  return STATE.includes(table) ? 'state' : undefined;
}

/** The tables ingest writes, by group, of the schema at `store` (its tables, not their day partitions). */
async function tablesOf(list) {
  const tables = {};
  for (const table of await list()) {
    const group = groupOf(table);
    if (group !== undefined) (tables[group] ??= []).push(table);
  }
  return tables;
}

/**
 * Bytes (indexes included) and rows per table. PostgreSQL:
 * pg_total_relation_size summed over each table's partitions
 * (pg_partition_tree), after VACUUM FULL of each table with `compact`: the
 * rollups are updated in place many times a bucket, and every update leaves
 * a dead row version behind until a vacuum; autovacuum (on by default, off
 * on this machine) reclaims them for new rows, so the live rows are what a
 * running database keeps, and the space as written is an upper bound.
 * SQLite: page bytes from the dbstat virtual table, indexes counted with
 * their table (an update there rewrites its row in place).
 */
export async function storageSnapshot(store, { compact = false } = {}) {
  if (store.name === 'postgres') {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      const out = {};
      // partitions (`<table>_pYYYYMMDD`, `<table>_default`) count with their table through pg_partition_tree
      const groups = await tablesOf(async () => (await client.query(`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition`)).rows.map((r) => r.name));
      out.groups = groups;
      if (compact) await client.query(`VACUUM FULL ${Object.values(groups).flat().join(', ')}`);
      for (const table of Object.values(groups).flat()) {
        // pg_partition_tree lists nothing for a table that is not partitioned
        const text = `SELECT coalesce((SELECT sum(pg_total_relation_size(p.relid)) FROM pg_partition_tree('${table}'::regclass) p), pg_total_relation_size('${table}'))::bigint AS bytes,
            (SELECT count(*) FROM ${table}) AS rows`;
        const { rows } = await client.query(text);
        out[table] = { bytes: Number(rows[0].bytes), rows: Number(rows[0].rows) };
      }
      return out;
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(store.url.slice('sqlite:'.length), { readonly: true });
  try {
    const rows = db
      .prepare('SELECT m.tbl_name AS name, sum(s.pgsize) AS bytes FROM dbstat s JOIN sqlite_schema m ON m.name = s.name GROUP BY m.tbl_name')
      .all();
    const bytes = Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
    const groups = await tablesOf(async () => db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all().map((r) => r.name));
    return { groups, ...Object.fromEntries(Object.values(groups).flat().map((t) => [t, { bytes: bytes[t] ?? 0, rows: db.prepare(`SELECT count(*) AS n FROM ${t}`).get().n }])) };
  } finally {
    db.close();
  }
}

/**
 * The growth between two snapshots, per group: the rows added times each
 * table's bytes per row afterwards. Not the file growth itself: on
 * PostgreSQL, new rows fill the space that the rollups' updates left behind,
 * so a table can take rows without growing for a while; bytes per row over
 * the whole table count that space as the table keeps it.
 */
export function storageDelta(before, after) {
  const out = {};
  const grown = (t) => (after[t].rows > 0 ? ((after[t].rows - before[t].rows) * after[t].bytes) / after[t].rows : 0);
  for (const group of Object.keys(STORAGE_GROUPS)) out[group] = Math.round((after.groups[group] ?? []).reduce((sum, t) => sum + grown(t), 0));
  out.tables = Object.fromEntries(Object.values(after.groups).flat().map((t) => [t, Math.round(grown(t))]).filter(([, bytes]) => bytes > 0));
  return out;
}

/**
 * The live bytes per device per day of each table that grew, largest first,
 * as storagePerDevice counts its group (a tier's growth over the hours of
 * the buckets the reports touched): which tables dominate, for a log line.
 */
export function storageByTable({ delta, devices, hours, startMs, endMs }) {
  const rows = Object.entries(delta.tables ?? {}).map(([table, bytes]) => {
    const group = groupOf(table);
    const { bucketHours } = STORAGE_GROUPS[group] ?? { bucketHours: 0 };
    const span = bucketHours > 0 && startMs !== undefined ? touchedHours(bucketHours, startMs, endMs) : Math.max(hours, bucketHours);
    return { table, group, perDeviceDay: bytes / devices / (span / 24) };
  });
  return rows.sort((a, b) => b.perDeviceDay - a.perDeviceDay);
}

/**
 * The hours of buckets `bucketHours` wide that reports from `startMs` to
 * `endMs` touched: a tier's rows are one per series and bucket, so 2 hours
 * from 10:40 add three hourly rows to a series, and one daily row.
 */
function touchedHours(bucketHours, startMs, endMs) {
  const width = bucketHours * 3_600_000;
  return (Math.floor(endMs / width) - Math.floor(startMs / width) + 1) * bucketHours;
}

/**
 * Bytes per device per day, per group, from the growth `delta` that
 * `devices` devices caused in `hours` of reports (from `startMs` to `endMs`
 * when known), and what a fleet needs with the default retentions (each
 * group for its days). A tier's growth counts for the hours of the buckets
 * the reports touched (touchedHours), at least `hours`. State is bounded per
 * device and left out of the per-day rate.
 */
export function storagePerDevice({ delta, devices, hours, startMs, endMs }) {
  const day = {};
  let retained = 0;
  for (const [group, { days, bucketHours }] of Object.entries(STORAGE_GROUPS)) {
    const span = bucketHours > 0 && startMs !== undefined ? touchedHours(bucketHours, startMs, endMs) : Math.max(hours, bucketHours);
    day[group] = (delta[group] ?? 0) / devices / (span / 24);
    retained += day[group] * days;
  }
  return { perDeviceDay: day, perDeviceRetained: retained, fleet1000: retained * 1000, fleet10000: retained * 10_000 };
}
