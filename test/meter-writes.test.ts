import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { auditOf, createWriteKey, errorOf, snapshotOf } from './helpers/writes.js';

// The writes of the Meter API's new fields (issue 16): updateCompany, the VLAN and SSID fields, the import format, over HTTP on both stores.
describe.each(storeKinds())('writing the Meter API fields on %s', (kind) => {
  let app: TestApp;
  let writer: string;

  beforeAll(async () => {
    const fixture = createFixture();
    const [acme, globex] = fixture.companies;
    if (acme === undefined || globex === undefined) throw new Error('fixture');
    const network = acme.networks[0];
    if (network === undefined) throw new Error('fixture');
    // the import format takes the new fields; absent ones take their defaults
    globex.isCustomer = false;
    globex.websiteDomain = 'globex.example';
    network.vlans = [...network.vlans, { name: 'Voice', vlanID: 30, isEnabled: true, isDefault: true, description: 'Phones "and" fax' }];
    network.ssids = [...network.ssids, { ssid: 'Acme-Voice', isEnabled: true, isGuest: true, isHidden: true, encryptionProtocol: 'WPA3', vlanID: 30 }];
    app = await startTestApp(kind, { data: fixture });
    writer = await createWriteKey(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('imports the new fields, reads them, and exports them for a lossless round trip', async () => {
    const globex = await app.graphql('{ companyBySlug(slug: "globex") { isCustomer websiteDomain } }', { key: await app.createKey('globex') });
    expect(globex.body.data).toEqual({ companyBySlug: { isCustomer: false, websiteDomain: 'globex.example' } });
    const res = await app.graphql(
      `{ vlans(networkUUID: "${IDS.acmeHq}") { vlanID isDefault description } ssidsForNetwork(networkUUID: "${IDS.acmeHq}") { ssid isGuest isHidden encryptionProtocol vlan { name vlanID } } }`,
    );
    expect(res.body.data.vlans).toContainEqual({ vlanID: 30, isDefault: true, description: 'Phones "and" fax' });
    expect(res.body.data.vlans).toContainEqual({ vlanID: 10, isDefault: false, description: null });
    expect(res.body.data.ssidsForNetwork).toEqual([
      { ssid: 'Acme-Corp', isGuest: false, isHidden: false, encryptionProtocol: null, vlan: null },
      { ssid: 'Acme-Guest', isGuest: false, isHidden: false, encryptionProtocol: null, vlan: null },
      { ssid: 'Acme-Voice', isGuest: true, isHidden: true, encryptionProtocol: 'WPA3', vlan: { name: 'Voice', vlanID: 30 } },
    ]);
    const exported = (await snapshotOf(app, 'globex')) as { companies: { isCustomer: boolean; websiteDomain: string | null }[] };
    expect(exported.companies[0]).toMatchObject({ isCustomer: false, websiteDomain: 'globex.example' });
    const acme = JSON.stringify(await snapshotOf(app));
    expect(acme).toContain('{"UUID":');
    expect(acme).toContain('"ssid":"Acme-Voice","isEnabled":true,"isGuest":true,"isHidden":true,"encryptionProtocol":"WPA3","vlanID":30}');
  });

  it('refuses an import with a malformed website domain or SSID VLAN number, naming the path', async () => {
    const fixture = { companies: [{ name: 'Bad', slug: 'bad', websiteDomain: 'http://bad', networks: [{ UUID: '77777777-7777-4777-8777-777777777771', label: 'N', slug: 'n', isActive: true, ssids: [{ ssid: 'S', isEnabled: true, vlanID: 5000 }] }] }] };
    await expect(app.server.services.imports.import(fixture as never)).rejects.toMatchObject({
      details: {
        problems: expect.arrayContaining([
          expect.objectContaining({ path: '$.companies[0].websiteDomain' }),
          expect.objectContaining({ path: '$.companies[0].networks[0].ssids[0].vlanID' }),
        ]),
      },
    });
  });

  it("updates the key's own company with updateCompany, audited; a read key is refused", async () => {
    const mutation = 'mutation ($input: UpdateCompanyInput!) { updateCompany(input: $input) { company { slug isCustomer websiteDomain } } }';
    const res = await app.graphql(mutation, { key: writer, variables: { input: { isCustomer: false, websiteDomain: 'acme.example' } } });
    expect(res.body).toEqual({ data: { updateCompany: { company: { slug: 'acme', isCustomer: false, websiteDomain: 'acme.example' } } } });
    const cleared = await app.graphql(mutation, { key: writer, variables: { input: { websiteDomain: null } } });
    expect(cleared.body.data.updateCompany.company).toEqual({ slug: 'acme', isCustomer: false, websiteDomain: null });
    const entries = (await auditOf(app)).filter((entry) => entry.action === 'company.update');
    expect(entries.map((entry) => [entry.before, entry.after])).toEqual([
      [{ isCustomer: true, websiteDomain: null }, { isCustomer: false, websiteDomain: 'acme.example' }],
      [{ isCustomer: false, websiteDomain: 'acme.example' }, { isCustomer: false, websiteDomain: null }],
    ]);
    const invalid = await app.graphql(mutation, { key: writer, variables: { input: { websiteDomain: 'Not A Domain' } } });
    expect(errorOf(invalid)).toEqual([['updateCompany'], 'BAD_USER_INPUT', 'input.websiteDomain']);
    const empty = await app.graphql(mutation, { key: writer, variables: { input: {} } });
    expect(errorOf(empty)[1]).toBe('BAD_USER_INPUT');
    const readOnly = await app.graphql(mutation, { variables: { input: { isCustomer: true } } });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // globex's company is untouched
    const globex = await app.graphql('{ companyBySlug(slug: "globex") { isCustomer websiteDomain } }', { key: await app.createKey('globex') });
    expect(globex.body.data.companyBySlug).toEqual({ isCustomer: false, websiteDomain: 'globex.example' });
  });

  it('creates and updates VLANs and SSIDs with the new fields', async () => {
    const vlan = await app.graphql(
      `mutation { createVLAN(input: { networkUUID: "${IDS.acmeHq}", name: "Cams", vlanID: 40, isDefault: true, description: "cameras" }) { vlan { vlanID isDefault description networkUUID } } }`,
      { key: writer },
    );
    expect(vlan.body).toEqual({ data: { createVLAN: { vlan: { vlanID: 40, isDefault: true, description: 'cameras', networkUUID: IDS.acmeHq } } } });
    const ssid = await app.graphql(
      `mutation { createSSID(input: { networkUUID: "${IDS.acmeHq}", ssid: "Cams", isHidden: true, encryptionProtocol: "WPA2", vlanID: 40 }) { ssid { UUID isGuest isHidden encryptionProtocol vlan { name } } } }`,
      { key: writer },
    );
    const created = ssid.body.data.createSSID.ssid;
    expect(created).toMatchObject({ isGuest: false, isHidden: true, encryptionProtocol: 'WPA2', vlan: { name: 'Cams' } });
    const updated = await app.graphql(
      `mutation { updateSSID(input: { ssidUUID: "${created.UUID}", isGuest: true, encryptionProtocol: null, vlanID: 10 }) { ssid { isGuest isHidden encryptionProtocol vlan { vlanID } } } }`,
      { key: writer },
    );
    expect(updated.body).toEqual({ data: { updateSSID: { ssid: { isGuest: true, isHidden: true, encryptionProtocol: null, vlan: { vlanID: 10 } } } } });
    const vlanUpdated = await app.graphql(`mutation { updateVLAN(input: { vlanUUID: "${IDS.acmeVlan}", description: "visitors" }) { vlan { name isDefault description } } }`, { key: writer });
    expect(vlanUpdated.body).toEqual({ data: { updateVLAN: { vlan: { name: 'Guest', isDefault: false, description: 'visitors' } } } });
    const badNumber = await app.graphql(`mutation { updateSSID(input: { ssidUUID: "${created.UUID}", vlanID: 0 }) { ssid { UUID } } }`, { key: writer });
    expect(errorOf(badNumber)).toEqual([['updateSSID'], 'BAD_USER_INPUT', 'input.vlanID']);
  });
});
