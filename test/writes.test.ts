import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/db/open-store.js';
import { createServices } from '../src/services.js';
import { startTestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestApp } from './helpers/app.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { auditOf, createWriteKey, errorOf, snapshotOf } from './helpers/writes.js';

const UNAUTHORIZED_BODY = { title: 'Unauthorized. Please include your API credentials', id: 'unauthorized', status: 401 };

describe.each(storeKinds())('writes on %s: scopes, revocation, atomicity, concurrency', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Revokes a key through a store and services of their own, as another process would: the server's key cache still holds it. */
  async function revokeElsewhere(label: string): Promise<void> {
    const store = await openStore(loadConfig({ DATABASE_URL: app.database.url }).database);
    try {
      const services = createServices(store);
      const [info] = (await services.apiKeys.list('acme')).filter((k) => k.label === label);
      await services.apiKeys.revoke(info!.id);
    } finally {
      await store.close();
    }
  }

  describe('key scopes', () => {
    it('refuses any mutation with a read key: 403 FORBIDDEN, data null, nothing changed, nothing recorded', async () => {
      const readKey = await app.createKey('acme', 'reader');
      const before = await snapshotOf(app);
      const entries = (await auditOf(app)).length;
      for (const [query, variables] of [
        ['mutation { createNetwork(input: { label: "X", slug: "nope" }) { network { UUID } } }', undefined],
        [`mutation { deleteNetwork(input: { networkUUID: "${IDS.acmeHq}" }) { deletedNetworkUUID } }`, undefined],
        ['mutation ($i: CreateNetworkInput!) { createNetwork(input: $i) { network { UUID } } }', { i: { slug: 1 } }],
        ['mutation { __typename }', undefined],
      ] as const) {
        for (const accept of ['application/json', 'application/graphql-response+json']) {
          const res = await app.graphql(query, { key: readKey, variables, headers: { accept } });
          expect(res.status).toBe(403);
          expect(res.body).toEqual({
            errors: [{ message: 'This API key can only read: mutations need a key with scope read_write.', extensions: { code: 'FORBIDDEN' } }],
            data: null,
          });
        }
      }
      expect(await snapshotOf(app)).toEqual(before);
      expect(await auditOf(app)).toHaveLength(entries);
      expect((await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key: readKey })).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    });

    it('a read_write key reads too, and keys are created read-only unless asked', async () => {
      const writer = await createWriteKey(app, 'acme', 'rw-reads');
      expect((await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key: writer })).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
      expect((await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'default' })).scope).toBe('read');
    });
  });

  describe('revoked keys cannot write', () => {
    it('revoked in this process: 401 before anything runs', async () => {
      const key = await createWriteKey(app, 'acme', 'revoked-here');
      const [info] = (await app.server.services.apiKeys.list('acme')).filter((k) => k.label === 'revoked-here');
      await app.server.services.apiKeys.revoke(info!.id);
      const res = await app.graphql('mutation { createNetwork(input: { label: "X", slug: "revoked-here" }) { network { UUID } } }', { key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED_BODY);
    });

    it('revoked by another process while this server still caches the key: the write transaction refuses it', async () => {
      const key = await createWriteKey(app, 'acme', 'revoked-elsewhere');
      expect((await app.graphql('{ __typename }', { key })).status).toBe(200);
      await revokeElsewhere('revoked-elsewhere');
      const before = await snapshotOf(app);
      const entries = (await auditOf(app)).length;
      for (const query of [
        'mutation { createNetwork(input: { label: "X", slug: "revoked-elsewhere" }) { network { UUID } } }',
        'mutation { a: createVLAN(input: { networkUUID: "' + IDS.acmeEmpty + '", name: "V", vlanID: 5 }) { vlan { UUID } } b: createSSID(input: { networkUUID: "' + IDS.acmeEmpty + '", ssid: "S" }) { ssid { UUID } } }',
        'mutation { __typename }',
      ]) {
        const res = await app.graphql(query, { key });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED_BODY);
      }
      expect(await snapshotOf(app)).toEqual(before);
      expect(await auditOf(app)).toHaveLength(entries);
    });
  });

  describe('a failed write leaves no partial change', () => {
    it('a network whose second VLAN conflicts with its first is not created, nor its first VLAN', async () => {
      const key = await createWriteKey(app);
      const before = await snapshotOf(app);
      const entries = (await auditOf(app)).length;
      const res = await app.graphql(`mutation { x: createNetwork(input: { label: "Half", slug: "half",
        vlans: [{ name: "A", vlanID: 10 }, { name: "B", vlanID: 10 }], ssids: [{ ssid: "Half" }] }) { network { UUID } } }`, { key });
      expect(res.body.data).toEqual({ x: null });
      expect(errorOf(res)).toEqual([['x'], 'CONFLICT', 'input.vlans[1].vlanID']);
      expect(await snapshotOf(app)).toEqual(before);
      expect(await auditOf(app)).toHaveLength(entries);
      const rows = await app.server.store.db.selectFrom('vlans').select('id').where('name', '=', 'A').execute();
      expect(rows).toEqual([]);
    });

    it('when the audit entry cannot be written, the change is rolled back too (create and delete)', async () => {
      const broken = await startTestApp(kind, { data: createFixture() });
      try {
        const key = await createWriteKey(broken);
        const before = await snapshotOf(broken);
        await broken.server.store.db.schema.alterTable('audit_log').renameTo('audit_log_away').execute();
        const res = await broken.graphql(`mutation {
          a: createNetwork(input: { label: "Doomed", slug: "doomed", vlans: [{ name: "V", vlanID: 7 }], ssids: [{ ssid: "D" }] }) { network { UUID } }
          b: deleteNetwork(input: { networkUUID: "${IDS.acmeHq}" }) { deletedNetworkUUID }
          c: assignHardwareDevice(input: { serialNumber: "M1A3-SPARE-01", virtualDeviceUUID: "${IDS.acmeSwitch}" }) { hardwareDevice { serialNumber } }
        }`, { key });
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({ a: null, b: null, c: null });
        const requestId = res.headers.get('x-request-id');
        expect(res.body.errors.slice(0, 2)).toEqual([
          { message: 'Internal server error', locations: [{ line: 2, column: 11 }], path: ['a'], extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } },
          { message: 'Internal server error', locations: [{ line: 3, column: 11 }], path: ['b'], extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } },
        ]);
        expect(res.text).not.toMatch(/audit_log|SQL|sqlite|relation/i);
        expect(await snapshotOf(broken)).toEqual(before);
        await broken.server.store.db.schema.alterTable('audit_log_away').renameTo('audit_log').execute();
        const again = await broken.graphql(`mutation { deleteNetwork(input: { networkUUID: "${IDS.acmeHq}" }) { hardwareReturnedToSpare } }`, { key });
        expect(again.body).toEqual({ data: { deleteNetwork: { hardwareReturnedToSpare: [SERIALS.acmeAp, SERIALS.acmeSwitch] } } });
      } finally {
        await broken.close();
      }
    });

    it('one failing field nulls only itself: the fields before and after it are done', async () => {
      const key = await createWriteKey(app);
      const res = await app.graphql(`mutation {
        a: createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "One", vlanID: 101 }) { vlan { vlanID } }
        b: createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "Two", vlanID: 101 }) { vlan { vlanID } }
        c: createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "Three", vlanID: 103 }) { vlan { vlanID } }
      }`, { key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ a: { vlan: { vlanID: 101 } }, b: null, c: { vlan: { vlanID: 103 } } });
      expect(errorOf(res)).toEqual([['b'], 'CONFLICT', 'input.vlanID']);
    });
  });

  describe('concurrent writes', () => {
    it('creates of the same slug at once: exactly one succeeds, the others are CONFLICT', async () => {
      const keys = await Promise.all([1, 2, 3, 4].map((i) => createWriteKey(app, 'acme', `racer-${i}`)));
      const attempts = 12;
      const responses = await Promise.all(
        Array.from({ length: attempts }, (_, i) =>
          app.graphql(`mutation { x: createNetwork(input: { label: "Race ${i}", slug: "race", vlans: [{ name: "V", vlanID: 10 }] }) { network { UUID label } } }`, {
            key: keys[i % keys.length],
          }),
        ),
      );
      for (const res of responses) expect(res.status).toBe(200);
      const winners = responses.filter((res) => res.body.data.x !== null);
      const losers = responses.filter((res) => res.body.data.x === null);
      expect(winners).toHaveLength(1);
      expect(losers.map(errorOf)).toEqual(Array(attempts - 1).fill([['x'], 'CONFLICT', 'input.slug']));
      const stored = await app.server.store.db.selectFrom('networks').select(['uuid', 'label']).where('slug', '=', 'race').execute();
      expect(stored).toEqual([{ uuid: winners[0]!.body.data.x.network.UUID, label: winners[0]!.body.data.x.network.label }]);
      const created = (await auditOf(app)).filter((e) => e.action === 'network.create' && (e.after as { slug: string }).slug === 'race');
      expect(created).toHaveLength(1);
    });

    it('assigns of one hardware device to several virtual devices at once: exactly one succeeds, and the audit log agrees', async () => {
      const key = await createWriteKey(app, 'acme', 'assigner');
      const register = await app.graphql('mutation { registerHardwareDevice(input: { serialNumber: "RACE-AP-1", deviceType: ACCESS_POINT, deviceModel: "AP-W7" }) { hardwareDevice { serialNumber } } }', { key });
      expect(register.body.errors).toBeUndefined();
      const slots: string[] = [];
      for (let i = 0; i < 6; i++) {
        const made = await app.graphql(`mutation { createVirtualDevice(input: { networkUUID: "${IDS.acmeEmpty}", label: "Race ${i}", deviceType: ACCESS_POINT, deviceModel: "AP-W7" }) { virtualDevice { UUID } } }`, { key });
        slots.push(made.body.data.createVirtualDevice.virtualDevice.UUID);
      }
      const responses = await Promise.all(
        slots.map((slot) => app.graphql(`mutation { x: assignHardwareDevice(input: { serialNumber: "RACE-AP-1", virtualDeviceUUID: "${slot}" }) { virtualDevice { UUID } } }`, { key })),
      );
      const winners = responses.filter((res) => res.body.data.x !== null);
      expect(winners).toHaveLength(1);
      expect(responses.filter((res) => res.body.data.x === null).map(errorOf)).toEqual(Array(slots.length - 1).fill([['x'], 'CONFLICT', 'input.serialNumber']));
      const winner = winners[0]!.body.data.x.virtualDevice.UUID;
      const read = await app.graphql(`{ virtualDevice(UUID: "${winner}") { hardwareDevice { serialNumber } } }`, { key });
      expect(read.body.data.virtualDevice.hardwareDevice).toEqual({ serialNumber: 'RACE-AP-1' });
      const assigns = (await auditOf(app)).filter((e) => e.action === 'hardware_device.assign' && e.objectId === 'RACE-AP-1');
      expect(assigns.map((e) => [(e.before as { virtualDeviceUUID: unknown }).virtualDeviceUUID, (e.after as { virtualDeviceUUID: unknown }).virtualDeviceUUID])).toEqual([[null, winner]]);
    });

    it('concurrent updates of one network: every audit entry starts where the one before it ended', async () => {
      const keys = await Promise.all([1, 2, 3].map((i) => createWriteKey(app, 'acme', `editor-${i}`)));
      const labels = Array.from({ length: 9 }, (_, i) => `Annex v${i}`);
      const responses = await Promise.all(
        labels.map((label, i) => app.graphql(`mutation { updateNetwork(input: { networkUUID: "${IDS.acmeEmpty}", label: "${label}" }) { network { label } } }`, { key: keys[i % keys.length] })),
      );
      for (const res of responses) expect(res.body.errors).toBeUndefined();
      const updates = (await auditOf(app)).filter((e) => e.action === 'network.update' && e.objectId === IDS.acmeEmpty).slice(-labels.length);
      const chain = updates.map((e) => [(e.before as { label: string }).label, (e.after as { label: string }).label]);
      for (let i = 1; i < chain.length; i++) expect(chain[i]![0]).toBe(chain[i - 1]![1]);
      expect(chain.map(([, after]) => after).sort()).toEqual([...labels].sort());
      const stored = await app.server.store.db.selectFrom('networks').select('label').where('uuid', '=', IDS.acmeEmpty).executeTakeFirst();
      expect(stored?.label).toBe(chain.at(-1)![1]);
    });
  });
});

describe.each(storeKinds())('mutations and the complexity budget on %s', (kind) => {
  const clock = createTestClock();
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), env: { COMPLEXITY_LIMIT: '30', COMPLEXITY_BUDGET: '30' }, clock: clock.now });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('charges a mutation 10 points plus its payload before it runs; one past an exhausted budget is THROTTLED and writes nothing', async () => {
    const key = await createWriteKey(app);
    const create = (vlanID: number) =>
      app.graphql(`mutation { createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "V", vlanID: ${vlanID} }) { vlan { UUID } } }`, { key });
    const charged = [];
    // the third finds 6 points, fewer than its 12, and runs: the budget goes to -6
    for (const vlanID of [40, 41, 42]) {
      const res = await create(vlanID);
      expect(res.body.errors).toBeUndefined();
      charged.push([res.headers.get('x-complexity-cost'), res.headers.get('x-complexity-remaining')]);
    }
    expect(charged).toEqual([
      ['12', '18'],
      ['12', '6'],
      ['12', '0'],
    ]);
    const entries = (await auditOf(app)).length;
    const throttled = await create(43);
    expect(throttled.status).toBe(429);
    expect(throttled.body.errors[0].extensions).toMatchObject({ code: 'THROTTLED', cost: 12, remaining: 0 });
    expect(await auditOf(app)).toHaveLength(entries);
    const vlans = await app.server.store.db.selectFrom('vlans').select('vlan_id').where('vlan_id', 'in', [40, 41, 42, 43]).orderBy('vlan_id').execute();
    expect(vlans).toEqual([{ vlan_id: 40 }, { vlan_id: 41 }, { vlan_id: 42 }]);
  });
});
