import type { SqlContext } from '../../engine/read.model.js';
import { RESOURCE_TIERS } from '../../kernel/telemetry.js';
import { sources, tieredSources } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';

/**
 * The SQL of apHealthScores, as a derived table below a hardware device row
 * `h` (an access point): per bucket of the filter, the sums and counts of
 * its radios' total utilization, its wireless clients' SNR and its CPU and
 * memory percentages, from the 5-minute rollups wholly inside the window
 * and the raw samples for the rest (metrics' sources; CPU and memory from
 * their tiers, metrics' tieredSources), then the scores of docs/metrics.md. Parameters are numbered in call order (SQLite's are
 * positional): each builder makes its text left to right.
 */

/** The sums and counts every row of the union carries, in this order. */
const PARTS = ['util', 'snr', 'cpu', 'mem'] as const;
type Part = (typeof PARTS)[number];

/** A row of the union: its bucket, and `sum AS <part>_s, count AS <part>_n` for its own parts, 0 for the others. */
function partRow(bucket: string, own: Partial<Record<Part, readonly [sum: string, count: string]>>): string {
  return `SELECT ${bucket} AS bucket, ${PARTS.map((p) => `${own[p]?.[0] ?? '0'} AS ${p}_s, ${own[p]?.[1] ?? '0'} AS ${p}_n`).join(', ')}`;
}

/** A raw column's value and whether it counts, as a sum and a count. */
const rawValue = (value: string): readonly [string, string] => [`coalesce(${value}, 0)`, `CASE WHEN ${value} IS NULL THEN 0 ELSE 1 END`];

/** The condition of a source's range on column `column` of `t`. */
const rangeOf = (source: Source, t: string, column: string) => `${t}.${column} >= ${source.from()} AND ${t}.${column} < ${source.to()}`;

/** The union's radio and client rows of one source of the window: the rollups (`rollup`) or one raw range. */
function rowsOf(h: string, source: Source, rollup: boolean): string {
  const range = (t: string, column: string) => rangeOf(source, t, column);
  const device = (t: string) => `${t}.hardware_device_id = ${h}.id`;
  if (rollup) {
    return [
      `${partRow(source.bucket('ar.bucket'), { util: ['ar.total_utilization_sum', 'ar.total_utilization_count'] })} FROM radio_rollups ar WHERE ${device('ar')} AND ${range('ar', 'bucket')}`,
      `${partRow(source.bucket('ac.bucket'), { snr: ['ac.snr_sum', 'ac.snr_count'] })} FROM client_metric_rollups ac WHERE ${device('ac')} AND ac.is_wireless AND ${range('ac', 'bucket')}`,
    ].join(' UNION ALL ');
  }
  return [
    `${partRow(source.bucket('ar.observed_at'), { util: rawValue('ar.total_utilization') })} FROM radio_samples ar WHERE ${device('ar')} AND ${range('ar', 'observed_at')}`,
    `${partRow(source.bucket('ac.observed_at'), { snr: rawValue('ac.snr') })} FROM client_observations ac WHERE ${device('ac')} AND ac.is_wireless AND ${range('ac', 'observed_at')}`,
  ].join(' UNION ALL ');
}

/**
 * The union's CPU and memory rows: from the coarsest of RESOURCE_TIERS that
 * divides the step and the finer tiers and raw samples at the window's edges
 * (tieredSources), which sum to what the 5-minute rollups and raw samples give.
 */
function resourceRows(c: SqlContext, h: string): string {
  const { tiers, raw } = tieredSources(c, RESOURCE_TIERS);
  const sums = { cpu: ['ao.cpu_percent_sum', 'ao.cpu_percent_count'], mem: ['ao.memory_percent_sum', 'ao.memory_percent_count'] } as const;
  const fromTier = (table: string, range: Source) => `${partRow(range.bucket('ao.bucket'), sums)} FROM ${table} ao WHERE ao.hardware_device_id = ${h}.id AND ${rangeOf(range, 'ao', 'bucket')}`;
  const memory = 'CASE WHEN ao.memory_total_bytes > 0 THEN 100.0 * ao.memory_used_bytes / ao.memory_total_bytes END';
  const fromSamples = (source: Source) =>
    `${partRow(source.bucket('ao.observed_at'), { cpu: rawValue('ao.cpu_percent'), mem: rawValue(memory) })} FROM resource_samples ao ` +
    `WHERE ao.hardware_device_id = ${h}.id AND ${rangeOf(source, 'ao', 'observed_at')}`;
  return [...tiers.flatMap((t) => t.ranges.map((range) => fromTier(t.table, range))), fromSamples(raw[0]), fromSamples(raw[1])].join(' UNION ALL ');
}

/** 0 below 0, 100 above 100. */
const clamp = (x: string): string => `CASE WHEN ${x} < 0 THEN 0.0 WHEN ${x} > 100 THEN 100.0 ELSE ${x} END`;

/**
 * The access point `h`'s health per bucket with data (docs/metrics.md):
 * cpu_percent, memory_percent, rf_score = 100 - average total utilization
 * of its radios, performance_score = clamp((average client SNR - 10) * 100
 * / 30), system_score = 100 - the larger of CPU and memory, overall_score =
 * the mean of the scores that are not NULL.
 */
export function healthSeries(c: SqlContext, h: string): string {
  const { rollup, raw } = sources(c);
  const union = [rowsOf(h, rollup, true), rowsOf(h, raw[0], false), rowsOf(h, raw[1], false), resourceRows(c, h)].join(' UNION ALL ');
  const average = (p: Part) => `CASE WHEN sum(g.${p}_n) > 0 THEN 1.0 * sum(g.${p}_s) / sum(g.${p}_n) END`;
  const averages =
    `(SELECT g.bucket, ${average('util')} AS utilization, ${average('snr')} AS snr, ${average('cpu')} AS cpu_percent, ${average('mem')} AS memory_percent ` +
    `FROM (${union}) g GROUP BY g.bucket HAVING sum(g.util_n) + sum(g.snr_n) + sum(g.cpu_n) + sum(g.mem_n) > 0)`;
  const system = '100 - CASE WHEN a.memory_percent IS NULL OR a.cpu_percent >= a.memory_percent THEN a.cpu_percent ELSE a.memory_percent END';
  const scores =
    `(SELECT a.bucket, a.cpu_percent, a.memory_percent, 100 - a.utilization AS rf_score, ${clamp('(a.snr - 10) * 100.0 / 30')} AS performance_score, ` +
    `CASE WHEN a.cpu_percent IS NULL AND a.memory_percent IS NULL THEN NULL ELSE ${system} END AS system_score FROM ${averages} a)`;
  const present = (s: string) => `CASE WHEN s.${s} IS NULL THEN 0 ELSE 1 END`;
  const names = ['performance_score', 'rf_score', 'system_score'];
  return (
    `(SELECT s.*, (${names.map((n) => `coalesce(s.${n}, 0)`).join(' + ')}) / (${names.map(present).join(' + ')}) AS overall_score FROM ${scores} s)`
  );
}
