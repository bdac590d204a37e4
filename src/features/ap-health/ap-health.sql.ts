import type { SqlContext } from '../../engine/read.model.js';
import { CLIENT_SNR_TIERS, RADIO_TIERS, RESOURCE_TIERS, isCoarseTier } from '../../kernel/telemetry.js';
import type { RollupTier } from '../../kernel/telemetry.js';
import { tieredSources, tierRows } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';

/**
 * The SQL of apHealthScores, as a derived table below a hardware device row
 * `h` (an access point): per bucket of the filter, the sums and counts of
 * its radios' total utilization, its wireless clients' SNR and its CPU and
 * memory percentages, from the rollups wholly inside the window (the daily
 * or hourly tier when the step is whole days or hours, the finer ones at the
 * edges: metrics' tieredSources) and the raw samples for the rest, then the
 * scores of docs/metrics.md. Parameters are numbered in call order (SQLite's
 * are positional): each builder makes its text left to right.
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

/**
 * One part of the union: its tiers, their alias, what a tier row and a raw
 * sample carry, the raw table, and a condition beside the device's on the
 * 5-minute rows and raw samples (the hourly and daily rows hold only what it
 * keeps).
 */
interface PartSource {
  readonly tiers: readonly RollupTier[];
  readonly alias: string;
  readonly rollup: Partial<Record<Part, readonly [sum: string, count: string]>>;
  readonly samples: string;
  readonly raw: Partial<Record<Part, readonly [sum: string, count: string]>>;
  readonly finerWhere?: string;
}

/**
 * The union's rows of one part below the access point `h`: from the coarsest
 * of its tiers that divides the step and the finer tiers and raw samples at
 * the window's edges (tieredSources), which sum to what the 5-minute rollups
 * and raw samples give.
 */
function partRows(c: SqlContext, h: string, part: PartSource): string {
  const { tiers, raw } = tieredSources(c, part.tiers);
  const a = part.alias;
  const where = (coarse: boolean) => `${a}.hardware_device_id = ${h}.id${part.finerWhere === undefined || coarse ? '' : ` AND ${part.finerWhere}`}`;
  const fromTier = (table: string, range: Source) =>
    `${partRow(range.bucket(`${a}.bucket`), part.rollup)} FROM ${table} ${a} WHERE ${where(isCoarseTier(table))} AND ${rangeOf(range, a, 'bucket')}`;
  const fromSamples = (source: Source) => `${partRow(source.bucket(`${a}.observed_at`), part.raw)} FROM ${part.samples} ${a} WHERE ${where(false)} AND ${rangeOf(source, a, 'observed_at')}`;
  return [tierRows(tiers, fromTier), fromSamples(raw[0]), fromSamples(raw[1])].join(' UNION ALL ');
}

/** The memory percentage of a resource sample `ao`, when it carries both figures. */
const MEMORY = 'CASE WHEN ao.memory_total_bytes > 0 THEN 100.0 * ao.memory_used_bytes / ao.memory_total_bytes END';

/** The parts of the union: radio utilization, wireless clients' SNR, CPU and memory. */
const PARTS_SOURCES: readonly PartSource[] = [
  { tiers: RADIO_TIERS, alias: 'ar', rollup: { util: ['ar.total_utilization_sum', 'ar.total_utilization_count'] }, samples: 'radio_samples', raw: { util: rawValue('ar.total_utilization') } },
  { tiers: CLIENT_SNR_TIERS, alias: 'ac', rollup: { snr: ['ac.snr_sum', 'ac.snr_count'] }, samples: 'client_observations', raw: { snr: rawValue('ac.snr') }, finerWhere: 'ac.is_wireless' },
  {
    tiers: RESOURCE_TIERS,
    alias: 'ao',
    rollup: { cpu: ['ao.cpu_percent_sum', 'ao.cpu_percent_count'], mem: ['ao.memory_percent_sum', 'ao.memory_percent_count'] },
    samples: 'resource_samples',
    raw: { cpu: rawValue('ao.cpu_percent'), mem: rawValue(MEMORY) },
  },
];

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
  const union = PARTS_SOURCES.map((part) => partRows(c, h, part)).join(' UNION ALL ');
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
