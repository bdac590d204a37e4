// What reports take on disk: the bytes of the tables ingest writes, with
// their indexes, grouped by how long they are kept.
import pg from 'pg';

/** Tables ingest writes, by retention: raw 48 h, rollups and history 90 d, state per device (bounded). */
export const STORAGE_GROUPS = {
  raw: ['uplink_samples', 'port_counters', 'client_observations', 'report_receipts'],
  rollups: ['uplink_rollups', 'client_presence_rollups', 'port_counter_rollups', 'report_rollups'],
  history: ['events', 'client_sessions'],
  state: ['device_ports', 'device_radios', 'network_clients', 'hardware_devices'],
};

const TABLES = Object.values(STORAGE_GROUPS).flat();

/**
 * Bytes per table, indexes included. PostgreSQL: pg_total_relation_size
 * summed over each table's partitions (pg_partition_tree). SQLite: page
 * bytes from the dbstat virtual table, indexes counted with their table.
 */
export async function storageSnapshot(store) {
  if (store.name === 'postgres') {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      await client.query('CHECKPOINT').catch(() => undefined);
      const { rows } = await client.query(
        'SELECT t.name, (SELECT sum(pg_total_relation_size(p.relid)) FROM pg_partition_tree(t.name::regclass) p)::bigint AS bytes FROM unnest($1::text[]) AS t(name)',
        [TABLES],
      );
      return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
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
    return Object.fromEntries(TABLES.map((t) => [t, bytes[t] ?? 0]));
  } finally {
    db.close();
  }
}

/** The growth between two snapshots, per group, per report. */
export function storageDelta(before, after, reports) {
  const out = { reports };
  for (const [group, tables] of Object.entries(STORAGE_GROUPS)) {
    out[group] = tables.reduce((sum, t) => sum + (after[t] - before[t]), 0);
  }
  return out;
}

/**
 * Bytes per device per day at one report every `intervalSeconds`, per
 * group, from the growth the measured rounds caused, and what a fleet needs
 * with the default retentions (raw 48 h; rollups, events and client
 * history 90 d). State is bounded per device and left out of the per-day rate.
 */
export function storagePerDevice(deltas, intervalSeconds) {
  const reports = deltas.reduce((sum, d) => sum + d.reports, 0);
  const perDay = 86_400 / intervalSeconds;
  const perReport = (group) => deltas.reduce((sum, d) => sum + d[group], 0) / Math.max(1, reports);
  const day = { raw: perReport('raw') * perDay, rollups: perReport('rollups') * perDay, history: perReport('history') * perDay };
  const retained = day.raw * 2 + (day.rollups + day.history) * 90;
  return { reports, perDeviceDay: day, perDeviceRetained: retained, fleet1000: retained * 1000, fleet10000: retained * 10_000 };
}
