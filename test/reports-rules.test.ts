import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { connectedClients, isConnectedToBackend, storedReports } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

describe.each(storeKinds())('report rules on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let key: string;
  let companyId: number;
  const reports = () => app.server.services.reports;
  const stored = () => storedReports(app.server.store.db);
  /** The clock's current time plus `seconds`, as ISO. */
  const now = (seconds = 0) => new Date(clock.now() + seconds * 1000).toISOString();
  const eventTypes = async (network: string = IDS.acmeHq) =>
    (await stored().events(companyId, network, { limit: 100 })).events.map((e) => `${e.type} ${e.serialNumber} ${e.observedAt}`);

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now });
    key = await createScopedKey(app, 'ingest');
    companyId = (await app.server.services.companies.getBySlug('acme')).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('rejects each bad report with its path and stores the others of its batch', async () => {
    const good = report(SERIALS.acmeLabAp, now());
    const response = await postReports(app, key, [
      report(SERIALS.acmeLabAp, now(), { clients: [{ macAddress: '3c:22:fb:12:34:56' }, { macAddress: 'nope' }] }),
      good,
      report(SERIALS.acmeLabAp, now(301)),
      report(SERIALS.acmeLabAp, now(-49 * 3600)),
      report(SERIALS.acmeLabAp, now(), { uplinkSamples: [{ portNumber: 1, observedAt: now(400) }] }),
      report(SERIALS.acmeLabAp, now(), { events: [{ type: 'BOOT', observedAt: '2026-11-24 10:00' }] }),
      report('M1A3-NOPE-0001', now()),
      report(SERIALS.globexAp, now()),
      report(SERIALS.acmeLabAp, now(), { interfaces: [{ portNumber: 1, portType: 'FIBRE' }] }),
      { serialNumber: SERIALS.acmeLabAp, observedAt: now() },
      report(SERIALS.acmeLabAp, now(), { events: [{ type: 'DEVICE_ONLINE', observedAt: now() }] }),
      report(SERIALS.acmeLabAp, now(), { radios: [{ BSSID: '0c:8d:db:00:01:10', radioBand: 'BAND_5G' }, { BSSID: '0C:8D:DB:00:01:10', radioBand: 'BAND_6G' }] }),
      'not an object',
      report(SERIALS.acmeLabAp, now(), { clients: [{ macAddress: 'aa:bb:cc:dd:ee:01', hostname: 'nul\u0000' }] }),
    ]);
    expect(response.status).toBe(200);
    expect(response.body.accepted).toBe(1);
    expect(response.body.duplicates).toBe(0);
    const rejected = response.body.rejected.map((r: { index: number; code: string; path: string }) => `${r.index} ${r.code} ${r.path}`);
    expect(rejected).toEqual([
      '0 BAD_USER_INPUT reports[0].clients[1].macAddress',
      '2 BAD_USER_INPUT reports[2].observedAt',
      '3 BAD_USER_INPUT reports[3].observedAt',
      '4 BAD_USER_INPUT reports[4].uplinkSamples[0].observedAt',
      '5 BAD_USER_INPUT reports[5].events[0].observedAt',
      '6 UNAUTHORIZED reports[6].serialNumber',
      '7 UNAUTHORIZED reports[7].serialNumber',
      '8 BAD_USER_INPUT reports[8].interfaces[0].portType',
      '9 BAD_USER_INPUT reports[9].reportId',
      '10 BAD_USER_INPUT reports[10].events[0].type',
      '11 BAD_USER_INPUT reports[11].radios[1].BSSID',
      '12 BAD_USER_INPUT reports[12]',
      '13 BAD_USER_INPUT reports[13].clients[0].hostname',
    ]);
    // an unknown serial and another company's answer alike
    expect(response.body.rejected[5].message).toBe(response.body.rejected[6].message);
    for (const r of response.body.rejected) expect(typeof r.message).toBe('string');
    // nothing of the refused reports was stored: the first one's valid client is not there
    expect(await connectedClients(app, companyId, IDS.acmeLab)).toEqual([]);
    expect((await stored().deviceState(companyId, SERIALS.acmeLabAp))?.lastSeenAt).toBe(now());
  });

  it('records DEVICE_ONLINE for a device imported offline, nothing for one imported online, DEVICE_OFFLINE once when silent', async () => {
    clock.advance(1000 * 1000);
    const t0 = now();
    expect((await postReports(app, key, [report(SERIALS.acmeSwitch, t0), report(SERIALS.acmeAp, t0)])).body.accepted).toBe(2);
    expect(await eventTypes()).toEqual([`DEVICE_ONLINE ${SERIALS.acmeSwitch} ${t0}`]);

    clock.advance(89_000);
    await reports().checkOffline();
    expect(await isConnectedToBackend(app, SERIALS.acmeAp)).toBe(true);
    clock.advance(2_000);
    expect(await isConnectedToBackend(app, SERIALS.acmeAp)).toBe(false);
    await reports().checkOffline();
    await reports().checkOffline();
    const offlineAt = new Date(Date.parse(t0) + 90_000).toISOString();
    expect(await eventTypes()).toEqual([
      `DEVICE_OFFLINE ${SERIALS.acmeAp} ${offlineAt}`,
      `DEVICE_OFFLINE ${SERIALS.acmeSwitch} ${offlineAt}`,
      `DEVICE_ONLINE ${SERIALS.acmeSwitch} ${t0}`,
    ]);

    // a stale report (older than the window) changes no online state
    expect((await postReports(app, key, [report(SERIALS.acmeAp, now(-95))])).body.accepted).toBe(1);
    expect(await isConnectedToBackend(app, SERIALS.acmeAp)).toBe(false);
    expect(await eventTypes()).toHaveLength(3);

    const t1 = now();
    await postReports(app, key, [report(SERIALS.acmeAp, t1)]);
    expect(await isConnectedToBackend(app, SERIALS.acmeAp)).toBe(true);
    expect((await eventTypes())[0]).toBe(`DEVICE_ONLINE ${SERIALS.acmeAp} ${t1}`);
  });

  it('records the missed DEVICE_OFFLINE before DEVICE_ONLINE when a device returns before any check', async () => {
    clock.advance(10_000);
    const t0 = now();
    await postReports(app, key, [report(SERIALS.acmeAp, t0)]);
    clock.advance(200_000);
    const t1 = now();
    await postReports(app, key, [report(SERIALS.acmeAp, t1)]);
    await reports().checkOffline();
    expect((await eventTypes()).slice(0, 2)).toEqual([
      `DEVICE_ONLINE ${SERIALS.acmeAp} ${t1}`,
      `DEVICE_OFFLINE ${SERIALS.acmeAp} ${new Date(Date.parse(t0) + 90_000).toISOString()}`,
    ]);
  });

  it('follows clients as they arrive, roam between devices and leave; history stays', async () => {
    clock.advance(1000 * 1000);
    const t0 = now();
    const laptop = { macAddress: 'AA:00:00:00:00:01', ip: '10.0.0.1', hostname: 'laptop', isWireless: true, signal: -40, ssid: 'Acme-Corp', vlanID: 10 };
    const phone = { macAddress: 'aa:00:00:00:00:02', ip: '10.0.0.2', isWireless: true, signal: -60, ssid: 'Acme-Corp' };
    const printer = { macAddress: 'aa:00:00:00:00:03', ip: '10.0.0.3', isWireless: false, portNumber: 7, vlanID: 10 };
    await postReports(app, key, [report(SERIALS.acmeAp, t0, { clients: [laptop, phone] }), report(SERIALS.acmeSwitch, t0, { clients: [printer] })]);
    const connected = async () => (await connectedClients(app, companyId, IDS.acmeHq)).map((c) => `${c.macAddress} ${c.serialNumber} ${c.lastSeen}`);
    expect(await connected()).toEqual([`aa:00:00:00:00:01 ${SERIALS.acmeAp} ${t0}`, `aa:00:00:00:00:02 ${SERIALS.acmeAp} ${t0}`, `aa:00:00:00:00:03 ${SERIALS.acmeSwitch} ${t0}`]);

    // the laptop roams to the switch's side (as if a second AP), the phone leaves
    clock.advance(30_000);
    const t1 = now();
    await postReports(app, key, [report(SERIALS.acmeSwitch, t1, { clients: [printer, { ...laptop, isWireless: false, portNumber: 3 }] }), report(SERIALS.acmeAp, t1, { clients: [] })]);
    expect(await connected()).toEqual([`aa:00:00:00:00:01 ${SERIALS.acmeSwitch} ${t1}`, `aa:00:00:00:00:03 ${SERIALS.acmeSwitch} ${t1}`]);

    // a device that falls silent takes its clients with it
    clock.advance(60_000);
    await postReports(app, key, [report(SERIALS.acmeAp, now())]);
    clock.advance(40_000);
    expect(await connected()).toEqual([]);

    const history = (await stored().clientSessions(companyId, IDS.acmeHq)).filter((s) => s.macAddress.startsWith('aa:00'));
    expect(history.map((s) => `${s.macAddress} ${s.serialNumber} ${s.firstSeen} ${s.lastSeen} ${s.endedAt}`)).toEqual([
      `aa:00:00:00:00:01 ${SERIALS.acmeAp} ${t0} ${t0} ${t1}`,
      `aa:00:00:00:00:02 ${SERIALS.acmeAp} ${t0} ${t0} ${t1}`,
      `aa:00:00:00:00:03 ${SERIALS.acmeSwitch} ${t0} ${t1} null`,
      `aa:00:00:00:00:01 ${SERIALS.acmeSwitch} ${t1} ${t1} null`,
    ]);
  });

  it('gives a client listed by two devices in one batch to the newer report, in either order', async () => {
    clock.advance(1000 * 1000);
    const tablet = { macAddress: 'ab:00:00:00:00:01', isWireless: true, signal: -50, ssid: 'Acme-Corp' };
    const connected = async () =>
      (await connectedClients(app, companyId, IDS.acmeHq)).filter((c) => c.macAddress === tablet.macAddress).map((c) => `${c.serialNumber} ${c.lastSeen}`);
    const open = async () =>
      (await stored().clientSessions(companyId, IDS.acmeHq)).filter((s) => s.macAddress === tablet.macAddress && s.endedAt === null).map((s) => `${s.serialNumber} ${s.lastSeen}`);
    for (const [older, newer] of [
      [SERIALS.acmeAp, SERIALS.acmeSwitch],
      [SERIALS.acmeSwitch, SERIALS.acmeAp],
    ] as const) {
      clock.advance(30_000);
      const t = now(-1);
      const answer = await postReports(app, key, [report(newer, now(), { clients: [tablet] }), report(older, t, { clients: [tablet] })]);
      expect(answer.body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
      expect(await connected()).toEqual([`${newer} ${now()}`]);
      expect(await open()).toEqual([`${newer} ${now()}`]);
    }
  });

  it('ends a session that one batch both drops and lists on another device at whichever came first, in either order of the batch', async () => {
    const history = async (mac: string) =>
      (await stored().clientSessions(companyId, IDS.acmeHq)).filter((s) => s.macAddress === mac).map((s) => `${s.serialNumber} ${s.firstSeen} ${s.lastSeen} ${s.endedAt}`);
    const cases = [
      { dropFirst: true, roamBeforeDrop: true },
      { dropFirst: false, roamBeforeDrop: true },
      { dropFirst: true, roamBeforeDrop: false },
      { dropFirst: false, roamBeforeDrop: false },
    ];
    for (const [i, { dropFirst, roamBeforeDrop }] of cases.entries()) {
      clock.advance(1000 * 1000);
      const watch = { macAddress: `ac:00:00:00:00:0${i}`, isWireless: true, signal: -55, ssid: 'Acme-Corp' };
      const t0 = now(-60);
      await postReports(app, key, [report(SERIALS.acmeAp, t0, { clients: [watch] })]);
      const roamedAt = now(roamBeforeDrop ? -20 : -10);
      const droppedAt = now(roamBeforeDrop ? -10 : -20);
      const drop = report(SERIALS.acmeAp, droppedAt, { clients: [] });
      const roam = report(SERIALS.acmeSwitch, roamedAt, { clients: [{ ...watch, isWireless: false, signal: null, portNumber: 4 }] });
      const answer = await postReports(app, key, dropFirst ? [drop, roam] : [roam, drop]);
      expect(answer.body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
      const endedAt = roamBeforeDrop ? roamedAt : droppedAt;
      expect(await history(watch.macAddress), JSON.stringify(cases[i])).toEqual([`${SERIALS.acmeAp} ${t0} ${t0} ${endedAt}`, `${SERIALS.acmeSwitch} ${roamedAt} ${roamedAt} null`]);
    }
  });

  it('keeps the latest state when reports arrive out of order, and the late samples at their own times', async () => {
    clock.advance(1000 * 1000);
    const t0 = now(-20);
    const t1 = now(-10);
    const newer = report(SERIALS.acmeLabAp, t1, { uptimeSeconds: 200, macAddress: '0c:8d:db:00:00:09', radios: [{ BSSID: '0c:8d:db:00:09:01', radioBand: 'BAND_6G' }] });
    const older = report(SERIALS.acmeLabAp, t0, {
      uptimeSeconds: 190,
      macAddress: '0c:8d:db:00:00:08',
      radios: [{ BSSID: '0c:8d:db:00:08:01', radioBand: 'BAND_2_4G' }],
      uplinkSamples: [{ portNumber: 1, observedAt: t0, latencyMs: 3 }],
      clients: [{ macAddress: 'bb:00:00:00:00:01' }],
    });
    await postReports(app, key, [newer]);
    await postReports(app, key, [older]);
    const state = await stored().deviceState(companyId, SERIALS.acmeLabAp);
    expect(state).toMatchObject({ uptimeSeconds: 200, macAddress: '0c:8d:db:00:00:09', lastSeenAt: t1, stateObservedAt: t1 });
    expect(state?.radios.map((r) => r.bssid)).toEqual(['0c:8d:db:00:09:01']);
    expect(await connectedClients(app, companyId, IDS.acmeLab)).toEqual([]);
    const samples = (await stored().networkTelemetry(companyId, IDS.acmeLab)).uplinkSamples;
    expect(samples.map((s) => `${s.observed_at} ${s.latency_ms}`)).toEqual([`${t0} 3`]);
    // within one batch too: sections come from the newest report that has them
    const t2 = now(-5);
    const t3 = now();
    await postReports(app, key, [report(SERIALS.acmeLabAp, t3, { uptimeSeconds: 5 }), report(SERIALS.acmeLabAp, t2, { uptimeSeconds: 4, clients: [{ macAddress: 'bb:00:00:00:00:02' }] })]);
    expect(await stored().deviceState(companyId, SERIALS.acmeLabAp)).toMatchObject({ uptimeSeconds: 5, stateObservedAt: t3 });
    expect((await connectedClients(app, companyId, IDS.acmeLab)).map((c) => c.macAddress)).toEqual(['bb:00:00:00:00:02']);
  });
});
