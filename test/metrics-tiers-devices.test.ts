import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as deviceSeriesTiers from '../src/db/migrations/0032-device-series-tiers.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { rowCount } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

// The tiered radio, PDU outlet and temperature rollups (migration 0032, docs/metrics.md "Tiers") over HTTP:
// channelUtilizationByNetwork, channelUtilizationByAP, pduMetrics and pdusMetrics with steps of whole hours and
// days, from the hourly and daily tiers (and the 5-minute rollups and raw samples at a window's edges), equal to
// what the 5-minute rollups and raw samples answer: per step bucket, every sample in it weighted alike (the
// energy used: summed). Values are integers or multiples of 1/4, so every sum is exact in floating point and
// both sides divide the same sum by the same count. REPORT_EPOCH (2026-11-24T10:00:00Z) is a whole hour; its day
// began 10 hours earlier.
const HOUR = 3600;
const DAY = 86_400;
const DAY_START = -10 * HOUR;
const PDU = '22222222-2222-4222-8222-2222222222d1';
const PDU_SERIAL = 'M1A3-PD00-0001';

/** The fixture with a PDU in acme's HQ. */
function fixture() {
  const data = createFixture();
  (data.companies[0]?.networks?.[0]?.virtualDevices as unknown[]).push({
    UUID: PDU, label: 'Rack PDU', deviceType: 'POWER_DISTRIBUTION_UNIT', deviceModel: 'PDU-8', isOnline: true,
    hardwareDevice: { serialNumber: PDU_SERIAL, deviceType: 'POWER_DISTRIBUTION_UNIT', deviceModel: 'PDU-8', isConnectedToBackend: true },
  });
  return data;
}

/**
 * Sample k is at k × 10 minutes, plus one at 3:16 (k = 20). The access point's 2.4 GHz radio: total 10 + 2k,
 * rx k, tx k on even k only; its 5 GHz radio on even k only: total 50 - k. Self and OBSS split the total:
 * OBSS its remainder by 3. The PDU: temperature 20 + k % 5;
 * outlet 1 draws 100 + 10 k W, its energy counter 1 + k/4 kWh but reset at k = 12 (to 1/4, then on by 1/4
 * again); outlet 2 draws 50 W at 230 V, no voltage on odd k, a counter that stays at 5.
 */
const SAMPLES = Array.from({ length: 21 }, (_, k) => ({
  k,
  seconds: k === 20 ? 3 * HOUR + 960 : k * 600,
  band24: { total: 10 + 2 * k, rx: k, tx: k % 2 === 0 ? k : null },
  band5: k % 2 === 0 ? { total: 50 - k, rx: 1, tx: 2 } : null,
  celsius: 20 + (k % 5),
  counter: k < 12 ? 1 + k / 4 : (k - 11) / 4,
}));
type Sample = (typeof SAMPLES)[number];

/** The energy outlet 1 used by sample k: its counter's growth since the previous reading, a lower reading counted whole; none known for the first. */
const energyOf = (s: Sample): number | null => {
  const previous = SAMPLES[s.k - 1];
  if (previous === undefined) return null;
  return s.counter >= previous.counter ? s.counter - previous.counter : s.counter;
};

/** Per step bucket (a multiple of the step since the epoch) of the samples in [start, end) with a value: [bucket, sum, count], in time order. */
function folded(start: number, end: number, step: number, value: (s: Sample) => number | null | undefined): [number, number, number][] {
  const sums = new Map<number, [number, number, number]>();
  for (const s of SAMPLES) {
    const v = value(s);
    if (s.seconds < start || s.seconds >= end || v == null) continue;
    const epoch = REPORT_EPOCH / 1000 + s.seconds;
    const bucket = epoch - (epoch % step) - REPORT_EPOCH / 1000;
    const held = sums.get(bucket) ?? [bucket, 0, 0];
    sums.set(bucket, [bucket, held[1] + v, held[2] + 1]);
  }
  return [...sums.values()].sort(([a], [b]) => a - b);
}

/** Averages per bucket, as { timestamp, value }. */
const averages = (start: number, end: number, step: number, value: (s: Sample) => number | null | undefined) =>
  folded(start, end, step, value).map(([bucket, sum, count]) => ({ timestamp: at(bucket), value: sum / count }));

/** A radio's series as the 5-minute rows answer it: buckets with a total utilization, each field's average (null without samples). */
function expectedRadio(start: number, end: number, step: number, band: 'band24' | 'band5') {
  const field = (pick: (r: NonNullable<Sample['band24']>) => number | null) => {
    const found = new Map(averages(start, end, step, (s) => (s[band] === null ? null : pick(s[band]))).map((v) => [v.timestamp, v.value]));
    return (timestamp: string) => found.get(timestamp) ?? null;
  };
  const [rx, tx, self, obss] = [field((r) => r.rx), field((r) => r.tx), field((r) => r.total - (r.total % 3)), field((r) => r.total % 3)];
  return averages(start, end, step, (s) => s[band]?.total).map(({ timestamp, value }) => ({
    timestamp, totalUtilization: value, rxUtilization: rx(timestamp), txUtilization: tx(timestamp), selfUtilization: self(timestamp), obssUtilization: obss(timestamp), nonWifiUtilization: null,
  }));
}

/** The PDU's series as the 5-minute rows answer them. */
function expectedPdu(start: number, end: number, step: number) {
  const outlets = (one: (s: Sample) => number | null, two: (s: Sample) => number | null, sum = false) => {
    const values = (outletNumber: number, value: (s: Sample) => number | null) =>
      folded(start, end, step, value).map(([bucket, total, count]) => ({ timestamp: at(bucket), value: sum ? total : total / count, outletNumber }));
    return [...values(1, one), ...values(2, two)].sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.outletNumber - b.outletNumber);
  };
  return {
    temperatureCelsius: { values: averages(start, end, step, (s) => s.celsius) },
    powerWatts: { values: outlets((s) => 100 + 10 * s.k, () => 50) },
    voltageVolts: { values: outlets(() => 230, (s) => (s.k % 2 === 0 ? 230 : null)) },
    energyKWh: { values: outlets(energyOf, (s) => (s.k === 0 ? null : 0), true) },
  };
}

function apReport(s: Sample): Record<string, unknown> {
  const radio = (radioBand: string, { total, rx, tx }: { total: number; rx: number; tx: number | null }) => ({
    radioBand, channel: radioBand === 'BAND_5G' ? 36 : 6, channelWidthMHz: 20, txPowerDbm: 15, noiseFloorDbm: -92,
    totalUtilization: total, rxUtilization: rx, txUtilization: tx, selfUtilization: total - (total % 3), obssUtilization: total % 3, nonWifiUtilization: null,
  });
  return report(SERIALS.acmeAp, at(s.seconds), { radioChannels: [radio('BAND_2_4G', s.band24), ...(s.band5 === null ? [] : [radio('BAND_5G', s.band5)])] });
}

function pduReport(s: Sample): Record<string, unknown> {
  return report(PDU_SERIAL, at(s.seconds), {
    temperatureCelsius: s.celsius,
    outlets: [
      { outletNumber: 1, label: 'Core', isOn: true, currentAmps: 1, powerWatts: 100 + 10 * s.k, voltageVolts: 230, energyKWh: s.counter },
      { outletNumber: 2, label: 'Spare', isOn: true, currentAmps: 1, powerWatts: 50, voltageVolts: s.k % 2 === 0 ? 230 : null, energyKWh: 5 },
    ],
  });
}

/** Windows (start, end, step in seconds) that read the tiers, and what each reads besides. */
const WINDOWS = [
  [0, 4 * HOUR, HOUR], // whole hours: the hourly tier alone
  [25 * 60, 3 * HOUR + 20 * 60, HOUR], // 5-minute rollups at both edges
  [25 * 60 + 30, 3 * HOUR + 17 * 60 + 30, HOUR], // and raw samples at both edges
  [-2 * HOUR, 4 * HOUR, 2 * HOUR], // two-hour steps
  [DAY_START - DAY, DAY_START + DAY, DAY], // whole days: the daily tier alone
  [4 * HOUR - DAY, 4 * HOUR, DAY], // the hourly tier and a raw edge inside one day
  [20 * 60 + 15, DAY_START + DAY - 45, DAY], // every tier
] as const;

/** The tiers of migration 0032. */
const TIER_TABLES = ['radio_rollups', 'pdu_outlet_rollups', 'device_temperature_rollups'].flatMap((table) => [`${table}_hourly`, `${table}_daily`]);

const RADIO_FIELDS = 'band virtualDeviceUUID values { timestamp totalUtilization rxUtilization txUtilization selfUtilization obssUtilization nonWifiUtilization }';
const PDU_VALUES = 'values { timestamp value outletNumber }';
const PDU_FIELDS = `temperatureCelsius { values { timestamp value } } powerWatts { ${PDU_VALUES} } voltageVolts { ${PDU_VALUES} } energyKWh { ${PDU_VALUES} }`;

describe.each(storeKinds())('tiered radio, outlet and temperature rollups on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  const query = async (document: string, variables?: Record<string, unknown>) => (await app.graphql(document, { variables })).body;
  const filterOf = (start: number, end: number, step: number) => ({ durationSeconds: end - start, stepSeconds: step, endTime: at(end) });
  const byNetwork = async (start: number, end: number, step: number) =>
    (await query(`query ($f: MetricsFilterInput!) { r: channelUtilizationByNetwork(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: $f }) { ${RADIO_FIELDS} } }`, { f: filterOf(start, end, step) }))
      .data.r;
  const byAp = async (start: number, end: number, step: number) =>
    (await query(`query ($f: MetricsFilterInput!) { r: channelUtilizationByAP(networkUUID: "${IDS.acmeHq}", apVirtualDeviceUUID: "${IDS.acmeAp}", filter: { timeFilter: $f }) { ${RADIO_FIELDS} } }`, { f: filterOf(start, end, step) }))
      .data.r;
  const pdu = async (start: number, end: number, step: number) =>
    (await query(`query ($f: MetricsFilterInput!) { r: pduMetrics(virtualDeviceUUID: "${PDU}", filter: $f) { ${PDU_FIELDS} } }`, { f: filterOf(start, end, step) })).data.r;
  const pdus = async (start: number, end: number, step: number) =>
    (await query(`query ($f: MetricsFilterInput!) { r: pdusMetrics(virtualDeviceUUIDs: ["${PDU}"], filter: $f) { ${PDU_FIELDS} } }`, { f: filterOf(start, end, step) })).data.r;
  const expectedRadios = (start: number, end: number, step: number) => [
    { band: 'BAND_2_4G', virtualDeviceUUID: IDS.acmeAp, values: expectedRadio(start, end, step, 'band24') },
    { band: 'BAND_5G', virtualDeviceUUID: IDS.acmeAp, values: expectedRadio(start, end, step, 'band5') },
  ];
  const answers = () => Promise.all(WINDOWS.flatMap(([start, end, step]) => [byNetwork(start, end, step), pdu(start, end, step)]));
  const count = (table: string) => rowCount(app.server.store.db, table);

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH + 4 * HOUR * 1000);
    app = await startTestApp(kind, { data: fixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400', TELEMETRY_ROLLUP_RETENTION_DAYS: '1' }, backgroundWork: false });
    const key = await createScopedKey(app, 'ingest');
    // the access point's in two requests, out of time order: a tier row grows across batches and late reports;
    // the PDU's in order (an outlet's energy used is its counter's growth since the reading before)
    const ap = SAMPLES.map(apReport);
    expect((await postReports(app, key, ap.slice(10))).body).toMatchObject({ accepted: 11, rejected: [] });
    expect((await postReports(app, key, ap.slice(0, 10))).body).toMatchObject({ accepted: 10, rejected: [] });
    const pdus = SAMPLES.map(pduReport);
    expect((await postReports(app, key, pdus.slice(0, 10))).body).toMatchObject({ accepted: 10, rejected: [] });
    expect((await postReports(app, key, pdus.slice(10))).body).toMatchObject({ accepted: 11, rejected: [] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers the channel utilization roots from the tiers exactly as the 5-minute rollups and raw samples do', async () => {
    // by hand: the first hour's 2.4 GHz totals 10, 12, ..., 20 -> 15, tx 0, 2, 4 -> 2; 5 GHz 50, 48, 46 -> 48
    const hour = await byNetwork(0, HOUR, HOUR);
    expect(hour.map((r: { values: Record<string, unknown>[] }) => r.values.map((v) => [v.totalUtilization, v.txUtilization]))).toEqual([[[15, 2]], [[48, 2]]]);
    // one day: 2.4 GHz totals 10, 12, ..., 50 -> 30, rx 0 to 20 -> 10
    expect((await byAp(DAY_START, DAY_START + DAY, DAY))[0].values[0]).toMatchObject({ timestamp: at(DAY_START), totalUtilization: 30, rxUtilization: 10 });
    for (const [start, end, step] of WINDOWS) {
      expect(await byNetwork(start, end, step), `byNetwork ${start} ${end} ${step}`).toEqual(expectedRadios(start, end, step));
      expect(await byAp(start, end, step), `byAP ${start} ${end} ${step}`).toEqual(expectedRadios(start, end, step));
    }
  });

  it('answers pduMetrics and pdusMetrics from the tiers exactly as the 5-minute rollups and raw samples do', async () => {
    // by hand: the first hour's temperatures 20, 21, 22, 23, 24, 20 -> 130 / 6; outlet 1 used 5 × 1/4 kWh in it
    // (the first reading has none before it); the third hour's reset at k = 12 counts its 1/4 whole; the fourth has k = 18 to 20
    const hours = await pdu(0, 4 * HOUR, HOUR);
    expect(hours.temperatureCelsius.values[0]).toEqual({ timestamp: at(0), value: 130 / 6 });
    expect(hours.energyKWh.values.filter((v: { outletNumber: number }) => v.outletNumber === 1).map((v: { value: number }) => v.value)).toEqual([1.25, 1.5, 1.5, 0.75]);
    for (const [start, end, step] of WINDOWS) {
      expect(await pdu(start, end, step), `pduMetrics ${start} ${end} ${step}`).toEqual(expectedPdu(start, end, step));
      expect(await pdus(start, end, step), `pdusMetrics ${start} ${end} ${step}`).toEqual([expectedPdu(start, end, step)]);
    }
  });

  it('keeps in each tier exactly the counts and sums of the 5-minute rows of its buckets', async () => {
    const db = app.server.store.db;
    const numbers = (rows: Record<string, unknown>[]) => rows.map((row) => Object.values(row).map((v) => (Number.isNaN(Number(v)) ? v : Number(v))));
    const TIERED = [
      ['radio_rollups', 'radio_band', ['total_utilization', 'tx_utilization'], 8],
      ['pdu_outlet_rollups', 'outlet_number', ['power_watts', 'energy_used_kwh'], 8],
      ['device_temperature_rollups', 'hardware_device_id', ['temperature_celsius'], 4],
    ] as const;
    for (const [suffix, seconds] of [['hourly', HOUR], ['daily', DAY]] as const) {
      for (const [table, key, metrics, hours] of TIERED) {
        const columns = metrics.flatMap((m) => [`${m}_count`, `${m}_sum`]);
        const b = `bucket - bucket % ${seconds}`;
        const tier = await sql<Record<string, unknown>>`SELECT ${sql.raw([key, 'bucket', ...columns].join(', '))} FROM ${sql.table(`${table}_${suffix}`)} ORDER BY 1, 2`.execute(db);
        const fold = await sql<Record<string, unknown>>`SELECT ${sql.raw([key, `${b} AS bucket`, ...columns.map((c) => `sum(${c}) AS ${c}`)].join(', '))}
          FROM ${sql.table(table)} GROUP BY ${sql.raw(`${key}, ${b}`)} ORDER BY 1, 2`.execute(db);
        expect(numbers(tier.rows), `${table}_${suffix}`).toEqual(numbers(fold.rows));
        expect(tier.rows).toHaveLength(seconds === HOUR ? hours : hours / 4);
      }
    }
  });

  it('migration 0032 folds the 5-minute rows a database already holds into the tiers', async () => {
    const before = await answers();
    const rows = (table: string) => sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1, 2, 3`.execute(app.server.store.db).then((r) => r.rows);
    const stored = await Promise.all(TIER_TABLES.map(rows));
    // the layout before 0032: 5-minute rows, no tiers
    for (const table of TIER_TABLES) await sql`DROP TABLE ${sql.table(table)}`.execute(app.server.store.db);
    // the migration's own step, run again as on an upgrade (the migrator refuses to rerun one that later migrations follow)
    await deviceSeriesTiers.up(app.server.store.db as Kysely<unknown>, app.server.store.dialect);
    expect(await Promise.all(TIER_TABLES.map(count))).toEqual([8, 2, 8, 2, 4, 1]);
    expect(await Promise.all(TIER_TABLES.map(rows))).toEqual(stored);
    expect(await answers()).toEqual(before);
  });

  it('answers whole hours and days unchanged once the 5-minute rows and raw samples are past their retention', async () => {
    const hours = [await byNetwork(0, 4 * HOUR, HOUR), await pdu(0, 4 * HOUR, HOUR)];
    const days = [await byAp(DAY_START, DAY_START + DAY, DAY), await pdus(DAY_START, DAY_START + DAY, DAY)];
    // TELEMETRY_ROLLUP_RETENTION_DAYS=1; raw samples are kept 48 hours
    clock.advance(3 * DAY * 1000);
    await app.server.services.reports.expire();
    const gone = ['radio_rollups', 'radio_samples', 'pdu_outlet_rollups', 'pdu_outlet_samples', 'device_temperature_rollups', 'device_temperature_samples'];
    expect(await Promise.all(gone.map(count))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(await Promise.all(TIER_TABLES.map(count))).toEqual([8, 2, 8, 2, 4, 1]);
    expect([await byNetwork(0, 4 * HOUR, HOUR), await pdu(0, 4 * HOUR, HOUR)]).toEqual(hours);
    expect([await byAp(DAY_START, DAY_START + DAY, DAY), await pdus(DAY_START, DAY_START + DAY, DAY)]).toEqual(days);
    expect(hours[0][0].values).toHaveLength(4);
    // a step of 5 minutes finds nothing left
    expect(await byNetwork(0, 4 * HOUR, 300)).toEqual([]);
    expect((await pdu(0, 4 * HOUR, 300)).powerWatts.values).toEqual([]);
  });

  it('lets a step of whole hours or days reach back as far as its tier is kept', async () => {
    const problems = async (f: Record<string, unknown>) => [
      (await query(`query ($f: MetricsFilterInput!) { channelUtilizationByNetwork(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: $f }) { band } }`, { f })).errors?.[0]?.message,
      (await query(`query ($f: MetricsFilterInput!) { pduMetrics(virtualDeviceUUID: "${PDU}", filter: $f) { temperatureCelsius { values { value } } } }`, { f })).errors?.[0]?.message,
    ];
    // TELEMETRY_ROLLUP_RETENTION_DAYS=1 here; the hourly tier 90 days, the daily 400
    for (const message of await problems({ durationSeconds: 2 * DAY, stepSeconds: 300 })) expect(message).toMatch(/must be at most 86400: the 5-minute rollups are kept 1 days/);
    expect(await problems({ durationSeconds: 90 * DAY, stepSeconds: HOUR * 3 })).toEqual([undefined, undefined]);
    for (const message of await problems({ durationSeconds: 91 * DAY, stepSeconds: HOUR * 3 })) expect(message).toMatch(/kept 90 days \(TELEMETRY_HOURLY_RETENTION_DAYS\)/);
    expect(await problems({ durationSeconds: 400 * DAY, stepSeconds: DAY })).toEqual([undefined, undefined]);
    for (const message of await problems({ durationSeconds: 401 * DAY, stepSeconds: DAY })) expect(message).toMatch(/kept 400 days \(TELEMETRY_DAILY_RETENTION_DAYS\)/);
  });
});
