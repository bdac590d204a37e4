import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as clientMetricTiers from '../src/db/migrations/0036-client-metric-tiers.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { rowCount } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

// The tiered client metric rollups (migration 0036, docs/metrics.md "Tiers") over HTTP: apHealthScores and
// channelUtilizationByClient with steps of whole hours and days read the hourly and daily tiers (and the finer
// ones and raw samples at a window's edges); their answers must equal those of the 5-minute rows, got by putting
// views of the 5-minute rows in the tiers' place. Wireless and wired clients over 44 hours, posted out of time
// order, some 5-minute rows moved by a later batch's sample (another band, or wired instead of wireless), a client
// without a band and one in another network. Values are integers, so every sum is exact in floating point.
// REPORT_EPOCH (2026-11-24T10:00:00Z) is a whole hour; its day began 10 hours earlier.
const HOUR = 3600;
const DAY = 86_400;
const DAY_START = -10 * HOUR;
const C = 'aa:00:00:00:00:0c';
const D = 'aa:00:00:00:00:0d';
const E = 'aa:00:00:00:00:0e';
const WIRED = 'aa:00:00:00:00:0f';
const BANDS = ['BAND_5G', 'BAND_2_4G', null] as const;

/** Report k is at k × 20 minutes from 14 hours before REPORT_EPOCH (a whole 5-minute bucket's start). */
const SECONDS = Array.from({ length: 133 }, (_, k) => -14 * HOUR + k * 1200);

/** A wireless client on `band` (null: none named) with its SNR and signal; `wireless` false: a wired one (its radio fields dropped). */
const client = (macAddress: string, band: string | null, snr: number, wireless = true) => ({
  macAddress, isWireless: wireless, snr, signal: -40 - snr, rxRateMbps: 100 + snr, txRateMbps: 50, rxBytes: 1000 * snr, txBytes: 10 * snr, ...(band === null ? {} : { radioBand: band }),
});

/** HQ's access point's report k: both radios, C on a band that turns, D every other report, E wired every fourth, a wired client, CPU. */
function apReport(k: number): Record<string, unknown> {
  const clients = [
    client(C, BANDS[k % 3] ?? null, 10 + (k % 30)),
    ...(k % 2 === 0 ? [client(D, 'BAND_5G', 20 + (k % 7))] : []),
    client(E, 'BAND_2_4G', 15 + (k % 5), k % 4 !== 0),
    client(WIRED, null, 30, false),
  ];
  const radio = (radioBand: string, total: number) => ({ radioBand, totalUtilization: total, rxUtilization: total - 2, txUtilization: 1 });
  return report(SERIALS.acmeAp, at(SECONDS[k] as number), { radioChannels: [radio('BAND_2_4G', 10 + (k % 50)), radio('BAND_5G', 60 - (k % 40))], clients, cpuPercent: 20 + (k % 9) });
}

/** A later sample in report k's 5-minute bucket (every fifth k), posted last: C on another band, E wireless, which the 5-minute rows take. */
function moveReport(k: number): Record<string, unknown> {
  const band = BANDS[k % 3] === 'BAND_5G' ? 'BAND_2_4G' : 'BAND_5G';
  return report(SERIALS.acmeAp, at((SECONDS[k] as number) + 90), { clients: [client(C, band, 7), client(E, 'BAND_5G', 33)], radioChannels: [{ radioBand: band, totalUtilization: 44 }] });
}

/** Windows (start, end, step in seconds) that read the tiers, and what each reads besides. */
const WINDOWS = [
  [0, 6 * HOUR, HOUR], // whole hours: the hourly tier alone
  [-3 * HOUR + 25 * 60, 3 * HOUR + 20 * 60, HOUR], // 5-minute rollups at both edges
  [-3 * HOUR + 25 * 60 + 30, 3 * HOUR + 17 * 60 + 30, HOUR], // and raw samples at both edges
  [-12 * HOUR, 12 * HOUR, 2 * HOUR], // two-hour steps
  [DAY_START, DAY_START + DAY, DAY], // a whole day: the daily tier alone
  [DAY_START - DAY, DAY_START + 2 * DAY, DAY], // whole days around the samples
  [4 * HOUR - DAY, 4 * HOUR, DAY], // the hourly tier and the daily tier inside two days
  [-13 * HOUR + 20 * 60 + 15, DAY_START + DAY + 5 * HOUR - 45, DAY], // every tier and raw edges
] as const;

/** The tiers of migration 0036, and those the two roots read besides (migrations 0031 and 0032). */
const CLIENT_TIERS = ['client_metric_rollups_hourly', 'client_metric_rollups_daily'];
const OTHER_TIERS = ['radio_rollups', 'resource_rollups'].flatMap((t) => [`${t}_hourly`, `${t}_daily`]);

const CHANNEL_FIELDS = 'timestamp totalUtilization rxUtilization txUtilization selfUtilization obssUtilization nonWifiUtilization';
const HEALTH_FIELDS = 'timestamp overallScore performanceScore rfScore systemScore cpuPercent memoryPercent';

/** The columns of a client metric tier, and the GROUP BY of the 5-minute rows that gives it at `seconds`. */
const SUMS = ['signal', 'snr', 'rx_rate', 'tx_rate'].flatMap((m) => [`${m}_count`, `${m}_sum`]);
const tierKey = (seconds: number) => ['hardware_device_id', `bucket - bucket % ${seconds}`, 'mac_address', 'network_id', 'is_wireless', "coalesce(radio_band, '')"];

describe.each(storeKinds())('tiered client metric rollups on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  const db = () => app.server.store.db;
  const query = async (document: string, variables?: Record<string, unknown>) => (await app.graphql(document, { variables })).body;
  const filterOf = (start: number, end: number, step: number) => ({ durationSeconds: end - start, stepSeconds: step, endTime: at(end) });
  const channel = async (mac: string, network: string, start: number, end: number, step: number) => {
    const body = await query(`query ($f: MetricsFilterInput!) { r: channelUtilizationByClient(networkUUID: "${network}", macAddress: "${mac}", filter: { timeFilter: $f }) { ${CHANNEL_FIELDS} } }`, {
      f: filterOf(start, end, step),
    });
    expect(body.errors).toBeUndefined();
    return body.data.r;
  };
  const scores = async (serial: string, start: number, end: number, step: number) => {
    const body = await query(`query ($f: MetricsFilterInput!) { r: apHealthScores(serialNumber: "${serial}", filter: $f) { ${HEALTH_FIELDS} } }`, { f: filterOf(start, end, step) });
    expect(body.errors).toBeUndefined();
    return body.data.r;
  };
  /** Every root's answer over every window: the access points' scores, and the radios of each client in each network. */
  const answers = async () => {
    const all: unknown[] = [];
    for (const [start, end, step] of WINDOWS) {
      all.push(await scores(SERIALS.acmeAp, start, end, step), await scores(SERIALS.acmeLabAp, start, end, step));
      for (const mac of [C, D, E, WIRED]) all.push(await channel(mac, IDS.acmeHq, start, end, step));
      all.push(await channel(C, IDS.acmeLab, start, end, step));
    }
    return all;
  };
  const count = (table: string) => rowCount(db(), table);
  const numbers = (rows: Record<string, unknown>[]) =>
    rows.map((row) => Object.values(row).map((v) => (typeof v === 'boolean' ? Number(v) : Number.isNaN(Number(v)) ? v : Number(v))));
  const tierRows = async (table: string) =>
    numbers((await sql<Record<string, unknown>>`SELECT ${sql.raw(['hardware_device_id', 'bucket', 'mac_address', 'network_id', 'is_wireless', 'radio_band', 'row_count', ...SUMS].join(', '))}
      FROM ${sql.table(table)} ORDER BY 1, 2, 3, 4, 5, 6`.execute(db())).rows);

  /** Runs `read` with views of the 5-minute rows in the tiers' place: what the roots answer from the 5-minute rows. */
  async function fromFiveMinuteRows<T>(read: () => Promise<T>): Promise<T> {
    const views: [string, string][] = [
      ...CLIENT_TIERS.map((t): [string, string] => [t, `SELECT hardware_device_id, bucket, mac_address, network_id, is_wireless, coalesce(radio_band, '') AS radio_band, ${SUMS.join(', ')} FROM client_metric_rollups`]),
      ...OTHER_TIERS.map((t): [string, string] => [t, `SELECT * FROM ${t.replace(/_(hourly|daily)$/, '')}`]),
    ];
    for (const [table, select] of views) {
      await sql`ALTER TABLE ${sql.table(table)} RENAME TO ${sql.table(`${table}_kept`)}`.execute(db());
      await sql`CREATE VIEW ${sql.table(table)} AS ${sql.raw(select)}`.execute(db());
    }
    try {
      return await read();
    } finally {
      for (const [table] of views) {
        await sql`DROP VIEW ${sql.table(table)}`.execute(db());
        await sql`ALTER TABLE ${sql.table(`${table}_kept`)} RENAME TO ${sql.table(table)}`.execute(db());
      }
    }
  }

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH + 31 * HOUR * 1000);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400', TELEMETRY_ROLLUP_RETENTION_DAYS: '3' }, backgroundWork: false });
    const key = await createScopedKey(app, 'ingest');
    const post = async (reports: Record<string, unknown>[]) => expect((await postReports(app, key, reports)).body).toMatchObject({ accepted: reports.length, rejected: [] });
    // odd reports, then even ones (a tier row grows across batches and late reports), then the moves, each alone or in pairs
    const ks = SECONDS.map((_, k) => k);
    await post(ks.filter((k) => k % 2 === 1).map(apReport));
    await post(ks.filter((k) => k % 2 === 0).map(apReport));
    const moves = ks.filter((k) => k % 5 === 0).map(moveReport);
    for (let i = 0; i < moves.length; i += 2) await post(moves.slice(i, i + 2));
    // the lab's access point, in another network, hears C now and then
    await post(ks.filter((k) => k % 7 === 3).map((k) => report(SERIALS.acmeLabAp, at((SECONDS[k] as number) + 30), {
      radioChannels: [{ radioBand: 'BAND_5G', totalUtilization: 70 }], clients: [client(C, 'BAND_5G', 25)], cpuPercent: 50,
    })));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('keeps in each tier exactly the 5-minute rows of its buckets, by network, kind and band, moved rows included', async () => {
    for (const [table, seconds] of [['client_metric_rollups_hourly', HOUR], ['client_metric_rollups_daily', DAY]] as const) {
      const fold = await sql<Record<string, unknown>>`SELECT ${sql.raw(tierKey(seconds).join(', '))}, count(*) AS row_count, ${sql.raw(SUMS.map((s) => `sum(${s}) AS ${s}`).join(', '))}
        FROM client_metric_rollups GROUP BY ${sql.raw(tierKey(seconds).join(', '))} ORDER BY 1, 2, 3, 4, 5, 6`.execute(db());
      expect(await tierRows(table), table).toEqual(numbers(fold.rows));
    }
    // the moves left rows behind: C's 5-minute rows on the band of its later sample only; no empty tier row
    const moved = await sql<{ n: number }>`SELECT count(*) AS n FROM client_metric_rollups WHERE mac_address = ${C} AND radio_band IS NOT NULL AND snr_count = 2`.execute(db());
    expect(Number(moved.rows[0]?.n)).toBeGreaterThan(0);
    const empty = await sql<{ n: number }>`SELECT count(*) AS n FROM client_metric_rollups_hourly WHERE row_count <= 0`.execute(db());
    expect(Number(empty.rows[0]?.n)).toBe(0);
    // the daily tier has fewer rows than the hourly, which has fewer than the 5-minute rows
    const [daily, hourly, fiveMinute] = await Promise.all(['client_metric_rollups_daily', 'client_metric_rollups_hourly', 'client_metric_rollups'].map(count));
    expect([Number(daily) < Number(hourly), Number(hourly) < Number(fiveMinute)]).toEqual([true, true]);
  });

  it('answers apHealthScores and channelUtilizationByClient from the tiers exactly as from the 5-minute rows', async () => {
    // by hand: the daily bucket of HQ's access point holds 72 reports' SNRs of wireless clients only
    const day = await scores(SERIALS.acmeAp, DAY_START, DAY_START + DAY, DAY);
    expect(day).toHaveLength(1);
    const tiered = await answers();
    expect(tiered.filter((a) => Array.isArray(a) && a.length > 0).length).toBeGreaterThan(30);
    const fiveMinute = await fromFiveMinuteRows(answers);
    for (const [i, answer] of tiered.entries()) expect(answer, `answer ${i}`).toEqual(fiveMinute[i]);
  });

  it('migration 0036 folds the 5-minute rows a database already holds into the tiers', async () => {
    const before = await answers();
    const stored = await Promise.all(CLIENT_TIERS.map(tierRows));
    // the layout before 0036: 5-minute rows, no tiers
    for (const table of CLIENT_TIERS) await sql`DROP TABLE ${sql.table(table)}`.execute(db());
    // the migration's own step, run again as on an upgrade (the migrator refuses to rerun one that later migrations follow)
    await clientMetricTiers.up(db() as Kysely<unknown>, app.server.store.dialect);
    expect(await Promise.all(CLIENT_TIERS.map(tierRows))).toEqual(stored);
    expect(await answers()).toEqual(before);
  });

  it('answers whole hours and days unchanged once the 5-minute rows and raw samples are past their retention', async () => {
    const read = async () => [
      await scores(SERIALS.acmeAp, 0, 6 * HOUR, HOUR),
      await scores(SERIALS.acmeAp, DAY_START - DAY, DAY_START + 2 * DAY, DAY),
      await channel(C, IDS.acmeHq, -12 * HOUR, 12 * HOUR, 2 * HOUR),
      await channel(E, IDS.acmeHq, DAY_START - DAY, DAY_START + 2 * DAY, DAY),
    ];
    const before = await read();
    expect(before.every((a) => a.length > 0)).toBe(true);
    // TELEMETRY_ROLLUP_RETENTION_DAYS=3; raw samples are kept 48 hours
    clock.advance(5 * DAY * 1000);
    await app.server.services.reports.expire();
    expect(await Promise.all(['client_metric_rollups', 'client_observations', 'radio_rollups', 'resource_rollups'].map(count))).toEqual([0, 0, 0, 0]);
    expect(await read()).toEqual(before);
  });
});
