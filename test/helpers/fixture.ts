import type { ImportDocument } from '../../src/platform/import/import.schema.js';

/** Fixed ids so tests can name them. Two companies: acme (the caller's) and globex (another). */
export const IDS = {
  acmeHq: '11111111-1111-4111-8111-111111111111',
  acmeLab: '11111111-1111-4111-8111-111111111112',
  acmeEmpty: '11111111-1111-4111-8111-111111111113',
  acmeAp: '22222222-2222-4222-8222-222222222221',
  acmeSwitch: '22222222-2222-4222-8222-222222222222',
  acmeObserver: '22222222-2222-4222-8222-222222222223',
  acmeLabAp: '22222222-2222-4222-8222-222222222224',
  globexHq: '33333333-3333-4333-8333-333333333331',
  globexAp: '44444444-4444-4444-8444-444444444441',
  acmeVlan: '55555555-5555-4555-8555-555555555551',
  acmeSsid: '66666666-6666-4666-8666-666666666661',
} as const;

export const SERIALS = { acmeAp: 'M1A3-AP00-0001', acmeSwitch: 'M1A3-SW00-0001', acmeLabAp: 'M1A3-AP00-0002', globexAp: 'G7X2-AP00-0001' };

/**
 * The test data, in the import format. The labels hold quotes, backslashes,
 * control characters and non-ASCII text so that both stores are shown to
 * escape JSON the same way.
 */
export function createFixture(): ImportDocument {
  return {
    companies: [
      {
        uuid: '00000000-0000-4000-8000-00000000000a',
        name: 'Acme "Networks" \\ Ltd',
        slug: 'acme',
        networks: [
          {
            UUID: IDS.acmeHq,
            label: 'HQ — Zürich',
            slug: 'hq',
            isActive: true,
            mailingAddress: { city: 'San Francisco', subdivisionCode: 'CA' },
            virtualDevices: [
              {
                UUID: IDS.acmeSwitch,
                label: 'Core switch\twith tab',
                deviceType: 'SWITCH',
                deviceModel: 'SW-48P',
                isOnline: false,
                hardwareDevice: { serialNumber: SERIALS.acmeSwitch, deviceType: 'SWITCH', deviceModel: 'SW-48P', isConnectedToBackend: false },
              },
              {
                UUID: IDS.acmeAp,
                label: 'AP "lobby"\n2nd line',
                deviceType: 'ACCESS_POINT',
                deviceModel: 'AP-W7',
                isOnline: true,
                hardwareDevice: { serialNumber: SERIALS.acmeAp, deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', isConnectedToBackend: true },
              },
              { UUID: IDS.acmeObserver, label: 'Observer 🛰', deviceType: 'OBSERVER', deviceModel: 'OBS-1', isOnline: true, hardwareDevice: null },
            ],
            vlans: [
              { UUID: IDS.acmeVlan, name: 'Guest', vlanID: 20, isEnabled: false },
              { name: 'Corp', vlanID: 10, isEnabled: true },
              { name: 'Corp', vlanID: 5, isEnabled: true },
            ],
            ssids: [
              { UUID: IDS.acmeSsid, ssid: 'Acme-Guest', isEnabled: false },
              { ssid: 'Acme-Corp', isEnabled: true },
            ],
            clients: [
              { macAddress: '0c:8d:db:12:34:56', ip: '10.0.10.23', lastSeen: '2026-11-21T17:03:00Z' },
              { macAddress: '00:11:22:33:44:55', ip: '2001:db8::1', lastSeen: '2026-11-21T18:04:05.123+01:00' },
              { macAddress: 'aa:bb:cc:dd:ee:ff', ip: null, lastSeen: '2026-11-20T00:00:00.5Z' },
              { macAddress: 'aa:bb:cc:00:00:01', ip: '10.0.10.99', lastSeen: '2026-11-19T00:00:00Z', isConnected: false },
            ],
          },
          {
            UUID: IDS.acmeLab,
            label: 'Lab',
            slug: 'lab',
            isActive: false,
            virtualDevices: [
              {
                UUID: IDS.acmeLabAp,
                label: 'AP 1',
                deviceType: 'ACCESS_POINT',
                deviceModel: 'AP-W6E',
                isOnline: true,
                hardwareDevice: { serialNumber: SERIALS.acmeLabAp, deviceType: 'ACCESS_POINT', deviceModel: 'AP-W6E', isConnectedToBackend: true },
              },
            ],
            vlans: [],
            ssids: [],
            clients: [],
          },
          {
            UUID: IDS.acmeEmpty,
            label: 'Annex',
            slug: 'annex',
            isActive: true,
            mailingAddress: { city: 'Oakland', subdivisionCode: null },
            virtualDevices: [],
            vlans: [],
            ssids: [],
            clients: [],
          },
        ],
        spareHardwareDevices: [{ serialNumber: 'M1A3-SPARE-01', deviceType: 'SWITCH', deviceModel: 'SW-24P', isConnectedToBackend: false }],
      },
      {
        uuid: '00000000-0000-4000-8000-00000000000b',
        name: 'Globex',
        slug: 'globex',
        networks: [
          {
            UUID: IDS.globexHq,
            label: 'Globex HQ',
            slug: 'hq',
            isActive: true,
            mailingAddress: { city: 'Springfield', subdivisionCode: 'OR' },
            virtualDevices: [
              {
                UUID: IDS.globexAp,
                label: 'AP 1',
                deviceType: 'ACCESS_POINT',
                deviceModel: 'AP-W7',
                isOnline: true,
                hardwareDevice: { serialNumber: SERIALS.globexAp, deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', isConnectedToBackend: true },
              },
            ],
            vlans: [{ name: 'Corp', vlanID: 10, isEnabled: true }],
            ssids: [{ ssid: 'Globex', isEnabled: true }],
            clients: [{ macAddress: '0c:8d:db:99:99:99', ip: '10.9.9.9', lastSeen: '2026-11-21T17:03:00Z' }],
          },
        ],
      },
    ],
  };
}

/** A controller the port and DNS tests add to HQ (createFixtureWithController). */
export const CONTROLLER = { uuid: '22222222-2222-4222-8222-22222222222c', serial: 'M1A3-CT00-0001' } as const;

/** The test data with a controller in HQ. */
export function createFixtureWithController(): ImportDocument {
  const data = createFixture();
  const hq = data.companies[0]?.networks?.[0];
  (hq?.virtualDevices as unknown[]).push({
    UUID: CONTROLLER.uuid, label: 'Gateway', deviceType: 'CONTROLLER', deviceModel: 'MX-1', isOnline: true,
    hardwareDevice: { serialNumber: CONTROLLER.serial, deviceType: 'CONTROLLER', deviceModel: 'MX-1', isConnectedToBackend: true },
  });
  return data;
}
