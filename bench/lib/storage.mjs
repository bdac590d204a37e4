// What reports take on disk: the bytes of the tables ingest writes, with
// their indexes, grouped by how long they are kept.
import pg from 'pg';

/** Tables ingest writes, by retention: raw 48 h, rollups and history 90 d, state per device (bounded). */
export const STORAGE_GROUPS = {
  raw: ['uplink_samples', 'port_counters', 'client_observations', 'report_receipts'],
  rollups: [
    'uplink_rollups', 'client_presence_rollups', 'port_counter_rollups', 'client_metric_rollups', 'report_rollups',
    // the radio, PDU outlet and temperature rollups and their hourly and daily tiers (migration 0032), counted at the rollups' 90 days
    'radio_rollups', 'radio_rollups_hourly', 'radio_rollups_daily', 'pdu_outlet_rollups', 'pdu_outlet_rollups_hourly', 'pdu_outlet_rollups_daily',
    'device_temperature_rollups', 'device_temperature_rollups_hourly', 'device_temperature_rollups_daily',
    // the client metric rollups' tiers (migration 0036)
    'client_metric_rollups_hourly', 'client_metric_rollups_daily',
  ],
  history: ['events', 'client_sessions'],
  state: ['device_ports', 'device_radios', 'network_clients', 'hardware_devices'],
};

const TABLES = Object.values(STORAGE_GROUPS).flat();

/**
 * Bytes (indexes included) and rows per table. PostgreSQL:
 * pg_total_relation_size summed over each table's partitions
 * (pg_partition_tree). SQLite: page bytes from the dbstat virtual table,
 * indexes counted with their table.
 */
export async function storageSnapshot(store) {
  if (store.name === 'postgres') {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      const out = {};
      for (const table of TABLES) {
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
    return Object.fromEntries(TABLES.map((t) => [t, { bytes: bytes[t] ?? 0, rows: db.prepare(`SELECT count(*) AS n FROM ${t}`).get().n }]));
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
  for (const [group, tables] of Object.entries(STORAGE_GROUPS)) out[group] = Math.round(tables.reduce((sum, t) => sum + grown(t), 0));
  return out;
}

/**
 * Bytes per device per day, per group, from the growth `delta` that
 * `devices` devices caused in `hours` of reports, and what a fleet needs
 * with the default retentions (raw 48 h; rollups, events and client history
 * 90 d). State is bounded per device and left out of the per-day rate.
 */
export function storagePerDevice({ delta, devices, hours }) {
  const deviceDays = (devices * hours) / 24;
  const day = { raw: delta.raw / deviceDays, rollups: delta.rollups / deviceDays, history: delta.history / deviceDays };
  const retained = day.raw * 2 + (day.rollups + day.history) * 90;
  return { perDeviceDay: day, perDeviceRetained: retained, fleet1000: retained * 1000, fleet10000: retained * 10_000 };
}
