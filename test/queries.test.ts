import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

const FULL_COMPANY = `
  uuid name slug
  networks {
    UUID label slug isActive
    mailingAddress { city subdivisionCode }
    virtualDevices { UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber deviceType deviceModel isConnectedToBackend } }
    vlans { name vlanID isEnabled }
    ssids { ssid isEnabled }
  }`;

describe.each(storeKinds())('queries on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('reads one virtual device with every field', async () => {
    const res = await app.graphql(
      `{ virtualDevice(UUID: "${IDS.acmeAp}") { UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber deviceType deviceModel isConnectedToBackend } } }`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        virtualDevice: {
          UUID: IDS.acmeAp,
          label: 'AP "lobby"\n2nd line',
          deviceType: 'ACCESS_POINT',
          deviceModel: 'AP-W7',
          isOnline: true,
          hardwareDevice: { serialNumber: SERIALS.acmeAp, deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', isConnectedToBackend: true },
        },
      },
    });
  });

  it('answers a virtual device without hardware with hardwareDevice null', async () => {
    const res = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeObserver}") { label deviceType hardwareDevice { serialNumber } } }`);
    expect(res.body).toEqual({ data: { virtualDevice: { label: 'Observer 🛰', deviceType: 'OBSERVER', hardwareDevice: null } } });
  });

  it('reads one hardware device by serial number', async () => {
    const res = await app.graphql(`{ hardwareDevice(serialNumber: "${SERIALS.acmeSwitch}") { serialNumber deviceType deviceModel isConnectedToBackend } }`);
    expect(res.body).toEqual({
      data: { hardwareDevice: { serialNumber: SERIALS.acmeSwitch, deviceType: 'SWITCH', deviceModel: 'SW-48P', isConnectedToBackend: false } },
    });
  });

  it('reads spare hardware that no virtual device uses', async () => {
    const res = await app.graphql('{ hardwareDevice(serialNumber: "M1A3-SPARE-01") { serialNumber deviceType } }');
    expect(res.body).toEqual({ data: { hardwareDevice: { serialNumber: 'M1A3-SPARE-01', deviceType: 'SWITCH' } } });
  });

  it('lists the networks of the company by label, then UUID', async () => {
    const res = await app.graphql('{ networksForCompany(companySlug: "acme") { UUID label slug isActive mailingAddress { city subdivisionCode } } }');
    expect(res.body).toEqual({
      data: {
        networksForCompany: [
          { UUID: IDS.acmeEmpty, label: 'Annex', slug: 'annex', isActive: true, mailingAddress: { city: 'Oakland', subdivisionCode: null } },
          { UUID: IDS.acmeHq, label: 'HQ — Zürich', slug: 'hq', isActive: true, mailingAddress: { city: 'San Francisco', subdivisionCode: 'CA' } },
          { UUID: IDS.acmeLab, label: 'Lab', slug: 'lab', isActive: false, mailingAddress: null },
        ],
      },
    });
  });

  it('lists the virtual devices of a network by label', async () => {
    const res = await app.graphql(`{ virtualDevicesForNetwork(networkUUID: "${IDS.acmeHq}") { UUID label deviceType deviceModel isOnline } }`);
    expect(res.body.data.virtualDevicesForNetwork.map((d: { label: string }) => d.label)).toEqual([
      'AP "lobby"\n2nd line',
      'Core switch\twith tab',
      'Observer 🛰',
    ]);
    expect(res.body.data.virtualDevicesForNetwork[1]).toEqual({
      UUID: IDS.acmeSwitch,
      label: 'Core switch\twith tab',
      deviceType: 'SWITCH',
      deviceModel: 'SW-48P',
      isOnline: false,
    });
  });

  it('answers an empty list for a network without devices', async () => {
    const res = await app.graphql(`{ virtualDevicesForNetwork(networkUUID: "${IDS.acmeEmpty}") { UUID } networkClients(networkUUID: "${IDS.acmeEmpty}") { ip } }`);
    expect(res.body).toEqual({ data: { virtualDevicesForNetwork: [], networkClients: [] } });
  });

  it('lists only the connected clients of a network, by MAC address, with canonical timestamps', async () => {
    const res = await app.graphql(`{ networkClients(networkUUID: "${IDS.acmeHq}") { macAddress ip lastSeen } }`);
    expect(res.body).toEqual({
      data: {
        networkClients: [
          { macAddress: '00:11:22:33:44:55', ip: '2001:db8::1', lastSeen: '2026-11-21T17:04:05.123Z' },
          { macAddress: '0c:8d:db:12:34:56', ip: '10.0.10.23', lastSeen: '2026-11-21T17:03:00.000Z' },
          { macAddress: 'aa:bb:cc:dd:ee:ff', ip: null, lastSeen: '2026-11-20T00:00:00.500Z' },
        ],
      },
    });
  });

  it('reads a whole company with the nested selection of the spec', async () => {
    const res = await app.graphql(`{ companyBySlug(slug: "acme") { ${FULL_COMPANY} } }`);
    expect(res.status).toBe(200);
    const company = res.body.data.companyBySlug;
    expect(company.name).toBe('Acme "Networks" \\ Ltd');
    expect(company.uuid).toBe('00000000-0000-4000-8000-00000000000a');
    expect(company.networks).toHaveLength(3);
    const hq = company.networks[1];
    expect(hq.vlans).toEqual([
      { name: 'Corp', vlanID: 5, isEnabled: true },
      { name: 'Corp', vlanID: 10, isEnabled: true },
      { name: 'Guest', vlanID: 20, isEnabled: false },
    ]);
    expect(hq.ssids).toEqual([
      { ssid: 'Acme-Corp', isEnabled: true },
      { ssid: 'Acme-Guest', isEnabled: false },
    ]);
    expect(hq.virtualDevices[0].hardwareDevice).toEqual({ serialNumber: SERIALS.acmeAp, deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', isConnectedToBackend: true });
    expect(company.networks[2]).toMatchObject({ label: 'Lab', mailingAddress: null, vlans: [], ssids: [] });
  });

  it('returns VLAN and SSID UUIDs, generated when the import had none', async () => {
    const res = await app.graphql(`{ companyBySlug(slug: "acme") { networks { vlans { UUID vlanID } ssids { UUID ssid } } } }`);
    const hq = res.body.data.companyBySlug.networks[1];
    expect(hq.vlans.find((v: { vlanID: number }) => v.vlanID === 20).UUID).toBe(IDS.acmeVlan);
    for (const item of [...hq.vlans, ...hq.ssids]) expect(item.UUID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('answers several root fields, aliases and __typename in one document, in selection order', async () => {
    const res = await app.graphql(`{
      __typename
      hq: virtualDevicesForNetwork(networkUUID: "${IDS.acmeHq}") { label __typename }
      lab: virtualDevicesForNetwork(networkUUID: "${IDS.acmeLab}") { name: label kind: deviceType }
      ap: virtualDevice(UUID: "${IDS.acmeAp}") { id: UUID id2: UUID }
      companyBySlug(slug: "acme") { name }
    }`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['__typename', 'hq', 'lab', 'ap', 'companyBySlug']);
    expect(res.body.data.__typename).toBe('Query');
    expect(res.body.data.hq[0]).toEqual({ label: 'AP "lobby"\n2nd line', __typename: 'VirtualDevice' });
    expect(res.body.data.lab).toEqual([{ name: 'AP 1', kind: 'ACCESS_POINT' }]);
    expect(res.body.data.ap).toEqual({ id: IDS.acmeAp, id2: IDS.acmeAp });
  });

  it('takes variables, operationName, fragments and @skip/@include', async () => {
    const query = `
      query Device($id: UUID!, $withHardware: Boolean!) {
        virtualDevice(UUID: $id) { ...Basics hardwareDevice @include(if: $withHardware) { serialNumber } label @skip(if: true) }
      }
      query Other { __typename }
      fragment Basics on VirtualDevice { UUID ... on VirtualDevice { deviceType } }`;
    const withHardware = await app.graphql(query, { variables: { id: IDS.acmeAp, withHardware: true }, operationName: 'Device' });
    expect(withHardware.body).toEqual({
      data: { virtualDevice: { UUID: IDS.acmeAp, deviceType: 'ACCESS_POINT', hardwareDevice: { serialNumber: SERIALS.acmeAp } } },
    });
    const without = await app.graphql(query, { variables: { id: IDS.acmeSwitch, withHardware: false }, operationName: 'Device' });
    expect(without.body).toEqual({ data: { virtualDevice: { UUID: IDS.acmeSwitch, deviceType: 'SWITCH' } } });
    const other = await app.graphql(query, { operationName: 'Other' });
    expect(other.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('merges repeated selections of the same field', async () => {
    const res = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeAp}") { label hardwareDevice { serialNumber } hardwareDevice { deviceModel } label } }`);
    expect(res.body).toEqual({
      data: { virtualDevice: { label: 'AP "lobby"\n2nd line', hardwareDevice: { serialNumber: SERIALS.acmeAp, deviceModel: 'AP-W7' } } },
    });
  });

  describe('scoping: another company, or nothing, answer alike', () => {
    const foreign = [
      ['virtualDevice', `virtualDevice(UUID: "${IDS.globexAp}") { label }`],
      ['hardwareDevice', `hardwareDevice(serialNumber: "${SERIALS.globexAp}") { serialNumber }`],
      ['networksForCompany', 'networksForCompany(companySlug: "globex") { label }'],
      ['virtualDevicesForNetwork', `virtualDevicesForNetwork(networkUUID: "${IDS.globexHq}") { label }`],
      ['networkClients', `networkClients(networkUUID: "${IDS.globexHq}") { macAddress }`],
      ['companyBySlug', 'companyBySlug(slug: "globex") { name }'],
    ] as const;
    const missing = [
      `virtualDevice(UUID: "99999999-9999-4999-8999-999999999999") { label }`,
      'hardwareDevice(serialNumber: "NOPE-0000") { serialNumber }',
      'networksForCompany(companySlug: "nobody") { label }',
      `virtualDevicesForNetwork(networkUUID: "99999999-9999-4999-8999-999999999999") { label }`,
      `networkClients(networkUUID: "99999999-9999-4999-8999-999999999999") { macAddress }`,
      'companyBySlug(slug: "nobody") { name }',
    ];

    it.each(foreign.map(([name, selection], i) => [name, selection, missing[i] as string]))(
      '%s of another company answers exactly like one that does not exist',
      async (name, foreignSelection, missingSelection) => {
        const a = await app.graphql(`{ mine: companyBySlug(slug: "acme") { slug } x: ${foreignSelection} }`);
        const b = await app.graphql(`{ mine: companyBySlug(slug: "acme") { slug } x: ${missingSelection} }`);
        expect(a.status).toBe(200);
        expect(a.body.data).toEqual({ mine: { slug: 'acme' }, x: null });
        expect(a.body.errors).toEqual([
          {
            message: expect.stringContaining('Not found, or not accessible with this API key'),
            locations: [{ line: 1, column: 46 }],
            path: ['x'],
            extensions: { code: 'UNAUTHORIZED' },
          },
        ]);
        expect(b.status).toBe(200);
        expect(b.body.data).toEqual(a.body.data);
        expect(b.body.errors.map((e: { message: string; path: string[]; extensions: unknown }) => [e.message, e.path, e.extensions])).toEqual(
          a.body.errors.map((e: { message: string; path: string[]; extensions: unknown }) => [e.message, e.path, e.extensions]),
        );
        expect(name).toBeTruthy();
      },
    );

    it('the other company reads its own data with its own key, and not acme', async () => {
      const key = await app.createKey('globex');
      const res = await app.graphql(`{ g: virtualDevice(UUID: "${IDS.globexAp}") { label } a: virtualDevice(UUID: "${IDS.acmeAp}") { label } }`, { key });
      expect(res.body.data).toEqual({ g: { label: 'AP 1' }, a: null });
      expect(res.body.errors[0].path).toEqual(['a']);
    });
  });

  describe('argument validation', () => {
    it('answers a malformed UUID literal with BAD_USER_INPUT naming the argument', async () => {
      const res = await app.graphql('{ virtualDevice(UUID: "not-a-uuid") { label } }');
      expect(res.status).toBe(422);
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'UUID' });
      expect(res.body.errors[0].message).toMatch(/^Argument "UUID" has an invalid value "not-a-uuid": Expected a UUID/);
    });

    it('answers a malformed UUID variable with BAD_USER_INPUT naming the variable', async () => {
      const res = await app.graphql('query ($id: UUID!) { virtualDevice(UUID: $id) { label } }', { variables: { id: 'ABC' } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors[0].message).toMatch(/^Variable "\$id" got invalid value "ABC"; .*Expected a UUID/);
    });

    it('answers a malformed slug or serial with BAD_USER_INPUT at the field, and still answers the rest', async () => {
      const res = await app.graphql('{ a: companyBySlug(slug: "Not A Slug!") { name } b: hardwareDevice(serialNumber: "x y") { serialNumber } c: companyBySlug(slug: "acme") { slug } }');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ a: null, b: null, c: { slug: 'acme' } });
      expect(res.body.errors.map((e: { path: string[]; extensions: unknown }) => [e.path, e.extensions])).toEqual([
        [['a'], { code: 'BAD_USER_INPUT', argument: 'slug' }],
        [['b'], { code: 'BAD_USER_INPUT', argument: 'serialNumber' }],
      ]);
      expect(res.body.errors[0].message).toContain('Argument "slug" of "companyBySlug" has an invalid value "Not A Slug!"');
    });

    it('answers a document of literal arguments alike every time it is sent', async () => {
      // one argument error checked once for the document, one not-found error of each request's own
      const query = '{ a: companyBySlug(slug: "Not A Slug!") { name } x: companyBySlug(slug: "nobody") { name } c: companyBySlug(slug: "acme") { slug } }';
      const first = await app.graphql(query);
      expect(first.body.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code])).toEqual([
        [['a'], 'BAD_USER_INPUT'],
        [['x'], 'UNAUTHORIZED'],
      ]);
      for (let i = 0; i < 3; i++) {
        const again = await app.graphql(query);
        expect(again.status).toBe(first.status);
        expect(again.body).toEqual(first.body);
      }
    });

    it('checks arguments given as variables on every request', async () => {
      const query = 'query ($s: String!) { companyBySlug(slug: $s) { slug } }';
      expect((await app.graphql(query, { variables: { s: 'acme' } })).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
      const bad = await app.graphql(query, { variables: { s: 'Not A Slug!' } });
      expect(bad.body.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual([{ code: 'BAD_USER_INPUT', argument: 'slug' }]);
      expect((await app.graphql(query, { variables: { s: 'acme' } })).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    });

    it('reads a variable by its own name only, whatever it is called', async () => {
      const query = 'query ($constructor: String!, $toString: UUID!) { companyBySlug(slug: $constructor) { slug } virtualDevice(UUID: $toString) { UUID } }';
      const res = await app.graphql(query, { variables: { constructor: 'acme', toString: IDS.acmeAp } });
      expect(res.body).toEqual({ data: { companyBySlug: { slug: 'acme' }, virtualDevice: { UUID: IDS.acmeAp } } });
      const missing = await app.graphql(query, { variables: { toString: IDS.acmeAp } });
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(missing.body.errors[0].message).toContain('$constructor');
    });
  });
});
