import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { storeKinds } from './helpers/stores.js';
import { snapshotOf } from './helpers/writes.js';

/** What a provisioning script sends, one request per step, as a client would. */
const SITE = {
  label: 'Store 42',
  slug: 'store-42',
  mailingAddress: { city: 'Lyon', subdivisionCode: 'ARA' },
  vlans: [
    { name: 'Corp', vlanID: 10 },
    { name: 'Guest', vlanID: 20, isEnabled: false },
  ],
  ssids: [{ ssid: 'Store-Corp' }, { ssid: 'Store-Guest' }],
};

describe.each(storeKinds())('a script provisions a whole site and tears it down on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let keyId: string;
  let companyId: string;
  beforeAll(async () => {
    app = await startTestApp(kind);
    companyId = (await app.server.services.companies.create({ slug: 'initech', name: 'Initech' })).uuid;
    const created = await app.server.services.apiKeys.create({ companySlug: 'initech', label: 'provisioner', scope: 'read_write' });
    key = created.key;
    keyId = created.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  async function step(query: string, variables?: unknown) {
    const res = await app.graphql(query, { key, variables });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  }

  it('with a read_write key, every step through the API and in the audit log', async () => {
    const empty = await snapshotOf(app, 'initech');

    const { createNetwork } = await step('mutation ($site: CreateNetworkInput!) { createNetwork(input: $site) { network { UUID ssids { UUID ssid } } } }', { site: SITE });
    const network = createNetwork.network.UUID;
    const guest = createNetwork.network.ssids.find((s: { ssid: string }) => s.ssid === 'Store-Guest').UUID;
    await step(`mutation { updateSSID(input: { ssidUUID: "${guest}", isEnabled: false }) { ssid { isEnabled } } }`);
    await step(`mutation { updateNetwork(input: { networkUUID: "${network}", label: "Store 42 Lyon" }) { network { label } } }`);
    const devices: Record<string, string> = {};
    for (const [label, deviceType, deviceModel, serial] of [
      ['AP 1', 'ACCESS_POINT', 'AP-W7', 'S42-AP-0001'],
      ['Switch', 'SWITCH', 'SW-24P', 'S42-SW-0001'],
    ]) {
      const made = await step('mutation ($d: CreateVirtualDeviceInput!) { createVirtualDevice(input: $d) { virtualDevice { UUID } } }', {
        d: { networkUUID: network, label, deviceType, deviceModel },
      });
      devices[serial!] = made.createVirtualDevice.virtualDevice.UUID;
      await step('mutation ($h: RegisterHardwareDeviceInput!) { registerHardwareDevice(input: $h) { hardwareDevice { serialNumber } } }', {
        h: { serialNumber: serial, deviceType, deviceModel },
      });
      await step('mutation ($a: AssignHardwareDeviceInput!) { assignHardwareDevice(input: $a) { hardwareDevice { serialNumber } } }', {
        a: { serialNumber: serial, virtualDeviceUUID: devices[serial!] },
      });
    }

    const site = await step(`{ companyBySlug(slug: "initech") { networks { label slug isActive mailingAddress { city subdivisionCode }
      virtualDevices { label deviceType isOnline hardwareDevice { serialNumber isConnectedToBackend } } vlans { name vlanID isEnabled } ssids { ssid isEnabled } } } }`);
    expect(site.companyBySlug.networks).toEqual([
      {
        label: 'Store 42 Lyon',
        slug: 'store-42',
        isActive: true,
        mailingAddress: { city: 'Lyon', subdivisionCode: 'ARA' },
        virtualDevices: [
          { label: 'AP 1', deviceType: 'ACCESS_POINT', isOnline: false, hardwareDevice: { serialNumber: 'S42-AP-0001', isConnectedToBackend: false } },
          { label: 'Switch', deviceType: 'SWITCH', isOnline: false, hardwareDevice: { serialNumber: 'S42-SW-0001', isConnectedToBackend: false } },
        ],
        vlans: [
          { name: 'Corp', vlanID: 10, isEnabled: true },
          { name: 'Guest', vlanID: 20, isEnabled: false },
        ],
        ssids: [
          { ssid: 'Store-Corp', isEnabled: true },
          { ssid: 'Store-Guest', isEnabled: false },
        ],
      },
    ]);

    // tear down: the network (devices, VLANs, SSIDs go with it, hardware back to spare), then the spare hardware
    const { deleteNetwork } = await step(`mutation { deleteNetwork(input: { networkUUID: "${network}" }) { hardwareReturnedToSpare } }`);
    expect(deleteNetwork.hardwareReturnedToSpare).toEqual(['S42-AP-0001', 'S42-SW-0001']);
    await step(`mutation {
      ap: deleteHardwareDevice(input: { serialNumber: "S42-AP-0001" }) { deletedSerialNumber }
      sw: deleteHardwareDevice(input: { serialNumber: "S42-SW-0001" }) { deletedSerialNumber }
    }`);
    expect(await snapshotOf(app, 'initech')).toEqual(empty);

    const listed = await runNetgraph(['audit', 'list', '--company', 'initech', '--json'], { DATABASE_URL: app.database.url });
    expect(listed.code).toBe(0);
    const entries = JSON.parse(listed.stdout) as { action: string; objectId: string; actor: unknown }[];
    expect(entries.map((e) => [e.action, e.objectId])).toEqual([
      ['company.create', companyId],
      ['api_key.create', keyId],
      ['network.create', network],
      ['ssid.update', guest],
      ['network.update', network],
      ['virtual_device.create', devices['S42-AP-0001']],
      ['hardware_device.register', 'S42-AP-0001'],
      ['hardware_device.assign', 'S42-AP-0001'],
      ['virtual_device.create', devices['S42-SW-0001']],
      ['hardware_device.register', 'S42-SW-0001'],
      ['hardware_device.assign', 'S42-SW-0001'],
      ['network.delete', network],
      ['hardware_device.delete', 'S42-AP-0001'],
      ['hardware_device.delete', 'S42-SW-0001'],
    ]);
    for (const entry of entries.slice(2)) expect(entry.actor).toEqual({ type: 'api_key', id: keyId, label: 'provisioner' });
  });
});
