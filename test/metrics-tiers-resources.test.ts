import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as resourceTiers from '../src/db/migrations/0031-resource-tiers.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { rowCount } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

// The CPU and memory tiers (migration 0031; docs/metrics.md, "Tiers") over HTTP: an access point's reports over 3 hours
// 16 minutes, read by apHealthScores with steps of whole hours and days from the hourly and daily tiers, with the
// edges of a window from the 5-minute rollups and the raw samples. REPORT_EPOCH (2026-11-24T10:00:00Z) is a whole
// hour; its day began 10 hours earlier.
const HOUR = 3600;
const DAY = 86_400;
const DAY_START = -10 * HOUR;

/**
 * Report k is at k × 10 minutes, plus one at 3:16 (k = 20); CPU 30, 40, 50, 60 in turn; memory 20 + k percent
 * (used 10 × (20 + k) of 1000 bytes), left out when k % 3 = 2.
 */
const SAMPLES = Array.from({ length: 21 }, (_, k) => ({
  seconds: k === 20 ? 3 * HOUR + 960 : k * 600,
  cpu: 30 + (k % 4) * 10,
  memory: k % 3 === 2 ? null : 20 + k,
}));

/** The mean of each part per step bucket (multiples of the step since the epoch) of the samples in [start, end): what the 5-minute rollups and raw samples give. */
function expected(startSeconds: number, endSeconds: number, step: number): unknown[] {
  const sums = new Map<number, { cpu: number; cpuN: number; mem: number; memN: number }>();
  for (const s of SAMPLES) {
    if (s.seconds < startSeconds || s.seconds >= endSeconds) continue;
    const epoch = REPORT_EPOCH / 1000 + s.seconds;
    const bucket = epoch - (epoch % step) - REPORT_EPOCH / 1000;
    const held = sums.get(bucket) ?? { cpu: 0, cpuN: 0, mem: 0, memN: 0 };
    sums.set(bucket, { cpu: held.cpu + s.cpu, cpuN: held.cpuN + 1, mem: held.mem + (s.memory ?? 0), memN: held.memN + (s.memory === null ? 0 : 1) });
  }
  return [...sums]
    .sort(([a], [b]) => a - b)
    .map(([bucket, { cpu, cpuN, mem, memN }]) => {
      const cpuPercent = cpu / cpuN;
      const memoryPercent = memN === 0 ? null : mem / memN;
      const systemScore = 100 - (memoryPercent === null || cpuPercent >= memoryPercent ? cpuPercent : memoryPercent);
      return { timestamp: at(bucket), cpuPercent, memoryPercent, systemScore, overallScore: systemScore, rfScore: null, performanceScore: null };
    });
}

describe.each(storeKinds())('tiered CPU and memory rollups on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  const health = async (start: number, end: number, step: number) =>
    (
      await app.graphql(
        `query ($f: MetricsFilterInput!) { apHealthScores(serialNumber: "${SERIALS.acmeAp}", filter: $f) { timestamp cpuPercent memoryPercent systemScore overallScore rfScore performanceScore } }`,
        { variables: { f: { durationSeconds: end - start, stepSeconds: step, endTime: at(end) } } },
      )
    ).body.data.apHealthScores as unknown[];
  const count = (table: string) => rowCount(app.server.store.db, table);
  /** Windows (start, end, step in seconds) that read the tiers, and what each reads besides. */
  const WINDOWS = [
    [0, 4 * HOUR, HOUR], // whole hours: the hourly tier alone
    [25 * 60, 3 * HOUR + 20 * 60, HOUR], // 5-minute rollups at both edges
    [25 * 60 + 30, 3 * HOUR + 17 * 60 + 30, HOUR], // and raw samples at both edges
    [-2 * HOUR, 4 * HOUR, 2 * HOUR], // two-hour steps
    [DAY_START, DAY_START + DAY, DAY], // a whole day: the daily tier alone (apHealthScores' radio and client parts keep windows within the 5-minute retention, here 1 day)
    [4 * HOUR - DAY, 4 * HOUR, DAY], // the hourly tier and a raw edge inside one day
    [20 * 60 + 15, DAY_START + DAY - 45, DAY], // every tier
  ] as const;

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH + 4 * HOUR * 1000);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400', TELEMETRY_ROLLUP_RETENTION_DAYS: '1' }, backgroundWork: false });
    const reports = SAMPLES.map(({ seconds, cpu, memory }) =>
      report(SERIALS.acmeAp, at(seconds), { cpuPercent: cpu, ...(memory === null ? {} : { memoryUsedBytes: 10 * memory, memoryTotalBytes: 1000 }) }),
    );
    // in two requests, out of time order: a tier row grows across batches and late reports
    const key = await createScopedKey(app, 'ingest');
    expect((await postReports(app, key, reports.slice(10))).body).toMatchObject({ accepted: 11, rejected: [] });
    expect((await postReports(app, key, reports.slice(0, 10))).body).toMatchObject({ accepted: 10, rejected: [] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers a step of whole hours or days from the tiers exactly as the 5-minute rollups and raw samples do', async () => {
    // by hand: the first hour (k = 0 to 5) CPU 30, 40, 50, 60, 30, 40 -> 250/6; memory 20, 21, 23, 24 (k = 2, 5 left out) -> 22
    const [first] = await health(0, HOUR, HOUR);
    expect(first).toEqual({ timestamp: at(0), cpuPercent: 250 / 6, memoryPercent: 22, systemScore: 100 - 250 / 6, overallScore: 100 - 250 / 6, rfScore: null, performanceScore: null });
    // the day: CPU 30..60 five times and 30 once -> 930/21; memory 20 + k over the 14 k with k % 3 != 2 (summing to 133) -> (14 × 20 + 133) / 14 = 29.5
    expect(await health(DAY_START, DAY_START + DAY, DAY)).toMatchObject([{ timestamp: at(DAY_START), cpuPercent: 930 / 21, memoryPercent: 29.5 }]);
    for (const [start, end, step] of WINDOWS) expect(await health(start, end, step), `apHealthScores ${start} ${end} ${step}`).toEqual(expected(start, end, step));
    // the same rule at a step of 5 minutes, read from the 5-minute rollups
    expect(await health(0, 4 * HOUR, 300)).toEqual(expected(0, 4 * HOUR, 300));
  });

  it('keeps in each tier exactly the sums of the 5-minute rows of its buckets', async () => {
    const db = app.server.store.db;
    for (const [table, seconds] of [['resource_rollups_hourly', HOUR], ['resource_rollups_daily', DAY]] as const) {
      const tier = await sql<Record<string, unknown>>`SELECT hardware_device_id, bucket, cpu_percent_count, cpu_percent_sum, memory_percent_count, memory_percent_sum
        FROM ${sql.table(table)} ORDER BY bucket`.execute(db);
      const folded = await sql<Record<string, unknown>>`SELECT hardware_device_id, bucket - bucket % ${sql.lit(seconds)} AS bucket, sum(cpu_percent_count) AS a, sum(cpu_percent_sum) AS b,
        sum(memory_percent_count) AS c, sum(memory_percent_sum) AS d FROM resource_rollups GROUP BY hardware_device_id, bucket - bucket % ${sql.lit(seconds)} ORDER BY 2`.execute(db);
      const numbers = (rows: Record<string, unknown>[]) => rows.map((row) => Object.values(row).map(Number));
      expect(numbers(tier.rows)).toEqual(numbers(folded.rows));
      expect(tier.rows.length).toBe(seconds === HOUR ? 4 : 1);
    }
  });

  it('migration 0031 folds the 5-minute rows a database already holds into the tiers', async () => {
    const answers = () => Promise.all(WINDOWS.map(([start, end, step]) => health(start, end, step)));
    const before = await answers();
    // the layout before 0031: 5-minute rows, no tiers
    await sql`DROP TABLE resource_rollups_hourly`.execute(app.server.store.db);
    await sql`DROP TABLE resource_rollups_daily`.execute(app.server.store.db);
    // the migration's own step, run again as on an upgrade (the migrator refuses to rerun one that later migrations follow)
    await resourceTiers.up(app.server.store.db as Kysely<unknown>, app.server.store.dialect);
    expect([await count('resource_rollups_hourly'), await count('resource_rollups_daily')]).toEqual([4, 1]);
    expect(await answers()).toEqual(before);
  });

  it('answers CPU and memory of whole hours and days unchanged once the 5-minute rows and raw samples are past their retention', async () => {
    const hours = await health(0, 4 * HOUR, HOUR);
    const day = await health(DAY_START, DAY_START + DAY, DAY);
    expect(hours).toHaveLength(4);
    // TELEMETRY_ROLLUP_RETENTION_DAYS=1; raw samples are kept 48 hours
    clock.advance(3 * DAY * 1000);
    await app.server.services.reports.expire();
    expect([await count('resource_rollups'), await count('resource_samples'), await count('resource_rollups_hourly'), await count('resource_rollups_daily')]).toEqual([0, 0, 4, 1]);
    expect(await health(0, 4 * HOUR, HOUR)).toEqual(hours);
    expect(await health(DAY_START, DAY_START + DAY, DAY)).toEqual(day);
    // a step of 5 minutes finds nothing left
    expect(await health(0, 4 * HOUR, 300)).toEqual([]);
    // past their own retention (90 and 400 days), the tiers go too
    clock.advance(400 * DAY * 1000);
    await app.server.services.reports.expire();
    expect([await count('resource_rollups_hourly'), await count('resource_rollups_daily')]).toEqual([0, 0]);
  });
});
