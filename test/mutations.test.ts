import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { createWriteKey } from './helpers/writes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NETWORK = 'UUID label slug isActive mailingAddress { city subdivisionCode } vlans { name vlanID isEnabled } ssids { ssid isEnabled }';

describe.each(storeKinds())('mutations on %s: every success path', (kind) => {
  let app: TestApp;
  let key: string;
  const mutate = async (query: string, variables?: unknown) => {
    const res = await app.graphql(query, { key, variables });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  const read = async (query: string) => (await app.graphql(query, { key })).body.data;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    key = await createWriteKey(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('networks', () => {
    it('createNetwork with VLANs and SSIDs returns the network as read back, defaults applied', async () => {
      const data = await mutate(`mutation {
        createNetwork(input: { label: "Branch Bern", slug: "bern", mailingAddress: { city: "Bern", subdivisionCode: "BE" },
          vlans: [{ name: "Corp", vlanID: 10 }, { name: "Guest", vlanID: 20, isEnabled: false }],
          ssids: [{ ssid: "Bern-Corp" }, { ssid: "Bern-Gäste", isEnabled: false }] }) { network { ${NETWORK} } } }`);
      expect(data.createNetwork.network).toEqual({
        UUID: expect.stringMatching(UUID),
        label: 'Branch Bern',
        slug: 'bern',
        isActive: true,
        mailingAddress: { city: 'Bern', subdivisionCode: 'BE' },
        vlans: [
          { name: 'Corp', vlanID: 10, isEnabled: true },
          { name: 'Guest', vlanID: 20, isEnabled: false },
        ],
        ssids: [
          { ssid: 'Bern-Corp', isEnabled: true },
          { ssid: 'Bern-Gäste', isEnabled: false },
        ],
      });
      const readBack = await read(`{ networksForCompany(companySlug: "acme") { ${NETWORK} } }`);
      expect(readBack.networksForCompany).toContainEqual(data.createNetwork.network);
    });

    it('createNetwork with only the required fields: active, no address, nothing on it', async () => {
      const data = await mutate('mutation { createNetwork(input: { label: "Bare", slug: "bare" }) { network { isActive mailingAddress { city } vlans { name } ssids { ssid } virtualDevices { UUID } } } }');
      expect(data.createNetwork.network).toEqual({ isActive: true, mailingAddress: null, vlans: [], ssids: [], virtualDevices: [] });
    });

    it('updateNetwork changes only the given fields; mailingAddress null clears it, absent leaves it', async () => {
      const renamed = await mutate(`mutation { updateNetwork(input: { networkUUID: "${IDS.acmeHq}", label: "HQ Zurich", isActive: false }) { network { label slug isActive mailingAddress { city subdivisionCode } } } }`);
      expect(renamed.updateNetwork.network).toEqual({ label: 'HQ Zurich', slug: 'hq', isActive: false, mailingAddress: { city: 'San Francisco', subdivisionCode: 'CA' } });
      const moved = await mutate(`mutation { updateNetwork(input: { networkUUID: "${IDS.acmeHq}", slug: "zurich", mailingAddress: { city: "Zürich" } }) { network { label slug mailingAddress { city subdivisionCode } } } }`);
      expect(moved.updateNetwork.network).toEqual({ label: 'HQ Zurich', slug: 'zurich', mailingAddress: { city: 'Zürich', subdivisionCode: null } });
      const cleared = await mutate('mutation ($id: UUID!) { updateNetwork(input: { networkUUID: $id, mailingAddress: null }) { network { slug mailingAddress { city } } } }', { id: IDS.acmeHq });
      expect(cleared.updateNetwork.network).toEqual({ slug: 'zurich', mailingAddress: null });
      const again = await read(`{ virtualDevicesForNetwork(networkUUID: "${IDS.acmeHq}") { UUID } }`);
      expect(again.virtualDevicesForNetwork).toHaveLength(3);
    });

    it('deleteNetwork removes it with its devices, VLANs, SSIDs and clients, and returns its hardware to spare', async () => {
      const data = await mutate(`mutation { deleteNetwork(input: { networkUUID: "${IDS.acmeLab}" }) { deletedNetworkUUID hardwareReturnedToSpare } }`);
      expect(data.deleteNetwork).toEqual({ deletedNetworkUUID: IDS.acmeLab, hardwareReturnedToSpare: [SERIALS.acmeLabAp] });
      const res = await app.graphql(`{ n: virtualDevicesForNetwork(networkUUID: "${IDS.acmeLab}") { UUID } d: virtualDevice(UUID: "${IDS.acmeLabAp}") { UUID }
        h: hardwareDevice(serialNumber: "${SERIALS.acmeLabAp}") { serialNumber deviceType } }`, { key });
      expect(res.body.data).toEqual({ n: null, d: null, h: { serialNumber: SERIALS.acmeLabAp, deviceType: 'ACCESS_POINT' } });
      const rows = await app.server.store.db.selectFrom('hardware_devices').select('virtual_device_id').where('serial_number', '=', SERIALS.acmeLabAp).execute();
      expect(rows).toEqual([{ virtual_device_id: null }]);
    });
  });

  describe('virtual and hardware devices', () => {
    it('createVirtualDevice starts offline without hardware; updateVirtualDevice changes the given fields', async () => {
      const created = await mutate(`mutation { createVirtualDevice(input: { networkUUID: "${IDS.acmeEmpty}", label: "AP 1", deviceType: ACCESS_POINT, deviceModel: "AP-W7" }) {
        virtualDevice { UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber } } } }`);
      const device = created.createVirtualDevice.virtualDevice;
      expect(device).toEqual({ UUID: expect.stringMatching(UUID), label: 'AP 1', deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', isOnline: false, hardwareDevice: null });
      const updated = await mutate(`mutation { updateVirtualDevice(input: { virtualDeviceUUID: "${device.UUID}", label: "AP lobby", deviceType: SWITCH }) { virtualDevice { label deviceType deviceModel } } }`);
      expect(updated.updateVirtualDevice.virtualDevice).toEqual({ label: 'AP lobby', deviceType: 'SWITCH', deviceModel: 'AP-W7' });
    });

    it('registers, updates, assigns, unassigns and deletes hardware', async () => {
      const created = await mutate(`mutation { createVirtualDevice(input: { networkUUID: "${IDS.acmeEmpty}", label: "Core", deviceType: SWITCH, deviceModel: "SW-48P" }) { virtualDevice { UUID } } }`);
      const slot = created.createVirtualDevice.virtualDevice.UUID;
      const registered = await mutate('mutation { registerHardwareDevice(input: { serialNumber: "NEW-SW-0001", deviceType: SWITCH, deviceModel: "SW-48" }) { hardwareDevice { serialNumber deviceType deviceModel isConnectedToBackend } } }');
      expect(registered.registerHardwareDevice.hardwareDevice).toEqual({ serialNumber: 'NEW-SW-0001', deviceType: 'SWITCH', deviceModel: 'SW-48', isConnectedToBackend: false });
      const updated = await mutate('mutation { updateHardwareDevice(input: { serialNumber: "NEW-SW-0001", deviceModel: "SW-48P" }) { hardwareDevice { deviceModel } } }');
      expect(updated.updateHardwareDevice.hardwareDevice).toEqual({ deviceModel: 'SW-48P' });
      const assigned = await mutate(`mutation { assignHardwareDevice(input: { serialNumber: "NEW-SW-0001", virtualDeviceUUID: "${slot}" }) {
        hardwareDevice { serialNumber } virtualDevice { UUID hardwareDevice { serialNumber deviceModel } } } }`);
      expect(assigned.assignHardwareDevice).toEqual({ hardwareDevice: { serialNumber: 'NEW-SW-0001' }, virtualDevice: { UUID: slot, hardwareDevice: { serialNumber: 'NEW-SW-0001', deviceModel: 'SW-48P' } } });
      const unassigned = await mutate('mutation { unassignHardwareDevice(input: { serialNumber: "NEW-SW-0001" }) { hardwareDevice { serialNumber } previousVirtualDevice { UUID hardwareDevice { serialNumber } } } }');
      expect(unassigned.unassignHardwareDevice).toEqual({ hardwareDevice: { serialNumber: 'NEW-SW-0001' }, previousVirtualDevice: { UUID: slot, hardwareDevice: null } });
      const deleted = await mutate('mutation { deleteHardwareDevice(input: { serialNumber: "NEW-SW-0001" }) { deletedSerialNumber } }');
      expect(deleted.deleteHardwareDevice).toEqual({ deletedSerialNumber: 'NEW-SW-0001' });
      expect((await app.graphql('{ hardwareDevice(serialNumber: "NEW-SW-0001") { serialNumber } }', { key })).body.data).toEqual({ hardwareDevice: null });
    });

    it('assigning where it is assigned already and unassigning spare hardware change nothing', async () => {
      const same = await mutate(`mutation { assignHardwareDevice(input: { serialNumber: "${SERIALS.acmeSwitch}", virtualDeviceUUID: "${IDS.acmeSwitch}" }) { virtualDevice { hardwareDevice { serialNumber } } } }`);
      expect(same.assignHardwareDevice.virtualDevice.hardwareDevice).toEqual({ serialNumber: SERIALS.acmeSwitch });
      const spare = await mutate('mutation { unassignHardwareDevice(input: { serialNumber: "M1A3-SPARE-01" }) { hardwareDevice { serialNumber } previousVirtualDevice { UUID } } }');
      expect(spare.unassignHardwareDevice).toEqual({ hardwareDevice: { serialNumber: 'M1A3-SPARE-01' }, previousVirtualDevice: null });
    });

    it('deleteVirtualDevice returns its hardware to spare', async () => {
      const data = await mutate(`mutation { deleteVirtualDevice(input: { virtualDeviceUUID: "${IDS.acmeAp}" }) { deletedVirtualDeviceUUID hardwareReturnedToSpare } }`);
      expect(data.deleteVirtualDevice).toEqual({ deletedVirtualDeviceUUID: IDS.acmeAp, hardwareReturnedToSpare: [SERIALS.acmeAp] });
      const res = await read(`{ virtualDevice(UUID: "${IDS.acmeAp}") { UUID } hardwareDevice(serialNumber: "${SERIALS.acmeAp}") { serialNumber } }`);
      expect(res).toEqual({ virtualDevice: null, hardwareDevice: { serialNumber: SERIALS.acmeAp } });
    });
  });

  describe('VLANs and SSIDs', () => {
    it('createVLAN, updateVLAN and deleteVLAN', async () => {
      const created = await mutate(`mutation { createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "Voice", vlanID: 30 }) { vlan { UUID name vlanID isEnabled } } }`);
      const vlan = created.createVLAN.vlan;
      expect(vlan).toEqual({ UUID: expect.stringMatching(UUID), name: 'Voice', vlanID: 30, isEnabled: true });
      const updated = await mutate(`mutation { updateVLAN(input: { vlanUUID: "${vlan.UUID}", vlanID: 31, isEnabled: false }) { vlan { UUID name vlanID isEnabled } } }`);
      expect(updated.updateVLAN.vlan).toEqual({ UUID: vlan.UUID, name: 'Voice', vlanID: 31, isEnabled: false });
      const deleted = await mutate(`mutation { deleteVLAN(input: { vlanUUID: "${vlan.UUID}" }) { deletedVLANUUID } }`);
      expect(deleted.deleteVLAN).toEqual({ deletedVLANUUID: vlan.UUID });
      const left = await read(`{ virtualDevicesForNetwork(networkUUID: "${IDS.acmeEmpty}") { UUID } companyBySlug(slug: "acme") { networks { slug vlans { vlanID } } } }`);
      expect(left.companyBySlug.networks.find((n: { slug: string }) => n.slug === 'annex').vlans).toEqual([]);
    });

    it('createSSID, updateSSID (switch it off) and deleteSSID', async () => {
      const created = await mutate(`mutation { createSSID(input: { networkUUID: "${IDS.acmeEmpty}", ssid: "Annex" }) { ssid { UUID ssid isEnabled } } }`);
      const ssid = created.createSSID.ssid;
      expect(ssid).toEqual({ UUID: expect.stringMatching(UUID), ssid: 'Annex', isEnabled: true });
      const off = await mutate(`mutation { updateSSID(input: { ssidUUID: "${ssid.UUID}", isEnabled: false }) { ssid { ssid isEnabled } } }`);
      expect(off.updateSSID.ssid).toEqual({ ssid: 'Annex', isEnabled: false });
      const deleted = await mutate(`mutation { deleteSSID(input: { ssidUUID: "${ssid.UUID}" }) { deletedSSIDUUID } }`);
      expect(deleted.deleteSSID).toEqual({ deletedSSIDUUID: ssid.UUID });
    });
  });

  describe('the GraphQL side', () => {
    it('runs root fields in order, with aliases, variables, fragments and __typename; later fields see earlier changes', async () => {
      const data = await mutate(
        `mutation Setup($net: CreateNetworkInput!) {
          __typename
          made: createNetwork(input: $net) { network { ...N } __typename }
          renamed: updateNetwork(input: { networkUUID: "${IDS.acmeEmpty}", label: "Annex 2" }) { network { name: label } }
        }
        fragment N on Network { id: UUID slug @include(if: true) label @skip(if: true) }`,
        { net: { label: 'Vars', slug: 'vars' } },
      );
      expect(Object.keys(data)).toEqual(['__typename', 'made', 'renamed']);
      expect(data.__typename).toBe('Mutation');
      expect(data.made).toEqual({ network: { id: expect.stringMatching(UUID), slug: 'vars' }, __typename: 'CreateNetworkPayload' });
      expect(data.renamed).toEqual({ network: { name: 'Annex 2' } });
    });

    it('has no input for isOnline or isConnectedToBackend: they are reported by devices', async () => {
      for (const query of [
        `mutation { updateVirtualDevice(input: { virtualDeviceUUID: "${IDS.acmeSwitch}", isOnline: true }) { virtualDevice { UUID } } }`,
        'mutation { registerHardwareDevice(input: { serialNumber: "X-1", deviceType: SWITCH, deviceModel: "m", isConnectedToBackend: true }) { hardwareDevice { serialNumber } } }',
      ]) {
        const res = await app.graphql(query, { key });
        expect(res.status).toBe(422);
        expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      }
    });
  });
});
