import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// channelUtilizationByClient and apHealthScores (issue 32) over HTTP, from HQ's access point's radios, clients,
// CPU and memory posted through POST /api/v1/reports. The clock stands one hour after REPORT_EPOCH.
const NOW = REPORT_EPOCH + 3_600_000;
const C = 'aa:00:00:00:00:0c';
const D = 'aa:00:00:00:00:0d';
const MISSING = '99999999-9999-4999-8999-999999999999';
const GIB = 1024 ** 3;

/** A radio of `band` at `total` percent: receive half of it, transmit a quarter, its own BSSs half. */
const radio = (radioBand: string, total: number) => ({ radioBand, totalUtilization: total, rxUtilization: total / 2, txUtilization: total / 4, selfUtilization: total / 2 });
/** A wireless client on `band` (none: an older sender's client without one) with its SNR. */
const client = (macAddress: string, band: string | null, snr: number) => ({ macAddress, isWireless: true, snr, ...(band === null ? {} : { radioBand: band }) });

/**
 * HQ's access point, each report at seconds after REPORT_EPOCH: its radios, its clients (C moves from 5 GHz to
 * 2.4 GHz and back; at 600 s without a band), its CPU and memory.
 */
const AP_REPORTS: readonly [number, Record<string, unknown>][] = [
  [0, { radioChannels: [radio('BAND_2_4G', 40), radio('BAND_5G', 15)], clients: [client(C, 'BAND_5G', 40), client(D, 'BAND_2_4G', 20)], cpuPercent: 35.5, memoryUsedBytes: GIB / 4, memoryTotalBytes: GIB }],
  [60, { radioChannels: [radio('BAND_2_4G', 50)], clients: [client(C, 'BAND_2_4G', 30), client(D, 'BAND_2_4G', 10)], cpuPercent: 40 }],
  [120, { radioChannels: [radio('BAND_2_4G', 60)], clients: [client(C, 'BAND_2_4G', 25)], memoryUsedBytes: GIB / 2, memoryTotalBytes: GIB }],
  [300, { radioChannels: [radio('BAND_2_4G', 20), radio('BAND_5G', 16)], clients: [client(C, 'BAND_5G', 40)], cpuPercent: 11 }],
  [360, { radioChannels: [radio('BAND_2_4G', 30)], clients: [client(C, 'BAND_5G', 46)] }],
  [600, { radioChannels: [radio('BAND_2_4G', 80)], clients: [client(C, null, 13)] }],
  [900, { radioChannels: [radio('BAND_5G', 50)], clients: [client(D, 'BAND_5G', 4)] }],
  [1200, { clients: [], cpuPercent: 70, memoryUsedBytes: (GIB / 4) * 3, memoryTotalBytes: GIB }],
];

const CHANNEL_FIELDS = 'timestamp totalUtilization rxUtilization txUtilization selfUtilization obssUtilization nonWifiUtilization';
const HEALTH_FIELDS = 'timestamp overallScore performanceScore rfScore systemScore cpuPercent memoryPercent';

/** A bucket of channelUtilizationByClient at `total` percent (the others in the radios' proportions; OBSS and non-Wi-Fi never reported). */
const utilization = (seconds: number, total: number) => ({
  timestamp: at(seconds), totalUtilization: total, rxUtilization: total / 2, txUtilization: total / 4, selfUtilization: total / 2, obssUtilization: null, nonWifiUtilization: null,
});

/** A bucket of apHealthScores. */
const health = (seconds: number, scores: { overall: number; performance?: number; rf?: number; system?: number; cpu?: number; memory?: number }) => ({
  timestamp: at(seconds), overallScore: scores.overall, performanceScore: scores.performance ?? null, rfScore: scores.rf ?? null,
  systemScore: scores.system ?? null, cpuPercent: scores.cpu ?? null, memoryPercent: scores.memory ?? null,
});

/** Rounds every number of an answer to 9 places (averages such as 65 / 3 are floats). */
const rounded = (value: unknown): unknown =>
  typeof value === 'number' ? Math.round(value * 1e9) / 1e9
    : Array.isArray(value) ? value.map(rounded)
      : value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]))
        : value;

describe.each(storeKinds())('channelUtilizationByClient and apHealthScores on %s', (kind) => {
  let app: TestApp;
  const query = async (document: string, variables?: Record<string, unknown>, key?: string) => (await app.graphql(document, { variables, key })).body;
  const channel = async (mac: string, filter: Record<string, unknown>, network: string = IDS.acmeHq) =>
    rounded((await query(`query ($f: MetricsFilterInput!) { r: channelUtilizationByClient(networkUUID: "${network}", macAddress: "${mac}", filter: { timeFilter: $f }) { ${CHANNEL_FIELDS} } }`, { f: filter })).data.r);
  const scores = async (filter: Record<string, unknown>, serial: string = SERIALS.acmeAp) =>
    rounded((await query(`query ($f: MetricsFilterInput!) { r: apHealthScores(serialNumber: "${serial}", filter: $f) { ${HEALTH_FIELDS} } }`, { f: filter })).data.r);
  const hour = { durationSeconds: 3600, stepSeconds: 300, endTime: at(3600) };

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), clock: createTestClock(NOW).now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    const acme = AP_REPORTS.map(([seconds, extra]) => report(SERIALS.acmeAp, at(seconds), extra));
    expect((await postReports(app, await createScopedKey(app, 'ingest'), acme)).body).toEqual({ accepted: acme.length, duplicates: 0, rejected: [] });
    // another company's access point hears a client of the same MAC, busy and loaded
    const globex = [report(SERIALS.globexAp, at(0), { radioChannels: [radio('BAND_5G', 90)], clients: [client(C, 'BAND_5G', 35)], cpuPercent: 90 })];
    expect((await postReports(app, await createScopedKey(app, 'ingest', 'globex'), globex)).body).toMatchObject({ accepted: 1 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("gives per bucket the utilization of the radios the client was reported on, from rollups and raw samples", async () => {
    // 5-minute rollups: at 0 s C's rollup names its last band, 2.4 GHz: (40 + 50 + 60) / 3; at 300 s 5 GHz: 16;
    // at 600 s C named no band; at 900 s C was not there
    expect(await channel(C, hour)).toEqual([utilization(0, 50), utilization(300, 16)]);
    // raw samples, per minute: the 5 GHz sample at 0 s, 2.4 GHz at 60 and 120 s, 5 GHz at 300 s; at 360 s C is on
    // 5 GHz, which has no sample then
    expect(await channel(C, { ...hour, stepSeconds: 60 })).toEqual([utilization(0, 15), utilization(60, 50), utilization(120, 60), utilization(300, 16)]);
    // 10 minutes: C was on both radios; every sample of both in the bucket: (40 + 50 + 60 + 20 + 30 + 15 + 16) / 7
    expect(await channel(C, { ...hour, stepSeconds: 600 })).toEqual([utilization(0, 33)]);
    // from 30 s: the first 5 minutes raw (C on 2.4 GHz at 60 and 120 s: (50 + 60) / 2), then the rollups
    expect(await channel(C, { durationSeconds: 3570, stepSeconds: 300, endTime: at(3600) })).toEqual([utilization(0, 55), utilization(300, 16)]);
    expect(await channel(D, hour)).toEqual([utilization(0, 50), utilization(900, 50)]);
    // endTime defaults to the request's time; a window without samples
    expect(await channel(C, { durationSeconds: 3600, stepSeconds: 300 })).toEqual(await channel(C, hour));
    expect(await channel(C, { ...hour, endTime: at(-60) })).toEqual([]);
  });

  it('scores the access point per bucket from its radios, its clients, its CPU and its memory', async () => {
    expect(await scores(hour)).toEqual([
      // rf 100 - (40 + 50 + 60 + 15) / 4; SNR (40 + 30 + 25 + 20 + 10) / 5 = 25: (25 - 10) * 100 / 30;
      // CPU (35.5 + 40) / 2, memory (25 + 50) / 2: system 100 - 37.75; overall (58.75 + 50 + 62.25) / 3
      health(0, { overall: 57, performance: 50, rf: 58.75, system: 62.25, cpu: 37.75, memory: 37.5 }),
      // rf 100 - (20 + 30 + 16) / 3; SNR (40 + 46) / 2 = 43 scores 110, clamped to 100; system 100 - 11 (no memory)
      health(300, { overall: 89, performance: 100, rf: 78, system: 89, cpu: 11 }),
      // SNR 13: (13 - 10) * 100 / 30 = 10; no CPU or memory: the mean of two scores
      health(600, { overall: 15, performance: 10, rf: 20 }),
      // SNR 4 scores -20, clamped to 0
      health(900, { overall: 25, performance: 0, rf: 50 }),
      // only CPU 70 and memory 75: system 100 - 75
      health(1200, { overall: 25, system: 25, cpu: 70, memory: 75 }),
    ]);
    // raw samples per minute: at 0 s rf 100 - (40 + 15) / 2, SNR (40 + 20) / 2 = 30, system 100 - max(35.5, 25)
    const minutes = (await scores({ ...hour, stepSeconds: 60 })) as unknown[];
    expect(minutes[0]).toEqual(health(0, { overall: rounded((72.5 + 200 / 3 + 64.5) / 3) as number, performance: rounded(200 / 3) as number, rf: 72.5, system: 64.5, cpu: 35.5, memory: 25 }));
    expect(minutes).toHaveLength(AP_REPORTS.length);
    // from 30 s: the first 5 minutes raw (60 and 120 s): rf 100 - 55, SNR (30 + 10 + 25) / 3, CPU 40, memory 50
    const edge = (await scores({ durationSeconds: 3570, stepSeconds: 300, endTime: at(3600) })) as unknown[];
    const snr = 65 / 3;
    const performance = ((snr - 10) * 100) / 30;
    expect(edge[0]).toEqual(rounded(health(0, { overall: (45 + performance + 50) / 3, performance, rf: 45, system: 50, cpu: 40, memory: 50 })));
    expect(edge.slice(1)).toEqual((await scores(hour) as unknown[]).slice(1));
    // one hour's bucket pools every sample of it, scored once
    const whole = (await scores({ ...hour, stepSeconds: 3600 })) as unknown[];
    const wholeRf = 100 - (40 + 50 + 60 + 15 + 20 + 16 + 30 + 80 + 50) / 9;
    const wholePerformance = ((40 + 30 + 25 + 20 + 10 + 40 + 46 + 13 + 4) / 9 - 10) * 100 / 30;
    const wholeSystem = 100 - (25 + 50 + 75) / 3;
    expect(whole).toEqual(rounded([health(0, {
      overall: (wholeRf + wholePerformance + wholeSystem) / 3, performance: wholePerformance, rf: wholeRf, system: wholeSystem, cpu: (35.5 + 40 + 11 + 70) / 4, memory: 50,
    })]));
  });

  it("answers another company's network, MAC and serial number, and a device that is no access point, like missing ones", async () => {
    const filter = `{ durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" }`;
    const channelRoot = (network: string, mac: string) => `channelUtilizationByClient(networkUUID: "${network}", macAddress: "${mac}", filter: { timeFilter: ${filter} }) { totalUtilization }`;
    const healthRoot = (serial: string) => `apHealthScores(serialNumber: "${serial}", filter: ${filter}) { overallScore }`;
    const missingNetwork = await query(`{ r: ${channelRoot(MISSING, C)} }`);
    expect([missingNetwork.data, missingNetwork.errors[0].extensions.code]).toEqual([{ r: null }, 'UNAUTHORIZED']);
    expect(await query(`{ r: ${channelRoot(IDS.globexHq, C)} }`)).toEqual(missingNetwork);
    // a MAC only another company's network saw, and one never seen: no buckets
    expect((await query(`{ r: ${channelRoot(IDS.acmeHq, 'aa:00:00:00:00:ff')} }`)).data).toEqual({ r: [] });
    expect((await query(`{ r: ${channelRoot(IDS.acmeLab, C)} }`)).data).toEqual({ r: [] });
    const missingSerial = await query(`{ r: ${healthRoot('M1A3-NONE-0001')} }`);
    expect([missingSerial.data, missingSerial.errors[0].extensions.code]).toEqual([{ r: null }, 'UNAUTHORIZED']);
    const hardware = await query(`{ r: hardwareDevice(serialNumber: "M1A3-NONE-0001") { serialNumber } }`);
    expect(hardware.errors[0]).toEqual(JSON.parse(JSON.stringify(missingSerial.errors[0]).replace('apHealthScores(', 'hardwareDevice(')));
    for (const serial of [SERIALS.globexAp, SERIALS.acmeSwitch]) {
      expect(await query(`{ r: ${healthRoot(serial)} }`)).toEqual(JSON.parse(JSON.stringify(missingSerial).replaceAll('M1A3-NONE-0001', serial)));
    }
    // globex's own key reads its access point's scores: utilization 90, CPU 90, SNR 35
    const key = await app.createKey('globex');
    const own = await query(`{ r: ${healthRoot(SERIALS.globexAp).replace('{ overallScore }', `{ ${HEALTH_FIELDS} }`)} c: ${channelRoot(IDS.globexHq, C)} }`, undefined, key);
    expect(rounded(own.data)).toEqual(rounded({ r: [health(0, { overall: (10 + 250 / 3 + 10) / 3, performance: 250 / 3, rf: 10, system: 10, cpu: 90 })], c: [{ totalUtilization: 90 }] }));
  });

  it('refuses arguments outside the rules before the database, naming the argument', async () => {
    const refused = async (field: string) => {
      const body = await query(`{ r: ${field} }`);
      expect(body.data).toEqual({ r: null });
      return [body.errors[0].extensions.code, body.errors[0].extensions.argument];
    };
    expect(await refused(`channelUtilizationByClient(networkUUID: "${IDS.acmeHq}", macAddress: "${C}", filter: { timeFilter: { durationSeconds: 3600, stepSeconds: 30 } }) { timestamp }`)).toEqual([
      'BAD_USER_INPUT', 'filter.timeFilter.stepSeconds',
    ]);
    expect(await refused(`apHealthScores(serialNumber: "${SERIALS.acmeAp}", filter: { durationSeconds: 0, stepSeconds: 600 }) { timestamp }`)).toEqual(['BAD_USER_INPUT', 'filter.durationSeconds']);
    expect(await refused(`apHealthScores(serialNumber: "${SERIALS.acmeAp}", filter: { durationSeconds: 200000, stepSeconds: 240 }) { timestamp }`)).toEqual(['BAD_USER_INPUT', 'filter.durationSeconds']);
    expect(await refused(`apHealthScores(serialNumber: "not a serial!", filter: { durationSeconds: 600, stepSeconds: 60 }) { timestamp }`)).toEqual(['BAD_USER_INPUT', 'serialNumber']);
    const mac = await app.graphql(`{ channelUtilizationByClient(networkUUID: "${IDS.acmeHq}", macAddress: "AA-00", filter: { timeFilter: { durationSeconds: 60, stepSeconds: 60 } }) { timestamp } }`);
    expect(mac.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it("reads both roots in one statement, priced for the SDK's calls and charged for the buckets they hold", async () => {
    const key = await app.createKey('acme', 'statements');
    await app.graphql('{ __typename }', { key });
    await app.server.services.apiKeys.flushLastUsed();
    const before = app.server.store.stats.statements;
    const filter = `{ durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" }`;
    const response = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ c: channelUtilizationByClient(networkUUID: "${IDS.acmeHq}", macAddress: "${C}", filter: { timeFilter: ${filter} }) { timestamp totalUtilization rxUtilization txUtilization selfUtilization } ` +
          `h: apHealthScores(serialNumber: "${SERIALS.acmeAp}", filter: ${filter}) { ${HEALTH_FIELDS} } }`,
        extensions: { cost: true },
      }),
    });
    expect(app.server.store.stats.statements - before).toBe(1);
    expect([response.body.data.c.length, response.body.data.h.length]).toEqual([2, 5]);
    // requested: 12 steps + 1 = 13 buckets, two elements of ten, of 5 and of 7 fields; actual: 2 and 5 buckets, one element each
    expect(response.body.extensions.cost).toMatchObject({ requested: 2 + 2 * 5 + (2 + 2 * 7), actual: 2 + 1 * 5 + (2 + 1 * 7) });
  });
});
