import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../src/features/api-key/api-key.token.js';
import type { Caller } from '../src/kernel/caller.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { auditOf } from './helpers/writes.js';

describe.each(storeKinds())('the audit log on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let keyId: string;
  const env = () => ({ DATABASE_URL: app.database.url });

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    const created = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'auditor', scope: 'read_write' });
    key = created.key;
    keyId = created.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Runs a mutation and returns the audit entries it added. */
  async function entriesOf(query: string) {
    const before = (await auditOf(app)).length;
    const res = await app.graphql(query, { key });
    expect(res.status).toBe(200);
    return { res, added: (await auditOf(app)).slice(before) };
  }

  /** Runs a mutation that must succeed and add exactly one entry, by this key, and returns that entry. */
  async function oneEntry(query: string) {
    const { res, added } = await entriesOf(query);
    expect(res.body.errors).toBeUndefined();
    expect(added).toHaveLength(1);
    const entry = added[0]!;
    expect(entry).toMatchObject({ company: 'acme', actor: { type: 'api_key', id: keyId, label: 'auditor' } });
    expect(Date.parse(entry.occurredAt)).not.toBeNaN();
    return { data: res.body.data, entry };
  }

  it('records each write exactly once, with the values before and after', async () => {
    const created = await oneEntry('mutation { createNetwork(input: { label: "Audit", slug: "audit", vlans: [{ name: "V", vlanID: 5 }], ssids: [{ ssid: "S", isEnabled: false }] }) { network { UUID vlans { UUID } ssids { UUID } } } }');
    const network = created.data.createNetwork.network;
    const vlan = { UUID: network.vlans[0].UUID, networkUUID: network.UUID, name: 'V', vlanID: 5, isEnabled: true };
    const ssid = { UUID: network.ssids[0].UUID, networkUUID: network.UUID, ssid: 'S', isEnabled: false };
    const plain = { UUID: network.UUID, label: 'Audit', slug: 'audit', isActive: true, mailingAddress: null };
    expect(created.entry).toMatchObject({ action: 'network.create', objectType: 'network', objectId: network.UUID, before: null, after: { ...plain, vlans: [vlan], ssids: [ssid] } });

    const updated = await oneEntry(`mutation { updateNetwork(input: { networkUUID: "${network.UUID}", label: "Audit 2", mailingAddress: { city: "Basel" } }) { network { UUID } } }`);
    const moved = { ...plain, label: 'Audit 2', mailingAddress: { city: 'Basel', subdivisionCode: null } };
    expect(updated.entry).toMatchObject({ action: 'network.update', objectId: network.UUID, before: plain, after: moved });

    const vlanUpdate = await oneEntry(`mutation { updateVLAN(input: { vlanUUID: "${vlan.UUID}", isEnabled: false }) { vlan { UUID } } }`);
    expect(vlanUpdate.entry).toMatchObject({ action: 'vlan.update', objectType: 'vlan', objectId: vlan.UUID, before: vlan, after: { ...vlan, isEnabled: false } });
    const ssidUpdate = await oneEntry(`mutation { updateSSID(input: { ssidUUID: "${ssid.UUID}", ssid: "S2" }) { ssid { UUID } } }`);
    expect(ssidUpdate.entry).toMatchObject({ action: 'ssid.update', objectType: 'ssid', objectId: ssid.UUID, before: ssid, after: { ...ssid, ssid: 'S2' } });

    const device = await oneEntry(`mutation { createVirtualDevice(input: { networkUUID: "${network.UUID}", label: "AP", deviceType: ACCESS_POINT, deviceModel: "AP-W7" }) { virtualDevice { UUID } } }`);
    const deviceUuid = device.data.createVirtualDevice.virtualDevice.UUID;
    const slot = { UUID: deviceUuid, networkUUID: network.UUID, label: 'AP', deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', hardwareSerialNumber: null };
    expect(device.entry).toMatchObject({ action: 'virtual_device.create', objectType: 'virtual_device', objectId: deviceUuid, before: null, after: slot });

    const hardware = { serialNumber: 'AUDIT-AP-1', deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', virtualDeviceUUID: null };
    const registered = await oneEntry('mutation { registerHardwareDevice(input: { serialNumber: "AUDIT-AP-1", deviceType: ACCESS_POINT, deviceModel: "AP-W7" }) { hardwareDevice { serialNumber } } }');
    expect(registered.entry).toMatchObject({ action: 'hardware_device.register', objectType: 'hardware_device', objectId: 'AUDIT-AP-1', before: null, after: hardware });
    const assigned = await oneEntry(`mutation { assignHardwareDevice(input: { serialNumber: "AUDIT-AP-1", virtualDeviceUUID: "${deviceUuid}" }) { hardwareDevice { serialNumber } } }`);
    expect(assigned.entry).toMatchObject({ action: 'hardware_device.assign', before: hardware, after: { ...hardware, virtualDeviceUUID: deviceUuid } });

    // changes nothing, records nothing
    const again = await entriesOf(`mutation { assignHardwareDevice(input: { serialNumber: "AUDIT-AP-1", virtualDeviceUUID: "${deviceUuid}" }) { hardwareDevice { serialNumber } } }`);
    expect(again.added).toEqual([]);
    const failed = await entriesOf(`mutation { createVLAN(input: { networkUUID: "${network.UUID}", name: "Dup", vlanID: 5 }) { vlan { UUID } } }`);
    expect(failed.res.body.data).toEqual({ createVLAN: null });
    expect(failed.added).toEqual([]);

    const deleted = await oneEntry(`mutation { deleteNetwork(input: { networkUUID: "${network.UUID}" }) { deletedNetworkUUID } }`);
    expect(deleted.entry).toMatchObject({
      action: 'network.delete',
      objectId: network.UUID,
      before: {
        ...moved,
        virtualDevices: [{ UUID: deviceUuid, label: 'AP', deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7', hardwareSerialNumber: 'AUDIT-AP-1' }],
        vlans: [{ ...vlan, isEnabled: false }],
        ssids: [{ ...ssid, ssid: 'S2' }],
        clientCount: 0,
        hardwareReturnedToSpare: ['AUDIT-AP-1'],
      },
      after: null,
    });

    const spare = await oneEntry('mutation { updateHardwareDevice(input: { serialNumber: "AUDIT-AP-1", deviceModel: "AP-W8" }) { hardwareDevice { serialNumber } } }');
    expect(spare.entry).toMatchObject({ action: 'hardware_device.update', before: hardware, after: { ...hardware, deviceModel: 'AP-W8' } });
    const gone = await oneEntry('mutation { deleteHardwareDevice(input: { serialNumber: "AUDIT-AP-1" }) { deletedSerialNumber } }');
    expect(gone.entry).toMatchObject({ action: 'hardware_device.delete', before: { ...hardware, deviceModel: 'AP-W8' }, after: null });
  });

  it('records unassign, the delete of a device with hardware, and VLAN and SSID create and delete', async () => {
    const unassigned = await oneEntry(`mutation { unassignHardwareDevice(input: { serialNumber: "${SERIALS.acmeSwitch}" }) { hardwareDevice { serialNumber } } }`);
    const sw = { serialNumber: SERIALS.acmeSwitch, deviceType: 'SWITCH', deviceModel: 'SW-48P' };
    expect(unassigned.entry).toMatchObject({ action: 'hardware_device.unassign', before: { ...sw, virtualDeviceUUID: IDS.acmeSwitch }, after: { ...sw, virtualDeviceUUID: null } });
    const device = await oneEntry(`mutation { deleteVirtualDevice(input: { virtualDeviceUUID: "${IDS.acmeAp}" }) { deletedVirtualDeviceUUID } }`);
    expect(device.entry).toMatchObject({ action: 'virtual_device.delete', before: { UUID: IDS.acmeAp, hardwareSerialNumber: SERIALS.acmeAp }, after: null });
    const vlan = await oneEntry(`mutation { createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "X", vlanID: 9 }) { vlan { UUID } } }`);
    const vlanUuid = vlan.data.createVLAN.vlan.UUID;
    expect(vlan.entry).toMatchObject({ action: 'vlan.create', before: null, after: { UUID: vlanUuid, networkUUID: IDS.acmeEmpty, name: 'X', vlanID: 9, isEnabled: true } });
    expect((await oneEntry(`mutation { deleteVLAN(input: { vlanUUID: "${vlanUuid}" }) { deletedVLANUUID } }`)).entry).toMatchObject({ action: 'vlan.delete', objectId: vlanUuid, after: null });
    const ssid = await oneEntry(`mutation { createSSID(input: { networkUUID: "${IDS.acmeEmpty}", ssid: "X" }) { ssid { UUID } } }`);
    const ssidUuid = ssid.data.createSSID.ssid.UUID;
    expect(ssid.entry).toMatchObject({ action: 'ssid.create', before: null, after: { UUID: ssidUuid, ssid: 'X', isEnabled: true } });
    expect((await oneEntry(`mutation { deleteSSID(input: { ssidUUID: "${ssidUuid}" }) { deletedSSIDUUID } }`)).entry).toMatchObject({ action: 'ssid.delete', objectId: ssidUuid, after: null });
  });

  it('records a dashboard user as the actor when a service is called with one', async () => {
    const company = await app.server.services.companies.getBySlug('acme');
    const caller: Caller = {
      companyId: company.id,
      companySlug: 'acme',
      keyId: null,
      keyUuid: null,
      label: 'Ada Admin',
      scope: 'read_write',
      actor: { type: 'user', id: '7d444840-9dc0-11d1-b245-5ffdce74fad2', label: 'Ada Admin' },
    };
    const created = await app.server.services.networks.create(caller, { label: 'From the dashboard', slug: 'dashboard' });
    const entry = (await auditOf(app)).at(-1);
    expect(entry).toMatchObject({ action: 'network.create', objectId: created.UUID, actor: caller.actor });
  });

  it('records the dashboard user who adds and revokes a key in Settings > Integrations > API keys', async () => {
    const admin = await app.server.services.users.create({ companySlug: 'acme', email: 'ada@acme.example', role: 'admin', password: 'a long enough password' });
    const client = createDashboardClient(app);
    expect((await signIn(client, 'ada@acme.example', 'a long enough password')).status).toBe(303);
    await client.get('/settings/integrations/api-keys');
    expect((await client.post('/settings/integrations/api-keys', { label: 'from the dashboard' })).status).toBe(200);
    const [made] = (await app.server.services.apiKeys.list('acme')).filter((k) => k.label === 'from the dashboard');
    await client.get(`/settings/integrations/api-keys/${made!.id}/revoke`);
    expect((await client.post(`/settings/integrations/api-keys/${made!.id}/revoke`, {})).status).toBe(303);
    const events = (await auditOf(app)).filter((e) => e.objectId === made!.id);
    const user = { type: 'user', id: admin.user.id, label: 'ada@acme.example' };
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ['api_key.create', user],
      ['api_key.revoke', user],
    ]);
  });

  it('records key events with their actor and never a key value, prefix or hash', async () => {
    const cli = await runNetgraph(['keys', 'create', '--company', 'acme', '--label', 'cli-key', '--scope', 'read_write', '--json'], env());
    expect(cli.code).toBe(0);
    const made = JSON.parse(cli.stdout);
    const revoked = await runNetgraph(['keys', 'revoke', made.id, '--json'], env());
    expect(revoked.code).toBe(0);
    const events = (await auditOf(app)).filter((e) => e.objectId === made.id);
    expect(events).toEqual([
      expect.objectContaining({ action: 'api_key.create', objectType: 'api_key', actor: { type: 'cli', id: null, label: 'netgraph CLI' }, before: null, after: { id: made.id, label: 'cli-key', scope: 'read_write', revokedAt: null, expiresAt: null, allowedAddresses: [] } }),
      expect.objectContaining({ action: 'api_key.revoke', before: { id: made.id, label: 'cli-key', scope: 'read_write', revokedAt: null, expiresAt: null, allowedAddresses: [] }, after: { id: made.id, label: 'cli-key', scope: 'read_write', revokedAt: JSON.parse(revoked.stdout).revokedAt, expiresAt: null, allowedAddresses: [] } }),
    ]);
    // revoking again changes nothing and records nothing
    expect((await runNetgraph(['keys', 'revoke', made.id], env())).code).toBe(0);
    expect((await auditOf(app)).filter((e) => e.objectId === made.id)).toHaveLength(2);

    const rows = JSON.stringify(await app.server.store.db.selectFrom('audit_log').selectAll().execute());
    for (const value of [made.key, key]) {
      expect(rows).not.toContain(value);
      expect(rows).not.toContain(value.slice(0, 10));
      expect(rows).not.toContain(value.slice(10));
      expect(rows).not.toContain(hashKey(value));
    }
  });

  it('records what the CLI creates: each imported company, a company, a user (never a password)', async () => {
    const actions = async (company: string) =>
      JSON.parse((await runNetgraph(['audit', 'list', '--company', company, '--json'], env())).stdout) as {
        action: string;
        objectType: string;
        objectId: string;
        actor: { type: string };
        before: unknown;
        after: unknown;
      }[];
    // the fixture was loaded with an import
    const [imported] = await actions('globex');
    const fixture = createFixture().companies.find((c) => c.slug === 'globex');
    expect(imported).toMatchObject({ action: 'company.import', objectType: 'company', actor: { type: 'cli' }, before: null });
    expect(imported?.after).toEqual({
      slug: 'globex',
      name: fixture?.name,
      networks: fixture?.networks.length,
      virtualDevices: fixture?.networks.reduce((n, network) => n + network.virtualDevices.length, 0),
      hardwareDevices:
        (fixture?.networks.reduce((n, network) => n + network.virtualDevices.filter((d) => d.hardwareDevice).length, 0) ?? 0) +
        (fixture?.spareHardwareDevices?.length ?? 0),
      vlans: fixture?.networks.reduce((n, network) => n + network.vlans.length, 0),
      ssids: fixture?.networks.reduce((n, network) => n + network.ssids.length, 0),
      clients: fixture?.networks.reduce((n, network) => n + network.clients.length, 0),
    });

    expect((await runNetgraph(['company', 'create', '--slug', 'initech', '--name', 'Initech'], env())).code).toBe(0);
    const created = await runNetgraph(['users', 'create', '--company', 'initech', '--email', 'peter@initech.example', '--role', 'member', '--json'], env());
    expect(created.code).toBe(0);
    const user = JSON.parse(created.stdout) as { id: string; password: string };
    expect(user.password).toMatch(/.{12,}/);
    const initech = await actions('initech');
    expect(initech.map((e) => [e.action, e.objectType, e.actor.type])).toEqual([
      ['company.create', 'company', 'cli'],
      ['user.create', 'user', 'cli'],
    ]);
    expect(initech[0]?.after).toEqual({ slug: 'initech', name: 'Initech', isCustomer: true, websiteDomain: null });
    expect(initech[1]).toMatchObject({ objectId: user.id, before: null, after: { email: 'peter@initech.example', role: 'member' } });
    expect(JSON.stringify(initech)).not.toContain(user.password);
    expect(JSON.stringify(initech)).not.toMatch(/password/i);

    // a refused creation records nothing
    expect((await runNetgraph(['company', 'create', '--slug', 'initech', '--name', 'Again'], env())).code).toBe(1);
    expect(await actions('initech')).toHaveLength(2);
  });

  describe('netgraph audit list', () => {
    it('lists entries oldest first as JSON, by company and since a time', async () => {
      const all = await runNetgraph(['audit', 'list', '--json'], env());
      expect(all.code).toBe(0);
      const entries = JSON.parse(all.stdout);
      expect(entries).toEqual(JSON.parse(JSON.stringify(await app.server.services.audit.list())));
      expect(entries.length).toBeGreaterThan(10);
      const times = entries.map((e: { occurredAt: string }) => e.occurredAt);
      expect(times).toEqual([...times].sort());

      await app.server.services.apiKeys.create({ companySlug: 'globex', label: 'globex key' });
      const acme = JSON.parse((await runNetgraph(['audit', 'list', '--company', 'acme', '--json'], env())).stdout);
      const globex = JSON.parse((await runNetgraph(['audit', 'list', '--company', 'globex', '--json'], env())).stdout);
      expect(acme.every((e: { company: string }) => e.company === 'acme')).toBe(true);
      expect(globex.map((e: { action: string; company: string }) => [e.company, e.action])).toEqual([
        ['globex', 'company.import'],
        ['globex', 'api_key.create'],
      ]);

      const since = entries[Math.floor(entries.length / 2)].occurredAt;
      const later = JSON.parse((await runNetgraph(['audit', 'list', '--company', 'acme', '--since', since, '--json'], env())).stdout);
      expect(later).toEqual(acme.filter((e: { occurredAt: string }) => e.occurredAt >= since));
      expect(later.length).toBeLessThan(acme.length);
    });

    it('prints a table for people, and refuses a bad --since or an unknown company', async () => {
      const table = await runNetgraph(['audit', 'list', '--company', 'acme'], env());
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^OCCURRED\s+COMPANY\s+ACTOR\s+ACTION\s+OBJECT\n/);
      expect(table.stdout).toMatch(/acme\s+api_key: auditor \([0-9a-f-]{36}\)\s+network\.create\s+[0-9a-f-]{36}/);
      const badSince = await runNetgraph(['audit', 'list', '--since', 'yesterday'], env());
      expect(badSince.code).toBe(1);
      expect(badSince.stderr).toMatch(/since "yesterday" is not an RFC 3339 timestamp/);
      const nobody = await runNetgraph(['audit', 'list', '--company', 'nobody'], env());
      expect(nobody.code).toBe(1);
      expect(nobody.stderr).toMatch(/No company with slug "nobody"/);
    });
  });
});
