import { sql } from 'kysely';
import type { ColumnDataType, CreateTableBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The 5-minute rollups of cumulative counters this migration tiers, as
 * literal copies (migrations are history): each table's key column besides
 * hardware_device_id and bucket, and its counters (migrations 0004 and 0015).
 */
const TIERED = [
  { table: 'port_counter_rollups', keys: ['port_number'], counters: ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets', 'rx_errors', 'tx_errors'] },
  { table: 'dns_counter_rollups', keys: [], counters: ['requests'] },
] as const;

/** The tiers: table suffix and bucket width in seconds, each folded from the one before it (the 5-minute rows, then the hourly). */
const TIERS = [
  ['hourly', 3_600],
  ['daily', 86_400],
] as const;

/**
 * Tiered history (issue 31, goal 2) for the port and DNS counter rollups. A
 * 5-minute row holds the last cumulative reading of its bucket, and reads
 * work out the growth between consecutive readings (a reading after a
 * reboot counts whole). A tier row stands for the run of 5-minute readings
 * inside its bucket: its first reading (first_observed_at,
 * first_uptime_seconds, first_<counter>), its last (observed_at,
 * uptime_seconds, <counter>: what the next reading's growth starts from)
 * and the growth between consecutive readings inside it (<counter>_growth).
 * So a read joins a tier row to the reading before it exactly as it joins
 * the 5-minute readings it stands for: the growth into its first reading,
 * then its own growth, over the seconds from the reading before to its last.
 * Each tier row depends only on the readings inside its bucket, so ingest
 * folds a bucket again from the finer rows whenever a report touches it (in
 * order or not). The daily rows fold the hourly rows alike. The 5-minute
 * rows already stored are folded here; PostgreSQL then gathers statistics of
 * what was filled. Additive: the previous version neither reads nor writes
 * the tiers (docs/operations.md, "Upgrading").
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  for (const { table, keys, counters } of TIERED) {
    let finer = `(${readingItems(table, keys, counters)})`;
    for (const [suffix, seconds] of TIERS) {
      const tier = `${table}_${suffix}`;
      let create: CreateTableBuilder<string, string> = db.schema.createTable(tier).addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'));
      for (const key of keys) create = create.addColumn(key, t.integer, (c) => c.notNull());
      create = create.addColumn('bucket', big, (c) => c.notNull()).addColumn('first_observed_at', t.timestamp, (c) => c.notNull()).addColumn('first_uptime_seconds', big);
      for (const counter of counters) create = create.addColumn(`first_${counter}`, big, (c) => c.notNull());
      create = create.addColumn('observed_at', t.timestamp, (c) => c.notNull()).addColumn('uptime_seconds', big);
      for (const counter of counters) create = create.addColumn(counter, big, (c) => c.notNull());
      for (const counter of counters) create = create.addColumn(`${counter}_growth`, big, (c) => c.notNull());
      await create.addUniqueConstraint(`${tier}_key`, ['hardware_device_id', ...keys, 'bucket']).execute();
      await db.schema.createIndex(`${tier}_bucket_idx`).on(tier).column('bucket').execute();
      const columns = tierColumns(keys, counters).join(', ');
      await sql.raw(`INSERT INTO ${tier} (${columns}) SELECT ${columns} FROM (${foldItems(finer, seconds, keys, counters)}) f`).execute(db);
      if (dialect.name === 'postgres') await sql.raw(`ANALYZE ${tier}`).execute(db);
      finer = tier;
    }
  }
}

/** The columns of a tier table, in order. */
const tierColumns = (keys: readonly string[], counters: readonly string[]): string[] => [
  'hardware_device_id',
  ...keys,
  'bucket',
  'first_observed_at',
  'first_uptime_seconds',
  ...counters.map((c) => `first_${c}`),
  'observed_at',
  'uptime_seconds',
  ...counters,
  ...counters.map((c) => `${c}_growth`),
];

/** The 5-minute rows of `table` as tier rows of one reading each: first and last the same, no growth inside. */
function readingItems(table: string, keys: readonly string[], counters: readonly string[]): string {
  const key = keys.map((k) => `r.${k}, `).join('');
  return (
    `SELECT r.hardware_device_id, ${key}r.bucket, r.observed_at AS first_observed_at, r.uptime_seconds AS first_uptime_seconds, ` +
    `${counters.map((c) => `r.${c} AS first_${c}, `).join('')}r.observed_at, r.uptime_seconds, ${counters.map((c) => `r.${c}, `).join('')}` +
    `${counters.map((c) => `0 AS ${c}_growth`).join(', ')} FROM ${table} r`
  );
}

/**
 * The rows `items` (tier columns) folded into buckets of `seconds`: per
 * bucket its first item's first reading, its last item's last reading, and
 * the growth inside each item plus the growth between consecutive items
 * (a reading lower than the one before, or a lower uptime, counts whole).
 */
function foldItems(items: string, seconds: number, keys: readonly string[], counters: readonly string[]): string {
  const group = ['hardware_device_id', ...keys].map((k) => `i.${k}`).join(', ');
  const within = `PARTITION BY ${group}, i.bucket - i.bucket % ${seconds}`;
  const lags = counters.map((c) => `lag(i.${c}) OVER o AS p_${c}`).join(', ');
  const rebooted = [...counters.map((c) => `x.first_${c} < x.p_${c}`), 'x.first_uptime_seconds < x.p_uptime'].join(' OR ');
  const first = (column: string) => `max(CASE WHEN x.n_first = 1 THEN x.${column} END) AS ${column}`;
  const last = (column: string) => `max(CASE WHEN x.n_last = 1 THEN x.${column} END) AS ${column}`;
  const growth = counters.map(
    (c) => `sum(x.${c}_growth + CASE WHEN x.p_${c} IS NULL THEN 0 WHEN ${rebooted} THEN x.first_${c} ELSE x.first_${c} - x.p_${c} END) AS ${c}_growth`,
  );
  const key = ['hardware_device_id', ...keys].map((k) => `x.${k}`).join(', ');
  return (
    `SELECT ${key}, x.tier AS bucket, ${['first_observed_at', 'first_uptime_seconds', ...counters.map((c) => `first_${c}`)].map(first).join(', ')}, ` +
    `${['observed_at', 'uptime_seconds', ...counters].map(last).join(', ')}, ${growth.join(', ')} ` +
    `FROM (SELECT i.*, i.bucket - i.bucket % ${seconds} AS tier, lag(i.uptime_seconds) OVER o AS p_uptime, ${lags}, ` +
    `row_number() OVER o AS n_first, row_number() OVER l AS n_last FROM ${items} i ` +
    `WINDOW o AS (${within} ORDER BY i.observed_at), l AS (${within} ORDER BY i.observed_at DESC)) x GROUP BY ${key}, x.tier`
  );
}
