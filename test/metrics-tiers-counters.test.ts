import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as counterTiers from '../src/db/migrations/0035-counter-tiers.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { CONTROLLER, IDS, SERIALS, createFixtureWithController } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { rowCount } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

// The tiered port and DNS counter rollups (migration 0035, docs/metrics.md "Tiers") over HTTP:
// switchPortMetricsRate, controllerPortMetricsRate and controllerDNSRequestRates with steps of whole hours and
// days, and switchPortStats and controllerPortStats over lookbacks, from the hourly and daily tiers (and the
// 5-minute rollups and raw readings at a window's edges), equal to what the 5-minute rows and raw readings
// answer: `expected*` below work that out from the readings sent, by the rules of the reads over the
// 5-minute rows (the last reading of each 5-minute bucket; growth between consecutive readings, a reading
// after a reboot counted whole). Counters are integers, so both sides divide the same integer sums.
// REPORT_EPOCH (2026-11-24T10:00:00Z) is a whole hour; its day began 10 hours earlier.
const HOUR = 3600;
const DAY = 86_400;
const DAY_START = -10 * HOUR;
/** The test's clock: 6 hours after REPORT_EPOCH. */
const NOW = 6 * HOUR;

/** A reading of a device: seconds after REPORT_EPOCH, uptime, and its counter (rx bytes of port 1; DNS requests). */
interface Reading {
  readonly seconds: number;
  readonly uptime: number;
  readonly counter: number;
}

/**
 * Readings from the day before REPORT_EPOCH's (-34 h) to 5 hours after it: every 20 minutes to -20 h, none for
 * six hours (a gap), then every 10 minutes, and a second reading 40 s after every third (two in one 5-minute
 * bucket: the later one is the bucket's). The counter grows by an amount that varies with k; it restarts
 * (a reboot: counter and uptime down) at `reboots` readings, and at `uptimeOnly` the uptime alone goes down
 * while the counter keeps growing (a reboot all the same).
 */
function readings(scale: number, reboots: readonly number[], uptimeOnly: number): Reading[] {
  const times: number[] = [];
  for (let s = -34 * HOUR; s < -20 * HOUR; s += 1200) times.push(s);
  for (let s = -14 * HOUR; s < 5 * HOUR; s += 600) times.push(s, ...(times.length % 3 === 0 ? [s + 40] : []));
  const out: Reading[] = [];
  let counter = 1000 * scale;
  let uptime = 50_000;
  times.forEach((seconds, k) => {
    const previous = out[out.length - 1];
    const elapsed = previous === undefined ? 0 : seconds - previous.seconds;
    if (reboots.includes(k)) {
      counter = 20 * scale * (1 + (k % 5));
      uptime = 30;
    } else {
      counter += 20 * scale * (3 + ((k * 7) % 11));
      uptime = k === uptimeOnly ? 60 : uptime + elapsed;
    }
    out.push({ seconds, uptime, counter });
  });
  return out;
}

/** The switch's readings: a reboot mid-hour (k = 63), one on a whole hour's first reading (k = 96), an uptime-only one. */
const SWITCH = readings(1, [63, 96], 130);
/** The controller's (its port 1 and its DNS counter): other reboots. */
const CONTROLLER_READINGS = readings(3, [20, 75], 110);

/** The six counters of port 1 from its rx bytes; port 2's grow by a fixed share. */
const port = (portNumber: number, rx: number) => ({
  portNumber, label: null, portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: false, isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: null,
  counters: portNumber === 1 ? { rxBytes: rx, txBytes: rx / 2, rxPackets: rx / 10, txPackets: rx / 20, rxErrors: Math.floor(rx / 1000), txErrors: 0 } : { rxBytes: rx * 3, txBytes: rx, rxPackets: rx / 5, txPackets: rx / 10, rxErrors: 0, txErrors: 1 },
});

/** What the reads do with a reading's growth: each field's counter from port 1's rx bytes (port 2: its own). */
const FIELDS = ['totalRxBytes', 'totalTxBytes', 'totalRxPackets', 'totalTxPackets', 'errorRxPackets', 'errorTxPackets'] as const;
const countersOf = (portNumber: number, rx: number): number[] => Object.values(port(portNumber, rx).counters);

/** The growth of each counter from reading `p` to `r` (port `portNumber`): a lower counter or uptime counts `r` whole. */
function growth(portNumber: number, p: Reading, r: Reading): number[] {
  const [before, now] = [countersOf(portNumber, p.counter), countersOf(portNumber, r.counter)];
  const rebooted = r.uptime < p.uptime || now.some((v, i) => v < (before[i] as number));
  return now.map((v, i) => (rebooted ? v : v - (before[i] as number)));
}

/** The last reading of each 5-minute bucket, as the 5-minute rollups keep them. */
function fiveMinute(all: readonly Reading[]): Reading[] {
  const last = new Map<number, Reading>();
  for (const r of all) last.set(Math.floor((REPORT_EPOCH / 1000 + r.seconds) / 300), r);
  return [...last.values()];
}

/**
 * The readings a series over [start, end) with a step of whole 5 minutes reads from the 5-minute rows and,
 * while they are kept, the raw readings: the last one before the window, raw readings in the partial
 * 5 minutes at its edges, the 5-minute rows of the whole buckets inside it.
 */
function seriesReadings(all: readonly Reading[], start: number, end: number, rawKept: boolean): Reading[] {
  const rows = fiveMinute(all);
  const [firstWhole, lastWhole] = [Math.ceil(start / 300) * 300, Math.floor(end / 300) * 300];
  const raw = rawKept ? all : [];
  const before = [...raw, ...rows].filter((r) => r.seconds < start).sort((a, b) => a.seconds - b.seconds).slice(-1);
  const inside = [
    ...raw.filter((r) => r.seconds >= start && r.seconds < firstWhole),
    ...rows.filter((r) => r.seconds >= firstWhole && r.seconds < lastWhole),
    ...raw.filter((r) => r.seconds >= lastWhole && r.seconds < end),
  ];
  return [...before, ...inside];
}

/** Per step bucket (seconds after REPORT_EPOCH), the summed growth (one per counter) and seconds of the pairs ending in it, from `start` on. */
function pairs(seq: readonly Reading[], portNumber: number, start: number, step: number): Map<number, { growth: number[]; seconds: number }> {
  const buckets = new Map<number, { growth: number[]; seconds: number }>();
  seq.forEach((r, i) => {
    const p = seq[i - 1];
    if (p === undefined || r.seconds < start) return;
    const epoch = REPORT_EPOCH / 1000 + r.seconds;
    const bucket = epoch - (epoch % step) - REPORT_EPOCH / 1000;
    const held = buckets.get(bucket) ?? { growth: [0, 0, 0, 0, 0, 0], seconds: 0 };
    const g = growth(portNumber, p, r);
    buckets.set(bucket, { growth: held.growth.map((v, j) => v + (g[j] as number)), seconds: held.seconds + r.seconds - p.seconds });
  });
  return buckets;
}

/** A port rate series as the 5-minute rows answer it: per bucket and port, each counter's growth over the seconds. */
function expectedRates(all: readonly Reading[], ports: readonly number[], start: number, end: number, step: number, rawKept = true) {
  const seq = seriesReadings(all, start, end, rawKept);
  const values = ports.flatMap((portNumber) =>
    [...pairs(seq, portNumber, start, step)].map(([bucket, { growth, seconds }]) => ({
      timestamp: at(bucket), portNumber, ...Object.fromEntries(FIELDS.map((f, j) => [f, (growth[j] as number) / seconds])),
    })),
  );
  return values.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.portNumber - b.portNumber);
}

/** controllerDNSRequestRates as the 5-minute rows answer it (the DNS counter is the readings' counter itself). */
function expectedDns(all: readonly Reading[], start: number, end: number, step: number, rawKept = true) {
  const seq = seriesReadings(all, start, end, rawKept);
  const requests = (p: Reading, r: Reading) => (r.uptime < p.uptime || r.counter < p.counter ? r.counter : r.counter - p.counter);
  const buckets = new Map<number, [number, number]>();
  seq.forEach((r, i) => {
    const p = seq[i - 1];
    if (p === undefined || r.seconds < start) return;
    const epoch = REPORT_EPOCH / 1000 + r.seconds;
    const bucket = epoch - (epoch % step) - REPORT_EPOCH / 1000;
    const held = buckets.get(bucket) ?? [0, 0];
    buckets.set(bucket, [held[0] + requests(p, r), held[1] + r.seconds - p.seconds]);
  });
  return [...buckets].map(([bucket, [n, seconds]]) => ({ timestamp: at(bucket), value: n / seconds }));
}

/** Port totals over the last `hours` before `now` as the 5-minute rows (rawKept false) or the raw readings answer them. */
function expectedTotals(all: readonly Reading[], ports: readonly number[], now: number, hours: number, rawKept: boolean) {
  const start = now - hours * HOUR;
  const source = rawKept ? all : fiveMinute(all);
  const seq = [...source.filter((r) => r.seconds < start).slice(-1), ...source.filter((r) => r.seconds >= start && r.seconds < now)];
  return ports.flatMap((portNumber) => {
    const sums = [...pairs(seq, portNumber, start, 1000 * DAY).values()].reduce((a, b) => a.map((v, j) => v + (b.growth[j] as number)), [0, 0, 0, 0, 0, 0]);
    return seq.some((r) => r.seconds >= start) ? [{ portNumber, ...Object.fromEntries(FIELDS.map((f, j) => [f, sums[j]])) }] : [];
  });
}

/** Windows (start, end, step in seconds) that read the tiers, and what each reads besides. */
const WINDOWS = [
  [-14 * HOUR, 5 * HOUR, HOUR], // whole hours: the hourly tier alone
  [-14 * HOUR + 25 * 60, 5 * HOUR - 40 * 60, HOUR], // 5-minute rollups at both edges
  [-14 * HOUR + 25 * 60 + 30, 4 * HOUR + 17 * 60 + 30, HOUR], // and raw readings at both edges
  [-24 * HOUR, -10 * HOUR, 2 * HOUR], // two-hour steps across the gap
  [DAY_START - DAY, DAY_START + DAY, DAY], // whole days: the daily tier alone
  [5 * HOUR - DAY, 5 * HOUR, DAY], // the hourly tier inside two days
  [DAY_START - DAY + 20 * 60 + 15, NOW - 45, DAY], // every tier
] as const;

/** The tiers of migration 0035. */
const TIER_TABLES = ['port_counter_rollups', 'dns_counter_rollups'].flatMap((table) => [`${table}_hourly`, `${table}_daily`]);

const VALUES = `values { timestamp portNumber ${FIELDS.join(' ')} }`;

describe.each(storeKinds())('tiered port and DNS counter rollups on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  const query = async (document: string, variables?: Record<string, unknown>) => (await app.graphql(document, { variables })).body;
  const filterOf = (start: number, end: number, step: number) => ({ durationSeconds: end - start, stepSeconds: step, endTime: at(end) });
  const rates = async (root: string, device: string, start: number, end: number, step: number) =>
    (await query(`query ($f: MetricsFilterInput!) { r: ${root}(virtualDeviceUUID: "${device}", filter: $f) { ${VALUES} } }`, { f: filterOf(start, end, step) })).data.r.values;
  const dns = async (start: number, end: number, step: number) =>
    (await query(`query ($f: MetricsFilterInput!) { r: controllerDNSRequestRates(virtualDeviceUUID: "${CONTROLLER.uuid}", filter: $f) { values { timestamp value } } }`, { f: filterOf(start, end, step) })).data.r.values;
  const totals = async (root: string, device: string, hours: number) =>
    (await query(`{ r: ${root}(virtualDeviceUUID: "${device}", lookbackHours: ${hours}) { portNumber ${FIELDS.join(' ')} } }`)).data.r;
  const answers = () =>
    Promise.all([
      ...WINDOWS.flatMap(([start, end, step]) => [rates('switchPortMetricsRate', IDS.acmeSwitch, start, end, step), rates('controllerPortMetricsRate', CONTROLLER.uuid, start, end, step), dns(start, end, step)]),
      ...[1, 5, 24, 40].flatMap((hours) => [totals('switchPortStats', IDS.acmeSwitch, hours), totals('controllerPortStats', CONTROLLER.uuid, hours)]),
    ]);
  const count = (table: string) => rowCount(app.server.store.db, table);

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH + NOW * 1000);
    app = await startTestApp(kind, { data: createFixtureWithController(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    const key = await createScopedKey(app, 'ingest');
    const sw = SWITCH.map((r) => report(SERIALS.acmeSwitch, at(r.seconds), { uptimeSeconds: r.uptime, interfaces: [port(1, r.counter), port(2, r.counter)] }));
    const ct = CONTROLLER_READINGS.map((r) => report(CONTROLLER.serial, at(r.seconds), { uptimeSeconds: r.uptime, dnsRequests: r.counter, interfaces: [port(1, r.counter)] }));
    // out of time order, across requests, and one request splitting an hour: each tier row is folded again from its bucket's rows
    for (const batch of [sw.slice(100), ct.slice(50, 123), sw.slice(0, 57), ct.slice(123), sw.slice(57, 100), ct.slice(0, 50)]) {
      expect((await postReports(app, key, batch)).body).toMatchObject({ accepted: batch.length, rejected: [] });
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers the port rate series from the tiers exactly as the 5-minute rows and raw readings do, across reboots and a gap', async () => {
    // by hand: the first reading of the switch's hour at -11 h follows a reboot (k = 96): it counts whole
    const reboot = SWITCH[96] as Reading;
    expect((REPORT_EPOCH / 1000 + reboot.seconds) % HOUR).toBe(0);
    expect(await rates('switchPortMetricsRate', IDS.acmeSwitch, -34 * HOUR, 5 * HOUR, HOUR)).toEqual(expectedRates(SWITCH, [1, 2], -34 * HOUR, 5 * HOUR, HOUR));
    for (const [start, end, step] of WINDOWS) {
      expect(await rates('switchPortMetricsRate', IDS.acmeSwitch, start, end, step), `switch ${start} ${end} ${step}`).toEqual(expectedRates(SWITCH, [1, 2], start, end, step));
      expect(await rates('controllerPortMetricsRate', CONTROLLER.uuid, start, end, step), `controller ${start} ${end} ${step}`).toEqual(
        expectedRates(CONTROLLER_READINGS, [1], start, end, step),
      );
    }
  });

  it('answers controllerDNSRequestRates from the tiers exactly as the 5-minute rows and raw readings do', async () => {
    for (const [start, end, step] of WINDOWS) expect(await dns(start, end, step), `dns ${start} ${end} ${step}`).toEqual(expectedDns(CONTROLLER_READINGS, start, end, step));
  });

  it('keeps one tier row per port (or controller) and bucket with readings', async () => {
    const hours = (all: readonly Reading[]) => new Set(all.map((r) => Math.floor((REPORT_EPOCH / 1000 + r.seconds) / HOUR))).size;
    const days = (all: readonly Reading[]) => new Set(all.map((r) => Math.floor((REPORT_EPOCH / 1000 + r.seconds) / DAY))).size;
    expect(await Promise.all(TIER_TABLES.map(count))).toEqual([
      2 * hours(SWITCH) + hours(CONTROLLER_READINGS),
      2 * days(SWITCH) + days(CONTROLLER_READINGS),
      hours(CONTROLLER_READINGS),
      days(CONTROLLER_READINGS),
    ]);
  });

  it('migration 0035 folds the 5-minute rows a database already holds into the tiers', async () => {
    const before = await answers();
    const rows = (table: string) => sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1, 2, 3`.execute(app.server.store.db).then((r) => r.rows);
    const stored = await Promise.all(TIER_TABLES.map(rows));
    // the layout before 0035: 5-minute rows, no tiers
    for (const table of TIER_TABLES) await sql`DROP TABLE ${sql.table(table)}`.execute(app.server.store.db);
    // the migration's own step, run again as on an upgrade (the migrator refuses to rerun one that later migrations follow)
    await counterTiers.up(app.server.store.db as Kysely<unknown>, app.server.store.dialect);
    expect(await Promise.all(TIER_TABLES.map(rows))).toEqual(stored);
    expect(await answers()).toEqual(before);
  });

  it('totals ports over a lookback from the raw readings, then from the tiers and 5-minute rows as the 5-minute rows alone do', async () => {
    for (const hours of [1, 5, 24, 40]) {
      expect(await totals('switchPortStats', IDS.acmeSwitch, hours), `switch ${hours} h`).toEqual(expectedTotals(SWITCH, [1, 2], NOW, hours, true));
      expect(await totals('controllerPortStats', CONTROLLER.uuid, hours), `controller ${hours} h`).toEqual(expectedTotals(CONTROLLER_READINGS, [1], NOW, hours, true));
    }
    // raw readings are kept 48 hours: three days on, the 5-minute rows and their tiers hold them
    clock.advance(3 * DAY * 1000);
    await app.server.services.reports.expire();
    expect(await count('port_counters')).toBe(0);
    const later = NOW + 3 * DAY;
    for (const hours of [80, 90, 100, 112, 120]) {
      expect(await totals('switchPortStats', IDS.acmeSwitch, hours), `switch ${hours} h`).toEqual(expectedTotals(SWITCH, [1, 2], later, hours, false));
      expect(await totals('controllerPortStats', CONTROLLER.uuid, hours), `controller ${hours} h`).toEqual(expectedTotals(CONTROLLER_READINGS, [1], later, hours, false));
    }
    // and the whole hours and days of the series, from the tiers and 5-minute rows alone
    for (const [start, end, step] of [WINDOWS[0], WINDOWS[1], WINDOWS[3], WINDOWS[4]] as const) {
      expect(await rates('switchPortMetricsRate', IDS.acmeSwitch, start, end, step)).toEqual(expectedRates(SWITCH, [1, 2], start, end, step, false));
      expect(await dns(start, end, step)).toEqual(expectedDns(CONTROLLER_READINGS, start, end, step, false));
    }
  });

  it('lets a step of whole hours or days reach back as far as its tier is kept', async () => {
    const problem = async (root: string, f: Record<string, unknown>) =>
      (await query(`query ($f: MetricsFilterInput!) { ${root}(virtualDeviceUUID: "${IDS.acmeSwitch}", filter: $f) { values { timestamp } } }`, { f })).errors?.[0]?.message;
    // the 5-minute rollups are kept 90 days, the hourly tier 90, the daily 400
    expect(await problem('switchPortMetricsRate', { durationSeconds: 400 * DAY, stepSeconds: DAY })).toBeUndefined();
    expect(await problem('switchPortMetricsRate', { durationSeconds: 401 * DAY, stepSeconds: DAY })).toMatch(/kept 400 days \(TELEMETRY_DAILY_RETENTION_DAYS\)/);
    expect(await problem('switchPortMetricsRate', { durationSeconds: 91 * DAY, stepSeconds: 12 * HOUR })).toMatch(/kept 90 days \(TELEMETRY_HOURLY_RETENTION_DAYS\)/);
  });
});
