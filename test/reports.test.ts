import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { isConnectedToBackend, storedReports } from './helpers/stored-reports.js';

const FULL_REPORT = {
  reportId: '8d7e0c1a-5b7f-4c38-9a43-0d1f6a2b9c11',
  serialNumber: SERIALS.acmeSwitch,
  observedAt: '2026-11-24T10:00:00Z',
  uptimeSeconds: 86400,
  macAddress: '0C:8D:DB:00:00:01',
  interfaces: [
    {
      portNumber: 1, label: 'WAN 1', portType: 'COPPER', isEnabled: true, isConnected: true,
      isUplink: true, isUplinkActive: true, isTrunkPort: false, portSpeedMbps: 1000, nativeVLANID: 1,
      counters: { rxBytes: 1200, txBytes: 3400, rxPackets: 12, txPackets: 34, rxErrors: 0, txErrors: 1 },
    },
    { portNumber: 2, label: 'LAN 2', portType: 'SFP', isEnabled: false, isConnected: false, isUplink: false, isTrunkPort: true, portSpeedMbps: null, nativeVLANID: 10 },
  ],
  uplinkSamples: [
    { portNumber: 1, observedAt: '2026-11-24T09:59:30Z', latencyMs: 12.5, jitterMs: 1.2, lossPercent: 0.0, rxBitsPerSecond: 1234567, txBitsPerSecond: 234567 },
    { portNumber: 1, observedAt: '2026-11-24T09:59:50Z', latencyMs: 7.5, jitterMs: 0.8, lossPercent: 10, rxBitsPerSecond: 1000, txBitsPerSecond: 2000 },
  ],
  radios: [{ BSSID: '0C:8D:DB:00:01:10', radioBand: 'BAND_5G', ssid: 'Acme-Corp', isActive: true }],
  clients: [
    { macAddress: '3C:22:FB:12:34:56', ip: '10.0.10.23', hostname: 'alice-laptop', isWireless: true, signal: -54, vlanID: 10, ssid: 'Acme-Corp', portNumber: null },
    { macAddress: '3c:22:fb:00:00:02', ip: '10.0.10.24', hostname: null, isWireless: false, signal: null, vlanID: 999, ssid: null, portNumber: 2 },
  ],
  events: [{ type: 'DEVICE_BOOT', observedAt: '2026-11-24T09:58:00Z', details: { rebootReason: 'power' } }],
};

describe.each(storeKinds())('device reports on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let ingestKey: string;
  let companyId: number;
  const stored = () => storedReports(app.server.store.db);

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now });
    ingestKey = await createScopedKey(app, 'ingest');
    companyId = (await app.server.services.companies.getBySlug('acme')).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stores every field of a report where it belongs', async () => {
    const response = await postReports(app, ingestKey, [FULL_REPORT]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });

    // the times of the latest report, which the API does not publish
    const state = await stored().deviceState(companyId, SERIALS.acmeSwitch);
    expect(state).toMatchObject({ lastSeenAt: '2026-11-24T10:00:00.000Z', stateObservedAt: '2026-11-24T10:00:00.000Z' });
    expect(await isConnectedToBackend(app, SERIALS.acmeSwitch)).toBe(true);
    // what the API publishes of the latest state: ports, radios and connected clients through GraphQL
    const published = await app.graphql(
      `{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { label portNumber portType isEnabled isConnected isUplink isUplinkActive isTrunkPort portSpeedMbps nativeVLAN { vlanID } connectedDevices { client { macAddress } } } ` +
        `networkClients(networkUUID: "${IDS.acmeHq}") { macAddress ip clientName isWireless signal connectedVLAN { vlanID } connectedSSID { ssid } lastSeen } ` +
        `virtualDevice(UUID: "${IDS.acmeSwitch}") { uptime hardwareDevice { macAddress } } ` +
        `bssidsForNetwork(networkUUID: "${IDS.acmeHq}") { BSSID radioBand isActive accessPointSerialNumber SSID { ssid } } }`,
    );
    expect(published.body.errors).toBeUndefined();
    expect(published.body.data.phyInterfacesForVirtualDevice).toEqual([
      {
        label: 'WAN 1', portNumber: 1, portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: true, isUplinkActive: true, isTrunkPort: false,
        portSpeedMbps: 1000, nativeVLAN: null, connectedDevices: [],
      },
      {
        label: 'LAN 2', portNumber: 2, portType: 'SFP', isEnabled: false, isConnected: false, isUplink: false, isUplinkActive: null, isTrunkPort: true,
        portSpeedMbps: null, nativeVLAN: { vlanID: 10 }, connectedDevices: [{ client: { macAddress: '3c:22:fb:00:00:02' } }],
      },
    ]);
    // the network's imported clients are no longer connected once a device reports clients
    expect(published.body.data.networkClients).toEqual([
      { macAddress: '3c:22:fb:00:00:02', ip: '10.0.10.24', clientName: null, isWireless: false, signal: null, connectedVLAN: null, connectedSSID: null, lastSeen: '2026-11-24T10:00:00.000Z' },
      { macAddress: '3c:22:fb:12:34:56', ip: '10.0.10.23', clientName: 'alice-laptop', isWireless: true, signal: -54, connectedVLAN: { vlanID: 10 }, connectedSSID: { ssid: 'Acme-Corp' }, lastSeen: '2026-11-24T10:00:00.000Z' },
    ]);
    expect(published.body.data.virtualDevice).toEqual({ uptime: 86400, hardwareDevice: { macAddress: '0c:8d:db:00:00:01' } });
    // a BSSID is stored lowercase whatever case the report used
    expect(published.body.data.bssidsForNetwork).toEqual([
      { BSSID: '0c:8d:db:00:01:10', radioBand: 'BAND_5G', isActive: true, accessPointSerialNumber: SERIALS.acmeSwitch, SSID: { ssid: 'Acme-Corp' } },
    ]);

    const log = await stored().events(companyId, IDS.acmeHq, { limit: 10 });
    expect(log.total).toBe(2);
    expect(log.events).toMatchObject([
      // imported offline, reporting now: online
      { type: 'DEVICE_ONLINE', observedAt: '2026-11-24T10:00:00.000Z', details: null, source: 'netgraph', serialNumber: SERIALS.acmeSwitch, virtualDeviceUUID: IDS.acmeSwitch },
      { type: 'DEVICE_BOOT', observedAt: '2026-11-24T09:58:00.000Z', details: '{"rebootReason":"power"}', source: 'device', serialNumber: SERIALS.acmeSwitch },
    ]);

    const series = await stored().networkTelemetry(companyId, IDS.acmeHq);
    expect(series.uplinkSamples).toMatchObject([
      { port_number: 1, observed_at: '2026-11-24T09:59:30.000Z', latency_ms: 12.5, jitter_ms: 1.2, loss_percent: 0, rx_bps: 1234567, tx_bps: 234567 },
      { port_number: 1, observed_at: '2026-11-24T09:59:50.000Z', latency_ms: 7.5, jitter_ms: 0.8, loss_percent: 10, rx_bps: 1000, tx_bps: 2000 },
    ]);
    const bucket = Math.floor(Date.parse('2026-11-24T09:59:30Z') / 300_000) * 300;
    expect(series.uplinkRollups).toMatchObject([
      { bucket, port_number: 1, latency_ms_count: 2, latency_ms_sum: 20, latency_ms_min: 7.5, latency_ms_max: 12.5, loss_percent_count: 2, loss_percent_sum: 10, loss_percent_max: 10 },
    ]);
    expect(series.clientObservations.map((o) => [o.mac_address, Boolean(o.is_wireless), o.observed_at])).toEqual([
      ['3c:22:fb:00:00:02', false, '2026-11-24T10:00:00.000Z'],
      ['3c:22:fb:12:34:56', true, '2026-11-24T10:00:00.000Z'],
    ]);
    expect(series.clientPresence).toHaveLength(2);
    expect(series.reportCounts).toMatchObject([{ bucket: REPORT_EPOCH / 1000, report_count: 1 }]);

    const counters = await stored().deviceTelemetry(companyId, SERIALS.acmeSwitch);
    expect(counters.portCounters).toMatchObject([
      { port_number: 1, observed_at: '2026-11-24T10:00:00.000Z', uptime_seconds: 86400, rx_bytes: 1200, tx_bytes: 3400, rx_packets: 12, tx_packets: 34, rx_errors: 0, tx_errors: 1 },
    ]);
    expect(counters.counterRollups).toMatchObject([{ port_number: 1, bucket: REPORT_EPOCH / 1000, rx_bytes: 1200, tx_errors: 1 }]);

    const history = await stored().clientSessions(companyId, IDS.acmeHq);
    expect(history).toMatchObject([
      { macAddress: '3c:22:fb:00:00:02', serialNumber: SERIALS.acmeSwitch, firstSeen: '2026-11-24T10:00:00.000Z', endedAt: null, vlanID: 999 },
      { macAddress: '3c:22:fb:12:34:56', serialNumber: SERIALS.acmeSwitch, ssid: 'Acme-Corp', signal: -54, hostname: 'alice-laptop', endedAt: null },
    ]);
  });

  it('acknowledges a duplicate without changing anything, within a batch and across requests', async () => {
    const again = await postReports(app, ingestKey, [FULL_REPORT, { ...FULL_REPORT, uptimeSeconds: 1 }]);
    expect(again.body).toEqual({ accepted: 0, duplicates: 2, rejected: [] });
    expect((await stored().deviceState(companyId, SERIALS.acmeSwitch))?.uptimeSeconds).toBe(86400);
    const twice = report(SERIALS.acmeSwitch, at(1));
    expect((await postReports(app, ingestKey, [twice, twice])).body).toEqual({ accepted: 1, duplicates: 1, rejected: [] });
    expect((await stored().networkTelemetry(companyId, IDS.acmeHq)).uplinkSamples).toHaveLength(2);
  });

  it('writes a port only when a report changes its state: observed_at is the report that set it', async () => {
    const [wan, lan] = FULL_REPORT.interfaces;
    const ports = async () =>
      ((await stored().deviceState(companyId, SERIALS.acmeSwitch))?.ports ?? []).map((p) => [p.port_number, new Date(p.observed_at).toISOString(), p.label, Boolean(p.is_connected)]);
    // new counters are no port state; a port that connects is
    const counters = { ...wan?.counters, rxBytes: 5000 };
    await postReports(app, ingestKey, [report(SERIALS.acmeSwitch, at(60), { interfaces: [{ ...wan, counters }, { ...lan, isConnected: true }] })]);
    expect(await ports()).toEqual([
      [1, '2026-11-24T10:00:00.000Z', 'WAN 1', true],
      [2, at(60), 'LAN 2', true],
    ]);
    // a label set back to null is a change too (null counts as a value)
    await postReports(app, ingestKey, [report(SERIALS.acmeSwitch, at(90), { interfaces: [{ ...wan, label: null }, { ...lan, isConnected: true }] })]);
    expect(await ports()).toEqual([
      [1, at(90), null, true],
      [2, at(60), 'LAN 2', true],
    ]);
  });
});
