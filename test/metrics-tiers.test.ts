import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as rollupTiers from '../src/db/migrations/0030-rollup-tiers.js';
import * as presenceSets from '../src/db/migrations/0043-client-presence-sets.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { rowCount } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

// The tiered uplink rollups (docs/metrics.md, "Tiers") over HTTP: reports over 3 hours 10 minutes, read with steps of
// whole hours and days from the hourly and daily tiers, with the edges of a window from the 5-minute rollups and the
// raw samples. REPORT_EPOCH (2026-11-24T10:00:00Z) is a whole hour; its day began 10 hours earlier.
const HOUR = 3600;
const DAY = 86_400;
const DAY_START = -10 * HOUR;
const uplinkPort = { portNumber: 1, label: 'WAN 1', portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: true, isUplinkActive: true, isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: 1 };

/** Sample k is at k × 10 minutes, plus one at 3:16 (k = 20); loss: the hour's number, plus 2 on odd k; rx 1000 k, tx 10 k bits per second. */
const SAMPLES = Array.from({ length: 21 }, (_, k) => {
  const seconds = k === 20 ? 3 * HOUR + 960 : k * 600;
  return { seconds, lossPercent: Math.floor(seconds / HOUR) + (k % 2) * 2, rx: 1000 * k, tx: 10 * k };
});

/** The wireless clients the report at `seconds` lists: one of four that take turns, and one that changes every 70 minutes. */
const clientsOf = (seconds: number): string[] => {
  const k = SAMPLES.findIndex((s) => s.seconds === seconds);
  return [`3c:22:fb:00:00:0${k % 4}`, `3c:22:fb:00:01:0${Math.floor(k / 7)}`];
};

/** activeClients as the 5-minute rollups and raw samples answer it: per step bucket with a report in [start, end), the distinct clients listed. */
function expectedClients(startSeconds: number, endSeconds: number, step: number): { wired: unknown[]; wireless: unknown[] } {
  const sets = new Map<number, Set<string>>();
  for (const s of SAMPLES) {
    if (s.seconds < startSeconds || s.seconds >= endSeconds) continue;
    const epoch = REPORT_EPOCH / 1000 + s.seconds;
    const bucket = epoch - (epoch % step) - REPORT_EPOCH / 1000;
    sets.set(bucket, new Set([...(sets.get(bucket) ?? []), ...clientsOf(s.seconds)]));
  }
  const buckets = [...sets].sort(([a], [b]) => a - b);
  return {
    wired: buckets.map(([bucket]) => ({ timestamp: at(bucket), value: 0 })),
    wireless: buckets.map(([bucket, macs]) => ({ timestamp: at(bucket), value: macs.size })),
  };
}

/**
 * The answer the 5-minute rollups and raw samples give (docs/metrics.md): per step bucket
 * (multiples of the step since the epoch) of the samples inside [start, end), the average
 * of each metric, every sample weighted alike.
 */
function expected(startSeconds: number, endSeconds: number, step: number, metric: (s: (typeof SAMPLES)[number]) => number): { bucket: number; value: number }[] {
  const sums = new Map<number, { sum: number; count: number }>();
  for (const s of SAMPLES) {
    if (s.seconds < startSeconds || s.seconds >= endSeconds) continue;
    const epoch = REPORT_EPOCH / 1000 + s.seconds;
    const bucket = epoch - (epoch % step) - REPORT_EPOCH / 1000;
    const held = sums.get(bucket) ?? { sum: 0, count: 0 };
    sums.set(bucket, { sum: held.sum + metric(s), count: held.count + 1 });
  }
  return [...sums].sort(([a], [b]) => a - b).map(([bucket, { sum, count }]) => ({ bucket, value: sum / count }));
}

describe.each(storeKinds())('tiered uplink rollups on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  const query = async (document: string, variables?: Record<string, unknown>) => (await app.graphql(document, { variables })).body;
  const filterOf = (start: number, end: number, step: number) => ({ durationSeconds: end - start, stepSeconds: step, endTime: at(end) });
  const quality = async (start: number, end: number, step: number) =>
    ((await query(`query ($f: MetricsFilterInput!) { networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: $f) { values { timestamp value } } }`, { f: filterOf(start, end, step) }))
      .data.networkUplinkQuality.values as unknown[]);
  const throughput = async (start: number, end: number, step: number) =>
    ((await query(`query ($f: MetricsFilterInput!) { networkUplinkThroughput(networkUUID: "${IDS.acmeHq}", filter: $f) { values { timestamp value direction } } }`, { f: filterOf(start, end, step) }))
      .data.networkUplinkThroughput.values as unknown[]);
  const active = async (start: number, end: number, step: number) =>
    (await query(`query ($f: MetricsFilterInput!) { activeClients(networkUUID: "${IDS.acmeHq}", filter: $f) { wired { timestamp value } wireless { timestamp value } } }`, { f: filterOf(start, end, step) }))
      .data.activeClients;
  const expectedQuality = (start: number, end: number, step: number) =>
    expected(start, end, step, (s) => s.lossPercent).map(({ bucket, value }) => ({ timestamp: at(bucket), value: 1 - value / 100 }));
  const expectedThroughput = (start: number, end: number, step: number) => {
    const rx = expected(start, end, step, (s) => s.rx);
    const tx = expected(start, end, step, (s) => s.tx);
    return rx.flatMap(({ bucket, value }, i) => [
      { timestamp: at(bucket), value, direction: 'RX' },
      { timestamp: at(bucket), value: tx[i]?.value, direction: 'TX' },
    ]);
  };
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

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH + 4 * HOUR * 1000);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400', TELEMETRY_ROLLUP_RETENTION_DAYS: '1' }, backgroundWork: false });
    const reports = SAMPLES.map(({ seconds, lossPercent, rx, tx }) =>
      report(SERIALS.acmeAp, at(seconds), {
        interfaces: [uplinkPort],
        uplinkSamples: [{ portNumber: 1, observedAt: at(seconds), latencyMs: 10, jitterMs: 1, lossPercent, rxBitsPerSecond: rx, txBitsPerSecond: tx }],
        clients: clientsOf(seconds).map((mac) => ({ macAddress: mac, ip: null, hostname: null, isWireless: true, signal: -60, vlanID: null, ssid: null, portNumber: null })),
      }),
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
    // by hand: hourly losses 0, 2, 0, 2, 0, 2 -> 1 %; then 2 %, 3 %; and 3, 5, 3 (3:00, 3:10, 3:16) -> 11/3 %
    expect(await quality(0, 4 * HOUR, HOUR)).toEqual([
      { timestamp: at(0), value: 0.99 },
      { timestamp: at(HOUR), value: 0.98 },
      { timestamp: at(2 * HOUR), value: 0.97 },
      { timestamp: at(3 * HOUR), value: 1 - 11 / 3 / 100 },
    ]);
    // one day: 21 samples, rx 1000 × (0 + ... + 20) / 21 = 10,000
    expect((await throughput(DAY_START, DAY_START + DAY, DAY)).filter((v) => (v as { direction: string }).direction === 'RX')).toEqual([
      { timestamp: at(DAY_START), value: 10_000, direction: 'RX' },
    ]);
    for (const [start, end, step] of WINDOWS) {
      expect(await quality(start, end, step), `quality ${start} ${end} ${step}`).toEqual(expectedQuality(start, end, step));
      expect(await throughput(start, end, step), `throughput ${start} ${end} ${step}`).toEqual(expectedThroughput(start, end, step));
    }
  });

  it('counts distinct clients per bucket of whole hours or days from the presence tiers exactly as from the 5-minute rows', async () => {
    // by hand: the first hour (k = 0 to 5) lists 4 turning clients and 3:22:fb:00:01:00 -> 5; the day all 4 and 01:00 to 01:02 -> 7
    expect((await active(0, HOUR, HOUR)).wireless).toEqual([{ timestamp: at(0), value: 5 }]);
    expect((await active(DAY_START, DAY_START + DAY, DAY)).wireless).toEqual([{ timestamp: at(DAY_START), value: 7 }]);
    for (const [start, end, step] of WINDOWS) expect(await active(start, end, step), `activeClients ${start} ${end} ${step}`).toEqual(expectedClients(start, end, step));
  });

  it('keeps in each tier exactly the sums of the 5-minute rows of its buckets', async () => {
    const db = app.server.store.db;
    for (const [table, seconds] of [['uplink_rollups_hourly', HOUR], ['uplink_rollups_daily', DAY]] as const) {
      const tier = await sql<Record<string, unknown>>`SELECT network_id, bucket, loss_percent_count AS n, loss_percent_sum AS s, rx_bps_min AS lo, rx_bps_max AS hi
        FROM ${sql.table(table)} ORDER BY bucket`.execute(db);
      const folded = await sql<Record<string, unknown>>`SELECT network_id, bucket - bucket % ${sql.lit(seconds)} AS bucket, sum(loss_percent_count) AS n, sum(loss_percent_sum) AS s,
        min(rx_bps_min) AS lo, max(rx_bps_max) AS hi FROM uplink_rollups GROUP BY network_id, bucket - bucket % ${sql.lit(seconds)} ORDER BY 2`.execute(db);
      const numbers = (rows: Record<string, unknown>[]) => rows.map((row) => Object.values(row).map(Number));
      expect(numbers(tier.rows)).toEqual(numbers(folded.rows));
      expect(tier.rows.length).toBe(seconds === HOUR ? 4 : 1);
    }
  });

  it('migration 0030 folds the 5-minute rows a database already holds into the tiers', async () => {
    const answers = () => Promise.all(WINDOWS.flatMap(([start, end, step]) => [throughput(start, end, step), active(start, end, step)]));
    const before = await answers();
    // the layout before 0030: 5-minute rows, no tiers
    for (const tier of ['uplink_rollups', 'client_presence_rollups', 'report_rollups']) {
      await sql`DROP TABLE ${sql.table(`${tier}_hourly`)}`.execute(app.server.store.db);
      await sql`DROP TABLE ${sql.table(`${tier}_daily`)}`.execute(app.server.store.db);
    }
    // the migration's own step, run again as on an upgrade (the migrator refuses to rerun one that later migrations follow)
    await rollupTiers.up(app.server.store.db as Kysely<unknown>, app.server.store.dialect);
    expect(await answers()).toEqual(before);
  });

  it('migration 0043 turns the presence rows of the earlier layout into one row per bucket, and takes an earlier version\'s inserts', async () => {
    const db = app.server.store.db as Kysely<unknown>;
    const postgres = app.server.store.dialect.name === 'postgres';
    const answers = () => Promise.all(WINDOWS.map(([start, end, step]) => active(start, end, step)));
    const before = await answers();
    // the layout before 0043: one row per network, bucket, client and kind, in each tier
    await sql.raw(postgres ? 'DROP FUNCTION client_presence_rollups_insert() CASCADE' : 'DROP TRIGGER client_presence_rollups_insert').execute(db);
    const tiers = [['client_presence_rollups', 'client_presence_set_rollups'], ['client_presence_rollups_hourly', 'client_presence_set_rollups_hourly'], ['client_presence_rollups_daily', 'client_presence_set_rollups_daily']] as const;
    let oldRows = 0;
    for (const [old, table] of tiers) {
      for (const [column, wireless] of [['wireless_macs', true], ['wired_macs', false]] as const) {
        await sql.raw(`INSERT INTO ${old} (network_id, bucket, mac_address, is_wireless) SELECT DISTINCT s.network_id, s.bucket, m.value, ${postgres ? String(wireless) : Number(wireless)} ` +
          `FROM ${table} s, ${app.server.store.dialect.jsonTextRows(`s.${column}`, 'm')}`).execute(db);
      }
      oldRows += await rowCount(db, old);
      await sql`DROP TABLE ${sql.table(table)}`.execute(db);
    }
    expect(oldRows).toBeGreaterThan(20);
    await presenceSets.up(db, app.server.store.dialect);
    expect(await answers()).toEqual(before);
    const count = (table: string) => rowCount(db, table);
    expect(await Promise.all(tiers.map(([old]) => count(old)))).toEqual([0, 0, 0]);
    // one row per network and bucket: the hourly tier of 3 hours 16 minutes has 4
    expect(await count('client_presence_set_rollups_hourly')).toBe(4);
    // an earlier version's server inserts a client of a new hour; it lands in every tier, and nothing in its own table
    const bucket = REPORT_EPOCH / 1000 + 5 * HOUR;
    const network = (await sql<{ id: number }>`SELECT network_id AS id FROM client_presence_set_rollups_daily`.execute(db)).rows[0]?.id;
    // the statement of the earlier version's ingest
    const returned = await sql`INSERT INTO client_presence_rollups (network_id, bucket, mac_address, is_wireless) VALUES (${network}, ${bucket}, '3c:22:fb:00:09:09', ${postgres ? false : 0})
      ON CONFLICT DO NOTHING RETURNING network_id, bucket, mac_address, is_wireless`.execute(db);
    expect(returned.rows).toEqual([]);
    expect(await count('client_presence_rollups')).toBe(0);
    const sets = await sql<{ wired_macs: string; hardware_device_id: number }>`SELECT wired_macs, hardware_device_id FROM client_presence_set_rollups WHERE bucket = ${bucket}`.execute(db);
    expect(sets.rows.map((row) => [row.wired_macs, Number(row.hardware_device_id)])).toEqual([['["3c:22:fb:00:09:09"]', 0]]);
    expect(await count('client_presence_set_rollups_hourly')).toBe(5);
    const daily = await sql<{ wired_macs: string }>`SELECT wired_macs FROM client_presence_set_rollups_daily WHERE bucket = ${bucket - (bucket % DAY)}`.execute(db);
    expect(daily.rows.map((row) => JSON.parse(row.wired_macs) as string[]).flat()).toContain('3c:22:fb:00:09:09');
    await sql`DELETE FROM client_presence_set_rollups WHERE bucket = ${bucket}`.execute(db);
    await sql`DELETE FROM client_presence_set_rollups_hourly WHERE bucket = ${bucket - (bucket % HOUR)}`.execute(db);
    await sql.raw(`UPDATE client_presence_set_rollups_daily SET wired_macs = '[]'`).execute(db);
    expect(await answers()).toEqual(before);
  });

  it('answers whole hours and days unchanged once the 5-minute rows and raw samples are past their retention', async () => {
    const hours = await quality(0, 4 * HOUR, HOUR);
    const day = await throughput(DAY_START, DAY_START + DAY, DAY);
    const clients = [await active(0, 4 * HOUR, HOUR), await active(DAY_START, DAY_START + DAY, DAY)];
    // TELEMETRY_ROLLUP_RETENTION_DAYS=1; raw samples are kept 48 hours
    clock.advance(3 * DAY * 1000);
    await app.server.services.reports.expire();
    const count = (table: string) => rowCount(app.server.store.db, table);
    expect([await count('uplink_rollups'), await count('uplink_samples'), await count('uplink_rollups_hourly'), await count('uplink_rollups_daily')]).toEqual([0, 0, 4, 1]);
    expect(await quality(0, 4 * HOUR, HOUR)).toEqual(hours);
    expect(await throughput(DAY_START, DAY_START + DAY, DAY)).toEqual(day);
    expect([await active(0, 4 * HOUR, HOUR), await active(DAY_START, DAY_START + DAY, DAY)]).toEqual(clients);
    expect(clients[0].wireless).toHaveLength(4);
    expect([await count('client_presence_set_rollups'), await count('report_rollups'), await count('report_rollups_hourly')]).toEqual([0, 0, 4]);
    // a step of 5 minutes finds nothing left
    expect(await quality(0, 4 * HOUR, 300)).toEqual([]);
  });

  it('lets a step of whole hours or days reach back as far as its tier is kept', async () => {
    const problem = async (filter: Record<string, unknown>) =>
      (await query(`query ($f: MetricsFilterInput!) { networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: $f) { values { value } } }`, { f: filter })).errors?.[0]?.message;
    // TELEMETRY_ROLLUP_RETENTION_DAYS=1 here; the hourly tier 90 days, the daily 400
    expect(await problem({ durationSeconds: 2 * DAY, stepSeconds: 300 })).toMatch(/must be at most 86400: the 5-minute rollups are kept 1 days/);
    expect(await problem({ durationSeconds: 90 * DAY, stepSeconds: HOUR * 3 })).toBeUndefined();
    expect(await problem({ durationSeconds: 91 * DAY, stepSeconds: HOUR * 3 })).toMatch(/must be at most 7776000: a step that is a multiple of 3600 s reads the hourly rollups, kept 90 days \(TELEMETRY_HOURLY_RETENTION_DAYS\)/);
    expect(await problem({ durationSeconds: 400 * DAY, stepSeconds: DAY })).toBeUndefined();
    expect(await problem({ durationSeconds: 401 * DAY, stepSeconds: DAY })).toMatch(/kept 400 days \(TELEMETRY_DAILY_RETENTION_DAYS\)/);
  });
});
