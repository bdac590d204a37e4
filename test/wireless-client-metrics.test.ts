import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import { storeKinds } from './helpers/stores.js';

// Meter's client metrics roots (wirelessClientMetrics, ...ByAP, ...ByClient, allClientMetricsByClient,
// allClientMetricsByVLAN) over HTTP, from clients posted through POST /api/v1/reports. The clock stands one hour
// after REPORT_EPOCH; the window is its first 10 minutes, [0 s, 600 s).
const NOW = REPORT_EPOCH + 3_600_000;
const A = 'aa:00:00:00:00:01';
const B = 'aa:00:00:00:00:02';
const WIRED = 'bb:00:00:00:00:01';

/** A wireless client sample: signal, SNR, link rates, byte counters. A is on 5 GHz channel 36 (Acme-Corp, VLAN 10), B on 2.4 GHz channel 6 (Acme-Guest, VLAN 20). */
const wireless = (mac: string, [signal, snr, rxRateMbps, txRateMbps, rxBytes, txBytes]: readonly number[]) => ({
  macAddress: mac, isWireless: true, signal, snr, rxRateMbps, txRateMbps, rxBytes, txBytes,
  ...(mac === A ? { radioBand: 'BAND_5G', channel: 36, ssid: 'Acme-Corp', vlanID: 10, hwMode: 'WIFI_6' } : { radioBand: 'BAND_2_4G', channel: 6, ssid: 'Acme-Guest', vlanID: 20, hwMode: 'WIFI_4' }),
});

/**
 * The access point's samples (seconds after REPORT_EPOCH). -120 s is before the window: the bytes' baseline. A
 * reconnects at 420 s (its counters restart), and so does B, absent at 360 s.
 */
const AP_SAMPLES: readonly [number, (readonly number[])?, (readonly number[])?][] = [
  [-120, [-50, 40, 400, 300, 1000, 500]],
  [0, [-50, 40, 400, 300, 2000, 1000], [-80, 10, 50, 20, 100, 100]],
  [120, [-60, 30, 200, 100, 5000, 2000], [-70, 20, 70, 40, 300, 150]],
  [360, [-40, 50, 600, 500, 6000, 2500]],
  [420, [-40, 50, 600, 500, 700, 200], [-70, 5, 30, 20, 50, 20]],
];
/** The wired client's counters on the switch, on VLAN 20 (IDS.acmeVlan) like B. */
const WIRED_SAMPLES: readonly [number, number, number][] = [
  [0, 100, 100],
  [120, 400, 250],
  [360, 1000, 600],
];

function reports(): Record<string, unknown>[] {
  const ap = AP_SAMPLES.map(([seconds, a, b]) =>
    report(SERIALS.acmeAp, at(seconds), { clients: [...(a ? [wireless(A, a)] : []), ...(b ? [wireless(B, b)] : [])] }),
  );
  const wired = WIRED_SAMPLES.map(([seconds, rxBytes, txBytes]) =>
    // a wired client's radio fields are dropped, as its signal is
    report(SERIALS.acmeSwitch, at(seconds), { clients: [{ macAddress: WIRED, isWireless: false, vlanID: 20, rxBytes, txBytes, snr: 30, radioBand: 'BAND_5G', hwMode: 'WIFI_6' }] }),
  );
  // the lab's access point, in another network of the company
  const lab = report(SERIALS.acmeLabAp, at(60), { clients: [wireless('cc:00:00:00:00:01', [-30, 60, 900, 900, 10, 10])] });
  return [...ap, ...wired, lab];
}

const WINDOW = { durationSeconds: 600, endTime: at(600) };
const AGGREGATE = 'clientCount signal snr rxBytes txBytes rxRate txRate';

/** An aggregate as the API answers it. */
const aggregate = (clientCount: number, signal: number | null, snr: number | null, rxBytes: number, txBytes: number, rxRate: number | null, txRate: number | null) => ({
  clientCount, signal, snr, rxBytes, txBytes, rxRate, txRate,
});

/** Rounds every number of an answer to 9 places (averages such as -410 / 7 are floats). */
const rounded = (value: unknown): unknown =>
  typeof value === 'number' ? Math.round(value * 1e9) / 1e9
    : Array.isArray(value) ? value.map(rounded)
      : value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]))
        : value;

describe.each(storeKinds())('wireless and all client metrics on %s', (kind) => {
  let app: TestApp;
  const query = async (document: string, variables?: Record<string, unknown>) => (await app.graphql(document, { variables })).body;
  const byAP = async (filter: Record<string, unknown>, ap: string = IDS.acmeAp, network: string = IDS.acmeHq) =>
    (await query(`query ($f: ClientMetricsTimeseriesFilterInput!) { r: wirelessClientMetricsByAP(networkUUID: "${network}", apVirtualDeviceUUID: "${ap}", filter: $f) { metadata { ${AGGREGATE} } values { timestamp ${AGGREGATE} hwMode } } }`, { f: filter })).data.r;
  const perClient = async (filter: Record<string, unknown>, network: string = IDS.acmeHq) =>
    (await query(`query ($f: ClientMetricsTimeseriesFilterInput!) { r: wirelessClientMetrics(networkUUID: "${network}", filter: $f) { macAddress response { metadata { ${AGGREGATE} } } } }`, { f: filter })).data.r;
  const macsOf = async (filter: Record<string, unknown>) => ((await perClient({ timeFilter: { ...WINDOW, stepSeconds: 120 }, ...filter })) as { macAddress: string }[]).map((c) => c.macAddress);

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), clock: createTestClock(NOW).now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    // the access point's reports out of order, in two requests, so that the rollups are folded in a request and
    // merged across requests both ways: 420 s, 120 s and 360 s; then -120 s and 0 s, before the stored samples of their buckets
    const all = reports();
    const key = await createScopedKey(app, 'ingest');
    for (const batch of [[all[4], all[2], all[3]], [all[0], all[1]], all.slice(5)]) {
      expect((await postReports(app, key, batch)).body).toMatchObject({ accepted: batch.length, rejected: [] });
    }
    // another company's access point reports a client with A's MAC address and large numbers
    const globex = await postReports(app, await createScopedKey(app, 'ingest', 'globex'), [0, 120].map((s) => report(SERIALS.globexAp, at(s), { clients: [wireless(A, [-10, 90, 5000, 5000, s * 1e6, s * 1e6])] })));
    expect(globex.body).toMatchObject({ accepted: 2, rejected: [] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("aggregates an access point's clients per bucket from the raw samples: distinct clients, weighted averages, byte increments", async () => {
    // 120 s steps read raw samples. 0 s: A +1000/+500 over its baseline at -120 s, B's first sample counts 0;
    // 120 s: A +3000/+1000, B +200/+50; 360 s: A +1000/+500, then restarted at 700/200, B restarted at 50/20
    expect(rounded(await byAP({ timeFilter: { ...WINDOW, stepSeconds: 120 } }))).toEqual(rounded({
      metadata: aggregate(2, -410 / 7, 205 / 7, 5950, 2270, 1950 / 7, 1480 / 7),
      values: [
        { timestamp: at(0), ...aggregate(2, -65, 25, 1000, 500, 225, 160), hwMode: null },
        { timestamp: at(120), ...aggregate(2, -65, 25, 3200, 1050, 135, 70), hwMode: null },
        { timestamp: at(360), ...aggregate(2, -50, 35, 1750, 720, 410, 340), hwMode: null },
      ],
    }));
  });

  it('reads the 5-minute rollups for steps that are multiples of 300 s: the same averages and bytes as the raw samples', async () => {
    // 0 s: A 2000 - 1000 (the rollup before the window) + its growth 3000 to 5000 inside the bucket, B's growth 200/50;
    // 300 s: A 6000 - 5000, then restarted (700/200 whole), B restarted (50/20)
    expect(rounded(await byAP({ timeFilter: { ...WINDOW, stepSeconds: 300 } }))).toEqual(rounded({
      metadata: aggregate(2, -410 / 7, 205 / 7, 5950, 2270, 1950 / 7, 1480 / 7),
      values: [
        { timestamp: at(0), ...aggregate(2, -65, 25, 4200, 1550, 180, 115), hwMode: null },
        { timestamp: at(300), ...aggregate(2, -50, 35, 1750, 720, 410, 340), hwMode: null },
      ],
    }));
    // one bucket of 10 minutes, and a window with no samples
    expect((await byAP({ timeFilter: { ...WINDOW, stepSeconds: 600 } })).values.map((v: { clientCount: number; rxBytes: number }) => [v.clientCount, v.rxBytes])).toEqual([[2, 5950]]);
    expect(await byAP({ timeFilter: { durationSeconds: 600, stepSeconds: 300, endTime: at(-600) } })).toEqual({ metadata: aggregate(0, null, null, 0, 0, null, null), values: [] });
  });

  it("answers Meter's SDK calls: per client of the network, one client, and an access point", async () => {
    const sdk = `{ wirelessClientMetrics(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: { durationSeconds: 600, stepSeconds: 300, endTime: "${at(600)}" } }) { response { metadata { clientCount signal snr rxBytes txBytes rxRate txRate } } } }`;
    const answer = await query(sdk);
    expect(answer.errors).toBeUndefined();
    expect(rounded(answer.data.wirelessClientMetrics)).toEqual(rounded([
      { response: { metadata: aggregate(1, -47.5, 42.5, 5700, 2200, 450, 350) } },
      { response: { metadata: aggregate(1, -220 / 3, 35 / 3, 250, 70, 50, 80 / 3) } },
    ]));
    // priced for 20 clients of 1 + 1 + 7 fields each, plus the list's 2; charged for the 2 it holds
    const priced = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${await app.createKey('acme')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: sdk, extensions: { cost: true } }),
    });
    expect(priced.body.extensions.cost).toMatchObject({ requested: 2 + 20 * 9, actual: 2 + 2 * 9 });
    expect((await perClient({ timeFilter: { ...WINDOW, stepSeconds: 300 } })).map((c: { macAddress: string }) => c.macAddress)).toEqual([A, B]);
    const one = await query(`{ r: wirelessClientMetricsByClient(networkUUID: "${IDS.acmeHq}", macAddress: "${B}", filter: { timeFilter: { durationSeconds: 600, stepSeconds: 120, endTime: "${at(600)}" } }) { metadata { clientCount signal snr rxBytes txBytes } values { timestamp clientCount signal snr hwMode } } }`);
    expect(rounded(one.data.r)).toEqual(rounded({
      metadata: { clientCount: 1, signal: -220 / 3, snr: 35 / 3, rxBytes: 250, txBytes: 70 },
      values: [
        { timestamp: at(0), clientCount: 1, signal: -80, snr: 10, hwMode: 'WIFI_4' },
        { timestamp: at(120), clientCount: 1, signal: -70, snr: 20, hwMode: 'WIFI_4' },
        { timestamp: at(360), clientCount: 1, signal: -70, snr: 5, hwMode: 'WIFI_4' },
      ],
    }));
    // a MAC never seen in the network: no values, whatever another company's devices saw
    const unseen = await query(`{ r: wirelessClientMetricsByClient(networkUUID: "${IDS.acmeLab}", macAddress: "${A}", filter: { timeFilter: { durationSeconds: 600, stepSeconds: 300, endTime: "${at(600)}" } }) { metadata { clientCount rxBytes } values { timestamp } } }`);
    expect(unseen.data.r).toEqual({ metadata: { clientCount: 0, rxBytes: 0 }, values: [] });
  });

  it('filters by band, channel, MAC, partial MAC, signal range, SSID and reporting device', async () => {
    expect(await macsOf({ bands: ['BAND_5G'] })).toEqual([A]);
    expect(await macsOf({ bands: [] })).toEqual([A, B]);
    expect(await macsOf({ channels: [6, 11] })).toEqual([B]);
    expect(await macsOf({ clientMacAddresses: [B] })).toEqual([B]);
    expect(await macsOf({ partialClientMacAddresses: ['00:02'] })).toEqual([B]);
    expect(await macsOf({ partialClientMacAddresses: ['AA:00:00:00:00:0'] })).toEqual([A, B]);
    expect(await macsOf({ rssi: { min: -60 } })).toEqual([A]);
    expect(await macsOf({ rssi: { max: -65 } })).toEqual([B]);
    expect(await macsOf({ rssi: { min: -65, max: -55 } })).toEqual([A]);
    expect(await macsOf({ ssidUUIDs: [IDS.acmeSsid] })).toEqual([B]);
    expect(await macsOf({ virtualDeviceUUIDs: [IDS.acmeAp] })).toEqual([A, B]);
    // the switch reports only a wired client; another company's AP names nothing of this network
    expect(await macsOf({ virtualDeviceUUIDs: [IDS.acmeSwitch, IDS.globexAp] })).toEqual([]);
    expect(await macsOf({ excludeObservers: true, bands: ['BAND_2_4G', 'BAND_5G'] })).toEqual([A, B]);
    // a filter changes the aggregates too: A's samples of -60 dBm and better
    const strong = await byAP({ timeFilter: { ...WINDOW, stepSeconds: 120 }, rssi: { min: -60 } });
    expect(strong.values.map((v: { timestamp: string; clientCount: number; signal: number; hwMode: string }) => [v.timestamp, v.clientCount, v.signal, v.hwMode])).toEqual([
      [at(0), 1, -50, 'WIFI_6'],
      [at(120), 1, -60, 'WIFI_6'],
      [at(360), 1, -40, 'WIFI_6'],
    ]);
  });

  it("counts every client's bytes, wired and wireless, by client and by VLAN", async () => {
    const series = 'metadata { minValue maxValue } values { timestamp value }';
    const all = async (root: string, argument: string, stepSeconds: number) =>
      (await query(`{ r: ${root}(networkUUID: "${IDS.acmeHq}", ${argument}, filter: { timeFilter: { durationSeconds: 600, stepSeconds: ${stepSeconds}, endTime: "${at(600)}" } }) { rxBytes { ${series} } txBytes { ${series} } } }`)).data.r;
    const points = (values: readonly [number, number][]) => values.map(([seconds, value]) => ({ timestamp: at(seconds), value }));
    // the wired client: its first sample is its baseline
    expect(await all('allClientMetricsByClient', `macAddress: "${WIRED}"`, 120)).toEqual({
      rxBytes: { metadata: { minValue: 0, maxValue: 600 }, values: points([[0, 0], [120, 300], [360, 600]]) },
      txBytes: { metadata: { minValue: 0, maxValue: 350 }, values: points([[0, 0], [120, 150], [360, 350]]) },
    });
    // from the rollups: the wired client's growth inside its first 5 minutes counts, as from the raw samples
    expect(await all('allClientMetricsByClient', `macAddress: "${WIRED}"`, 300)).toEqual({
      rxBytes: { metadata: { minValue: 300, maxValue: 600 }, values: points([[0, 300], [300, 600]]) },
      txBytes: { metadata: { minValue: 150, maxValue: 350 }, values: points([[0, 150], [300, 350]]) },
    });
    expect(await all('allClientMetricsByClient', `macAddress: "${A}"`, 300)).toEqual({
      rxBytes: { metadata: { minValue: 1700, maxValue: 4000 }, values: points([[0, 4000], [300, 1700]]) },
      txBytes: { metadata: { minValue: 700, maxValue: 1500 }, values: points([[0, 1500], [300, 700]]) },
    });
    // VLAN 20: B and the wired client
    expect(await all('allClientMetricsByVLAN', `vlanUUID: "${IDS.acmeVlan}"`, 120)).toEqual({
      rxBytes: { metadata: { minValue: 0, maxValue: 650 }, values: points([[0, 0], [120, 500], [360, 650]]) },
      txBytes: { metadata: { minValue: 0, maxValue: 370 }, values: points([[0, 0], [120, 200], [360, 370]]) },
    });
  });

  it("answers another company's network, access point and VLAN exactly like missing ones", async () => {
    const timeFilter = `{ durationSeconds: 600, stepSeconds: 300, endTime: "${at(600)}" }`;
    const nulls = async (field: string) => {
      const body = await query(`{ r: ${field} }`);
      expect(body.data).toEqual({ r: null });
      return body.errors.map((e: { extensions: { code: string } }) => e.extensions.code);
    };
    const missing = '99999999-9999-4999-8999-999999999999';
    for (const network of [IDS.globexHq, missing]) {
      expect(await nulls(`wirelessClientMetrics(networkUUID: "${network}", filter: { timeFilter: ${timeFilter} }) { macAddress }`)).toEqual(['UNAUTHORIZED']);
      expect(await nulls(`wirelessClientMetricsByClient(networkUUID: "${network}", macAddress: "${A}", filter: { timeFilter: ${timeFilter} }) { metadata { clientCount } }`)).toEqual(['UNAUTHORIZED']);
      expect(await nulls(`allClientMetricsByClient(networkUUID: "${network}", macAddress: "${A}", filter: { timeFilter: ${timeFilter} }) { rxBytes { values { value } } }`)).toEqual(['UNAUTHORIZED']);
    }
    // an access point of another company, of another network of the company, and none
    for (const ap of [IDS.globexAp, IDS.acmeLabAp, missing]) {
      expect(await nulls(`wirelessClientMetricsByAP(networkUUID: "${IDS.acmeHq}", apVirtualDeviceUUID: "${ap}", filter: { timeFilter: ${timeFilter} }) { metadata { clientCount } }`)).toEqual(['UNAUTHORIZED']);
    }
    expect(await nulls(`allClientMetricsByVLAN(networkUUID: "${IDS.acmeLab}", vlanUUID: "${IDS.acmeVlan}", filter: { timeFilter: ${timeFilter} }) { rxBytes { values { value } } }`)).toEqual(['UNAUTHORIZED']);
    expect(await nulls(`allClientMetricsByVLAN(networkUUID: "${IDS.acmeHq}", vlanUUID: "${missing}", filter: { timeFilter: ${timeFilter} }) { rxBytes { values { value } } }`)).toEqual(['UNAUTHORIZED']);
    // the other company sees its own client, and nothing of acme's (raw samples: its first one is the baseline)
    const globex = await app.graphql(`{ wirelessClientMetrics(networkUUID: "${IDS.globexHq}", filter: { timeFilter: ${timeFilter.replace('300', '60')} }) { macAddress response { metadata { clientCount rxBytes } } } }`, { key: await app.createKey('globex') });
    expect(globex.body.data.wirelessClientMetrics).toEqual([{ macAddress: A, response: { metadata: { clientCount: 1, rxBytes: 120e6 } } }]);
  });

  it('refuses bad arguments naming them', async () => {
    const refused = async (filter: string, root = 'wirelessClientMetrics') => {
      const body = await query(`{ r: ${root}(networkUUID: "${IDS.acmeHq}", filter: ${filter}) { macAddress } }`);
      expect(body.data).toEqual({ r: null });
      return [body.errors[0].extensions.code, body.errors[0].extensions.argument, body.errors[0].message];
    };
    const time = '{ durationSeconds: 600, stepSeconds: 300 }';
    expect((await refused('{ timeFilter: { durationSeconds: 600, stepSeconds: 30 } }')).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'filter.timeFilter.stepSeconds']);
    expect((await refused('{ timeFilter: { durationSeconds: 200000, stepSeconds: 120 } }')).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'filter.timeFilter.durationSeconds']);
    expect((await refused(`{ timeFilter: ${time}, channels: [36, 300] }`))[2]).toContain('holds 300; Wi-Fi channels are 1 to 233.');
    expect((await refused(`{ timeFilter: ${time}, partialClientMacAddresses: ["zz"] }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'filter.partialClientMacAddresses']);
    expect((await refused(`{ timeFilter: ${time}, rssi: { min: -40, max: -70 } }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'filter.rssi']);
    // GraphQL's own validation: an unknown band, a MAC address in the wrong form
    const band = await app.graphql(`{ wirelessClientMetrics(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: ${time}, bands: [BAND_60G] }) { macAddress } }`);
    expect(band.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const mac = await app.graphql(`{ wirelessClientMetricsByClient(networkUUID: "${IDS.acmeHq}", macAddress: "nope", filter: { timeFilter: ${time} }) { values { timestamp } } }`);
    expect(mac.body.errors[0].message).toContain('a MAC address');
  });

  it("lists an access point's wireless clients of the last 15 minutes on its page, with signal, SNR, rates and Wi-Fi generation", async () => {
    // two samples of A in the last 15 minutes before the clock: averages -45 dBm, 45 dB, 500 and 400 Mbit/s
    const recent = [3480, 3540].map((s, i) => report(SERIALS.acmeAp, at(s), { clients: [wireless(A, [-40 - 10 * i, 40 + 10 * i, 450 + 100 * i, 350 + 100 * i, 10_000 + 4_096 * i, 0])] }));
    const key = await createScopedKey(app, 'ingest');
    for (const one of recent) expect((await postReports(app, key, [one])).body).toMatchObject({ accepted: 1 });
    // the second sample, posted later, grows its 5-minute rollup: 4,096 bytes received in the bucket of 3,300 s
    const rollup = await query(`{ r: allClientMetricsByClient(networkUUID: "${IDS.acmeHq}", macAddress: "${A}", filter: { timeFilter: { durationSeconds: 300, stepSeconds: 300, endTime: "${at(3600)}" } }) { rxBytes { values { timestamp value } } } }`);
    expect(rollup.data.r.rxBytes.values).toEqual([{ timestamp: at(3300), value: 4096 }]);
    await app.server.services.users.create({ companySlug: 'acme', email: 'wifi@acme.example', role: 'admin', password: 'correct horse battery' });
    const client = createDashboardClient(app);
    expect((await signIn(client, 'wifi@acme.example', 'correct horse battery')).status).toBe(303);
    const page = await client.get(`/networks/${IDS.acmeHq}/devices/${IDS.acmeAp}`);
    expect(page.status).toBe(200);
    const row = /<tr data-client="aa:00:00:00:00:01">([\s\S]*?)<\/tr>/.exec(page.text)?.[1]?.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
    expect(row).toBe('aa:00:00:00:00:01 -45 dBm 45 dB 500 Mbit/s 400 Mbit/s Wi-Fi 6 4.0 KB');
    expect(page.text).not.toContain('data-client="aa:00:00:00:00:02"');
    expect(page.text).toContain('id="chart-client-signal"');
    // a switch's page has no such section
    expect((await client.get(`/networks/${IDS.acmeHq}/devices/${IDS.acmeSwitch}`)).text).not.toContain('wireless-clients-table');
  });

  it("refuses a client's bad metrics at their path, and keeps a wired client's radio fields out", async () => {
    const key = await createScopedKey(app, 'ingest');
    const bad = (fields: Record<string, unknown>) => report(SERIALS.acmeLabAp, at(3000), { clients: [{ macAddress: 'cc:00:00:00:00:09', isWireless: true, ...fields }] });
    const response = await postReports(app, key, [bad({ snr: 101 }), bad({ channel: 0 }), bad({ hwMode: 'WIFI_9' }), bad({ radioBand: 'BAND_60G' }), bad({ rxBytes: -1 }), bad({ txRateMbps: 'fast' })]);
    expect(response.body.rejected.map((r: { path: string; message: string }) => `${r.path}: ${r.message}`)).toEqual([
      expect.stringMatching(/^reports\[0\]\.clients\[0\]\.snr: .*100/),
      expect.stringMatching(/^reports\[1\]\.clients\[0\]\.channel: .*1/),
      expect.stringMatching(/^reports\[2\]\.clients\[0\]\.hwMode: .*WIFI_7/),
      expect.stringMatching(/^reports\[3\]\.clients\[0\]\.radioBand: .*BAND_6G/),
      expect.stringMatching(/^reports\[4\]\.clients\[0\]\.rxBytes: /),
      expect.stringMatching(/^reports\[5\]\.clients\[0\]\.txRateMbps: /),
    ]);
    // the wired client's snr, band and Wi-Fi generation were dropped: it is in no wireless series, and its bytes count
    const wired = await query(`{ r: wirelessClientMetricsByClient(networkUUID: "${IDS.acmeHq}", macAddress: "${WIRED}", filter: { timeFilter: { durationSeconds: 600, stepSeconds: 120, endTime: "${at(600)}" } }) { metadata { clientCount } } }`);
    expect(wired.data.r).toEqual({ metadata: { clientCount: 0 } });
  });
});
