import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { RowColumn, SqlDialect } from '../db/dialect.js';
import type { Database } from '../db/tables.js';
import { takeExcluded } from './report-rows.repository.js';
import { COUNTER_TIERED, DAILY_SECONDS, HOURLY_SECONDS } from '../kernel/telemetry.js';
import type { CounterTiered } from '../kernel/telemetry.js';

/** The columns of a counter tier's rows (COUNTER_TIERED), in order. */
export function counterTierColumns(keys: readonly string[], counters: readonly string[]): string[] {
  return [
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
}

/**
 * The rows `items` (aliased `i`, with a tier's columns) folded into buckets
 * of `seconds`: per key and bucket, its first item's first reading, its last
 * item's last reading, and the growth inside each item plus the growth
 * between consecutive items (a reading with a counter lower than the one
 * before, or a lower uptime, counts whole: the counters restarted).
 */
function foldItems(items: RawBuilder<unknown>, seconds: number, keys: readonly string[], counters: readonly string[]): RawBuilder<unknown> {
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
  const select =
    `${key}, x.tier AS bucket, ${['first_observed_at', 'first_uptime_seconds', ...counters.map((c) => `first_${c}`)].map(first).join(', ')}, ` +
    `${['observed_at', 'uptime_seconds', ...counters].map(last).join(', ')}, ${growth.join(', ')}`;
  const windowed = `i.*, i.bucket - i.bucket % ${seconds} AS tier, lag(i.uptime_seconds) OVER o AS p_uptime, ${lags}, row_number() OVER o AS n_first, row_number() OVER l AS n_last`;
  return sql`SELECT ${sql.raw(select)} FROM (SELECT ${sql.raw(windowed)} FROM ${items} i
    WINDOW o AS (${sql.raw(within)} ORDER BY i.observed_at), l AS (${sql.raw(within)} ORDER BY i.observed_at DESC)) x GROUP BY ${sql.raw(`${key}, x.tier`)}`;
}

/** The rows of `table` aliased `r` as a tier's columns: a 5-minute row is one reading (first and last the same, no growth inside). */
function itemsOf(table: string, keys: readonly string[], counters: readonly string[]): string {
  if (table.endsWith('_hourly')) return counterTierColumns(keys, counters).map((c) => `r.${c}`).join(', ');
  return (
    `r.hardware_device_id, ${keys.map((k) => `r.${k}, `).join('')}r.bucket, r.observed_at AS first_observed_at, r.uptime_seconds AS first_uptime_seconds, ` +
    `${counters.map((c) => `r.${c} AS first_${c}, `).join('')}r.observed_at, r.uptime_seconds, ${counters.map((c) => `r.${c}, `).join('')}` +
    counters.map((c) => `0 AS ${c}_growth`).join(', ')
  );
}

/** A row of a counter rollup, as far as its tiers' folds need it: its key. */
export type CounterRollupKey = Readonly<Record<string, unknown>> & { readonly hardware_device_id: number; readonly bucket: number };

/**
 * The hourly and daily tiers of the counter rollups (COUNTER_TIERED,
 * migration 0035), kept by ingest in the request's transaction.
 */
export function createCounterTierRepository(db: Kysely<Database>, dialect: SqlDialect) {
  /**
   * Folds again the buckets of `seconds` of tier `tier` that hold these
   * 5-minute rows, from the rows of `finer` inside them: each tier row
   * depends only on the readings of its bucket, so folding the whole bucket
   * gives the same row whatever order reports came in.
   */
  async function foldTier(base: CounterTiered, finer: string, tier: string, seconds: number, rows: readonly CounterRollupKey[]): Promise<void> {
    const { keys, counters } = COUNTER_TIERED[base];
    const keyColumns: RowColumn[] = [['hardware_device_id', 'bigint'], ...keys.map((k): RowColumn => [k, 'integer']), ['bucket', 'bigint']];
    const touched = new Map<string, unknown[]>();
    for (const row of rows) {
      const key = [row.hardware_device_id, ...keys.map((k) => row[k]), row.bucket - (row.bucket % seconds)];
      touched.set(key.join('/'), key);
    }
    if (touched.size === 0) return;
    // one index range per touched key: (device, [port,] bucket)
    const same = ['hardware_device_id', ...keys].map((k) => `r.${k} = k.${k}`).join(' AND ');
    const items = sql`(SELECT ${sql.raw(itemsOf(finer, keys, counters))} FROM ${dialect.rowSource('k', keyColumns, [...touched.values()])} CROSS JOIN ${sql.table(finer)} r
      WHERE ${sql.raw(same)} AND r.bucket >= k.bucket AND r.bucket < k.bucket + ${sql.raw(String(seconds))})`;
    const columns = counterTierColumns(keys, counters);
    const set = columns.filter((c) => c !== 'bucket' && c !== 'hardware_device_id' && !(keys as readonly string[]).includes(c));
    // WHERE true: SQLite would read ON CONFLICT's ON as a join of the SELECT
    await sql`INSERT INTO ${sql.table(tier)} (${sql.raw(columns.join(', '))}) SELECT ${sql.raw(columns.join(', '))} FROM (${foldItems(items, seconds, keys, counters)}) f
      WHERE true ON CONFLICT (${sql.raw(['hardware_device_id', ...keys, 'bucket'].join(', '))}) DO UPDATE SET ${takeExcluded(set)}`.execute(db);
  }

  return {
    /**
     * Folds the hours and days these 5-minute rows of `base` (just upserted)
     * fall in again into its hourly tier, then the days into its daily tier
     * from the hourly rows.
     */
    async foldCounterTiers(base: CounterTiered, rows: readonly CounterRollupKey[]): Promise<void> {
      await foldTier(base, base, `${base}_hourly`, HOURLY_SECONDS, rows);
      await foldTier(base, `${base}_hourly`, `${base}_daily`, DAILY_SECONDS, rows);
    },
  };
}
