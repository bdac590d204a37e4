import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// PDU outlets and temperature (issue 32) over HTTP, from reports posted through POST /api/v1/reports: the
// outlets as the PDU's latest report lists them, pduMetrics and pdusMetrics with hand-computed averages,
// PDU_OUTLET_STATUS_CHANGED, scoping and validation. The clock stands one hour after REPORT_EPOCH.
const NOW = REPORT_EPOCH + 3_600_000;
const PDU = '22222222-2222-4222-8222-2222222222d1';
const PDU_SERIAL = 'M1A3-PD00-0001';
const GLOBEX_PDU = '44444444-4444-4444-8444-4444444444d1';
const GLOBEX_PDU_SERIAL = 'G7X2-PD00-0001';
const MISSING = '99999999-9999-4999-8999-999999999999';

/** The fixture with a PDU in acme's HQ and one in globex's. */
function fixture() {
  const data = createFixture();
  const pdu = (UUID: string, serialNumber: string) => ({
    UUID, label: 'Rack PDU', deviceType: 'POWER_DISTRIBUTION_UNIT', deviceModel: 'PDU-8', isOnline: true,
    hardwareDevice: { serialNumber, deviceType: 'POWER_DISTRIBUTION_UNIT', deviceModel: 'PDU-8', isConnectedToBackend: true },
  });
  (data.companies[0]?.networks?.[0]?.virtualDevices as unknown[]).push(pdu(PDU, PDU_SERIAL));
  (data.companies[1]?.networks?.[0]?.virtualDevices as unknown[]).push(pdu(GLOBEX_PDU, GLOBEX_PDU_SERIAL));
  return data;
}

type Reading = [isOn: boolean, amps: number, watts: number, volts: number | null, kWh: number];

/**
 * The PDU's readings (seconds after REPORT_EPOCH: temperature, outlet 1, outlet 2). Outlet 2 is switched on at
 * 240 s, outlet 1 off at 600 s (and relabelled); outlet 2 gives no voltage at 360 s; outlet 1's energy counter
 * is reset at 600 s.
 */
const READINGS: readonly [seconds: number, celsius: number, one: Reading, two: Reading][] = [
  [0, 30, [true, 1, 230, 230, 10], [false, 0, 0, 230, 5]],
  [120, 32, [true, 2, 460, 232, 10.1], [false, 0, 0, 227, 5]],
  [240, 34, [true, 3, 690, 234, 10.2], [true, 1.5, 150, 233, 5]],
  [360, 36, [true, 1, 230, 230, 10.3], [true, 0.5, 120, null, 5.1]],
  [600, 40, [false, 0, 0, 230, 0.1], [true, 1.5, 345, 230, 5.2]],
];

const outlet = (outletNumber: number, label: string, [isOn, currentAmps, powerWatts, voltageVolts, energyKWh]: Reading) => ({
  outletNumber, label, isOn, currentAmps, powerWatts, voltageVolts, energyKWh,
});

function pduReports(): Record<string, unknown>[] {
  return READINGS.map(([seconds, temperatureCelsius, one, two]) =>
    report(PDU_SERIAL, at(seconds), { temperatureCelsius, outlets: [outlet(1, seconds >= 600 ? 'Core switch A' : 'Core switch', one), outlet(2, 'Spare', two)] }),
  );
}

const SERIES = 'metadata { minValue maxValue } values { timestamp value outletNumber label }';
const FIELDS = `virtualDeviceUUID temperatureCelsius { metadata { minValue maxValue } values { timestamp value } } currentAmps { ${SERIES} } powerWatts { ${SERIES} } voltageVolts { ${SERIES} }`;

/** Values of an outlet series: [seconds, outlet, value]. */
const values = (...list: [number, number, number][]) =>
  list.map(([seconds, outletNumber, value]) => ({ timestamp: at(seconds), value, outletNumber, label: outletNumber === 1 ? 'Core switch A' : 'Spare' }));
const temperatures = (...list: [number, number][]) => list.map(([seconds, value]) => ({ timestamp: at(seconds), value }));
const series = <T extends { value: number }>(list: T[]) => ({ metadata: { minValue: Math.min(...list.map((v) => v.value)), maxValue: Math.max(...list.map((v) => v.value)) }, values: list });

describe.each(storeKinds())('PDU outlets and metrics on %s', (kind) => {
  let app: TestApp;
  const clock = createTestClock(NOW);
  const query = async (document: string, variables?: Record<string, unknown>, key?: string) =>
    (await app.graphql(document, key === undefined ? { variables } : { variables, key })).body;
  const metrics = async (filter: Record<string, unknown>, device = PDU) =>
    (await query(`query ($f: MetricsFilterInput!) { r: pduMetrics(virtualDeviceUUID: "${device}", filter: $f) { ${FIELDS} } }`, { f: filter })).data.r;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: fixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    const key = await createScopedKey(app, 'ingest');
    // two requests: the switch at 600 s is found against the stored outlets, the one at 240 s within a request
    const reports = pduReports();
    expect((await postReports(app, key, reports.slice(0, 4))).body).toMatchObject({ accepted: 4, rejected: [] });
    expect((await postReports(app, key, reports.slice(4))).body).toMatchObject({ accepted: 1, rejected: [] });
    const globex = await postReports(app, await createScopedKey(app, 'ingest', 'globex'), [
      report(GLOBEX_PDU_SERIAL, at(0), { temperatureCelsius: 25, outlets: [{ outletNumber: 1, label: 'Globex', isOn: true, powerWatts: 100 }] }),
    ]);
    expect(globex.body).toMatchObject({ accepted: 1 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('averages each outlet and the temperature per 5-minute bucket from the rollups', async () => {
    // bucket 0 holds the readings at 0, 120 and 240 s, bucket 300 that at 360 s, bucket 600 that at 600 s
    const answer = await metrics({ durationSeconds: 3600, stepSeconds: 300, endTime: at(3600) });
    expect(answer).toEqual({
      virtualDeviceUUID: PDU,
      temperatureCelsius: series(temperatures([0, 32], [300, 36], [600, 40])),
      // (1 + 2 + 3) / 3; (0 + 0 + 1.5) / 3
      currentAmps: series(values([0, 1, 2], [0, 2, 0.5], [300, 1, 1], [300, 2, 0.5], [600, 1, 0], [600, 2, 1.5])),
      powerWatts: series(values([0, 1, 460], [0, 2, 50], [300, 1, 230], [300, 2, 120], [600, 1, 0], [600, 2, 345])),
      // outlet 2 gave no voltage at 360 s: no value there, and the others average only the readings that have one
      voltageVolts: series(values([0, 1, 232], [0, 2, 230], [300, 1, 230], [600, 1, 230], [600, 2, 230])),
    });
    // 10-minute buckets: four readings in the first, (230 + 460 + 690 + 230) / 4
    const tenMinutes = await metrics({ durationSeconds: 3600, stepSeconds: 600, endTime: at(3600) });
    expect(tenMinutes.powerWatts.values).toEqual(values([0, 1, 402.5], [0, 2, 67.5], [600, 1, 0], [600, 2, 345]));
    expect(tenMinutes.temperatureCelsius.values).toEqual(temperatures([0, 33], [600, 40]));
    // (230 + 227 + 233) / 3: the reading without a voltage counts for nothing
    expect(tenMinutes.voltageVolts.values.filter((v: { outletNumber: number }) => v.outletNumber === 2)).toEqual(values([0, 2, 230], [600, 2, 230]));
  });

  it('reads the raw readings for a step that is no multiple of 300 s and for the edges of a window', async () => {
    // 4-minute buckets: 0 holds 0 and 120 s, 240 holds 240 and 360 s, 480 holds 600 s
    const raw = await metrics({ durationSeconds: 3600, stepSeconds: 240, endTime: at(3600) });
    expect(raw.powerWatts.values).toEqual(values([0, 1, 345], [0, 2, 0], [240, 1, 460], [240, 2, 135], [480, 1, 0], [480, 2, 345]));
    expect(raw.temperatureCelsius).toEqual(series(temperatures([0, 31], [240, 35], [480, 40])));
    // from 60 s: the reading at 0 s is outside the window; the partial first bucket reads the raw 120 and 240 s
    const edge = await metrics({ durationSeconds: 3540, stepSeconds: 300, endTime: at(3600) });
    expect(edge.powerWatts.values).toEqual(values([0, 1, 575], [0, 2, 75], [300, 1, 230], [300, 2, 120], [600, 1, 0], [600, 2, 345]));
    expect(edge.temperatureCelsius.values).toEqual(temperatures([0, 33], [300, 36], [600, 40]));
    // the window ends before 600 s (exclusive)
    expect((await metrics({ durationSeconds: 600, stepSeconds: 300, endTime: at(600) })).temperatureCelsius.values).toEqual(temperatures([0, 32], [300, 36]));
    // nothing in the window: empty series
    expect((await metrics({ durationSeconds: 3600, stepSeconds: 300, endTime: at(-3600) })).powerWatts).toEqual({ metadata: { minValue: null, maxValue: null }, values: [] });
  });

  it("sums each outlet's energy used per bucket from its counter, counting a reset's reading whole", async () => {
    const energy = async (stepSeconds: number) => {
      const body = await query(`{ pduMetrics(virtualDeviceUUID: "${PDU}", filter: { durationSeconds: 3600, stepSeconds: ${stepSeconds}, endTime: "${at(3600)}" }) { energyKWh { values { timestamp value outletNumber } } } }`);
      return (body.data.pduMetrics.energyKWh.values as { timestamp: string; value: number; outletNumber: number }[]).map((v) => [v.timestamp, v.outletNumber, Math.round(v.value * 1e9) / 1e9]);
    };
    // outlet 1: 10, 10.1, 10.2, 10.3 (the first request), then 0.1 (a reset, against the stored 10.3: 0.1 whole);
    // outlet 2: 5, 5, 5, 5.1, 5.2. The first reading has no previous one: it used nothing known
    expect(await energy(300)).toEqual([[at(0), 1, 0.2], [at(0), 2, 0], [at(300), 1, 0.1], [at(300), 2, 0.1], [at(600), 1, 0.1], [at(600), 2, 0.1]]);
    expect(await energy(240)).toEqual([[at(0), 1, 0.1], [at(0), 2, 0], [at(240), 1, 0.2], [at(240), 2, 0.1], [at(480), 1, 0.1], [at(480), 2, 0.1]]);
  });

  it('lists the outlets as the latest report does, and records each switch as PDU_OUTLET_STATUS_CHANGED', async () => {
    const body = await query(`{ pduMetrics(virtualDeviceUUID: "${PDU}", filter: { durationSeconds: 300, stepSeconds: 300 }) { outlets { outletNumber label isOn currentAmps powerWatts voltageVolts energyKWh updatedAt } } }`);
    expect(body.data.pduMetrics.outlets).toEqual([
      { outletNumber: 1, label: 'Core switch A', isOn: false, currentAmps: 0, powerWatts: 0, voltageVolts: 230, energyKWh: 0.1, updatedAt: at(600) },
      { outletNumber: 2, label: 'Spare', isOn: true, currentAmps: 1.5, powerWatts: 345, voltageVolts: 230, energyKWh: 5.2, updatedAt: at(600) },
    ]);
    const events = await query(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 10, typeFilter: [PDU_OUTLET_STATUS_CHANGED]) { total events { eventType eventTypeName generatedAt virtualDevice { UUID } details } } }`);
    expect(events.data.recentEventLogEventsPage).toEqual({
      total: 2,
      events: [
        { eventType: 'PDU_OUTLET_STATUS_CHANGED', eventTypeName: 'PDU outlet switched', generatedAt: at(600), virtualDevice: { UUID: PDU }, details: JSON.stringify({ outletNumber: 1, label: 'Core switch A', isOn: false }) },
        { eventType: 'PDU_OUTLET_STATUS_CHANGED', eventTypeName: 'PDU outlet switched', generatedAt: at(240), virtualDevice: { UUID: PDU }, details: JSON.stringify({ outletNumber: 2, label: 'Spare', isOn: true }) },
      ],
    });
    // a late report changes no outlet and records nothing
    const late = await postReports(app, await createScopedKey(app, 'ingest'), [report(PDU_SERIAL, at(500), { outlets: [outlet(1, 'Old', [true, 1, 1, 1, 1])] })]);
    expect(late.body).toMatchObject({ accepted: 1 });
    const after = await query(`{ pduMetrics(virtualDeviceUUID: "${PDU}", filter: { durationSeconds: 300, stepSeconds: 300 }) { outlets { label isOn } } }`);
    expect(after.data.pduMetrics.outlets).toEqual([{ label: 'Core switch A', isOn: false }, { label: 'Spare', isOn: true }]);
    expect((await query(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 10, typeFilter: [PDU_OUTLET_STATUS_CHANGED]) { total } }`)).data.recentEventLogEventsPage.total).toBe(2);
  });

  it("answers Meter's SDK calls, pdusMetrics in the order asked, and a device without outlets with empty series", async () => {
    const filter = `{ durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" }`;
    const sdk = await query(`{ pdusMetrics(virtualDeviceUUIDs: ["${IDS.acmeSwitch}", "${PDU}"], filter: ${filter}) { virtualDeviceUUID temperatureCelsius { values { timestamp value } } outlets { outletNumber } } }`);
    expect(sdk.data.pdusMetrics).toEqual([
      { virtualDeviceUUID: IDS.acmeSwitch, temperatureCelsius: { values: [] }, outlets: [] },
      { virtualDeviceUUID: PDU, temperatureCelsius: { values: temperatures([0, 32], [300, 36], [600, 40]) }, outlets: [{ outletNumber: 1 }, { outletNumber: 2 }] },
    ]);
    const one = await query(`{ pduMetrics(virtualDeviceUUID: "${PDU}", filter: ${filter}) { virtualDeviceUUID temperatureCelsius { values { timestamp value } } } }`);
    expect(one.data.pduMetrics.temperatureCelsius.values).toEqual(sdk.data.pdusMetrics[1].temperatureCelsius.values);
  });

  it("prices Meter's SDK calls by the buckets they may return and charges what they hold", async () => {
    const cost = async (document: string) => {
      const response = await app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${await app.createKey('acme')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: document, extensions: { cost: true } }),
      });
      expect(response.body.errors).toBeUndefined();
      const { requested, actual } = response.body.extensions.cost;
      return { requested, actual };
    };
    const filter = `{ durationSeconds: 14400, stepSeconds: 300, endTime: "${at(3600)}" }`;
    // 4 hours of 5-minute buckets: 49 buckets, 5 elements of 2 fields; 3 buckets hold data, 1 element
    expect(await cost(`{ pduMetrics(virtualDeviceUUID: "${PDU}", filter: ${filter}) { virtualDeviceUUID temperatureCelsius { values { timestamp value } } } }`)).toEqual({
      requested: 1 + 1 + (1 + 2 + 5 * 2),
      actual: 1 + 1 + (1 + 2 + 1 * 2),
    });
    expect(await cost(`{ pdusMetrics(virtualDeviceUUIDs: ["${PDU}"], filter: ${filter}) { virtualDeviceUUID temperatureCelsius { values { timestamp value } } } }`)).toEqual({
      requested: 2 + 1 * (1 + (1 + 2 + 5 * 2)),
      actual: 2 + 1 * (1 + (1 + 2 + 1 * 2)),
    });
    // an outlet series: 49 buckets × 24 outlets / 50 = 24 elements of 3 fields; the outlets 11 elements of 1
    expect(await cost(`{ pduMetrics(virtualDeviceUUID: "${PDU}", filter: ${filter}) { powerWatts { values { timestamp value outletNumber } } outlets { outletNumber } } }`)).toEqual({
      requested: 1 + (1 + 2 + 24 * 3) + (2 + 11 * 1),
      actual: 1 + (1 + 2 + 1 * 3) + (2 + 1 * 1),
    });
  });

  it("answers another company's PDU exactly like a missing one", async () => {
    const filter = '{ durationSeconds: 3600, stepSeconds: 300 }';
    for (const root of [(d: string) => `pduMetrics(virtualDeviceUUID: "${d}", filter: ${filter}) { virtualDeviceUUID }`, (d: string) => `pdusMetrics(virtualDeviceUUIDs: ["${PDU}", "${d}"], filter: ${filter}) { virtualDeviceUUID }`]) {
      const [foreign, absent] = [await query(`{ r: ${root(GLOBEX_PDU)} }`), await query(`{ r: ${root(MISSING)} }`)];
      expect(foreign.data).toEqual({ r: null });
      expect(foreign.errors[0].extensions.code).toBe('UNAUTHORIZED');
      expect(foreign).toEqual(JSON.parse(JSON.stringify(absent).replaceAll(MISSING, GLOBEX_PDU)));
    }
    // globex's own key reads its PDU
    const own = await query(`{ pduMetrics(virtualDeviceUUID: "${GLOBEX_PDU}", filter: { durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" }) { powerWatts { values { value outletNumber label } } } }`, undefined, await app.createKey('globex'));
    expect(own.data.pduMetrics.powerWatts.values).toEqual([{ value: 100, outletNumber: 1, label: 'Globex' }]);
  });

  it('refuses arguments outside the rules before the database, naming the argument', async () => {
    const refused = async (field: string) => {
      const body = await query(`{ r: ${field} }`);
      expect(body.data).toEqual({ r: null });
      return [body.errors[0].extensions.code, body.errors[0].extensions.argument, body.errors[0].message];
    };
    expect(await refused(`pduMetrics(virtualDeviceUUID: "${PDU}", filter: { durationSeconds: 3600, stepSeconds: 30 }) { virtualDeviceUUID }`)).toEqual([
      'BAD_USER_INPUT', 'filter.stepSeconds', 'Argument "filter.stepSeconds" of "pduMetrics" is not accepted: must be at least 60 (seconds): ask for a longer step.',
    ]);
    expect((await refused(`pduMetrics(virtualDeviceUUID: "${PDU}", filter: { durationSeconds: 200000, stepSeconds: 240 }) { virtualDeviceUUID }`))[2]).toContain('must be at most 172800');
    expect((await refused(`pdusMetrics(virtualDeviceUUIDs: ["${PDU}"], filter: { durationSeconds: 0, stepSeconds: 300 }) { virtualDeviceUUID }`)).slice(0, 2)).toEqual(['BAD_USER_INPUT', 'filter.durationSeconds']);
    const many = JSON.stringify(Array.from({ length: 51 }, () => PDU));
    expect(await refused(`pdusMetrics(virtualDeviceUUIDs: ${many}, filter: { durationSeconds: 300, stepSeconds: 300 }) { virtualDeviceUUID }`)).toEqual([
      'BAD_USER_INPUT', 'virtualDeviceUUIDs', 'Argument "virtualDeviceUUIDs" of "pdusMetrics" is not accepted: names 51 devices; at most 50: ask in several requests.',
    ]);
    const missing = await app.graphql(`{ pduMetrics(virtualDeviceUUID: "${PDU}") { virtualDeviceUUID } }`);
    expect(missing.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses outlets and temperatures outside the protocol, naming the field', async () => {
    const key = await createScopedKey(app, 'ingest');
    const rejection = async (extra: Record<string, unknown>) => {
      const body = (await postReports(app, key, [report(PDU_SERIAL, at(3000), extra)])).body;
      expect(body.accepted).toBe(0);
      return [body.rejected[0].path, body.rejected[0].message];
    };
    expect(await rejection({ temperatureCelsius: 151 })).toEqual(['reports[0].temperatureCelsius', 'must be a number from -50 to 150, or null']);
    expect(await rejection({ temperatureCelsius: '30' })).toEqual(['reports[0].temperatureCelsius', 'must be a number from -50 to 150, or null']);
    expect(await rejection({ outlets: [{ outletNumber: 0 }] })).toEqual(['reports[0].outlets[0].outletNumber', 'must be a whole number from 1 to 1024']);
    expect(await rejection({ outlets: [{ label: 'x' }] })).toEqual(['reports[0].outlets[0].outletNumber', 'must be a whole number from 1 to 1024']);
    expect(await rejection({ outlets: [{ outletNumber: 1, isOn: 'yes' }] })).toEqual(['reports[0].outlets[0].isOn', 'must be true or false']);
    expect(await rejection({ outlets: [{ outletNumber: 1, currentAmps: -1 }] })).toEqual(['reports[0].outlets[0].currentAmps', 'must be a number from 0 to 1000, or null']);
    expect(await rejection({ outlets: [{ outletNumber: 1 }, { outletNumber: 2 }, { outletNumber: 1 }] })).toEqual([
      'reports[0].outlets[2].outletNumber', 'repeats outlet 1: each may appear once per report',
    ]);
    expect(await rejection({ outlets: { outletNumber: 1 } })).toEqual(['reports[0].outlets', 'must be a list (or left out)']);
    // every field but the number may be left out or null
    const minimal = await postReports(app, key, [report(SERIALS.acmeSwitch, at(3000), { temperatureCelsius: null, outlets: [{ outletNumber: 1, label: null, isOn: null, energyKWh: null }] })]);
    expect(minimal.body).toMatchObject({ accepted: 1, rejected: [] });
  });

  it('reads a PDU in one statement, priced by the buckets and outlets it may return', async () => {
    const key = await app.createKey('acme', 'statements');
    await app.graphql('{ __typename }', { key });
    await app.server.services.apiKeys.flushLastUsed();
    const before = app.server.store.stats.statements;
    const filter = `{ durationSeconds: 3600, stepSeconds: 300, endTime: "${at(3600)}" }`;
    const response = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ p: pduMetrics(virtualDeviceUUID: "${PDU}", filter: ${filter}) { ${FIELDS} outlets { outletNumber } } q: pdusMetrics(virtualDeviceUUIDs: ["${PDU}"], filter: ${filter}) { powerWatts { values { value } } } }`, extensions: { cost: true } }),
    });
    expect(app.server.store.stats.statements - before).toBe(1);
    expect(response.body.data.p.powerWatts.values).toHaveLength(6);
    expect(response.body.data.q[0].powerWatts.values).toHaveLength(6);
    expect(response.body.extensions.cost.actual).toBeLessThan(response.body.extensions.cost.requested);
  });
  // last: it moves the clock past the raw retention
  it('keeps the 5-minute rollups past the raw retention, so steps that are multiples of 300 s still answer', async () => {
    clock.advance(49 * 3_600_000);
    await app.server.services.reports.expire();
    const hour = { durationSeconds: 3600, endTime: at(3600) };
    const rolled = await metrics({ ...hour, stepSeconds: 300 });
    // the late report at 500 s (outlet 1 at 1 W) is a reading of bucket 300 too: (230 + 1) / 2
    expect(rolled.powerWatts.values).toEqual(values([0, 1, 460], [0, 2, 50], [300, 1, 115.5], [300, 2, 120], [600, 1, 0], [600, 2, 345]));
    expect(rolled.temperatureCelsius.values).toEqual(temperatures([0, 32], [300, 36], [600, 40]));
    // the raw readings are gone: a 4-minute step finds nothing
    const raw = await metrics({ ...hour, stepSeconds: 240 });
    expect([raw.powerWatts.values, raw.temperatureCelsius.values]).toEqual([[], []]);
  });
});
