import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// What the API shows of device reports: online state from the time of the last report, connected clients from the latest reports.
const OFFLINE_AFTER_SECONDS = 60;

const DEVICES = /* GraphQL */ `
  query ($hq: UUID!) {
    virtualDevicesForNetwork(networkUUID: $hq) { UUID isOnline hardwareDevice { serialNumber isConnectedToBackend } }
    lab: virtualDevice(UUID: "${IDS.acmeLabAp}") { isOnline hardwareDevice { isConnectedToBackend } }
  }
`;
const CLIENTS = 'query ($hq: UUID!) { networkClients(networkUUID: $hq) { macAddress ip lastSeen } }';

const wired = (macAddress: string, portNumber: number) => ({ macAddress, ip: null, hostname: null, isWireless: false, signal: null, vlanID: 10, ssid: null, portNumber });
const wireless = (macAddress: string, ip: string) => ({ macAddress, ip, hostname: 'phone', isWireless: true, signal: -60, vlanID: 10, ssid: 'Acme-Corp', portNumber: null });

describe.each(storeKinds())('device reports over GraphQL on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let ingestKey: string;
  const now = () => new Date(clock.now()).toISOString();
  const online = async () => {
    const response = await app.graphql(DEVICES, { variables: { hq: IDS.acmeHq } });
    expect(response.body.errors).toBeUndefined();
    const devices = response.body.data.virtualDevicesForNetwork as { UUID: string; isOnline: boolean; hardwareDevice: { isConnectedToBackend: boolean } | null }[];
    const of = (uuid: string) => devices.find((device) => device.UUID === uuid);
    return {
      switch: [of(IDS.acmeSwitch)?.isOnline, of(IDS.acmeSwitch)?.hardwareDevice?.isConnectedToBackend],
      ap: [of(IDS.acmeAp)?.isOnline, of(IDS.acmeAp)?.hardwareDevice?.isConnectedToBackend],
      lab: [response.body.data.lab.isOnline, response.body.data.lab.hardwareDevice.isConnectedToBackend],
    };
  };
  const clients = async () => {
    const response = await app.graphql(CLIENTS, { variables: { hq: IDS.acmeHq } });
    expect(response.body.errors).toBeUndefined();
    return response.body.data.networkClients as { macAddress: string; ip: string | null; lastSeen: string }[];
  };
  const post = async (reports: Record<string, unknown>[]) => {
    const response = await postReports(app, ingestKey, reports);
    expect(response.body).toMatchObject({ accepted: reports.length, rejected: [] });
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS) } });
    ingestKey = await createScopedKey(app, 'ingest');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('keeps imported online state and clients until a device reports', async () => {
    expect(await online()).toEqual({ switch: [false, false], ap: [true, true], lab: [true, true] });
    expect((await clients()).map((client) => client.macAddress)).toEqual(['00:11:22:33:44:55', '0c:8d:db:12:34:56', 'aa:bb:cc:dd:ee:ff']);
  });

  it('shows a device online from its report, and its clients in place of the imported ones', async () => {
    const observedAt = now();
    await post([report(SERIALS.acmeSwitch, observedAt, { clients: [wired('3c:22:fb:00:00:01', 3), wired('3c:22:fb:00:00:02', 4)] })]);
    expect(await online()).toEqual({ switch: [true, true], ap: [true, true], lab: [true, true] });
    expect(await clients()).toEqual([
      { macAddress: '3c:22:fb:00:00:01', ip: null, lastSeen: observedAt },
      { macAddress: '3c:22:fb:00:00:02', ip: null, lastSeen: observedAt },
    ]);
  });

  it('merges the clients of several devices by MAC address, the latest report winning', async () => {
    clock.advance(20_000);
    const apAt = now();
    // 3c:..:02 roams from the switch's port to the access point; 3c:..:03 arrives
    await post([report(SERIALS.acmeAp, apAt, { clients: [wireless('3c:22:fb:00:00:02', '10.0.10.2'), wireless('3c:22:fb:00:00:03', '10.0.10.3')] })]);
    const listed = await clients();
    expect(listed.map((client) => [client.macAddress, client.ip, client.lastSeen])).toEqual([
      ['3c:22:fb:00:00:01', null, listed[0]?.lastSeen],
      ['3c:22:fb:00:00:02', '10.0.10.2', apAt],
      ['3c:22:fb:00:00:03', '10.0.10.3', apAt],
    ]);
    expect(listed[0]?.lastSeen).not.toBe(apAt);
  });

  it('a client the device no longer lists is no longer connected', async () => {
    clock.advance(10_000);
    await post([report(SERIALS.acmeAp, now(), { clients: [wireless('3c:22:fb:00:00:03', '10.0.10.3')] })]);
    expect((await clients()).map((client) => client.macAddress)).toEqual(['3c:22:fb:00:00:01', '3c:22:fb:00:00:03']);
  });

  it('goes offline when the last report is older than the window, with its clients, and comes back with a report', async () => {
    // the switch last reported 30 s ago; 40 s more make it 70 s, past the 60 s window, while the AP keeps reporting
    clock.advance(40_000);
    await post([report(SERIALS.acmeAp, now(), { clients: [wireless('3c:22:fb:00:00:03', '10.0.10.3')] })]);
    expect(await online()).toEqual({ switch: [false, false], ap: [true, true], lab: [true, true] });
    expect((await clients()).map((client) => client.macAddress)).toEqual(['3c:22:fb:00:00:03']);

    await post([report(SERIALS.acmeSwitch, now(), { clients: [wired('3c:22:fb:00:00:01', 3)] })]);
    expect(await online()).toEqual({ switch: [true, true], ap: [true, true], lab: [true, true] });
    expect((await clients()).map((client) => client.macAddress)).toEqual(['3c:22:fb:00:00:01', '3c:22:fb:00:00:03']);
  });

  it('answers a stale report by changing no online state', async () => {
    // the lab AP was imported online and never reported; a report older than the window leaves it as it was
    await post([report(SERIALS.acmeLabAp, new Date(clock.now() - (OFFLINE_AFTER_SECONDS + 30) * 1000).toISOString())]);
    expect((await online()).lab).toEqual([true, true]);
  });
});
