import { isCoarseTier } from '../../kernel/telemetry.js';
/**
 * The SQL of cumulative counters read across reboots (port counters, the
 * DNS request counter): readings, and the tier rows that stand for runs of
 * them (COUNTER_TIERED, migration 0035), as one kind of row, an item: its
 * first reading (`first_at`, `first_uptime`, `first_<counter>`), its last
 * (`observed_at`, `uptime_seconds`, `<counter>`) and the growth between
 * consecutive readings inside it (`g_<counter>`). A reading is an item whose
 * first and last are itself, with no growth inside.
 */

/** The item columns of the reading (raw, or a 5-minute rollup: the last reading of its bucket) aliased `t`. */
export function readingItem(t: string, counters: readonly string[]): string {
  return (
    `${t}.observed_at AS first_at, ${t}.uptime_seconds AS first_uptime, ${counters.map((c) => `${t}.${c} AS first_${c}`).join(', ')}, ` +
    `${t}.observed_at, ${t}.uptime_seconds, ${counters.map((c) => `${t}.${c}`).join(', ')}, ${counters.map((c) => `0 AS g_${c}`).join(', ')}`
  );
}

/** The item columns of the hourly or daily tier row aliased `t`. */
export function tierItem(t: string, counters: readonly string[]): string {
  return (
    `${t}.first_observed_at AS first_at, ${t}.first_uptime_seconds AS first_uptime, ${counters.map((c) => `${t}.first_${c}`).join(', ')}, ` +
    `${t}.observed_at, ${t}.uptime_seconds, ${counters.map((c) => `${t}.${c}`).join(', ')}, ${counters.map((c) => `${t}.${c}_growth AS g_${c}`).join(', ')}`
  );
}

/** The item columns of the row aliased `t` of `table`: a tier row when the table is an hourly or daily tier, else a reading. */
export const itemOf = (table: string, t: string, counters: readonly string[]): string =>
  isCoarseTier(table) ? tierItem(t, counters) : readingItem(t, counters);

/**
 * The items `w` (in time order per `partition`, a column of theirs, or
 * none) with the previous item's last time (`p_at`, NULL for the first),
 * their first time (`first_at`) and the growth of each counter over the
 * readings they stand for: the growth inside the item, plus the growth from
 * the previous item's last reading into its first. A first reading after a
 * reboot (any counter lower than the previous reading's, or a lower uptime)
 * counts whole, since counters restart from zero; the first item of a
 * partition has no growth into it. So the growth, and the seconds from
 * `p_at` (else `first_at`) to `observed_at`, are the sums over the
 * consecutive readings an item stands for, as if they were read one by one.
 */
export function counterIncrements(items: string, counters: readonly string[], partition?: string): string {
  const lags = counters.map((c) => `lag(w.${c}) OVER o AS p_${c}`).join(', ');
  const rebooted = [...counters.map((c) => `x.first_${c} < x.p_${c}`), 'x.first_uptime < x.p_uptime'].join(' OR ');
  const growth = counters
    .map((c) => `x.g_${c} + CASE WHEN x.p_${c} IS NULL THEN 0 WHEN ${rebooted} THEN x.first_${c} ELSE x.first_${c} - x.p_${c} END AS ${c}`)
    .join(', ');
  const key = partition === undefined ? '' : `x.${partition}, `;
  const by = partition === undefined ? '' : `PARTITION BY w.${partition} `;
  return (
    `(SELECT ${key}x.observed_at, x.p_at, x.first_at, ${growth} FROM (SELECT w.*, lag(w.observed_at) OVER o AS p_at, ` +
    `lag(w.uptime_seconds) OVER o AS p_uptime, ${lags} FROM (${items}) w WINDOW o AS (${by}ORDER BY w.observed_at)) x)`
  );
}
