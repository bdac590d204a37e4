import { DAILY_SECONDS, HOURLY_SECONDS, ROLLUP_SECONDS } from '../../kernel/telemetry.js';
import type { ArgumentProblem, ArgumentValues, ReadSettings, RootArgument } from '../../engine/read.model.js';

/** A series' window as the API takes it (MetricsFilterInput). */
export interface MetricsFilter {
  readonly durationSeconds: number;
  readonly stepSeconds: number;
  /** RFC 3339; absent: the time of the request. */
  readonly endTime?: string | null;
}

/** The smallest step a series takes. */
export const MIN_STEP_SECONDS = 60;
/** The most steps one window may span. */
export const MAX_STEPS = 1000;
/**
 * How many buckets of a series cost as much as one element of a list
 * (docs/limits.md): a bucket is one row of an aggregate that the database
 * builds and serialises within the one statement, with no lookup of its own.
 */
export const BUCKETS_PER_COST_ELEMENT = 10;

/** The `filter: MetricsFilterInput!` argument of every series root. */
export const METRICS_FILTER_ARGUMENT: RootArgument = {
  name: 'filter',
  type: 'input',
  fields: [
    { name: 'durationSeconds', type: 'int' },
    { name: 'stepSeconds', type: 'int' },
    { name: 'endTime', type: 'datetime' },
  ],
};

/** The filter of a root's arguments (`filter`). */
export const filterOf = (args: ArgumentValues): MetricsFilter => args.filter as MetricsFilter;

/** The MetricsFilterInput at a dotted path of a root's arguments (`filter`, `filter.timeFilter`). */
export const filterAt = (args: ArgumentValues, path: string): MetricsFilter =>
  path.split('.').reduce<unknown>((value, name) => (value as Record<string, unknown>)[name], args) as MetricsFilter;

/**
 * True when a step reads the 5-minute rollups: a multiple of 300 s, so each
 * rollup falls into exactly one bucket. Other steps (shorter ones, and the
 * rare 360 s or 420 s) read the raw samples, whose retention is shorter.
 */
export const readsRollups = (stepSeconds: number): boolean => stepSeconds % ROLLUP_SECONDS === 0;

/** The retention of the coarsest tier a step of a tiered series reads (daily, hourly), with its words; undefined for finer steps. */
function tierRetention(stepSeconds: number, settings: ReadSettings): { days: number; what: string } | undefined {
  if (stepSeconds % DAILY_SECONDS === 0) {
    return { days: settings.dailyRetentionDays, what: `a step that is a multiple of ${DAILY_SECONDS} s reads the daily rollups, kept ${settings.dailyRetentionDays} days (TELEMETRY_DAILY_RETENTION_DAYS)` };
  }
  if (stepSeconds % HOURLY_SECONDS === 0) {
    return { days: settings.hourlyRetentionDays, what: `a step that is a multiple of ${HOURLY_SECONDS} s reads the hourly rollups, kept ${settings.hourlyRetentionDays} days (TELEMETRY_HOURLY_RETENTION_DAYS)` };
  }
  return undefined;
}

/**
 * The rule of every series' filter, before the database: step at least 60 s,
 * at most 1,000 steps, and a duration within the retention of what the step
 * reads (raw samples or rollups; with `tiered`, a series that reads the
 * tiers, the hourly or daily tier for a step that is a multiple of an hour or
 * a day). The problem names the argument.
 */
export function checkFilter(filter: MetricsFilter, settings: ReadSettings, path = 'filter', tiered = false): ArgumentProblem | undefined {
  const { durationSeconds, stepSeconds } = filter;
  if (stepSeconds < MIN_STEP_SECONDS) {
    return { argument: `${path}.stepSeconds`, message: `must be at least ${MIN_STEP_SECONDS} (seconds): ask for a longer step.` };
  }
  if (durationSeconds < 1) return { argument: `${path}.durationSeconds`, message: 'must be at least 1 (second).' };
  if (Math.ceil(durationSeconds / stepSeconds) > MAX_STEPS) {
    return {
      argument: `${path}.durationSeconds`,
      message: `spans ${Math.ceil(durationSeconds / stepSeconds)} steps of ${stepSeconds} s; at most ${MAX_STEPS}: ask for a shorter duration or a longer step.`,
    };
  }
  if (tiered) {
    const tier = tierRetention(stepSeconds, settings);
    if (tier !== undefined && durationSeconds > tier.days * 86_400) {
      return { argument: `${path}.durationSeconds`, message: `must be at most ${tier.days * 86_400}: ${tier.what}.` };
    }
    if (tier !== undefined) return undefined;
  }
  const rollups = readsRollups(stepSeconds);
  const kept = rollups ? settings.rollupRetentionDays * 86_400 : settings.rawRetentionHours * 3_600;
  if (durationSeconds > kept) {
    const what = rollups
      ? `the 5-minute rollups are kept ${settings.rollupRetentionDays} days (TELEMETRY_ROLLUP_RETENTION_DAYS)`
      : `steps that are not a multiple of ${ROLLUP_SECONDS} s read the raw samples, kept ${settings.rawRetentionHours} hours (TELEMETRY_RAW_RETENTION_HOURS); a step that is a multiple of ${ROLLUP_SECONDS} s reads the rollups, kept longer`;
    return { argument: `${path}.durationSeconds`, message: `must be at most ${kept}: ${what}.` };
  }
  return undefined;
}

/**
 * Where a series reads, as query parameters: whole 5-minute rollups inside
 * the window from the rollup tables, and the rest of the window (all of it,
 * when the step does not read rollups; else the partial 5 minutes at each
 * edge) from the raw samples. So only data inside the window counts, and
 * the rollups and the raw samples give the same averages.
 */
export interface SeriesRanges {
  /** The rollup buckets (epoch seconds) read: from inclusive, to exclusive; empty when from >= to. */
  readonly rollupFrom: number;
  readonly rollupTo: number;
  /** The two raw ranges (ISO times): from inclusive, to exclusive; an unused one is empty (from = to). */
  readonly raw: readonly [readonly [string, string], readonly [string, string]];
}

/** The start of the window of `filter` at the request's time `now`, as an ISO time. */
export function seriesStart(filter: MetricsFilter, now: Date): string {
  const endMs = filter.endTime == null ? now.getTime() : Date.parse(filter.endTime);
  return new Date(endMs - filter.durationSeconds * 1000).toISOString();
}

/** The ranges a series reads for `filter` at the request's time `now` (see SeriesRanges). */
export function seriesRanges(filter: MetricsFilter, now: Date): SeriesRanges {
  const endMs = filter.endTime == null ? now.getTime() : Date.parse(filter.endTime);
  const startMs = endMs - filter.durationSeconds * 1000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const whole = { rollupFrom: 0, rollupTo: 0, raw: [[iso(startMs), iso(endMs)], [iso(endMs), iso(endMs)]] } as const;
  if (!readsRollups(filter.stepSeconds)) return whole;
  const step = ROLLUP_SECONDS * 1000;
  const firstWhole = Math.ceil(startMs / step) * step;
  const lastWhole = Math.floor(endMs / step) * step;
  if (firstWhole >= lastWhole) return whole;
  return {
    rollupFrom: firstWhole / 1000,
    rollupTo: lastWhole / 1000,
    raw: [
      [iso(startMs), iso(firstWhole)],
      [iso(lastWhole), iso(endMs)],
    ],
  };
}

/** A range of buckets (epoch seconds) or of times (ISO): from inclusive, to exclusive; empty when from >= to. */
type Range<T> = readonly [T, T];

/**
 * Where a tiered series reads (see tieredRanges): per tier, in the order
 * given, two ranges of its buckets (epoch seconds); and the two raw ranges.
 * An unused range is empty ([0, 0], or from = to).
 */
export interface TieredRanges {
  readonly tiers: readonly (readonly [Range<number>, Range<number>])[];
  readonly raw: readonly [Range<string>, Range<string>];
}

/**
 * The ranges a tiered series reads for `filter` at `now`, for tiers of
 * bucket widths `tierSeconds` (coarsest first, each a multiple of the next):
 * the coarsest tier whose width divides the step takes the whole buckets of
 * the window; each finer tier the whole buckets of what is left at either
 * edge (the hours of a window's partial days, the 5 minutes of its partial
 * hours); the raw samples the rest. Every bucket read lies inside the
 * window, and each bucket of the step is the sum of the tier buckets in it,
 * so the answer is the one the 5-minute rollups and raw samples give
 * (seriesRanges), for any window whose 5-minute rows are still kept.
 */
export function tieredRanges(filter: MetricsFilter, now: Date, tierSeconds: readonly number[]): TieredRanges {
  const endMs = filter.endTime == null ? now.getTime() : Date.parse(filter.endTime);
  const startMs = endMs - filter.durationSeconds * 1000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const top = tierSeconds.findIndex((seconds) => filter.stepSeconds % seconds === 0);
  // what is left to read, as one or two intervals (ms): the window, then its edges
  let left: Range<number>[] = [[startMs, endMs]];
  const tiers = tierSeconds.map((seconds, i): [Range<number>, Range<number>] => {
    const ranges: Range<number>[] = [];
    if (top === -1 || i < top) return [[0, 0], [0, 0]];
    const width = seconds * 1000;
    const rest: Range<number>[] = [];
    for (const [from, to] of left) {
      const firstWhole = Math.ceil(from / width) * width;
      const lastWhole = Math.floor(to / width) * width;
      if (firstWhole >= lastWhole) {
        rest.push([from, to]);
        continue;
      }
      ranges.push([firstWhole / 1000, lastWhole / 1000]);
      rest.push([from, firstWhole], [lastWhole, to]);
    }
    left = rest.filter(([from, to]) => from < to);
    return [ranges[0] ?? [0, 0], ranges[1] ?? [0, 0]];
  });
  const raw = left.map(([from, to]): Range<string> => [iso(from), iso(to)]);
  return { tiers, raw: [raw[0] ?? [iso(endMs), iso(endMs)], raw[1] ?? [iso(endMs), iso(endMs)]] };
}

/**
 * The most buckets a series of `filter` may hold per port (undefined: the
 * most any filter allows): its steps, and one more when the window does not
 * start on a bucket boundary (a partial bucket at each end).
 */
export function maxBuckets(filter: MetricsFilter | undefined): number {
  const most = MAX_STEPS + 1;
  if (filter === undefined || !(filter.stepSeconds > 0) || !(filter.durationSeconds > 0)) return most;
  return Math.min(most, Math.ceil(filter.durationSeconds / filter.stepSeconds) + 1);
}

/** A series list's size for complexity: `perBucket` values per bucket, BUCKETS_PER_COST_ELEMENT buckets to an element. */
export function seriesCostSize(args: ArgumentValues | undefined, perBucket = 1): number {
  const filter = args === undefined ? undefined : filterOf(args);
  return Math.ceil((maxBuckets(filter) * perBucket) / BUCKETS_PER_COST_ELEMENT);
}
