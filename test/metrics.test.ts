import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// The Meter API's series, port totals and event log over HTTP, from reports posted through POST /api/v1/reports.
// REPORT_EPOCH (2026-11-24T10:00:00Z) is a multiple of 300 s and of 3600 s; the clock stands one hour later.
const NOW = REPORT_EPOCH + 3_600_000;
const HOUR = { durationSeconds: 3600, stepSeconds: 300, endTime: at(3600) };

const uplinkPort = { portNumber: 1, label: 'WAN 1', portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: true, isUplinkActive: true, isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: 1 };
const sample = (seconds: number, lossPercent: number, rx: number, tx: number) => ({
  portNumber: 1, observedAt: at(seconds), latencyMs: 10, jitterMs: 1, lossPercent, rxBitsPerSecond: rx, txBitsPerSecond: tx,
});
const wireless = (mac: string) => ({ macAddress: mac, ip: null, hostname: null, isWireless: true, signal: -60, vlanID: null, ssid: null, portNumber: null });
const wired = (mac: string) => ({ macAddress: mac, ip: null, hostname: null, isWireless: false, signal: null, vlanID: null, ssid: null, portNumber: 3 });
const A = '3c:22:fb:00:00:0a';
const switchPort = (portNumber: number, rx: number, tx: number, rxErrors: number) => ({
  portNumber, label: null, portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: false, isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: null,
  counters: { rxBytes: rx, txBytes: tx, rxPackets: rx / 10, txPackets: tx / 10, rxErrors, txErrors: 0 },
});

/** The reports of the tests: the HQ access point's uplink samples and clients, the HQ switch's clients and counters (with two reboots), the lab's access point. */
function reports(): Record<string, unknown>[] {
  const ap = (seconds: number, extra: Record<string, unknown>) => report(SERIALS.acmeAp, at(seconds), extra);
  const sw = (seconds: number, uptimeSeconds: number, ports: unknown[], extra: Record<string, unknown> = {}) =>
    report(SERIALS.acmeSwitch, at(seconds), { uptimeSeconds, interfaces: ports, ...extra });
  return [
    ap(0, {
      interfaces: [uplinkPort], uplinkSamples: [sample(0, 0, 1000, 100)], clients: [wireless(A), wireless('3c:22:fb:00:00:0b')],
      events: [{ type: 'DEVICE_BOOT', observedAt: at(0), details: { rebootReason: 'power' } }, { type: 'TEST_EVENT', observedAt: at(5), details: null }],
    }),
    ap(60, { uplinkSamples: [sample(60, 2, 3000, 300)] }),
    ap(100, { clients: [wireless(A), wireless('3c:22:fb:00:00:0e')] }),
    ap(120, { uplinkSamples: [sample(120, 4, 2000, 200)] }),
    ap(400, { uplinkSamples: [sample(400, 10, 8000, 800)] }),
    ap(700, { uplinkSamples: [sample(700, 1, 500, 50)] }),
    // the baseline, 25 hours before the clock: before a 24-hour window
    sw(3600 - 25 * 3600, 10_000, [switchPort(1, 1000, 500, 1), switchPort(2, 50, 50, 0)]),
    sw(20, 100_000, [switchPort(1, 1500, 700, 3), switchPort(2, 50, 50, 0)], {
      clients: [wired('3c:22:fb:00:00:0c'), wired('3c:22:fb:00:00:0d')],
      events: [{ type: 'WAN_DOWN', observedAt: at(21) }, { type: 'WAN_UP', observedAt: at(25) }],
    }),
    // a reboot: counters fall back; then growth; then a reboot seen by the uptime alone
    sw(320, 60, [switchPort(1, 200, 100, 0)], { clients: [] }),
    sw(600, 340, [switchPort(1, 300, 150, 2)]),
    sw(900, 30, [switchPort(1, 5000, 60, 0)]),
    report(SERIALS.acmeLabAp, at(30), { interfaces: [uplinkPort], uplinkSamples: [sample(30, 50, 0, 0)], clients: [wireless(A), wireless('3c:22:fb:00:00:0f')] }),
  ];
}

const SERIES = 'metadata { minValue maxValue } values { timestamp value phyInterfaceUUID networkUUID }';

describe.each(storeKinds())('metrics, port totals and the event log on %s', (kind) => {
  let app: TestApp;
  let apPort: string;
  let globexPort: string;
  const query = async (document: string, variables?: Record<string, unknown>) => (await app.graphql(document, { variables })).body;
  const quality = async (filter: Record<string, unknown>, more = '') =>
    (await query(`query ($f: MetricsFilterInput!) { networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: $f${more}) { ${SERIES} } }`, { f: filter })).data
      .networkUplinkQuality;
  const point = (seconds: number, value: number) => ({ timestamp: at(seconds), value, phyInterfaceUUID: apPort, networkUUID: IDS.acmeHq });

  beforeAll(async () => {
    const clock = createTestClock(NOW);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    const posted = await postReports(app, await createScopedKey(app, 'ingest'), reports());
    expect(posted.body).toMatchObject({ accepted: reports().length, rejected: [] });
    const globex = await postReports(app, await createScopedKey(app, 'ingest', 'globex'), [report(SERIALS.globexAp, at(0), { interfaces: [uplinkPort], uplinkSamples: [sample(0, 0, 1, 1)] })]);
    expect(globex.body).toMatchObject({ accepted: 1 });
    const portOf = async (serial: string) =>
      String((await app.server.store.selectRow(`SELECT p.uuid FROM device_ports p JOIN hardware_devices h ON h.id = p.hardware_device_id WHERE h.serial_number = '${serial}'`, []))?.uuid);
    apPort = await portOf(SERIALS.acmeAp);
    globexPort = await portOf(SERIALS.globexAp);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('averages uplink quality per bucket, weighting every sample alike, from the rollups and from the raw samples', async () => {
    // 5-minute buckets (rollups): losses 0, 2, 4 -> 2 %; 10 %; 1 %
    expect(await quality(HOUR)).toEqual({ metadata: { minValue: 0.9, maxValue: 0.99 }, values: [point(0, 0.98), point(300, 0.9), point(600, 0.99)] });
    // 10-minute buckets: (0 + 2 + 4 + 10) / 4 = 4 % over two rollups of 3 and 1 samples
    expect((await quality({ ...HOUR, stepSeconds: 600 })).values).toEqual([point(0, 0.96), point(600, 0.99)]);
    // 1-minute buckets read the raw samples
    expect((await quality({ ...HOUR, stepSeconds: 60 })).values).toEqual([point(0, 1), point(60, 0.98), point(120, 0.96), point(360, 0.9), point(660, 0.99)]);
    // a window inside one 5-minute bucket reads raw samples, and averages as the rollup does
    expect((await quality({ durationSeconds: 240, stepSeconds: 300, endTime: at(240) })).values).toEqual([point(0, 0.98)]);
    // only data inside the window counts: the first bucket is partial (60 s to 300 s: losses 2 and 4), read raw; the rest from rollups
    expect((await quality({ durationSeconds: 3540, stepSeconds: 300, endTime: at(3600) })).values).toEqual([point(0, 0.97), point(300, 0.9), point(600, 0.99)]);
    // and the last: up to 400 s exclusive leaves the 10 % sample out
    expect((await quality({ durationSeconds: 400, stepSeconds: 300, endTime: at(400) })).values).toEqual([point(0, 0.98)]);
    // endTime defaults to the request's time; no data, no buckets, no extremes
    expect((await quality({ durationSeconds: 3000, stepSeconds: 300 })).values).toEqual([point(600, 0.99)]);
    expect(await quality({ ...HOUR, endTime: at(-3600) })).toEqual({ metadata: { minValue: null, maxValue: null }, values: [] });
  });

  it('filters one port, and answers a port outside the network like a missing one', async () => {
    expect((await quality(HOUR, `, phyInterfaceUUID: "${apPort}"`)).values).toHaveLength(3);
    const body = await query(`{ networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: { durationSeconds: 3600, stepSeconds: 300 }, phyInterfaceUUID: "${globexPort}") { values { value } } }`);
    expect(body.data).toEqual({ networkUplinkQuality: null });
    expect(body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['UNAUTHORIZED']);
  });

  it('averages throughput per bucket, port and direction', async () => {
    const body = await query(`query ($f: MetricsFilterInput!) { networkUplinkThroughput(networkUUID: "${IDS.acmeHq}", filter: $f) { metadata { minValue maxValue } values { timestamp value direction } } }`, { f: HOUR });
    const v = (seconds: number, value: number, direction: string) => ({ timestamp: at(seconds), value, direction });
    expect(body.data.networkUplinkThroughput).toEqual({
      metadata: { minValue: 50, maxValue: 8000 },
      values: [v(0, 2000, 'RX'), v(0, 200, 'TX'), v(300, 8000, 'RX'), v(300, 800, 'TX'), v(600, 500, 'RX'), v(600, 50, 'TX')],
    });
  });

  it('gives one quality series per network named, in their order', async () => {
    // literal arguments: with variables the complexity counts the most networks and buckets
    const body = await query(`{ networksUplinkQualities(networkUUIDs: ["${IDS.acmeLab}", "${IDS.acmeHq}", "${IDS.acmeLab}"], filter: { durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" }) { metadata { maxValue } values { timestamp value networkUUID } } }`);
    const lab = { metadata: { maxValue: 0.5 }, values: [{ timestamp: at(0), value: 0.5, networkUUID: IDS.acmeLab }] };
    expect(body.data.networksUplinkQualities).toEqual([lab, { metadata: { maxValue: 0.99 }, values: [0, 300, 600].map((s, i) => ({ timestamp: at(s), value: [0.98, 0.9, 0.99][i], networkUUID: IDS.acmeHq })) }, lab]);
  });

  it('counts distinct clients per bucket with a report, wired and wireless apart, over the union of the networks', async () => {
    const active = async (args: string, filter = HOUR) => (await query(`query ($f: MetricsFilterInput!) { activeClients(${args}, filter: $f) { wired { timestamp value } wireless { timestamp value } } }`, { f: filter })).data.activeClients;
    const counts = (...pairs: [number, number][]) => pairs.map(([seconds, value]) => ({ timestamp: at(seconds), value }));
    // reports in every 5-minute bucket up to 900 s, with clients only in the first
    expect(await active(`networkUUID: "${IDS.acmeHq}"`)).toEqual({ wired: counts([0, 2], [300, 0], [600, 0], [900, 0]), wireless: counts([0, 3], [300, 0], [600, 0], [900, 0]) });
    // the lab's A is HQ's A: counted once
    const union = { wired: counts([0, 2], [300, 0], [600, 0], [900, 0]), wireless: counts([0, 4], [300, 0], [600, 0], [900, 0]) };
    expect(await active(`networkUUID: "${IDS.acmeHq}", networkUUIDs: ["${IDS.acmeLab}"]`)).toEqual(union);
    expect(await active(`networkUUIDs: ["${IDS.acmeLab}", "${IDS.acmeHq}"]`)).toEqual(union);
    // raw, by the minute: reports at 0 s (AP, switch at 20 s), 60 s (100 s), 120 s, 300 s (320 s), 360 s (400 s), 600 s, 660 s (700 s), 900 s
    expect(await active(`networkUUID: "${IDS.acmeHq}"`, { ...HOUR, stepSeconds: 60 })).toEqual({
      wired: counts([0, 2], [60, 0], [120, 0], [300, 0], [360, 0], [600, 0], [660, 0], [900, 0]),
      wireless: counts([0, 2], [60, 2], [120, 0], [300, 0], [360, 0], [600, 0], [660, 0], [900, 0]),
    });
  });

  it('totals each port counter over the window across reboots', async () => {
    const stats = async (args = '') =>
      (await query(`{ switchPortStats(virtualDeviceUUID: "${IDS.acmeSwitch}"${args}) { portNumber totalRxBytes totalTxBytes totalRxPackets totalTxPackets errorRxPackets errorTxPackets } }`)).data.switchPortStats;
    // port 1 from the baseline 1000: +500, reboot 200, +100, reboot (uptime) 5000
    const port1 = { portNumber: 1, totalRxBytes: 5800, totalTxBytes: 410, totalRxPackets: 580, totalTxPackets: 41, errorRxPackets: 4, errorTxPackets: 0 };
    const port2 = { portNumber: 2, totalRxBytes: 0, totalTxBytes: 0, totalRxPackets: 0, totalTxPackets: 0, errorRxPackets: 0, errorTxPackets: 0 };
    expect(await stats()).toEqual([port1, port2]);
    expect(await stats(', portNumber: 2')).toEqual([port2]);
    // 72 hours: the rollups add nothing the raw readings hold
    expect(await stats(', lookbackHours: 72')).toEqual([port1, port2]);
    // 26 hours: the baseline is inside, so the first reading counts from itself
    expect(await stats(', lookbackHours: 26')).toEqual([port1, port2]);
    expect(await stats(', lookbackHours: 25')).toEqual([port1, port2]);
    expect((await query(`{ switchPortStats(virtualDeviceUUID: "${IDS.acmeObserver}") { portNumber } }`)).data.switchPortStats).toEqual([]);
  });

  it('pages the event log newest first, with the total of what matches the filters', async () => {
    const page = async (args: string) =>
      (await query(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", ${args}) { total events { eventType eventTypeAPIName generatedAt networkUUID virtualDevice { UUID } details } } }`)).data
        .recentEventLogEventsPage;
    const event = (type: string, name: string, seconds: number, device: string, details: string | null = null) => ({
      // Meter's EventType has no TEST_EVENT (its readable name, eventTypeName, is tested in meter-args.test.ts)
      eventType: type === 'TEST_EVENT' ? 'UNSPECIFIED' : type, eventTypeAPIName: type, generatedAt: at(seconds), networkUUID: IDS.acmeHq, virtualDevice: { UUID: device }, details,
    });
    // netgraph records DEVICE_ONLINE for the switch, imported offline, at its newest report of the batch
    const all = [
      event('DEVICE_ONLINE', 'Device online', 900, IDS.acmeSwitch),
      event('WAN_UP', 'WAN up', 25, IDS.acmeSwitch),
      event('WAN_DOWN', 'WAN down', 21, IDS.acmeSwitch),
      event('TEST_EVENT', 'Test event', 5, IDS.acmeAp),
      event('DEVICE_BOOT', 'Device booted', 0, IDS.acmeAp, '{"rebootReason":"power"}'),
    ];
    expect(await page('limit: 100')).toEqual({ total: 5, events: all });
    expect(await page('limit: 2')).toEqual({ total: 5, events: all.slice(0, 2) });
    expect(await page('limit: 2, offset: 2')).toEqual({ total: 5, events: all.slice(2, 4) });
    expect(await page('limit: 10, typeFilter: [WAN_DOWN, DEVICE_BOOT]')).toEqual({ total: 2, events: [all[2], all[4]] });
    expect(await page('limit: 10, typeFilter: []')).toEqual({ total: 5, events: all });
    expect(await page(`limit: 1, virtualDeviceUUIDFilter: ["${IDS.acmeAp}"]`)).toEqual({ total: 2, events: [all[3]] });
    // startTime inclusive, endTime exclusive
    expect(await page(`limit: 10, startTime: "${at(5)}", endTime: "${at(25)}"`)).toEqual({ total: 2, events: [all[2], all[3]] });
  });

  it("answers every root for another company's ids exactly like for missing ones", async () => {
    const filter = '{ durationSeconds: 3600, stepSeconds: 300 }';
    const missing = '99999999-9999-4999-8999-999999999999';
    const roots = (network: string, device: string) => [
      `networkUplinkQuality(networkUUID: "${network}", filter: ${filter}) { values { value } }`,
      `networkUplinkThroughput(networkUUID: "${network}", filter: ${filter}) { values { value } }`,
      `networksUplinkQualities(networkUUIDs: ["${IDS.acmeHq}", "${network}"], filter: ${filter}) { values { value } }`,
      `activeClients(networkUUIDs: ["${IDS.acmeHq}", "${network}"], filter: ${filter}) { wired { value } }`,
      `activeClients(networkUUID: "${network}", filter: ${filter}) { wired { value } }`,
      `switchPortStats(virtualDeviceUUID: "${device}") { portNumber }`,
      `recentEventLogEventsPage(networkUUID: "${network}", limit: 10) { total }`,
    ];
    for (const [foreign, absent] of [[roots(IDS.globexHq, IDS.globexAp), roots(missing, missing)]] as const) {
      for (let i = 0; i < foreign.length; i++) {
        const [a, b] = [await query(`{ r: ${foreign[i]} }`), await query(`{ r: ${absent[i]} }`)];
        expect(a.data).toEqual({ r: null });
        expect(a.errors[0].extensions.code).toBe('UNAUTHORIZED');
        expect(a).toEqual(JSON.parse(JSON.stringify(b).replaceAll(missing, IDS.globexHq)));
      }
    }
  });

  it('refuses arguments outside the rules before the database, naming the argument', async () => {
    const refused = async (field: string) => {
      const body = await query(`{ r: ${field} }`);
      expect(body.data).toEqual({ r: null });
      return [body.errors[0].extensions.code, body.errors[0].extensions.argument, body.errors[0].message];
    };
    const series = (filter: string) => `networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: ${filter}) { values { value } }`;
    expect(await refused(series('{ durationSeconds: 3600, stepSeconds: 30 }'))).toEqual([
      'BAD_USER_INPUT', 'filter.stepSeconds', 'Argument "filter.stepSeconds" of "networkUplinkQuality" is not accepted: must be at least 60 (seconds): ask for a longer step.',
    ]);
    expect(await refused(series('{ durationSeconds: 60060, stepSeconds: 60 }'))).toEqual([
      'BAD_USER_INPUT', 'filter.durationSeconds', 'Argument "filter.durationSeconds" of "networkUplinkQuality" is not accepted: spans 1001 steps of 60 s; at most 1000: ask for a shorter duration or a longer step.',
    ]);
    expect((await refused(series('{ durationSeconds: 200000, stepSeconds: 240 }')))[2]).toContain('must be at most 172800: steps that are not a multiple of 300 s read the raw samples, kept 48 hours');
    expect((await refused(series('{ durationSeconds: 605100, stepSeconds: 9000 }')))[2]).toContain('must be at most 604800: the 5-minute rollups are kept 7 days');
    expect(await refused('activeClients(filter: { durationSeconds: 3600, stepSeconds: 300 }) { wired { value } }')).toEqual([
      'BAD_USER_INPUT', 'networkUUID', 'Argument "networkUUID" of "activeClients" is not accepted: give networkUUID or a non-empty networkUUIDs: the networks to count over.',
    ]);
    const many = JSON.stringify(Array.from({ length: 51 }, () => IDS.acmeHq));
    expect((await refused(`networksUplinkQualities(networkUUIDs: ${many}, filter: { durationSeconds: 60, stepSeconds: 60 }) { values { value } }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'networkUUIDs']);
    for (const limit of [0, 101]) {
      expect((await refused(`recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: ${limit}) { total }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'limit']);
    }
    expect((await refused(`switchPortStats(virtualDeviceUUID: "${IDS.acmeSwitch}", lookbackHours: 2161) { portNumber }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'lookbackHours']);
  });

  it('answers a 1,000-bucket series with data in one statement', async () => {
    const key = await app.createKey('acme', 'statements');
    await app.graphql('{ __typename }', { key });
    await app.server.services.apiKeys.flushLastUsed();
    const before = app.server.store.stats.statements;
    const response = await app.graphql(
      `{ networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: { durationSeconds: 60000, stepSeconds: 60, endTime: "${at(3600)}" }) { values { value } } ` +
        `activeClients(networkUUID: "${IDS.acmeHq}", filter: { durationSeconds: 300000, stepSeconds: 300, endTime: "${at(3600)}" }) { wired { value } } }`,
      { key },
    );
    expect(app.server.store.stats.statements - before).toBe(1);
    expect(response.body.data.networkUplinkQuality.values).toHaveLength(5);
    // the four buckets of the hour, and the switch's baseline report 25 hours earlier
    expect(response.body.data.activeClients.wired).toHaveLength(5);
  });

  it('prices a series by the buckets it may return', async () => {
    // the requested cost (X-Complexity-Cost is the actual cost, from the buckets the answer holds)
    const cost = async (document: string, variables?: Record<string, unknown>) => {
      const response = await app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${await app.createKey('acme')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: document, variables, extensions: { cost: true } }),
      });
      expect(response.body.errors).toBeUndefined();
      expect(Number(response.headers.get('x-complexity-cost'))).toBe(response.body.extensions.cost.actual);
      return response.body.extensions.cost.requested as number;
    };
    // 1,000 steps may touch 1,001 buckets: 101 elements of 2 points; + the root 1, metadata 1 + 2, the list 2
    const thousand = `{ networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: { durationSeconds: 60000, stepSeconds: 60 }) { metadata { minValue maxValue } values { timestamp value } } }`;
    expect(await cost(thousand)).toBe(1 + 3 + 2 + 101 * 2);
    // variables: priced with this request's values, as literals are (an hour of minutes: 61 buckets, 7 elements)
    const byVariables = `query ($f: MetricsFilterInput!) { networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: $f) { metadata { minValue maxValue } values { timestamp value } } }`;
    expect(await cost(byVariables, { f: { durationSeconds: 3600, stepSeconds: 60 } })).toBe(1 + 3 + 2 + 7 * 2);
    expect(await cost(byVariables, { f: { durationSeconds: 60000, stepSeconds: 60 } })).toBe(1 + 3 + 2 + 101 * 2);
    // a Meter script's usual form: several networks' qualities, all by variables, within the limit of one operation
    const qualities = `query ($ids: [UUID!]!, $f: MetricsFilterInput!) { networksUplinkQualities(networkUUIDs: $ids, filter: $f) { values { timestamp value } } }`;
    expect(await cost(qualities, { ids: [IDS.acmeHq, IDS.acmeHq], f: { durationSeconds: 86400, stepSeconds: 300 } })).toBeLessThan(750);
    // and refused before it runs when this request's values make it too costly
    const tooMany = await app.graphql(qualities, { variables: { ids: Array.from({ length: 50 }, () => IDS.acmeHq), f: { durationSeconds: 60000, stepSeconds: 60 } } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors[0].extensions.code).toBe('COMPLEXITY_LIMIT_EXCEEDED');
    // a day of 5-minute buckets: 289 buckets, 29 elements
    expect(await cost(`{ networkUplinkQuality(networkUUID: "${IDS.acmeHq}", filter: { durationSeconds: 86400, stepSeconds: 300 }) { values { timestamp value } } }`)).toBe(1 + 2 + 29 * 2);
    // throughput: two directions per bucket
    expect(await cost(`{ networkUplinkThroughput(networkUUID: "${IDS.acmeHq}", filter: { durationSeconds: 86400, stepSeconds: 300 }) { values { timestamp value direction } } }`)).toBe(1 + 2 + 58 * 3);
    expect(await cost(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 20) { total events { eventType } } }`)).toBe(1 + 1 + 2 + 20 * 1);
  });
});
