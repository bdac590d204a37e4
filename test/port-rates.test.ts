import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { CONTROLLER as CONTROLLER_DEVICE, IDS, SERIALS, createFixtureWithController as fixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// Meter's port counter roots of switches and controllers (switchPortMetricsRate, controllerPortStats,
// controllerPortMetricsRate) over HTTP, from reports posted through POST /api/v1/reports. The clock stands
// one hour after REPORT_EPOCH, a multiple of 300 s.
const NOW = REPORT_EPOCH + 3_600_000;
const { uuid: CONTROLLER, serial: CONTROLLER_SERIAL } = CONTROLLER_DEVICE;

/** A port whose counters derive from `rx` (bytes received): sent rx/2, packets rx/10 and rx/20, no errors. */
const port = (portNumber: number, rx: number, rxErrors = 0) => ({
  portNumber, label: null, portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: false, isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: null,
  counters: { rxBytes: rx, txBytes: rx / 2, rxPackets: rx / 10, txPackets: rx / 20, rxErrors, txErrors: 0 },
});

/**
 * The switch's port 1 received, at each reading (seconds after REPORT_EPOCH): the growth to the next and its
 * rate per second in the comment. Port 2 never grows. It reboots at 300 s.
 */
const SWITCH_READINGS: readonly [seconds: number, uptime: number, rx: number][] = [
  [-300, 10_000, 1000], // baseline, before the hour
  [0, 10_300, 4000], // +3000 in 300 s: 10/s
  [120, 10_420, 5800], // +1800 in 120 s: 15/s
  [240, 10_540, 6400], // +600 in 120 s: 5/s
  [300, 30, 120], // rebooted: 120 counts whole, in 60 s: 2/s
  [420, 150, 1500], // +1380 in 120 s: 11.5/s
  [540, 270, 3000], // +1500 in 120 s: 12.5/s
  [900, 630, 10_200], // +7200 in 360 s: 20/s
];

function reports(): Record<string, unknown>[] {
  const sw = SWITCH_READINGS.map(([seconds, uptimeSeconds, rx]) => report(SERIALS.acmeSwitch, at(seconds), { uptimeSeconds, interfaces: [port(1, rx, seconds >= 900 ? 3 : 0), port(2, 0)] }));
  const controller = [
    [0, 1000, 1000],
    [600, 1600, 7000], // +6000 in 600 s: 10/s
    [1200, 20, 600], // rebooted: 600 in 600 s: 1/s
  ].map(([seconds, uptimeSeconds, rx]) => report(CONTROLLER_SERIAL, at(seconds as number), { uptimeSeconds, interfaces: [port(1, rx as number)] }));
  return [...sw, ...controller];
}

const FIELDS = 'timestamp portNumber totalRxBytes totalTxBytes totalRxPackets totalTxPackets errorRxPackets errorTxPackets';

/** A value of port 1 (`rx` bytes per second; the rest derive from it) or of the idle port 2. */
const value = (seconds: number, portNumber: number, rx: number, errors = 0) => ({
  timestamp: at(seconds), portNumber, totalRxBytes: rx, totalTxBytes: rx / 2, totalRxPackets: rx / 10, totalTxPackets: rx / 20, errorRxPackets: errors, errorTxPackets: 0,
});
const both = (seconds: number, rx: number, errors = 0) => [value(seconds, 1, rx, errors), value(seconds, 2, 0)];

describe.each(storeKinds())('port counter rates and controller totals on %s', (kind) => {
  let app: TestApp;
  const query = async (document: string, variables?: Record<string, unknown>) => (await app.graphql(document, { variables })).body;
  const rates = async (filter: Record<string, unknown>, more = '', root = 'switchPortMetricsRate', device: string = IDS.acmeSwitch) =>
    (await query(`query ($f: MetricsFilterInput!) { r: ${root}(virtualDeviceUUID: "${device}", filter: $f${more}) { values { ${FIELDS} } } }`, { f: filter })).data.r;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: fixture(), clock: createTestClock(NOW).now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    const posted = await postReports(app, await createScopedKey(app, 'ingest'), reports());
    expect(posted.body).toMatchObject({ accepted: reports().length, rejected: [] });
    const globex = await postReports(app, await createScopedKey(app, 'ingest', 'globex'), [report(SERIALS.globexAp, at(0), { interfaces: [port(1, 20)] }), report(SERIALS.globexAp, at(60), { interfaces: [port(1, 80)] })]);
    expect(globex.body).toMatchObject({ accepted: 2 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('gives each port rate per bucket from the rollups: the growth of the pairs ending in it over their seconds, across a reboot', async () => {
    // 0 s: (3000 + 1800 + 600) / (300 + 120 + 120) s; 300 s: the reboot's whole 3000 / 300 s; 900 s: 7200 / 360 s
    // (with 3 receive errors over 360 s in the last); the idle port 2 at 0
    const hour = { durationSeconds: 3600, stepSeconds: 300, endTime: at(3600) };
    expect(await rates(hour)).toEqual({ values: [...both(0, 10), ...both(300, 10), ...both(900, 20, 3 / 360)] });
    // 10-minute buckets: (5400 + 3000) / 840 s; 7200 / 360 s
    expect((await rates({ ...hour, stepSeconds: 600 })).values).toEqual([...both(0, 10), ...both(600, 20, 3 / 360)]);
    // one port
    expect((await rates({ ...hour, stepSeconds: 600 }, ', portNumber: 2')).values).toEqual([value(0, 2, 0), value(600, 2, 0)]);
    // endTime defaults to the request's time
    expect((await rates({ durationSeconds: 3600, stepSeconds: 300 }, ', portNumber: 1')).values).toEqual([value(0, 1, 10), value(300, 1, 10), value(900, 1, 20, 3 / 360)]);
  });

  it('reads raw readings for steps that are no multiple of 300 s and for the edges of a window', async () => {
    // every pair in its own minute
    const minutes = await rates({ durationSeconds: 3600, stepSeconds: 60, endTime: at(3600) }, ', portNumber: 1');
    expect(minutes.values).toEqual([value(0, 1, 10), value(120, 1, 15), value(240, 1, 5), value(300, 1, 2), value(420, 1, 11.5), value(540, 1, 12.5), value(900, 1, 20, 3 / 360)]);
    // from 60 s: the reading at 0 s precedes the window; its pair with the baseline is outside it: (1800 + 600) / 240 s
    expect((await rates({ durationSeconds: 3540, stepSeconds: 300, endTime: at(3600) }, ', portNumber: 1')).values).toEqual([value(0, 1, 10), value(300, 1, 10), value(900, 1, 20, 3 / 360)]);
    // up to 400 s: the 5-minute bucket of 300 s holds only the reboot's 120 in 60 s
    expect((await rates({ durationSeconds: 400, stepSeconds: 300, endTime: at(400) }, ', portNumber: 1')).values).toEqual([value(0, 1, 10), value(300, 1, 2)]);
    // a window with no readings: no values
    expect(await rates({ durationSeconds: 3600, stepSeconds: 300, endTime: at(-3600) })).toEqual({ values: [] });
  });

  it("answers Meter's SDK call unchanged, and prices the SDK's recommended window of every port within a refresh", async () => {
    // 4 hours of 5-minute buckets: 49 buckets × 52 ports / 50 = 51 elements of 4 fields, + 2 + 1
    const sdk = `{ switchPortMetricsRate(virtualDeviceUUID: "${IDS.acmeSwitch}", filter: { durationSeconds: 14400, stepSeconds: 300 }) { values { portNumber timestamp totalRxBytes totalTxBytes } } }`;
    const priced = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${await app.createKey('acme')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: sdk, extensions: { cost: true } }),
    });
    expect(priced.body.extensions.cost).toMatchObject({ requested: 1 + 2 + 51 * 4, actual: 1 + 2 + 1 * 4 });
    // a day of 5-minute buckets of every port is refused before it runs; of one port it is cheap
    const day = await app.graphql(sdk.replace('14400', '86400'));
    expect([day.status, day.body.errors[0].extensions.code]).toEqual([422, 'COMPLEXITY_LIMIT_EXCEEDED']);
    const body = await query(`{ switchPortMetricsRate(virtualDeviceUUID: "${IDS.acmeSwitch}", filter: { durationSeconds: 3600, stepSeconds: 300 }, portNumber: 1) { values { portNumber timestamp totalRxBytes totalTxBytes } } }`);
    expect(body).toEqual({
      data: { switchPortMetricsRate: { values: [0, 300, 900].map((s, i) => ({ portNumber: 1, timestamp: at(s), totalRxBytes: [10, 10, 20][i], totalTxBytes: [5, 5, 10][i] })) } },
    });
  });

  it("totals and rates a controller's ports as switchPortStats and switchPortMetricsRate do a switch's", async () => {
    const stats = await query(`{ controllerPortStats(virtualDeviceUUID: "${CONTROLLER}") { portNumber totalRxBytes totalTxBytes totalRxPackets totalTxPackets errorRxPackets errorTxPackets } }`);
    // the first reading is the baseline: +6000, then the reboot's 600
    expect(stats.data.controllerPortStats).toEqual([{ portNumber: 1, totalRxBytes: 6600, totalTxBytes: 3300, totalRxPackets: 660, totalTxPackets: 330, errorRxPackets: 0, errorTxPackets: 0 }]);
    expect((await query(`{ controllerPortStats(virtualDeviceUUID: "${CONTROLLER}", portNumber: 2, lookbackHours: 2) { portNumber } }`)).data.controllerPortStats).toEqual([]);
    const hour = { durationSeconds: 3600, stepSeconds: 300, endTime: at(3600) };
    expect(await rates(hour, '', 'controllerPortMetricsRate', CONTROLLER)).toEqual({ values: [value(600, 1, 10), value(1200, 1, 1)] });
    // the same counters through either root: the device's type does not change what its ports counted
    expect(await rates(hour, '', 'switchPortMetricsRate', CONTROLLER)).toEqual(await rates(hour, '', 'controllerPortMetricsRate', CONTROLLER));
    // a device without hardware has no ports
    expect(await rates(hour, '', 'controllerPortMetricsRate', IDS.acmeObserver)).toEqual({ values: [] });
    expect((await query(`{ controllerPortStats(virtualDeviceUUID: "${IDS.acmeObserver}") { portNumber } }`)).data.controllerPortStats).toEqual([]);
  });

  it("answers another company's device exactly like a missing one", async () => {
    const missing = '99999999-9999-4999-8999-999999999999';
    const filter = '{ durationSeconds: 3600, stepSeconds: 60 }';
    const roots = (device: string) => [
      `switchPortMetricsRate(virtualDeviceUUID: "${device}", filter: ${filter}) { values { totalRxBytes } }`,
      `controllerPortMetricsRate(virtualDeviceUUID: "${device}", filter: ${filter}, portNumber: 1) { values { totalRxBytes } }`,
      `controllerPortStats(virtualDeviceUUID: "${device}") { portNumber totalRxBytes }`,
    ];
    const [foreign, absent] = [roots(IDS.globexAp), roots(missing)];
    for (let i = 0; i < foreign.length; i++) {
      const [a, b] = [await query(`{ r: ${foreign[i]} }`), await query(`{ r: ${absent[i]} }`)];
      expect(a.data).toEqual({ r: null });
      expect(a.errors[0].extensions.code).toBe('UNAUTHORIZED');
      expect(a).toEqual(JSON.parse(JSON.stringify(b).replaceAll(missing, IDS.globexAp)));
    }
    // globex's own key reads them
    const key = await app.createKey('globex');
    const own = await app.graphql(`{ switchPortMetricsRate(virtualDeviceUUID: "${IDS.globexAp}", filter: { durationSeconds: 3600, stepSeconds: 60, endTime: "${at(3600)}" }) { values { timestamp totalRxBytes } } }`, { key });
    expect(own.body.data.switchPortMetricsRate).toEqual({ values: [{ timestamp: at(60), totalRxBytes: 1 }] });
  });

  it('refuses arguments outside the rules before the database, naming the argument', async () => {
    const refused = async (field: string) => {
      const body = await query(`{ r: ${field} }`);
      expect(body.data).toEqual({ r: null });
      return [body.errors[0].extensions.code, body.errors[0].extensions.argument, body.errors[0].message];
    };
    const rate = (filter: string, more = '') => `controllerPortMetricsRate(virtualDeviceUUID: "${CONTROLLER}", filter: ${filter}${more}) { values { totalRxBytes } }`;
    expect(await refused(rate('{ durationSeconds: 3600, stepSeconds: 30 }'))).toEqual([
      'BAD_USER_INPUT', 'filter.stepSeconds', 'Argument "filter.stepSeconds" of "controllerPortMetricsRate" is not accepted: must be at least 60 (seconds): ask for a longer step.',
    ]);
    // one port: over every port, these windows would be refused first for their cost
    expect((await refused(rate('{ durationSeconds: 60060, stepSeconds: 60 }', ', portNumber: 1'))).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'filter.durationSeconds']);
    expect((await refused(rate('{ durationSeconds: 200000, stepSeconds: 240 }', ', portNumber: 1')))[2]).toContain('must be at most 172800: steps that are not a multiple of 300 s read the raw samples');
    expect(await refused(rate('{ durationSeconds: 3600, stepSeconds: 60 }', ', portNumber: -1'))).toEqual([
      'BAD_USER_INPUT', 'portNumber', 'Argument "portNumber" of "controllerPortMetricsRate" is not accepted: must be 0 to 65535: ports are numbered as the device reports them.',
    ]);
    expect((await refused(`switchPortMetricsRate(virtualDeviceUUID: "${IDS.acmeSwitch}", filter: { durationSeconds: 3600, stepSeconds: 300 }, portNumber: 65536) { values { timestamp } }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'portNumber']);
    expect((await refused(`controllerPortStats(virtualDeviceUUID: "${CONTROLLER}", lookbackHours: 0) { portNumber }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'lookbackHours']);
    // GraphQL's own validation: a missing argument, a wrong type
    const missing = await app.graphql('{ controllerPortStats(portNumber: 1) { portNumber } }');
    expect(missing.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    // a rate series without its filter is refused for the missing argument, not priced at its largest and refused for its cost
    const noFilter = await app.graphql(`{ switchPortMetricsRate(virtualDeviceUUID: "${IDS.acmeSwitch}") { values { timestamp totalRxBytes } } }`);
    expect(noFilter.body.errors.map((e: { extensions: { code: string }; message: string }) => [e.extensions.code, e.message])).toEqual([
      ['GRAPHQL_VALIDATION_FAILED', 'Field "switchPortMetricsRate" argument "filter" of type "MetricsFilterInput!" is required, but it was not provided.'],
    ]);
    const wrongType = await app.graphql(`{ controllerPortStats(virtualDeviceUUID: "${CONTROLLER}", portNumber: "1") { portNumber } }`);
    expect(wrongType.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('reads all three roots in one statement, and prices a rate series by the buckets and ports it may return', async () => {
    const key = await app.createKey('acme', 'statements');
    await app.graphql('{ __typename }', { key });
    await app.server.services.apiKeys.flushLastUsed();
    const before = app.server.store.stats.statements;
    const filter = `{ durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" }`;
    const response = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ s: switchPortMetricsRate(virtualDeviceUUID: "${IDS.acmeSwitch}", filter: ${filter}) { values { timestamp totalRxBytes } } ` +
          `c: controllerPortMetricsRate(virtualDeviceUUID: "${CONTROLLER}", filter: ${filter}, portNumber: 1) { values { timestamp totalRxBytes } } ` +
          `t: controllerPortStats(virtualDeviceUUID: "${CONTROLLER}") { portNumber } }`,
        extensions: { cost: true },
      }),
    });
    expect(app.server.store.stats.statements - before).toBe(1);
    expect(response.body.data.s.values).toHaveLength(6);
    // requested: 13 buckets × 52 ports / 50 = 14 elements of 2 fields (+ 2 + 1), 13 / 50 = 1 element for one port, 2 + 5 for the totals
    expect(response.body.extensions.cost.requested).toBe(1 + 2 + 14 * 2 + (1 + 2 + 1 * 2) + (2 + 5 * 1));
    // actual: 6 values, 2 values and 1 port
    expect(response.body.extensions.cost.actual).toBe(1 + 2 + 1 * 2 + (1 + 2 + 1 * 2) + (2 + 1 * 1));
  });
});
