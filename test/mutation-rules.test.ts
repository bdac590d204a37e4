import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp, TestResponse } from './helpers/app.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { createWriteKey, errorOf, snapshotOf } from './helpers/writes.js';

const MISSING = '99999999-9999-4999-8999-999999999999';

describe.each(storeKinds())('mutation rules on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let globexVlan: string;
  let globexSsid: string;
  let acmeCorpVlan: string;
  let acmeCorpSsid: string;
  /** A mutation that must fail: null at its path, exactly one error, and nothing of either company changed. */
  const refused = async (query: string) => {
    const before = [await snapshotOf(app, 'acme'), await snapshotOf(app, 'globex')];
    const res = await app.graphql(`mutation { x: ${query} }`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ x: null });
    expect(res.body.errors).toHaveLength(1);
    expect([await snapshotOf(app, 'acme'), await snapshotOf(app, 'globex')]).toEqual(before);
    return res;
  };

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    key = await createWriteKey(app);
    const globex = await app.graphql(`{ companyBySlug(slug: "globex") { networks { vlans { UUID } ssids { UUID } } } }`, { key: await app.createKey('globex') });
    globexVlan = globex.body.data.companyBySlug.networks[0].vlans[0].UUID;
    globexSsid = globex.body.data.companyBySlug.networks[0].ssids[0].UUID;
    const acme = await app.graphql(`{ companyBySlug(slug: "acme") { networks { vlans { UUID vlanID } ssids { UUID ssid } } } }`, { key });
    const hq = acme.body.data.companyBySlug.networks.find((n: { vlans: unknown[] }) => n.vlans.length > 0);
    acmeCorpVlan = hq.vlans.find((v: { vlanID: number }) => v.vlanID === 10).UUID;
    acmeCorpSsid = hq.ssids.find((s: { ssid: string }) => s.ssid === 'Acme-Corp').UUID;
  });
  afterAll(async () => {
    await app?.close();
  });

  const cases: [string, () => string, string, string][] = [
    ['a malformed slug', () => 'createNetwork(input: { label: "X", slug: "Not A Slug" }) { network { UUID } }', 'BAD_USER_INPUT', 'input.slug'],
    ['a slug with a double hyphen', () => 'createNetwork(input: { label: "X", slug: "a--b" }) { network { UUID } }', 'BAD_USER_INPUT', 'input.slug'],
    ['a slug the company uses', () => 'createNetwork(input: { label: "X", slug: "hq" }) { network { UUID } }', 'CONFLICT', 'input.slug'],
    ['a blank label', () => 'createNetwork(input: { label: "   ", slug: "x" }) { network { UUID } }', 'BAD_USER_INPUT', 'input.label'],
    ['a label over 200 characters', () => `createNetwork(input: { label: "${'L'.repeat(201)}", slug: "x" }) { network { UUID } }`, 'BAD_USER_INPUT', 'input.label'],
    ['an empty city', () => 'createNetwork(input: { label: "X", slug: "x", mailingAddress: { city: "" } }) { network { UUID } }', 'BAD_USER_INPUT', 'input.mailingAddress.city'],
    ['a long subdivision code', () => `createNetwork(input: { label: "X", slug: "x", mailingAddress: { subdivisionCode: "${'S'.repeat(21)}" } }) { network { UUID } }`, 'BAD_USER_INPUT', 'input.mailingAddress.subdivisionCode'],
    ['a nested VLAN id of 0', () => 'createNetwork(input: { label: "X", slug: "x", vlans: [{ name: "A", vlanID: 1 }, { name: "B", vlanID: 0 }] }) { network { UUID } }', 'BAD_USER_INPUT', 'input.vlans[1].vlanID'],
    ['a nested SSID of 33 bytes', () => `createNetwork(input: { label: "X", slug: "x", ssids: [{ ssid: "${'ü'.repeat(17)}" }] }) { network { UUID } }`, 'BAD_USER_INPUT', 'input.ssids[0].ssid'],
    ['an update that changes nothing', () => `updateNetwork(input: { networkUUID: "${IDS.acmeHq}" }) { network { UUID } }`, 'BAD_USER_INPUT', 'input'],
    ['a null label', () => `updateNetwork(input: { networkUUID: "${IDS.acmeHq}", label: null }) { network { UUID } }`, 'BAD_USER_INPUT', 'input.label'],
    ['a null isActive', () => `updateNetwork(input: { networkUUID: "${IDS.acmeHq}", isActive: null }) { network { UUID } }`, 'BAD_USER_INPUT', 'input.isActive'],
    ['a slug another network uses', () => `updateNetwork(input: { networkUUID: "${IDS.acmeHq}", slug: "lab" }) { network { UUID } }`, 'CONFLICT', 'input.slug'],
    ['VLAN id 0', () => `createVLAN(input: { networkUUID: "${IDS.acmeHq}", name: "A", vlanID: 0 }) { vlan { UUID } }`, 'BAD_USER_INPUT', 'input.vlanID'],
    ['VLAN id 4095', () => `createVLAN(input: { networkUUID: "${IDS.acmeHq}", name: "A", vlanID: 4095 }) { vlan { UUID } }`, 'BAD_USER_INPUT', 'input.vlanID'],
    ['a VLAN id the network uses', () => `createVLAN(input: { networkUUID: "${IDS.acmeHq}", name: "A", vlanID: 20 }) { vlan { UUID } }`, 'CONFLICT', 'input.vlanID'],
    ['a blank VLAN name', () => `createVLAN(input: { networkUUID: "${IDS.acmeHq}", name: "", vlanID: 99 }) { vlan { UUID } }`, 'BAD_USER_INPUT', 'input.name'],
    ['a VLAN moved onto a used id', () => `updateVLAN(input: { vlanUUID: "${acmeCorpVlan}", vlanID: 20 }) { vlan { UUID } }`, 'CONFLICT', 'input.vlanID'],
    ['an empty SSID', () => `createSSID(input: { networkUUID: "${IDS.acmeHq}", ssid: "" }) { ssid { UUID } }`, 'BAD_USER_INPUT', 'input.ssid'],
    ['an SSID of 33 ASCII bytes', () => `createSSID(input: { networkUUID: "${IDS.acmeHq}", ssid: "${'s'.repeat(33)}" }) { ssid { UUID } }`, 'BAD_USER_INPUT', 'input.ssid'],
    ['an SSID name the network uses', () => `createSSID(input: { networkUUID: "${IDS.acmeHq}", ssid: "Acme-Guest" }) { ssid { UUID } }`, 'CONFLICT', 'input.ssid'],
    ['an SSID renamed onto a used name', () => `updateSSID(input: { ssidUUID: "${acmeCorpSsid}", ssid: "Acme-Guest" }) { ssid { UUID } }`, 'CONFLICT', 'input.ssid'],
    ['a blank device label', () => `createVirtualDevice(input: { networkUUID: "${IDS.acmeHq}", label: " ", deviceType: SWITCH, deviceModel: "m" }) { virtualDevice { UUID } }`, 'BAD_USER_INPUT', 'input.label'],
    ['a device model over 100 characters', () => `createVirtualDevice(input: { networkUUID: "${IDS.acmeHq}", label: "d", deviceType: SWITCH, deviceModel: "${'m'.repeat(101)}" }) { virtualDevice { UUID } }`, 'BAD_USER_INPUT', 'input.deviceModel'],
    ['a device type that does not match its hardware', () => `updateVirtualDevice(input: { virtualDeviceUUID: "${IDS.acmeAp}", deviceType: SWITCH }) { virtualDevice { UUID } }`, 'BAD_USER_INPUT', 'input.deviceType'],
    ['a malformed serial number', () => 'registerHardwareDevice(input: { serialNumber: "x y", deviceType: SWITCH, deviceModel: "m" }) { hardwareDevice { serialNumber } }', 'BAD_USER_INPUT', 'input.serialNumber'],
    ['a serial number in the own inventory', () => `registerHardwareDevice(input: { serialNumber: "${SERIALS.acmeSwitch}", deviceType: SWITCH, deviceModel: "m" }) { hardwareDevice { serialNumber } }`, 'CONFLICT', 'input.serialNumber'],
    ['a hardware type that does not match the slot', () => `assignHardwareDevice(input: { serialNumber: "M1A3-SPARE-01", virtualDeviceUUID: "${IDS.acmeAp}" }) { hardwareDevice { serialNumber } }`, 'BAD_USER_INPUT', 'input.serialNumber'],
    ['hardware for an OBSERVER', () => `assignHardwareDevice(input: { serialNumber: "M1A3-SPARE-01", virtualDeviceUUID: "${IDS.acmeObserver}" }) { hardwareDevice { serialNumber } }`, 'BAD_USER_INPUT', 'input.virtualDeviceUUID'],
    ['a second hardware device for a slot', () => `assignHardwareDevice(input: { serialNumber: "M1A3-SPARE-01", virtualDeviceUUID: "${IDS.acmeSwitch}" }) { hardwareDevice { serialNumber } }`, 'CONFLICT', 'input.virtualDeviceUUID'],
    ['hardware assigned elsewhere', () => `assignHardwareDevice(input: { serialNumber: "${SERIALS.acmeLabAp}", virtualDeviceUUID: "${IDS.acmeAp}" }) { hardwareDevice { serialNumber } }`, 'CONFLICT', 'input.serialNumber'],
    ['deleting assigned hardware', () => `deleteHardwareDevice(input: { serialNumber: "${SERIALS.acmeSwitch}" }) { deletedSerialNumber }`, 'CONFLICT', 'input.serialNumber'],
  ];

  it.each(cases)('refuses %s, naming the field, changing nothing', async (_name, query, code, field) => {
    const res = await refused(query());
    expect(errorOf(res)).toEqual([['x'], code, field]);
    expect(res.body.errors[0].message).not.toMatch(/Internal/);
  });

  it('refuses more than 256 SSIDs in one createNetwork, naming the list', async () => {
    const ssids = Array.from({ length: 257 }, (_, i) => ({ ssid: `S${i}` }));
    const res = await app.graphql('mutation ($i: CreateNetworkInput!) { x: createNetwork(input: $i) { network { UUID } } }', {
      key,
      variables: { i: { label: 'Many', slug: 'many', ssids } },
    });
    expect(res.body.data).toEqual({ x: null });
    expect(errorOf(res)).toEqual([['x'], 'BAD_USER_INPUT', 'input.ssids']);
  });

  it('accepts the limits: VLAN ids 1 and 4094, an SSID of 32 bytes, a slug another company uses', async () => {
    const res = await app.graphql(`mutation {
      a: createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "Low", vlanID: 1 }) { vlan { vlanID } }
      b: createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "High", vlanID: 4094 }) { vlan { vlanID } }
      c: createSSID(input: { networkUUID: "${IDS.acmeEmpty}", ssid: "${'ü'.repeat(16)}" }) { ssid { ssid } }
      d: updateNetwork(input: { networkUUID: "${IDS.acmeHq}", slug: "hq" }) { network { slug } }
    }`, { key });
    expect(res.body).toEqual({ data: { a: { vlan: { vlanID: 1 } }, b: { vlan: { vlanID: 4094 } }, c: { ssid: { ssid: 'ü'.repeat(16) } }, d: { network: { slug: 'hq' } } } });
    const globex = await app.graphql('mutation { createNetwork(input: { label: "Annex", slug: "annex" }) { network { slug } } }', { key: await createWriteKey(app, 'globex') });
    expect(globex.body).toEqual({ data: { createNetwork: { network: { slug: 'annex' } } } });
  });

  it("registering another company's serial number answers exactly like one's own: it does not reveal whose it is", async () => {
    const mutation = (serial: string) => `registerHardwareDevice(input: { serialNumber: "${serial}", deviceType: ACCESS_POINT, deviceModel: "AP-W7" }) { hardwareDevice { serialNumber } }`;
    const foreign = await refused(mutation(SERIALS.globexAp));
    const own = await refused(mutation(SERIALS.acmeAp));
    const strip = (body: JsonTree, serial: string) => JSON.stringify(body).replaceAll(serial, 'SERIAL');
    expect(strip(foreign.body, SERIALS.globexAp)).toBe(strip(own.body, SERIALS.acmeAp));
    expect(errorOf(foreign)).toEqual([['x'], 'CONFLICT', 'input.serialNumber']);
    expect(foreign.text).not.toMatch(/globex/i);
    const read = await app.graphql(`{ hardwareDevice(serialNumber: "${SERIALS.globexAp}") { serialNumber } }`, { key });
    expect(read.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });

  describe("another company's objects cannot be changed or detected: the same UNAUTHORIZED answer as missing ones", () => {
    const scoped: [string, (id: string) => string, () => string, string][] = [
      ['updateNetwork', (id) => `updateNetwork(input: { networkUUID: "${id}", label: "Mine" }) { network { UUID } }`, () => IDS.globexHq, 'input.networkUUID'],
      ['deleteNetwork', (id) => `deleteNetwork(input: { networkUUID: "${id}" }) { deletedNetworkUUID }`, () => IDS.globexHq, 'input.networkUUID'],
      ['createVirtualDevice', (id) => `createVirtualDevice(input: { networkUUID: "${id}", label: "d", deviceType: SWITCH, deviceModel: "m" }) { virtualDevice { UUID } }`, () => IDS.globexHq, 'input.networkUUID'],
      ['updateVirtualDevice', (id) => `updateVirtualDevice(input: { virtualDeviceUUID: "${id}", label: "Mine" }) { virtualDevice { UUID } }`, () => IDS.globexAp, 'input.virtualDeviceUUID'],
      ['deleteVirtualDevice', (id) => `deleteVirtualDevice(input: { virtualDeviceUUID: "${id}" }) { deletedVirtualDeviceUUID }`, () => IDS.globexAp, 'input.virtualDeviceUUID'],
      ['assignHardwareDevice (their device)', (id) => `assignHardwareDevice(input: { serialNumber: "M1A3-SPARE-01", virtualDeviceUUID: "${id}" }) { hardwareDevice { serialNumber } }`, () => IDS.globexAp, 'input.virtualDeviceUUID'],
      ['createVLAN', (id) => `createVLAN(input: { networkUUID: "${id}", name: "V", vlanID: 77 }) { vlan { UUID } }`, () => IDS.globexHq, 'input.networkUUID'],
      ['updateVLAN', (id) => `updateVLAN(input: { vlanUUID: "${id}", name: "Mine" }) { vlan { UUID } }`, () => globexVlan, 'input.vlanUUID'],
      ['deleteVLAN', (id) => `deleteVLAN(input: { vlanUUID: "${id}" }) { deletedVLANUUID }`, () => globexVlan, 'input.vlanUUID'],
      ['createSSID', (id) => `createSSID(input: { networkUUID: "${id}", ssid: "Mine" }) { ssid { UUID } }`, () => IDS.globexHq, 'input.networkUUID'],
      ['updateSSID', (id) => `updateSSID(input: { ssidUUID: "${id}", isEnabled: false }) { ssid { UUID } }`, () => globexSsid, 'input.ssidUUID'],
      ['deleteSSID', (id) => `deleteSSID(input: { ssidUUID: "${id}" }) { deletedSSIDUUID }`, () => globexSsid, 'input.ssidUUID'],
    ];
    const serialScoped: [string, (serial: string) => string][] = [
      ['updateHardwareDevice', (s) => `updateHardwareDevice(input: { serialNumber: "${s}", deviceModel: "Mine" }) { hardwareDevice { serialNumber } }`],
      ['deleteHardwareDevice', (s) => `deleteHardwareDevice(input: { serialNumber: "${s}" }) { deletedSerialNumber }`],
      ['assignHardwareDevice (their hardware)', (s) => `assignHardwareDevice(input: { serialNumber: "${s}", virtualDeviceUUID: "${IDS.acmeAp}" }) { hardwareDevice { serialNumber } }`],
      ['unassignHardwareDevice', (s) => `unassignHardwareDevice(input: { serialNumber: "${s}" }) { hardwareDevice { serialNumber } }`],
    ];
    const answer = (res: TestResponse, id: string) =>
      res.body.errors.map((e: { message: string; path: unknown; extensions: unknown }) => [e.message.replaceAll(id, 'ID'), e.path, e.extensions]);

    it.each(scoped)('%s', async (_name, query, foreignId, field) => {
      const foreign = await refused(query(foreignId()));
      const missing = await refused(query(MISSING));
      expect(errorOf(foreign)).toEqual([['x'], 'UNAUTHORIZED', field]);
      expect(foreign.body.errors[0].message).toMatch(/^Not found, or not accessible with this API key/);
      expect(answer(foreign, foreignId())).toEqual(answer(missing, MISSING));
    });

    it.each(serialScoped)('%s', async (_name, query) => {
      const foreign = await refused(query(SERIALS.globexAp));
      const missing = await refused(query('NOPE-0000'));
      expect(errorOf(foreign)).toEqual([['x'], 'UNAUTHORIZED', 'input.serialNumber']);
      expect(answer(foreign, SERIALS.globexAp)).toEqual(answer(missing, 'NOPE-0000'));
    });
  });
});
