import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { createWriteKey, errorOf } from './helpers/writes.js';

// Meter's arguments and enums on the roots netgraph has (issue 32), sent as the public Meter SDK sends them, over
// HTTP on both stores, from the fixture and from reports posted at one and two minutes before the clock.

const SWITCH_MAC = '0c:8d:db:00:00:aa';
const AP_MAC = '0c:8d:db:00:00:bb';
const client = (macAddress: string, ip: string | null, wireless: boolean, extra: Record<string, unknown>) => ({
  macAddress, ip, hostname: null, isWireless: wireless, signal: wireless ? -61 : null, vlanID: null, ssid: null, portNumber: null, ...extra,
});
const printer = client('3c:22:fb:00:00:01', '10.0.10.5', false, { hostname: 'printer', vlanID: 10, portNumber: 2 });
// the access point itself, as its switch lists it on port 3: Meter hardware
const apOnPort = client(AP_MAC, '10.0.10.2', false, { vlanID: 10, portNumber: 3 });
const phone = client('3c:22:fb:00:00:02', '10.0.10.6', true, { hostname: 'phone', vlanID: 20, ssid: 'Acme-Corp' });
const laptop = client('3c:22:fb:00:00:03', '2001:db8::5', true, { signal: -70, vlanID: 20, ssid: 'Acme-Guest' });
const uplink = { portNumber: 1, label: 'WAN 1', portType: 'COPPER', isEnabled: true, isConnected: true, isUplink: true, isUplinkActive: true, isTrunkPort: false, portSpeedMbps: 1000 };
const sample = (seconds: number, lossPercent: number, rx: number, tx: number) => ({
  portNumber: 1, observedAt: at(seconds), latencyMs: 10, jitterMs: 1, lossPercent, rxBitsPerSecond: rx, txBitsPerSecond: tx,
});

/** The fixture with a guest SSID and encryption protocols. */
function fixture() {
  const data = createFixture();
  const hq = data.companies[0]!.networks[0]!;
  hq.ssids = [
    { UUID: IDS.acmeSsid, ssid: 'Acme-Guest', isEnabled: false, isGuest: true, encryptionProtocol: 'WPA2' },
    { ssid: 'Acme-Corp', isEnabled: true, encryptionProtocol: 'WPA3_TRANSITION' },
  ];
  return data;
}

// The SDK's documents, built as it builds them (its filters rendered as inline input objects)
const sdk = {
  networkClients: (network: string, filter: string) => `
        {
          networkClients(networkUUID: "${network}", filter: ${filter}) {
            macAddress ip clientName isWireless signal lastSeen
            connectedVLAN { name vlanID }
            connectedSSID { ssid }
          }
        }
        `,
  virtualDevices: (network: string, filter: string) => `
        {
          virtualDevicesForNetwork(networkUUID: "${network}", filter: ${filter}) {
            UUID label deviceType deviceModel isOnline
          }
        }
        `,
  eventLog: (network: string, types: string) => `
        {
          recentEventLogEventsPage(networkUUID: "${network}", limit: 20, typeFilter: [${types}]) {
            total
            events {
              eventType eventTypeAPIName generatedAt networkUUID
            }
          }
        }
        `,
  ssids: (network: string, filter: string) => `
        {
          ssidsForNetwork(networkUUID: "${network}", filter: ${filter}) {
            UUID ssid isEnabled isGuest isHidden encryptionProtocol
          }
        }
        `,
  activeClients: (args: string) => `
        {
          activeClients(filter: { durationSeconds: 3600, stepSeconds: 300 }, ${args}) {
            wired    { timestamp value }
            wireless { timestamp value }
          }
        }
        `,
  uplinkQuality: (args: string) => `
        {
          networkUplinkQuality(filter: { durationSeconds: 3600, stepSeconds: 300 }, ${args}) {
            metadata { minValue maxValue }
            values { timestamp value phyInterfaceUUID networkUUID }
          }
        }
        `,
};
/** Meter's NetworkClientsFilter with its four required fields as the SDK's example sets them, and more. */
const clientsFilter = (more = '', exclude = true) =>
  `{ excludeMeterHardware: ${exclude}, includeLatency: false, includeThroughput: false, lookbackMinutes: 5${more} }`;

describe.each(storeKinds())('Meter’s arguments and enums on %s', (kind) => {
  let app: TestApp;
  let ports: { switch: string; ap: string };
  const data = async (query: string, variables?: Record<string, unknown>) => {
    const res = await app.graphql(query, { variables });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  /** The one error of an answer as [code, argument]. */
  const refusal = async (query: string) => {
    const res = await app.graphql(query);
    return res.body.errors?.map((e: { extensions: Record<string, unknown> }) => [e.extensions.code, e.extensions.argument ?? null]);
  };

  beforeAll(async () => {
    app = await startTestApp(kind, { data: fixture(), clock: createTestClock(REPORT_EPOCH).now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    const posted = await postReports(app, await createScopedKey(app, 'ingest'), [
      report(SERIALS.acmeSwitch, at(-120), {
        macAddress: SWITCH_MAC, interfaces: [uplink], uplinkSamples: [sample(-120, 2, 4000, 400)], clients: [printer, apOnPort],
        events: [{ type: 'WAN_FAILOVER', observedAt: at(-120) }],
      }),
      report(SERIALS.acmeAp, at(-60), {
        macAddress: AP_MAC, interfaces: [uplink], uplinkSamples: [sample(-60, 10, 1000, 100)], clients: [phone, laptop],
        events: [{ type: 'DEVICE_BOOT', observedAt: at(-60) }],
      }),
    ]);
    expect(posted.body).toMatchObject({ accepted: 2, rejected: [] });
    const portOf = async (serial: string) =>
      String((await app.server.store.selectRow(`SELECT p.uuid FROM device_ports p JOIN hardware_devices h ON h.id = p.hardware_device_id WHERE h.serial_number = '${serial}'`, []))?.uuid);
    ports = { switch: await portOf(SERIALS.acmeSwitch), ap: await portOf(SERIALS.acmeAp) };
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('networkClients and networksClients with a NetworkClientsFilter', () => {
    const corp = { name: 'Corp', vlanID: 10 };
    const guest = { name: 'Guest', vlanID: 20 };
    const rows = {
      printer: { macAddress: printer.macAddress, ip: '10.0.10.5', clientName: 'printer', isWireless: false, signal: null, lastSeen: at(-120), connectedVLAN: corp, connectedSSID: null },
      phone: { macAddress: phone.macAddress, ip: '10.0.10.6', clientName: 'phone', isWireless: true, signal: -61, lastSeen: at(-60), connectedVLAN: guest, connectedSSID: { ssid: 'Acme-Corp' } },
      laptop: { macAddress: laptop.macAddress, ip: '2001:db8::5', clientName: null, isWireless: true, signal: -70, lastSeen: at(-60), connectedVLAN: guest, connectedSSID: { ssid: 'Acme-Guest' } },
      ap: { macAddress: AP_MAC, ip: '10.0.10.2', clientName: null, isWireless: false, signal: null, lastSeen: at(-120), connectedVLAN: corp, connectedSSID: null },
    };
    const clients = async (filter: string, network: string = IDS.acmeHq) => (await data(sdk.networkClients(network, filter))).networkClients;

    it('lists the clients seen in the last lookbackMinutes, leaving out the company’s hardware when asked', async () => {
      expect(await clients(clientsFilter())).toEqual([rows.printer, rows.phone, rows.laptop]);
      expect(await clients(clientsFilter('', false))).toEqual([rows.ap, rows.printer, rows.phone, rows.laptop]);
      // one minute back holds only the access point's report (60 s before the clock; the switch's was 120 s)
      expect(await clients('{ excludeMeterHardware: false, includeLatency: false, includeThroughput: false, lookbackMinutes: 1 }')).toEqual([rows.phone, rows.laptop]);
      // the imported clients were last seen days before: a week back finds them, no longer connected
      const week = await clients('{ excludeMeterHardware: true, includeLatency: false, includeThroughput: false, lookbackMinutes: 10080 }');
      expect(week.map((c: { macAddress: string }) => c.macAddress)).toEqual(['00:11:22:33:44:55', '0c:8d:db:12:34:56', printer.macAddress, phone.macAddress, laptop.macAddress, 'aa:bb:cc:00:00:01', 'aa:bb:cc:dd:ee:ff']);
    });

    it('filters by access point, IP range (inclusive, IPv4 and IPv6), MAC address, SSID and VLAN', async () => {
      expect(await clients(clientsFilter(`, apSerialNumber: "${SERIALS.acmeAp}"`))).toEqual([rows.phone, rows.laptop]);
      expect(await clients(clientsFilter(`, apSerialNumber: "${SERIALS.acmeSwitch}"`))).toEqual([]);
      expect(await clients(clientsFilter(', ipRange: { start: "10.0.10.2", end: "10.0.10.5" }', false))).toEqual([rows.ap, rows.printer]);
      expect(await clients(clientsFilter(', ipRange: { start: "10.0.10.6", end: "10.0.10.255" }'))).toEqual([rows.phone]);
      expect(await clients(clientsFilter(', ipRange: { start: "2001:db8::", end: "2001:DB8::5" }'))).toEqual([rows.laptop]);
      expect(await clients(clientsFilter(', ipRange: { start: "2001:db8::6", end: "2001:db8::ffff" }'))).toEqual([]);
      expect(await clients(clientsFilter(`, macAddress: "${phone.macAddress}"`))).toEqual([rows.phone]);
      expect(await clients(clientsFilter(', ssid: "Acme-Guest"'))).toEqual([rows.laptop]);
      expect(await clients(clientsFilter(', vlanID: 10', false))).toEqual([rows.ap, rows.printer]);
      expect(await clients(clientsFilter(', vlanID: 20, ssid: "Acme-Corp"'))).toEqual([rows.phone]);
    });

    it('answers for a past timestamp from the client sessions', async () => {
      // 90 s before the clock: the switch's clients (listed at -120 s) and the access point's (at -60 s) within 1 minute after
      expect(await clients(clientsFilter(`, timestamp: "${at(-90)}"`))).toEqual([rows.printer]);
      expect(await clients(clientsFilter(`, timestamp: "${at(-30)}"`))).toEqual([rows.printer, rows.phone, rows.laptop]);
      // before any session began
      expect(await clients(clientsFilter(`, timestamp: "${at(-600)}"`))).toEqual([]);
    });

    it('takes the filter in a variable, over several networks, and scopes the access point to the company', async () => {
      const query = 'query ($c: UUID!, $n: [UUID!]!, $f: NetworkClientsFilter) { networksClients(companyUUID: $c, networkUUIDs: $n, filter: $f) { macAddress networkUUID } }';
      const filter = { excludeMeterHardware: true, includeLatency: false, includeThroughput: false, lookbackMinutes: 5, ipRange: { start: '10.0.0.0', end: '10.255.255.255' } };
      const body = await data(query, { c: '00000000-0000-4000-8000-00000000000a', n: [IDS.acmeHq, IDS.acmeLab], f: filter });
      expect(body.networksClients).toEqual([
        { macAddress: printer.macAddress, networkUUID: IDS.acmeHq },
        { macAddress: phone.macAddress, networkUUID: IDS.acmeHq },
      ]);
      expect(await clients(clientsFilter(`, apSerialNumber: "${SERIALS.globexAp}"`))).toEqual([]);
      const foreign = await app.graphql(sdk.networkClients(IDS.globexHq, clientsFilter()));
      expect(foreign.body.data).toEqual({ networkClients: null });
      expect(foreign.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    });

    it('refuses what it cannot answer, naming the argument', async () => {
      const query = (filter: string) => sdk.networkClients(IDS.acmeHq, filter);
      expect(await refusal(query('{ excludeMeterHardware: true, includeLatency: true, includeThroughput: false, lookbackMinutes: 5 }'))).toEqual([['BAD_USER_INPUT', 'filter.includeLatency']]);
      expect(await refusal(query('{ excludeMeterHardware: true, includeLatency: false, includeThroughput: true, lookbackMinutes: 5 }'))).toEqual([['BAD_USER_INPUT', 'filter.includeThroughput']]);
      expect(await refusal(query(clientsFilter().replace('lookbackMinutes: 5', 'lookbackMinutes: 0')))).toEqual([['BAD_USER_INPUT', 'filter.lookbackMinutes']]);
      expect(await refusal(query(clientsFilter(', ipRange: { start: "10.0.0.1", end: "2001:db8::1" }')))).toEqual([['BAD_USER_INPUT', 'filter.ipRange']]);
      expect(await refusal(query(clientsFilter(', apSerialNumber: "not a serial"')))).toEqual([['BAD_USER_INPUT', 'filter.apSerialNumber']]);
      // the four fields Meter requires are required: one error for each missing
      expect(await refusal(query('{ excludeMeterHardware: true }'))).toEqual(Array.from({ length: 3 }, () => ['GRAPHQL_VALIDATION_FAILED', null]));
    });
  });

  it('lists a network’s virtual devices of one VirtualDeviceType, in literals and variables', async () => {
    const sw = { UUID: IDS.acmeSwitch, label: 'Core switch\twith tab', deviceType: 'SWITCH', deviceModel: 'SW-48P', isOnline: true };
    expect(await data(sdk.virtualDevices(IDS.acmeHq, '{ deviceType: SWITCH }'))).toEqual({ virtualDevicesForNetwork: [sw] });
    const byVariable = await data('query ($f: DevicesForNetworkFilter) { virtualDevicesForNetwork(networkUUID: "' + IDS.acmeHq + '", filter: $f) { UUID deviceType } }', {
      f: { deviceType: 'OBSERVER' },
    });
    expect(byVariable).toEqual({ virtualDevicesForNetwork: [{ UUID: IDS.acmeObserver, deviceType: 'OBSERVER' }] });
    const all = await data(sdk.virtualDevices(IDS.acmeHq, '{}'));
    expect(all.virtualDevicesForNetwork.map((d: { UUID: string }) => d.UUID)).toEqual([IDS.acmeAp, IDS.acmeSwitch, IDS.acmeObserver]);
    expect(await data(sdk.virtualDevices(IDS.acmeLab, '{ deviceType: SWITCH }'))).toEqual({ virtualDevicesForNetwork: [] });
    expect((await app.graphql(sdk.virtualDevices(IDS.globexHq, '{ deviceType: ACCESS_POINT }'))).body.data).toEqual({ virtualDevicesForNetwork: null });
    expect(await refusal(sdk.virtualDevices(IDS.acmeHq, '{ deviceType: ROUTER }'))).toEqual([['GRAPHQL_VALIDATION_FAILED', null]]);
  });

  it('pages the event log by Meter’s EventType, UNSPECIFIED for the types Meter does not name, and by API name', async () => {
    const boot = { eventType: 'DEVICE_BOOT', eventTypeAPIName: 'DEVICE_BOOT', generatedAt: at(-60), networkUUID: IDS.acmeHq };
    const failover = { eventType: 'UNSPECIFIED', eventTypeAPIName: 'WAN_FAILOVER', generatedAt: at(-120), networkUUID: IDS.acmeHq };
    expect(await data(sdk.eventLog(IDS.acmeHq, 'DEVICE_BOOT'))).toEqual({ recentEventLogEventsPage: { total: 1, events: [boot] } });
    expect(await data(sdk.eventLog(IDS.acmeHq, 'UNSPECIFIED, WAN_DOWN'))).toEqual({ recentEventLogEventsPage: { total: 1, events: [failover] } });
    const byName = await data(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 5, typeAPINameFilter: ["WAN_FAILOVER"]) { total events { eventType eventTypeAPIName eventTypeName } } }`);
    expect(byName.recentEventLogEventsPage).toEqual({ total: 1, events: [{ eventType: 'UNSPECIFIED', eventTypeAPIName: 'WAN_FAILOVER', eventTypeName: 'WAN failover' }] });
    // both filters: an event must match both
    expect((await data(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 5, typeFilter: [DEVICE_BOOT], typeAPINameFilter: ["WAN_FAILOVER"]) { total } }`)).recentEventLogEventsPage).toEqual({ total: 0 });
    const byVariable = await data(`query ($t: [EventType!]) { recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 5, typeFilter: $t) { total } }`, { t: ['DEVICE_ONLINE'] });
    // netgraph recorded the switch (imported offline) coming online at its report
    expect(byVariable.recentEventLogEventsPage).toEqual({ total: 1 });
    expect(await refusal(sdk.eventLog(IDS.acmeHq, '"DEVICE_BOOT"'))).toEqual([['GRAPHQL_VALIDATION_FAILED', null]]);
  });

  it('lists SSIDs by guest and hidden flags and by name, with Meter’s SSIDEncryptionProtocol', async () => {
    const guest = { UUID: IDS.acmeSsid, ssid: 'Acme-Guest', isEnabled: false, isGuest: true, isHidden: false, encryptionProtocol: 'WPA2' };
    const corp = { ssid: 'Acme-Corp', isEnabled: true, isGuest: false, isHidden: false, encryptionProtocol: 'WPA3_TRANSITION' };
    const ssids = async (filter: string) => (await data(sdk.ssids(IDS.acmeHq, filter))).ssidsForNetwork.map(({ UUID, ...s }: { UUID: string }) => (UUID === IDS.acmeSsid ? { UUID, ...s } : s));
    expect(await ssids('{ isGuest: true }')).toEqual([guest]);
    expect(await ssids('{ isGuest: false }')).toEqual([corp]);
    expect(await ssids('{ ssid: "Acme-Corp" }')).toEqual([corp]);
    expect(await ssids('{ isHidden: true }')).toEqual([]);
    expect(await ssids('{}')).toEqual([corp, guest]);
    expect((await app.graphql(sdk.ssids(IDS.globexHq, '{}'))).body.data).toEqual({ ssidsForNetwork: null });
    // a write outside Meter's list is refused, naming the field
    const writer = await createWriteKey(app);
    const bad = await app.graphql(`mutation { createSSID(input: { networkUUID: "${IDS.acmeLab}", ssid: "Old", encryptionProtocol: "WEP" }) { ssid { UUID } } }`, { key: writer });
    expect(errorOf(bad)).toEqual([['createSSID'], 'BAD_USER_INPUT', 'input.encryptionProtocol']);
  });

  it('counts active clients without the company’s hardware unless ActiveClientsInput includes it', async () => {
    const bucket = at(-300);
    const counts = (wired: number) => ({ activeClients: { wired: [{ timestamp: bucket, value: wired }], wireless: [{ timestamp: bucket, value: 2 }] } });
    expect(await data(sdk.activeClients(`networkUUID: "${IDS.acmeHq}"`))).toEqual(counts(1));
    expect(await data(sdk.activeClients(`networkUUID: "${IDS.acmeHq}", input: {}`))).toEqual(counts(1));
    expect(await data(sdk.activeClients(`networkUUID: "${IDS.acmeHq}", input: { includeMeterHardware: false }`))).toEqual(counts(1));
    expect(await data(sdk.activeClients(`networkUUID: "${IDS.acmeHq}", input: { includeMeterHardware: true }`))).toEqual(counts(2));
  });

  describe('networkUplinkQuality and networkUplinkThroughput by networks or virtual device', () => {
    const bucket = at(-300);
    const point = (port: string, value: number) => ({ timestamp: bucket, value, phyInterfaceUUID: port, networkUUID: IDS.acmeHq });

    it('reads one device’s uplinks, its network found from it or named', async () => {
      const ap = { metadata: { minValue: 0.9, maxValue: 0.9 }, values: [point(ports.ap, 0.9)] };
      expect(await data(sdk.uplinkQuality(`networkUUID: "${IDS.acmeHq}", virtualDeviceUUID: "${IDS.acmeAp}"`))).toEqual({ networkUplinkQuality: ap });
      expect(await data(sdk.uplinkQuality(`virtualDeviceUUID: "${IDS.acmeAp}"`))).toEqual({ networkUplinkQuality: ap });
      const both = { metadata: { minValue: 0.9, maxValue: 0.98 }, values: [point(ports.switch, 0.98), point(ports.ap, 0.9)] };
      expect(await data(sdk.uplinkQuality(`networkUUIDs: ["${IDS.acmeHq}", "${IDS.acmeLab}"]`))).toEqual({ networkUplinkQuality: both });
      // a device of another network than the ones named has no uplinks there
      expect(await data(sdk.uplinkQuality(`networkUUID: "${IDS.acmeLab}", virtualDeviceUUID: "${IDS.acmeAp}"`))).toEqual({
        networkUplinkQuality: { metadata: { minValue: null, maxValue: null }, values: [] },
      });
      const throughput = await data(
        `{ networkUplinkThroughput(filter: { durationSeconds: 3600, stepSeconds: 300 }, virtualDeviceUUID: "${IDS.acmeSwitch}") { values { value direction phyInterfaceUUID } } }`,
      );
      expect(throughput.networkUplinkThroughput.values).toEqual([
        { value: 4000, direction: 'RX', phyInterfaceUUID: ports.switch },
        { value: 400, direction: 'TX', phyInterfaceUUID: ports.switch },
      ]);
    });

    it('answers another company’s device or network like a missing one, and needs something to read', async () => {
      for (const args of [`virtualDeviceUUID: "${IDS.globexAp}"`, `networkUUID: "${IDS.acmeHq}", virtualDeviceUUID: "${IDS.globexAp}"`, `networkUUIDs: ["${IDS.acmeHq}", "${IDS.globexHq}"]`]) {
        const res = await app.graphql(sdk.uplinkQuality(args));
        expect(res.body.data).toEqual({ networkUplinkQuality: null });
        expect(res.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['UNAUTHORIZED']);
      }
      expect(await refusal('{ networkUplinkQuality(filter: { durationSeconds: 3600, stepSeconds: 300 }) { values { value } } }')).toEqual([['BAD_USER_INPUT', 'networkUUID']]);
    });
  });

  it('narrows networksForCompany to the networks named, leaving out another company’s', async () => {
    const body = await data(`{ networksForCompany(companySlug: "acme", filter: { networkUUIDs: ["${IDS.acmeLab}", "${IDS.globexHq}"] }) { UUID label slug } }`);
    expect(body).toEqual({ networksForCompany: [{ UUID: IDS.acmeLab, label: 'Lab', slug: 'lab' }] });
    const all = await data('{ networksForCompany(companySlug: "acme", filter: {}) { UUID } }');
    expect(all.networksForCompany).toHaveLength(3);
  });
});
