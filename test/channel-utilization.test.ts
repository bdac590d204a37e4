import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { CONTROLLER as CONTROLLER_DEVICE, IDS, SERIALS, createFixtureWithController as fixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// Meter's channel utilization roots (channelUtilizationByNetwork, channelUtilizationByAP) and
// controllerDNSRequestRates over HTTP, from the radioChannels and dnsRequests of reports posted through
// POST /api/v1/reports (issue 32). The clock stands one hour after REPORT_EPOCH, a multiple of 300 s.
const NOW = REPORT_EPOCH + 3_600_000;
const { uuid: CONTROLLER, serial: CONTROLLER_SERIAL } = CONTROLLER_DEVICE;
const MISSING = '99999999-9999-4999-8999-999999999999';

type Utilization = [total: number, rx: number | null, tx: number | null];
/** A radio of `band` with its utilization; self, OBSS and non-Wi-Fi split the total 60/30/10. */
const radio = (radioBand: string, [total, rx, tx]: Utilization, channel: number, channelWidthMHz: number, txPowerDbm: number, noiseFloorDbm: number) => ({
  radioBand, channel, channelWidthMHz, txPowerDbm, noiseFloorDbm, totalUtilization: total, rxUtilization: rx, txUtilization: tx,
  selfUtilization: total * 0.6, obssUtilization: total * 0.3, nonWifiUtilization: total * 0.1,
});

/** HQ's access point, each report at seconds after REPORT_EPOCH with its 2.4 GHz and 5 GHz radios (5 GHz only at some). */
const AP_READINGS: readonly [seconds: number, band24: Utilization, band5: Utilization | null][] = [
  [0, [40, 10, 20], [10, 2, 3]],
  [60, [50, 20, 20], null],
  [120, [60, 30, 20], null],
  [300, [20, 5, 5], [30, 10, 10]],
  [360, [30, null, 10], null],
  [900, [70, 30, 30], [50, 20, 20]],
];

function apReports(): Record<string, unknown>[] {
  return AP_READINGS.map(([seconds, band24, band5]) =>
    report(SERIALS.acmeAp, at(seconds), {
      radioChannels: [
        radio('BAND_2_4G', band24, seconds < 900 ? 6 : 11, seconds < 900 ? 20 : 40, seconds < 900 ? 15 : 17, -92),
        ...(band5 === null ? [] : [radio('BAND_5G', band5, 36, 80, 20, -95)]),
      ],
    }),
  );
}

/**
 * The controller's DNS counter: [seconds, uptime, requests], the rate of the pair ending there in the comment.
 */
const DNS_READINGS: readonly [seconds: number, uptime: number, requests: number][] = [
  [-300, 1000, 5000], // baseline, before the hour
  [0, 1300, 8000], // +3000 in 300 s: 10/s
  [180, 1480, 11_600], // +3600 in 180 s: 20/s
  [300, 30, 360], // rebooted (lower uptime): 360 counts whole, in 120 s: 3/s
  [600, 330, 6360], // +6000 in 300 s: 20/s
  [900, 630, 120], // rebooted (a lower counter): 120 in 300 s: 0.4/s
];

const dnsReports = () => DNS_READINGS.map(([seconds, uptimeSeconds, dnsRequests]) => report(CONTROLLER_SERIAL, at(seconds), { uptimeSeconds, dnsRequests }));

/** A value of the series with all fields (self, OBSS, non-Wi-Fi are 60/30/10 % of the total). */
const value = (seconds: number, total: number, rx: number | null, tx: number | null) => ({
  timestamp: at(seconds), totalUtilization: total, rxUtilization: rx, txUtilization: tx,
  selfUtilization: total * 0.6, obssUtilization: total * 0.3, nonWifiUtilization: total * 0.1,
});

const VALUE_FIELDS = 'timestamp totalUtilization rxUtilization txUtilization selfUtilization obssUtilization nonWifiUtilization';
const RADIO_FIELDS = `band virtualDeviceUUID channel channelWidthMHz txPowerDbm noiseFloorDbm values { ${VALUE_FIELDS} }`;

describe.each(storeKinds())('channel utilization and DNS request rates on %s', (kind) => {
  let app: TestApp;
  const query = async (document: string, variables?: Record<string, unknown>, key?: string) => (await app.graphql(document, { variables, key })).body;
  const byNetwork = async (network: string, filter: Record<string, unknown>, more = '') =>
    (await query(`query ($f: MetricsFilterInput!) { r: channelUtilizationByNetwork(networkUUID: "${network}", filter: { timeFilter: $f }${more}) { ${RADIO_FIELDS} } }`, { f: filter })).data.r;
  const byAP = async (network: string, ap: string, filter: Record<string, unknown>, more = '') =>
    (await query(`query ($f: MetricsFilterInput!) { r: channelUtilizationByAP(networkUUID: "${network}", apVirtualDeviceUUID: "${ap}", filter: { timeFilter: $f }${more}) { ${RADIO_FIELDS} } }`, { f: filter })).data.r;
  const dns = async (filter: Record<string, unknown>, device: string = CONTROLLER) =>
    (await query(`query ($f: MetricsFilterInput!) { r: controllerDNSRequestRates(virtualDeviceUUID: "${device}", filter: $f) { values { timestamp value UUID } } }`, { f: filter })).data.r;
  const hour = { durationSeconds: 3600, stepSeconds: 300, endTime: at(3600) };

  beforeAll(async () => {
    app = await startTestApp(kind, { data: fixture(), clock: createTestClock(NOW).now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    const acme = [...apReports(), ...dnsReports(), report(SERIALS.acmeLabAp, at(60), { radioChannels: [radio('BAND_5G', [25, 5, 5], 149, 160, 23, -97)] })];
    const posted = await postReports(app, await createScopedKey(app, 'ingest'), acme);
    expect(posted.body).toEqual({ accepted: acme.length, duplicates: 0, rejected: [] });
    const globex = [
      report(SERIALS.globexAp, at(0), { uptimeSeconds: 10, dnsRequests: 100, radioChannels: [radio('BAND_6G', [80, 40, 40], 37, 320, 21, -99)] }),
      report(SERIALS.globexAp, at(60), { uptimeSeconds: 70, dnsRequests: 700 }),
    ];
    expect((await postReports(app, await createScopedKey(app, 'ingest', 'globex'), globex)).body).toMatchObject({ accepted: 2 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('averages each radio per bucket from the rollups, one element per access point and band, with its latest channel', async () => {
    // 2.4 GHz at 0 s: (40 + 50 + 60) / 3, rx (10 + 20 + 30) / 3, tx 20; at 300 s: (20 + 30) / 2, rx only 5 (the sample at 360 s has none), tx (5 + 10) / 2
    const band24 = { band: 'BAND_2_4G', virtualDeviceUUID: IDS.acmeAp, channel: 11, channelWidthMHz: 40, txPowerDbm: 17, noiseFloorDbm: -92 };
    const band5 = { band: 'BAND_5G', virtualDeviceUUID: IDS.acmeAp, channel: 36, channelWidthMHz: 80, txPowerDbm: 20, noiseFloorDbm: -95 };
    const expected = [
      { ...band24, values: [value(0, 50, 20, 20), value(300, 25, 5, 7.5), value(900, 70, 30, 30)] },
      { ...band5, values: [value(0, 10, 2, 3), value(300, 30, 10, 10), value(900, 50, 20, 20)] },
    ];
    expect(await byNetwork(IDS.acmeHq, hour)).toEqual(expected);
    expect(await byAP(IDS.acmeHq, IDS.acmeAp, hour)).toEqual(expected);
    // 10-minute buckets: 0 s holds five 2.4 GHz samples, (40 + 50 + 60 + 20 + 30) / 5, rx over the four that have it
    expect((await byNetwork(IDS.acmeHq, { ...hour, stepSeconds: 600 }, ', band: BAND_2_4G'))).toEqual([
      { ...band24, values: [value(0, 40, 16.25, 15), value(600, 70, 30, 30)] },
    ]);
    // the band argument, as a variable too; the lab's access point is in the lab
    expect(await byAP(IDS.acmeHq, IDS.acmeAp, hour, ', band: BAND_5G')).toEqual([expected[1]]);
    const variable = await query(
      `query ($b: RadioBand) { channelUtilizationByNetwork(networkUUID: "${IDS.acmeLab}", filter: { timeFilter: { durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" } }, band: $b) { band virtualDeviceUUID channel values { timestamp totalUtilization } } }`,
      { b: 'BAND_5G' },
    );
    expect(variable.data.channelUtilizationByNetwork).toEqual([{ band: 'BAND_5G', virtualDeviceUUID: IDS.acmeLabAp, channel: 149, values: [{ timestamp: at(0), totalUtilization: 25 }] }]);
    // a band without samples, an access point of another network, a window without samples: nothing
    expect(await byNetwork(IDS.acmeHq, hour, ', band: BAND_6G')).toEqual([]);
    expect(await byAP(IDS.acmeHq, IDS.acmeLabAp, hour)).toEqual([]);
    expect(await byNetwork(IDS.acmeHq, { ...hour, endTime: at(-60) })).toEqual([]);
  });

  it('reads raw samples for steps that are no multiple of 300 s and for the edges of a window', async () => {
    const minutes = await byAP(IDS.acmeHq, IDS.acmeAp, { ...hour, stepSeconds: 60 }, ', band: BAND_2_4G');
    expect(minutes[0].values).toEqual([value(0, 40, 10, 20), value(60, 50, 20, 20), value(120, 60, 30, 20), value(300, 20, 5, 5), value(360, 30, null, 10), value(900, 70, 30, 30)]);
    // from 30 s: the first 5 minutes are raw (samples at 60 and 120 s), the rest rollups
    const edge = await byAP(IDS.acmeHq, IDS.acmeAp, { durationSeconds: 3570, stepSeconds: 300, endTime: at(3600) }, ', band: BAND_2_4G');
    expect(edge[0].values).toEqual([value(0, 55, 25, 20), value(300, 25, 5, 7.5), value(900, 70, 30, 30)]);
    // up to 600 s: the channel as the latest sample before the end said
    const early = await byAP(IDS.acmeHq, IDS.acmeAp, { durationSeconds: 600, stepSeconds: 300, endTime: at(600) }, ', band: BAND_2_4G');
    expect(early[0]).toMatchObject({ channel: 6, channelWidthMHz: 20, txPowerDbm: 15, values: [value(0, 50, 20, 20), value(300, 25, 5, 7.5)] });
  });

  it("gives a controller's DNS requests per second per bucket from its counter, across reboots", async () => {
    const rate = (seconds: number, v: number) => ({ timestamp: at(seconds), value: v, UUID: CONTROLLER });
    // 0 s: (3000 + 3600) / (300 + 180) s; 300 s: the reboot's whole 360 in 120 s; 900 s: the lower counter's 120 in 300 s
    expect(await dns(hour)).toEqual({ values: [rate(0, 13.75), rate(300, 3), rate(600, 20), rate(900, 0.4)] });
    // 10-minute buckets: (3000 + 3600 + 360) / 600 s; (6000 + 120) / 600 s
    expect(await dns({ ...hour, stepSeconds: 600 })).toEqual({ values: [rate(0, 11.6), rate(600, 10.2)] });
    // raw readings: every pair in its own minute
    expect(await dns({ ...hour, stepSeconds: 60 })).toEqual({ values: [rate(0, 10), rate(180, 20), rate(300, 3), rate(600, 20), rate(900, 0.4)] });
    // from 60 s: the reading at 0 s precedes the window, so the first bucket holds only 3600 in 180 s
    expect(await dns({ durationSeconds: 3540, stepSeconds: 300, endTime: at(3600) })).toEqual({ values: [rate(0, 20), rate(300, 3), rate(600, 20), rate(900, 0.4)] });
    // endTime defaults to the request's time; a window without readings; a device without a counter
    expect(await dns({ durationSeconds: 3600, stepSeconds: 300 })).toEqual(await dns(hour));
    expect(await dns({ ...hour, endTime: at(-600) })).toEqual({ values: [] });
    expect(await dns(hour, IDS.acmeSwitch)).toEqual({ values: [] });
  });

  it("answers another company's network, access point and controller exactly like missing ones", async () => {
    const filter = `{ durationSeconds: 3600, stepSeconds: 60, endTime: "${at(3600)}" }`;
    const roots = (network: string, device: string) => [
      `channelUtilizationByNetwork(networkUUID: "${network}", filter: { timeFilter: ${filter} }) { band values { totalUtilization } }`,
      `channelUtilizationByAP(networkUUID: "${network}", apVirtualDeviceUUID: "${IDS.acmeAp}", filter: { timeFilter: ${filter} }) { band }`,
      `channelUtilizationByAP(networkUUID: "${IDS.acmeHq}", apVirtualDeviceUUID: "${device}", filter: { timeFilter: ${filter} }) { band }`,
      `controllerDNSRequestRates(virtualDeviceUUID: "${device}", filter: ${filter}) { values { value } }`,
    ];
    const [foreign, absent] = [roots(IDS.globexHq, IDS.globexAp), roots(MISSING, MISSING)];
    for (let i = 0; i < foreign.length; i++) {
      const [a, b] = [await query(`{ r: ${foreign[i]} }`), await query(`{ r: ${absent[i]} }`)];
      expect(a).toEqual(JSON.parse(JSON.stringify(b).replaceAll(MISSING, IDS.globexAp)));
      // an access point that is not in the network is no error: the network's own radios, none of it
      if (i === 2) expect(a).toEqual({ data: { r: [] } });
      else expect([a.data, a.errors[0].extensions.code]).toEqual([{ r: null }, 'UNAUTHORIZED']);
    }
    // globex's own key reads them
    const key = await app.createKey('globex');
    const own = await query(`{ c: channelUtilizationByNetwork(networkUUID: "${IDS.globexHq}", filter: { timeFilter: ${filter} }) { band channelWidthMHz values { timestamp totalUtilization } } d: controllerDNSRequestRates(virtualDeviceUUID: "${IDS.globexAp}", filter: ${filter}) { values { timestamp value } } }`, undefined, key);
    expect(own.data).toEqual({
      c: [{ band: 'BAND_6G', channelWidthMHz: 320, values: [{ timestamp: at(0), totalUtilization: 80 }] }],
      d: { values: [{ timestamp: at(60), value: 10 }] },
    });
  });

  it('refuses arguments outside the rules before the database, naming the argument', async () => {
    const refused = async (field: string) => {
      const body = await query(`{ r: ${field} }`);
      expect(body.data).toEqual({ r: null });
      return [body.errors[0].extensions.code, body.errors[0].extensions.argument, body.errors[0].message];
    };
    const network = (filter: string) => `channelUtilizationByNetwork(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: ${filter} }) { band }`;
    expect(await refused(network('{ durationSeconds: 3600, stepSeconds: 30 }'))).toEqual([
      'BAD_USER_INPUT', 'filter.timeFilter.stepSeconds', 'Argument "filter.timeFilter.stepSeconds" of "channelUtilizationByNetwork" is not accepted: must be at least 60 (seconds): ask for a longer step.',
    ]);
    expect((await refused(`channelUtilizationByAP(networkUUID: "${IDS.acmeHq}", apVirtualDeviceUUID: "${IDS.acmeAp}", filter: { timeFilter: { durationSeconds: 200000, stepSeconds: 240 } }) { band }`))[2]).toContain(
      'must be at most 172800: steps that are not a multiple of 300 s read the raw samples',
    );
    expect((await refused(`controllerDNSRequestRates(virtualDeviceUUID: "${CONTROLLER}", filter: { durationSeconds: 0, stepSeconds: 60 }) { values { value } }`)).slice(0, 2)).toEqual([
      'BAD_USER_INPUT', 'filter.durationSeconds',
    ]);
    // GraphQL's own validation: a band outside RadioBand (literal and variable), Meter's filter without its nesting
    const literal = await app.graphql(`{ channelUtilizationByNetwork(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: { durationSeconds: 60, stepSeconds: 60 } }, band: BAND_7G) { band } }`);
    expect(literal.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const variable = await app.graphql(`query ($b: RadioBand) { channelUtilizationByNetwork(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: { durationSeconds: 60, stepSeconds: 60 } }, band: $b) { band } }`, { variables: { b: 'BAND_7G' } });
    expect(variable.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const flat = await app.graphql(`{ channelUtilizationByNetwork(networkUUID: "${IDS.acmeHq}", filter: { durationSeconds: 60, stepSeconds: 60 }) { band } }`);
    expect(flat.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses radioChannels and dnsRequests outside the protocol with the path and a clear message, and keeps old senders working', async () => {
    const key = await createScopedKey(app, 'ingest');
    const refusal = async (extra: Record<string, unknown>) => {
      const body = (await postReports(app, key, [report(SERIALS.acmeAp, at(1200), extra)])).body;
      expect(body).toMatchObject({ accepted: 0, rejected: [{ index: 0, code: 'BAD_USER_INPUT' }] });
      return [body.rejected[0].path, body.rejected[0].message];
    };
    const good = radio('BAND_5G', [30, 10, 10], 36, 80, 20, -95);
    expect(await refusal({ radioChannels: [{ ...good, rxUtilization: 25, txUtilization: 10 }] })).toEqual([
      'reports[0].radioChannels[0].totalUtilization',
      'is 30, less than rxUtilization + txUtilization (35): the channel is busy at least while the radio receives or transmits; send percentages of the same interval',
    ]);
    expect(await refusal({ radioChannels: [good, { ...good, channel: 40 }] })).toEqual(['reports[0].radioChannels[1].radioBand', 'repeats BAND_5G: each may appear once per report']);
    expect(await refusal({ radioChannels: [{ ...good, channelWidthMHz: 30 }] })).toEqual(['reports[0].radioChannels[0].channelWidthMHz', 'must be one of 20, 40, 80, 160, 320']);
    expect(await refusal({ radioChannels: [{ ...good, obssUtilization: 100.5 }] })).toEqual(['reports[0].radioChannels[0].obssUtilization', 'must be a number from 0 to 100, or null']);
    expect(await refusal({ radioChannels: [{ ...good, radioBand: 'BAND_60G' }] })).toEqual(['reports[0].radioChannels[0].radioBand', 'must be one of BAND_2_4G, BAND_5G, BAND_6G']);
    expect(await refusal({ radioChannels: [{ channel: 6 }] })).toEqual(['reports[0].radioChannels[0].radioBand', 'must be one of BAND_2_4G, BAND_5G, BAND_6G']);
    expect((await refusal({ dnsRequests: -1 }))[0]).toBe('reports[0].dnsRequests');
    expect(await refusal({ dnsRequests: 1.5 })).toEqual(['reports[0].dnsRequests', 'must be a whole number from 0 to 9007199254740991']);
    // every field but the band may be left out or null; a report without either section is as before
    const fine = await postReports(app, key, [
      report(SERIALS.acmeAp, at(1200), { radioChannels: [{ radioBand: 'BAND_6G', channel: null, totalUtilization: null }], dnsRequests: null }),
      report(SERIALS.acmeAp, at(1210), { uptimeSeconds: 5 }),
    ]);
    expect(fine.body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    // a sample without a total utilization makes no bucket
    expect(await byNetwork(IDS.acmeHq, hour, ', band: BAND_6G')).toEqual([]);
  });

  it("reads all three roots in one statement, and prices Meter's SDK calls within a refresh", async () => {
    const key = await app.createKey('acme', 'statements');
    await app.graphql('{ __typename }', { key });
    await app.server.services.apiKeys.flushLastUsed();
    const before = app.server.store.stats.statements;
    // the SDK's selections, 4 hours of 5-minute buckets: 49 buckets, 5 elements of values
    const filter = '{ durationSeconds: 14400, stepSeconds: 300 }';
    const selection = 'band virtualDeviceUUID values { timestamp totalUtilization rxUtilization txUtilization }';
    const response = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ n: channelUtilizationByNetwork(networkUUID: "${IDS.acmeHq}", filter: { timeFilter: ${filter} }) { ${selection} } ` +
          `a: channelUtilizationByAP(networkUUID: "${IDS.acmeHq}", apVirtualDeviceUUID: "${IDS.acmeAp}", filter: { timeFilter: ${filter} }) { ${selection} } ` +
          `d: controllerDNSRequestRates(virtualDeviceUUID: "${CONTROLLER}", filter: ${filter}) { values { timestamp value UUID } } }`,
        extensions: { cost: true },
      }),
    });
    expect(app.server.store.stats.statements - before).toBe(1);
    expect(response.body.data.n).toHaveLength(2);
    expect(response.body.data.d.values).toHaveLength(4);
    // requested: 12 radios of a network, 3 of an access point, each 2 fields + 5 elements of 4; 5 elements of 3 DNS values
    const radio = 2 + 2 + 5 * 4;
    expect(response.body.extensions.cost.requested).toBe(2 + 12 * radio + (2 + 3 * radio) + (1 + 2 + 5 * 3));
    // actual: 2 radios each with 3 values (one element), and 4 DNS values
    const actual = 2 + 2 + 1 * 4;
    expect(response.body.extensions.cost.actual).toBe(2 + 2 * actual + (2 + 2 * actual) + (1 + 2 + 1 * 3));
  });

  it('answers steps that are multiples of 300 s from the 5-minute rollups: with the raw samples of the hour gone, they answer the same', async () => {
    const [radios, rates] = [await byAP(IDS.acmeHq, IDS.acmeAp, hour), await dns(hour)];
    await app.server.store.db.deleteFrom('radio_samples').where('observed_at', '>=', at(0)).execute();
    await app.server.store.db.deleteFrom('dns_counters').where('observed_at', '>=', at(0)).execute();
    // the channel is that of the latest raw sample, gone now
    expect(await byAP(IDS.acmeHq, IDS.acmeAp, hour)).toEqual(radios.map((r: Record<string, unknown>) => ({ ...r, channel: null, channelWidthMHz: null, txPowerDbm: null, noiseFloorDbm: null })));
    expect(await dns(hour)).toEqual(rates);
    // a step that reads raw samples finds none
    expect(await byAP(IDS.acmeHq, IDS.acmeAp, { ...hour, stepSeconds: 60 })).toEqual([]);
    expect(await dns({ ...hour, stepSeconds: 60 })).toEqual({ values: [] });
  });
});
