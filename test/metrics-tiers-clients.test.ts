import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as clientMetricTiers from '../src/db/migrations/0036-client-metric-tiers.js';
import * as clientTierSplit from '../src/db/migrations/0044-client-tier-split.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { rowCount } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

// The tiered client metric rollups (migrations 0036 and 0044, docs/metrics.md "Tiers") over HTTP: apHealthScores and
// channelUtilizationByClient with steps of whole hours and days read the hourly and daily SNR and band tiers (and the
// finer ones and raw samples at a window's edges); their answers must equal those of the 5-minute rows, got by putting
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

/**
 * A later sample in report k's 5-minute bucket (every fifth k), posted last: C on another band, E wireless (wired for
 * every tenth k, after a wireless sample: its 5-minute row turns wired with an SNR), which the 5-minute rows take.
 */
function moveReport(k: number): Record<string, unknown> {
  const band = BANDS[k % 3] === 'BAND_5G' ? 'BAND_2_4G' : 'BAND_5G';
  const clients = [client(C, band, 7), client(E, 'BAND_5G', 33, k % 10 !== 5)];
  return report(SERIALS.acmeAp, at((SECONDS[k] as number) + 90), { clients, radioChannels: [{ radioBand: band, totalUtilization: 44 }] });
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

/** The tiers of migration 0044 with their bucket widths, and those the two roots read besides (migrations 0031 and 0032). */
const TIER_SECONDS = [['hourly', HOUR], ['daily', DAY]] as const;
const CLIENT_TIERS = TIER_SECONDS.flatMap(([suffix]) => [`client_snr_rollups_${suffix}`, `client_band_rollups_${suffix}`]);
const OTHER_TIERS = ['radio_rollups', 'resource_rollups'].flatMap((t) => [`${t}_hourly`, `${t}_daily`]);

const CHANNEL_FIELDS = 'timestamp totalUtilization rxUtilization txUtilization selfUtilization obssUtilization nonWifiUtilization';
const HEALTH_FIELDS = 'timestamp overallScore performanceScore rfScore systemScore cpuPercent memoryPercent';

/**
 * A client tier's rows as the 5-minute rows give them at `seconds` (null: at their own buckets, as the views of
 * fromFiveMinuteRows hold them): per device and bucket the SNR of the wireless clients (rows that add something), and
 * per network, client, bucket, device and band the number of a wireless client's 5-minute rows with that band.
 */
const BAND_KEY = ['network_id', 'mac_address', 'bucket', 'hardware_device_id', 'radio_band'];
function tierOfFiveMinuteRows(table: string, seconds: number | null): string {
  const bucket = seconds === null ? 'bucket' : `bucket - bucket % ${seconds}`;
  if (table.startsWith('client_snr_')) {
    const rows = `SELECT hardware_device_id, ${bucket} AS bucket, snr_count, snr_sum FROM client_metric_rollups WHERE is_wireless`;
    return `SELECT hardware_device_id, bucket, sum(snr_count) AS snr_count, sum(snr_sum) AS snr_sum FROM (${rows}) r GROUP BY hardware_device_id, bucket`;
  }
  const rows = `SELECT network_id, mac_address, ${bucket} AS bucket, hardware_device_id, radio_band FROM client_metric_rollups WHERE is_wireless AND radio_band > ''`;
  return `SELECT ${BAND_KEY.join(', ')}, count(*) AS row_count FROM (${rows}) r GROUP BY ${BAND_KEY.join(', ')}`;
}
/** The columns a client tier's rows are compared by. */
const tierColumns = (table: string) => (table.startsWith('client_snr_') ? ['hardware_device_id', 'bucket', 'snr_count', 'snr_sum'] : [...BAND_KEY, 'row_count']);

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
  /** A client tier's rows (or those `from` gives with its columns), in key order; an SNR row that adds nothing left out. */
  const tierRows = async (table: string, from = table) =>
    numbers((await sql<Record<string, unknown>>`SELECT ${sql.raw(tierColumns(table).join(', '))} FROM (${sql.raw(from === table ? `SELECT * FROM ${table}` : from)}) t
      WHERE ${sql.raw(table.startsWith('client_snr_') ? 'snr_count <> 0 OR snr_sum <> 0' : 'true')} ORDER BY ${sql.raw(tierColumns(table).map((_, i) => i + 1).join(', '))}`.execute(db())).rows);

  /** Runs `read` with views of the 5-minute rows in the tiers' place: what the roots answer from the 5-minute rows. */
  async function fromFiveMinuteRows<T>(read: () => Promise<T>): Promise<T> {
    const views: [string, string][] = [
      ...CLIENT_TIERS.map((t): [string, string] => [t, tierOfFiveMinuteRows(t, null)]),
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

  it('keeps in each tier exactly the 5-minute rows of its buckets, by device, or by network, client, device and band, moved rows included', async () => {
    for (const [suffix, seconds] of TIER_SECONDS) {
      for (const table of [`client_snr_rollups_${suffix}`, `client_band_rollups_${suffix}`]) {
        const fold = await tierRows(table, tierOfFiveMinuteRows(table, seconds));
        expect(fold.length, table).toBeGreaterThan(0);
        expect(await tierRows(table), table).toEqual(fold);
      }
    }
    // the moves left rows behind: C's 5-minute rows on the band of its later sample only, and E's turned wired with
    // the SNR of its earlier wireless sample (which the SNR tiers leave out); no empty band row
    const moved = await sql<{ n: number }>`SELECT count(*) AS n FROM client_metric_rollups WHERE mac_address = ${C} AND radio_band IS NOT NULL AND snr_count = 2`.execute(db());
    expect(Number(moved.rows[0]?.n)).toBeGreaterThan(0);
    const wired = await sql<{ n: number }>`SELECT count(*) AS n FROM client_metric_rollups WHERE mac_address = ${E} AND NOT is_wireless AND snr_count > 0`.execute(db());
    expect(Number(wired.rows[0]?.n)).toBeGreaterThan(0);
    const empty = await sql<{ n: number }>`SELECT count(*) AS n FROM client_band_rollups_hourly WHERE row_count <= 0`.execute(db());
    expect(Number(empty.rows[0]?.n)).toBe(0);
    // the daily tier has fewer rows than the hourly, which has fewer than the 5-minute rows; the old tiers stay empty
    const [daily, hourly, fiveMinute] = await Promise.all(['client_band_rollups_daily', 'client_band_rollups_hourly', 'client_metric_rollups'].map(count));
    expect([Number(daily) < Number(hourly), Number(hourly) < Number(fiveMinute)]).toEqual([true, true]);
    expect(await Promise.all(['client_metric_rollups_hourly', 'client_metric_rollups_daily'].map(count))).toEqual([0, 0]);
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

  it('migrations 0036 and 0044 fold the 5-minute rows a database already holds into the tiers', async () => {
    const before = await answers();
    const stored = await Promise.all(CLIENT_TIERS.map((t) => tierRows(t)));
    // the layout before 0036: 5-minute rows, no tiers
    for (const table of [...CLIENT_TIERS, 'client_metric_rollups_hourly', 'client_metric_rollups_daily']) await sql`DROP TABLE ${sql.table(table)}`.execute(db());
    if (kind === 'postgres') await sql`DROP FUNCTION client_metric_rollups_hourly_insert(), client_metric_rollups_daily_insert()`.execute(db());
    // the migrations' own steps, run again as on an upgrade (the migrator refuses to rerun one that later migrations follow)
    await clientMetricTiers.up(db() as Kysely<unknown>, app.server.store.dialect);
    expect(await count('client_metric_rollups_hourly')).toBeGreaterThan(0);
    await clientTierSplit.up(db() as Kysely<unknown>, app.server.store.dialect);
    expect(await Promise.all(CLIENT_TIERS.map((t) => tierRows(t)))).toEqual(stored);
    expect(await Promise.all(['client_metric_rollups_hourly', 'client_metric_rollups_daily'].map(count))).toEqual([0, 0]);
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

  it("takes the previous version's upserts into the old tiers during an upgrade (migration 0044's triggers)", async () => {
    // that version's statement (report.repository.ts, upsertSumTier) for a 5-minute row joining, then leaving, an hour
    const bucket = 1_700_006_400;
    const sums = ['signal', 'snr', 'rx_rate', 'tx_rate'].flatMap((m) => [`${m}_count`, `${m}_sum`]);
    const columns = ['hardware_device_id', 'bucket', 'mac_address', 'network_id', 'is_wireless', 'radio_band', 'row_count', ...sums];
    const ids = await sql<{ device: number; network: number }>`SELECT h.id AS device, v.network_id AS network FROM hardware_devices h
      JOIN virtual_devices v ON v.id = h.virtual_device_id WHERE h.serial_number = ${SERIALS.acmeAp}`.execute(db());
    const { device, network } = ids.rows[0] as { device: number; network: number };
    const upsert = async (rowCount: number, snrCount: number, snrSum: number) =>
      sql`INSERT INTO client_metric_rollups_hourly (${sql.raw(columns.join(', '))}) VALUES (${sql.join([device, bucket, C, network, kind === 'sqlite' ? 1 : true, 'BAND_5G', rowCount, 1, -50, snrCount, snrSum, 1, 100, 1, 50])})
        ON CONFLICT (hardware_device_id, bucket, mac_address, network_id, is_wireless, radio_band) DO UPDATE SET
        ${sql.raw(['row_count', ...sums].map((c) => `${c} = client_metric_rollups_hourly.${c} + excluded.${c}`).join(', '))}`.execute(db());
    const band = () => sql<{ row_count: number }>`SELECT row_count FROM client_band_rollups_hourly WHERE mac_address = ${C} AND bucket = ${bucket}`.execute(db());
    const snr = async () => numbers((await sql<Record<string, unknown>>`SELECT snr_count, snr_sum FROM client_snr_rollups_hourly WHERE bucket = ${bucket}`.execute(db())).rows);
    await upsert(1, 1, 20);
    await upsert(0, 1, 30);
    expect((await band()).rows.map((r) => Number(r.row_count))).toEqual([1]);
    expect(await snr()).toEqual([[2, 50]]);
    await upsert(-1, -2, -50);
    expect((await band()).rows).toEqual([]);
    expect(await snr()).toEqual([[0, 0]]);
    expect(await count('client_metric_rollups_hourly')).toBe(0);
  });
});
