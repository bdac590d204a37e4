import { ROLLUP_SECONDS } from '../../kernel/telemetry.js';
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

/**
 * The rule of every series' filter, before the database: step at least 60 s,
 * at most 1,000 steps, and a duration within the retention of what the step
 * reads (raw samples or rollups). The problem names the argument.
 */
export function checkFilter(filter: MetricsFilter, settings: ReadSettings, path = 'filter'): ArgumentProblem | undefined {
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
