import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// The Meter API's read roots and fields (issue 16) over HTTP, from the fixture and from reports posted through POST /api/v1/reports.
const OFFLINE_AFTER_SECONDS = 60;
const ACME = '00000000-0000-4000-8000-00000000000a';
const GLOBEX = '00000000-0000-4000-8000-00000000000b';

const SWITCH_PORTS = [
  { portNumber: 1, label: 'WAN 1', portType: 'SFP', isEnabled: true, isConnected: true, isUplink: true, isUplinkActive: true, portSpeedMbps: 10000, nativeVLANID: 10 },
  // a port that is no uplink reports isUplinkActive, which must read as null
  { portNumber: 2, isEnabled: true, isConnected: true, isUplink: false, isUplinkActive: true, isTrunkPort: true, portSpeedMbps: 1000, nativeVLANID: 99 },
  { portNumber: 3, portType: 'COPPER', isEnabled: false, isConnected: false },
];
const wired = { macAddress: '3c:22:fb:00:00:01', ip: '10.0.10.5', hostname: 'printer', isWireless: false, signal: null, vlanID: 10, ssid: null, portNumber: 2 };
const phone = { macAddress: '3c:22:fb:00:00:02', ip: '10.0.10.6', hostname: 'phone', isWireless: true, signal: -61, vlanID: 20, ssid: 'Acme-Corp', portNumber: null };
const laptop = { macAddress: '3c:22:fb:00:00:03', ip: null, hostname: null, isWireless: true, signal: -70, vlanID: 77, ssid: 'Unknown', portNumber: null };
const RADIOS = [
  { BSSID: '0c:8d:db:00:01:10', radioBand: 'BAND_5G', ssid: 'Acme-Corp', isActive: true },
  { BSSID: '0c:8d:db:00:01:11', radioBand: 'BAND_2_4G', ssid: 'Acme-Guest', isActive: false },
];

type Body = { data: Record<string, unknown>; errors?: { message: string; path: string[]; extensions: Record<string, unknown> }[] };

describe.each(storeKinds())('the Meter API read surface on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let key: string;
  let globexKey: string;
  const read = async (query: string, as = key): Promise<Body> => {
    const response = await app.graphql(query, { key: as });
    expect(response.status).toBe(200);
    return response.body as Body;
  };
  const data = async (query: string): Promise<Record<string, unknown>> => {
    const body = await read(query);
    expect(body.errors).toBeUndefined();
    return body.data;
  };
  /** A foreign or missing id: null with UNAUTHORIZED at the field, nothing else. */
  const refused = async (query: string, field: string) => {
    const body = await read(query);
    expect(body.data).toEqual({ [field]: null });
    expect(body.errors?.map((error) => [error.path, error.extensions.code])).toEqual([[[field], 'UNAUTHORIZED']]);
    return body.errors?.[0]?.message;
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { DEVICE_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS) } });
    key = await app.createKey('acme');
    globexKey = await app.createKey('globex');
    const ingest = await createScopedKey(app, 'ingest');
    const observedAt = new Date(clock.now()).toISOString();
    const response = await postReports(app, ingest, [
      report(SERIALS.acmeSwitch, observedAt, { uptimeSeconds: 86_400, macAddress: '0c:8d:db:00:00:aa', interfaces: SWITCH_PORTS, clients: [wired] }),
      report(SERIALS.acmeAp, observedAt, { uptimeSeconds: 120, macAddress: '0c:8d:db:00:00:bb', radios: RADIOS, clients: [phone, laptop] }),
    ]);
    expect(response.body).toMatchObject({ accepted: 2, rejected: [] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('reads a network by UUID and by slugs, with its company slug; another company’s is null with UNAUTHORIZED', async () => {
    const fields = 'UUID slug companySlug isActive';
    expect(await data(`{ network(UUID: "${IDS.acmeLab}") { ${fields} } }`)).toEqual({ network: { UUID: IDS.acmeLab, slug: 'lab', companySlug: 'acme', isActive: false } });
    expect(await data(`{ networkBySlug(companySlug: "acme", networkSlug: "hq") { UUID companySlug } }`)).toEqual({ networkBySlug: { UUID: IDS.acmeHq, companySlug: 'acme' } });
    expect(await refused(`{ network(UUID: "${IDS.globexHq}") { UUID } }`, 'network')).toBe('Not found, or not accessible with this API key: network(UUID).');
    expect(await refused('{ networkBySlug(companySlug: "globex", networkSlug: "hq") { UUID } }', 'networkBySlug')).toBe(
      'Not found, or not accessible with this API key: networkBySlug(companySlug, networkSlug).',
    );
    const bad = await read('{ networkBySlug(companySlug: "acme", networkSlug: "Not A Slug") { UUID } }');
    expect(bad.errors?.map((error) => error.extensions)).toEqual([{ code: 'BAD_USER_INPUT', argument: 'networkSlug' }]);
  });

  it('reads the new Company, VLAN and SSID fields with their defaults', async () => {
    expect(await data('{ companyBySlug(slug: "acme") { isCustomer websiteDomain } }')).toEqual({ companyBySlug: { isCustomer: true, websiteDomain: null } });
    expect(await data(`{ vlans(networkUUID: "${IDS.acmeHq}") { name vlanID isDefault description networkUUID } }`)).toEqual({
      vlans: [
        { name: 'Corp', vlanID: 5, isDefault: false, description: null, networkUUID: IDS.acmeHq },
        { name: 'Corp', vlanID: 10, isDefault: false, description: null, networkUUID: IDS.acmeHq },
        { name: 'Guest', vlanID: 20, isDefault: false, description: null, networkUUID: IDS.acmeHq },
      ],
    });
    expect(await data(`{ vlan(UUID: "${IDS.acmeVlan}") { UUID vlanID } }`)).toEqual({ vlan: { UUID: IDS.acmeVlan, vlanID: 20 } });
    expect(await data(`{ ssidsForNetwork(networkUUID: "${IDS.acmeHq}") { ssid isGuest isHidden encryptionProtocol vlan { vlanID } networkUUID } }`)).toEqual({
      ssidsForNetwork: [
        { ssid: 'Acme-Corp', isGuest: false, isHidden: false, encryptionProtocol: null, vlan: null, networkUUID: IDS.acmeHq },
        { ssid: 'Acme-Guest', isGuest: false, isHidden: false, encryptionProtocol: null, vlan: null, networkUUID: IDS.acmeHq },
      ],
    });
    expect(await data(`{ ssid(UUID: "${IDS.acmeSsid}") { ssid isEnabled } }`)).toEqual({ ssid: { ssid: 'Acme-Guest', isEnabled: false } });
    const globexVlans = await read(`{ vlans(networkUUID: "${IDS.acmeHq}") { name } }`, globexKey);
    expect(globexVlans.data).toEqual({ vlans: null });
    expect((await read(`{ vlan(UUID: "${IDS.acmeVlan}") { name } ssid(UUID: "${IDS.acmeSsid}") { ssid } }`, globexKey)).data).toEqual({ vlan: null, ssid: null });
    await refused(`{ ssidsForNetwork(networkUUID: "${IDS.globexHq}") { ssid } }`, 'ssidsForNetwork');
  });

  it('reads the reported device fields: uptime, MAC address, network and virtual device', async () => {
    const body = await data(
      `{ virtualDevice(UUID: "${IDS.acmeSwitch}") { networkUUID uptime hardwareDevice { macAddress networkUUID virtualDeviceUUID } } ` +
        `observer: virtualDevice(UUID: "${IDS.acmeObserver}") { uptime phyInterfaces { portNumber } } ` +
        `spare: hardwareDevice(serialNumber: "M1A3-SPARE-01") { macAddress networkUUID virtualDeviceUUID } }`,
    );
    expect(body).toEqual({
      virtualDevice: { networkUUID: IDS.acmeHq, uptime: 86_400, hardwareDevice: { macAddress: '0c:8d:db:00:00:aa', networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch } },
      observer: { uptime: null, phyInterfaces: [] },
      spare: { macAddress: null, networkUUID: null, virtualDeviceUUID: null },
    });
  });

  it('reads ports as reported: isUplinkActive only on uplinks, the native VLAN by number, wired clients on their port', async () => {
    const fields =
      'label portNumber portType isEnabled isConnected isTrunkPort isUplink isUplinkActive portSpeedMbps nativeVLAN { vlanID name } virtualDeviceUUID ' +
      'connectedDevices { portNumber client { macAddress clientName } }';
    const body = await data(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { ${fields} } }`);
    const port = { isTrunkPort: false, virtualDeviceUUID: IDS.acmeSwitch, connectedDevices: [] };
    expect(body.phyInterfacesForVirtualDevice).toEqual([
      { ...port, label: 'WAN 1', portNumber: 1, portType: 'SFP', isEnabled: true, isConnected: true, isUplink: true, isUplinkActive: true, portSpeedMbps: 10000, nativeVLAN: { vlanID: 10, name: 'Corp' } },
      {
        ...port,
        label: null,
        portNumber: 2,
        portType: null,
        isEnabled: true,
        isConnected: true,
        isTrunkPort: true,
        isUplink: false,
        isUplinkActive: null,
        portSpeedMbps: 1000,
        nativeVLAN: null,
        connectedDevices: [{ portNumber: 2, client: { macAddress: wired.macAddress, clientName: 'printer' } }],
      },
      { ...port, label: null, portNumber: 3, portType: 'COPPER', isEnabled: false, isConnected: false, isUplink: false, isUplinkActive: null, portSpeedMbps: null, nativeVLAN: null },
    ]);
    expect(await data(`{ uplinkPhyInterfacesForNetwork(networkUUID: "${IDS.acmeHq}") { portNumber isUplinkActive virtualDeviceUUID } }`)).toEqual({
      uplinkPhyInterfacesForNetwork: [{ portNumber: 1, isUplinkActive: true, virtualDeviceUUID: IDS.acmeSwitch }],
    });
    expect(await data(`{ virtualDevice(UUID: "${IDS.acmeSwitch}") { phyInterfaces { portNumber } } }`)).toEqual({
      virtualDevice: { phyInterfaces: [{ portNumber: 1 }, { portNumber: 2 }, { portNumber: 3 }] },
    });
    await refused(`{ uplinkPhyInterfacesForNetwork(networkUUID: "${IDS.globexHq}") { portNumber } }`, 'uplinkPhyInterfacesForNetwork');
    await refused(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.globexAp}") { portNumber } }`, 'phyInterfacesForVirtualDevice');
  });

  it('reads clients with name, signal, VLAN and SSID by reported number and name, and the access point of wireless ones', async () => {
    const fields = 'macAddress clientName isWireless signal connectedVLAN { vlanID } connectedSSID { ssid } accessPoint { UUID } networkUUID';
    const body = await data(`{ networkClients(networkUUID: "${IDS.acmeHq}") { ${fields} } }`);
    expect(body.networkClients).toEqual([
      { macAddress: wired.macAddress, clientName: 'printer', isWireless: false, signal: null, connectedVLAN: { vlanID: 10 }, connectedSSID: null, accessPoint: null, networkUUID: IDS.acmeHq },
      { macAddress: phone.macAddress, clientName: 'phone', isWireless: true, signal: -61, connectedVLAN: { vlanID: 20 }, connectedSSID: { ssid: 'Acme-Corp' }, accessPoint: { UUID: IDS.acmeAp }, networkUUID: IDS.acmeHq },
      // a VLAN number and an SSID name the network does not have
      { macAddress: laptop.macAddress, clientName: null, isWireless: true, signal: -70, connectedVLAN: null, connectedSSID: null, accessPoint: { UUID: IDS.acmeAp }, networkUUID: IDS.acmeHq },
    ]);
  });

  it('reads networksClients over several networks, and refuses the whole field for any foreign network or company', async () => {
    const query = (company: string, networks: readonly string[]) =>
      `{ networksClients(companyUUID: "${company}", networkUUIDs: ${JSON.stringify(networks)}) { macAddress networkUUID } }`;
    expect(await data(query(ACME, [IDS.acmeHq, IDS.acmeLab, IDS.acmeHq]))).toEqual({
      networksClients: [wired, phone, laptop].map((client) => ({ macAddress: client.macAddress, networkUUID: IDS.acmeHq })),
    });
    expect(await data(query(ACME, [IDS.acmeEmpty]))).toEqual({ networksClients: [] });
    expect(await refused(query(ACME, [IDS.acmeHq, IDS.globexHq]), 'networksClients')).toBe(
      'Not found, or not accessible with this API key: networksClients(companyUUID, networkUUIDs).',
    );
    await refused(query(GLOBEX, [IDS.acmeHq]), 'networksClients');
    await refused(query(ACME, ['99999999-9999-4999-8999-999999999999']), 'networksClients');
  });

  it('lists BSSIDs of online access points, and inactive radios and offline ones only with includeInactive', async () => {
    const fields = 'BSSID isActive radioBand accessPointSerialNumber SSID { ssid }';
    expect(await data(`{ bssidsForNetwork(networkUUID: "${IDS.acmeHq}") { ${fields} } }`)).toEqual({
      bssidsForNetwork: [{ BSSID: '0c:8d:db:00:01:10', isActive: true, radioBand: 'BAND_5G', accessPointSerialNumber: SERIALS.acmeAp, SSID: { ssid: 'Acme-Corp' } }],
    });
    const all = await data(`{ bssidsForNetwork(networkUUID: "${IDS.acmeHq}", includeInactive: true) { BSSID isActive SSID { ssid } } }`);
    expect(all.bssidsForNetwork).toEqual([
      { BSSID: '0c:8d:db:00:01:10', isActive: true, SSID: { ssid: 'Acme-Corp' } },
      { BSSID: '0c:8d:db:00:01:11', isActive: false, SSID: { ssid: 'Acme-Guest' } },
    ]);
    await refused(`{ bssidsForNetwork(networkUUID: "${IDS.globexHq}", includeInactive: true) { BSSID } }`, 'bssidsForNetwork');
    // the access point goes offline: its radios are listed only with includeInactive, all inactive
    clock.advance((OFFLINE_AFTER_SECONDS + 1) * 1000);
    expect(await data(`{ bssidsForNetwork(networkUUID: "${IDS.acmeHq}") { BSSID } }`)).toEqual({ bssidsForNetwork: [] });
    const offline = await app.graphql(`query ($all: Boolean) { bssidsForNetwork(networkUUID: "${IDS.acmeHq}", includeInactive: $all) { BSSID isActive } }`, {
      key,
      variables: { all: true },
    });
    expect(offline.body.data.bssidsForNetwork).toEqual([
      { BSSID: '0c:8d:db:00:01:10', isActive: false },
      { BSSID: '0c:8d:db:00:01:11', isActive: false },
    ]);
  });
});
