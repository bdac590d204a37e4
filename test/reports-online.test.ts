import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// issue 32: VirtualDevice.isOnline and HardwareDevice.isConnectedToBackend follow the one online rule of docs/reports.md.
const OFFLINE_AFTER_SECONDS = 90;

/** Both fields of a virtual device and its hardware, through every path that reads them. */
const STATE = /* GraphQL */ `
  query ($device: UUID!, $serial: String!) {
    virtualDevice(UUID: $device) { isOnline hardwareDevice { isConnectedToBackend } }
    hardwareDevice(serialNumber: $serial) { isConnectedToBackend }
  }
`;

/**
 * The fixture, with the two stored flags of the lab's access point apart (as
 * the demo data has them for some devices): the slot imported online, its
 * hardware not connected.
 */
function fixtureWithFlagsApart() {
  const data = createFixture();
  const labAp = data.companies.flatMap((company) => company.networks).flatMap((network) => network.virtualDevices).find((device) => device.UUID === IDS.acmeLabAp);
  if (!labAp?.hardwareDevice) throw new Error('fixture: no lab access point');
  labAp.isOnline = true;
  labAp.hardwareDevice.isConnectedToBackend = false;
  return data;
}

describe.each(storeKinds())('isOnline and isConnectedToBackend on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let ingestKey: string;
  /** [isOnline, the nested isConnectedToBackend, the root's isConnectedToBackend] of a device. */
  const state = async (device: string, serial: string) => {
    const response = await app.graphql(STATE, { variables: { device, serial } });
    expect(response.body.errors).toBeUndefined();
    const data = response.body.data;
    return [data.virtualDevice.isOnline, data.virtualDevice.hardwareDevice.isConnectedToBackend, data.hardwareDevice.isConnectedToBackend];
  };
  const post = async (serial: string, ageMs: number) => {
    const response = await postReports(app, ingestKey, [report(serial, new Date(clock.now() - ageMs).toISOString(), { uptimeSeconds: 60 })]);
    expect(response.body).toMatchObject({ accepted: 1, rejected: [] });
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, {
      data: fixtureWithFlagsApart(),
      clock: clock.now,
      env: { DEVICE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS) },
      backgroundWork: false,
    });
    ingestKey = await createScopedKey(app, 'ingest');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('agree for a device whose only report is 629 s old: the hardware’s imported state, on both', async () => {
    expect(await state(IDS.acmeLabAp, SERIALS.acmeLabAp)).toEqual([false, false, false]);
    // stale: it counts for no online state, so the imported state stands, the hardware's for both fields
    await post(SERIALS.acmeLabAp, 629_000);
    expect(await state(IDS.acmeLabAp, SERIALS.acmeLabAp)).toEqual([false, false, false]);
  });

  it('agree at every age around the offline window: online up to 90 s exactly, offline 1 ms later', async () => {
    await post(SERIALS.acmeAp, 0);
    expect(await state(IDS.acmeAp, SERIALS.acmeAp)).toEqual([true, true, true]);
    clock.advance(OFFLINE_AFTER_SECONDS * 1000 - 1);
    expect(await state(IDS.acmeAp, SERIALS.acmeAp)).toEqual([true, true, true]);
    clock.advance(1);
    expect(await state(IDS.acmeAp, SERIALS.acmeAp)).toEqual([true, true, true]);
    clock.advance(1);
    expect(await state(IDS.acmeAp, SERIALS.acmeAp)).toEqual([false, false, false]);
    clock.advance(629_000 - OFFLINE_AFTER_SECONDS * 1000 - 1);
    expect(await state(IDS.acmeAp, SERIALS.acmeAp)).toEqual([false, false, false]);
    // and back with a report, on both
    await post(SERIALS.acmeAp, 0);
    expect(await state(IDS.acmeAp, SERIALS.acmeAp)).toEqual([true, true, true]);
  });

  it('keeps the slot’s own imported state while it has no hardware', async () => {
    const response = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeObserver}") { isOnline hardwareDevice { isConnectedToBackend } } }`);
    expect(response.body.data).toEqual({ virtualDevice: { isOnline: true, hardwareDevice: null } });
  });
});
