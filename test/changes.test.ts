import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { startServerProcess } from './helpers/processes.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import type { ServerProcess } from './helpers/processes.js';
import { storeKinds } from './helpers/stores.js';
import { settled } from './helpers/changes.js';
import { createWriteKey } from './helpers/writes.js';

// The change feed (docs/changes.md): rebuild a company's inventory from empty, stay in sync, scoping, limits, expiry.
const FEED = /* GraphQL */ `
  query ($after: String, $limit: Int) {
    changes(after: $after, limit: $limit) { changes { cursor objectType objectUUID kind at fields } endCursor hasMore }
  }
`;
const INVENTORY = /* GraphQL */ `
  query {
    networksForCompany(companySlug: "acme") {
      UUID label slug isActive mailingAddress { line1 line2 city subdivisionCode postalCode }
      vlans { UUID networkUUID name vlanID isEnabled isDefault description ipV4ClientGateway ipV4ClientPrefixLength ipV4ClientAssignmentProtocol }
      ssids { UUID networkUUID ssid isEnabled isGuest isHidden encryptionProtocol }
      virtualDevices { UUID networkUUID label deviceType deviceModel hardwareDevice { serialNumber } }
    }
  }
`;

interface Change {
  cursor: string;
  objectType: string;
  objectUUID: string;
  kind: string;
  at: string;
  fields: string | null;
}

/** An integration's copy: objects by type and key, their fields as the feed gave them. */
type Replica = Map<string, Map<string, JsonTree>>;

function apply(replica: Replica, changes: readonly Change[]): void {
  for (const change of changes) {
    const objects = replica.get(change.objectType) ?? new Map<string, JsonTree>();
    replica.set(change.objectType, objects);
    if (change.kind === 'DELETED') objects.delete(change.objectUUID);
    else if (change.kind === 'ONLINE' || change.kind === 'OFFLINE') objects.set(change.objectUUID, { ...objects.get(change.objectUUID), ...(JSON.parse(change.fields ?? '{}') as JsonTree) });
    else objects.set(change.objectUUID, JSON.parse(change.fields ?? 'null') as JsonTree);
  }
}

/** The replica in the shape of INVENTORY's answer, so the two compare with toEqual. */
function inventoryOf(replica: Replica): JsonTree[] {
  const of = (type: string) => [...(replica.get(type)?.values() ?? [])];
  const byNetwork = (type: string, uuid: string) => of(type).filter((o) => o.networkUUID === uuid);
  const sortBy = <T extends JsonTree>(items: T[], key: (o: T) => string) => items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const address = (a: JsonTree | null) => (a === null ? null : { line1: a.line1, line2: a.line2, city: a.city, subdivisionCode: a.subdivisionCode, postalCode: a.postalCode });
  return sortBy(of('Network'), (n) => `${n.label}\u0000${n.UUID}`).map((n) => ({
    UUID: n.UUID,
    label: n.label,
    slug: n.slug,
    isActive: n.isActive,
    mailingAddress: address(n.mailingAddress),
    vlans: sortBy(byNetwork('VLAN', n.UUID), (v) => `${v.name}\u0000${String(v.vlanID).padStart(4, '0')}`).map(({ UUID, networkUUID, name, vlanID, isEnabled, isDefault, description, ipV4ClientGateway, ipV4ClientPrefixLength, ipV4ClientAssignmentProtocol }) => ({ UUID, networkUUID, name, vlanID, isEnabled, isDefault, description, ipV4ClientGateway, ipV4ClientPrefixLength, ipV4ClientAssignmentProtocol })),
    ssids: sortBy(byNetwork('SSID', n.UUID), (s) => s.ssid).map(({ UUID, networkUUID, ssid, isEnabled, isGuest, isHidden, encryptionProtocol }) => ({ UUID, networkUUID, ssid, isEnabled, isGuest, isHidden, encryptionProtocol })),
    virtualDevices: sortBy(byNetwork('VirtualDevice', n.UUID), (d) => `${d.label}\u0000${d.UUID}`).map((d) => ({
      UUID: d.UUID,
      networkUUID: d.networkUUID,
      label: d.label,
      deviceType: d.deviceType,
      deviceModel: d.deviceModel,
      hardwareDevice: (({ serialNumber }: JsonTree) => (serialNumber === undefined ? null : { serialNumber }))(of('HardwareDevice').find((h) => h.virtualDeviceUUID === d.UUID) ?? {}),
    })),
  }));
}

describe.each(storeKinds())('the change feed on %s', (kind) => {
  let app: TestApp;
  let writer: string;
  let globex: string;
  let clock: TestClock;
  const replica: Replica = new Map();
  let cursor: string | null = null;

  const page = async (after: string | null, limit?: number, key?: string) => {
    const res = await app.graphql(FEED, { variables: { after, ...(limit === undefined ? {} : { limit }) }, ...(key === undefined ? {} : { key }) });
    return res.body as { data: { changes: { changes: Change[]; endCursor: string | null; hasMore: boolean } | null }; errors?: { message: string; extensions: JsonTree }[] };
  };
  /** Pages from `cursor` to the end, applying each page; returns every change read. */
  const catchUp = async (limit = 4): Promise<Change[]> => {
    await settled(app);
    const read: Change[] = [];
    for (;;) {
      const body = await page(cursor, limit);
      expect(body.errors).toBeUndefined();
      const result = body.data.changes as NonNullable<typeof body.data.changes>;
      expect(result.changes.length).toBeLessThanOrEqual(limit);
      apply(replica, result.changes);
      read.push(...result.changes);
      cursor = result.endCursor;
      if (!result.hasMore) return read;
    }
  };
  const mutate = async (query: string) => {
    const res = await app.graphql(query, { key: writer });
    expect(res.body.errors).toBeUndefined();
    return res.body.data as JsonTree;
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), backgroundWork: false, clock: clock.now });
    writer = await createWriteKey(app);
    globex = await app.createKey('globex');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('rebuilds the inventory from empty: what the list queries answer', async () => {
    const read = await catchUp();
    expect(read[0]).toMatchObject({ objectType: 'Company', kind: 'CREATED' });
    expect(new Set(read.map((c) => c.kind))).toEqual(new Set(['CREATED']));
    expect(replica.get('HardwareDevice')?.get(SERIALS.acmeSwitch)).toEqual({
      serialNumber: SERIALS.acmeSwitch,
      deviceType: 'SWITCH',
      deviceModel: 'SW-48P',
      virtualDeviceUUID: IDS.acmeSwitch,
      spareNetworkUUID: null,
    });
    const inventory = (await app.graphql(INVENTORY)).body.data.networksForCompany as JsonTree[];
    expect(inventoryOf(replica)).toEqual(inventory);
    // every cursor is distinct and the page after the last is empty, keeping the cursor
    expect(new Set(read.map((c) => c.cursor)).size).toBe(read.length);
    const end = await page(cursor);
    expect(end.data.changes).toEqual({ changes: [], endCursor: cursor, hasMore: false });
  });

  it('stays in sync through writes, cascades included', async () => {
    await mutate(`mutation { createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "Voice", vlanID: 30 }) { vlan { UUID } } }`);
    await mutate(`mutation { updateNetwork(input: { networkUUID: "${IDS.acmeHq}", label: "HQ Zurich", mailingAddress: null }) { network { UUID } } }`);
    await mutate(`mutation { unassignHardwareDevice(input: { serialNumber: "${SERIALS.acmeSwitch}" }) { hardwareDevice { serialNumber } } }`);
    await mutate(`mutation { deleteNetwork(input: { networkUUID: "${IDS.acmeLab}" }) { deletedNetworkUUID } }`);
    const read = await catchUp(2);
    expect(read.map((c) => [c.objectType, c.kind])).toContainEqual(['VLAN', 'CREATED']);
    expect(read.filter((c) => c.objectType === 'Network').map((c) => [c.objectUUID, c.kind])).toEqual([
      [IDS.acmeHq, 'UPDATED'],
      [IDS.acmeLab, 'DELETED'],
    ]);
    expect(read.find((c) => c.objectUUID === IDS.acmeLabAp)).toMatchObject({ objectType: 'VirtualDevice', kind: 'DELETED', fields: null });
    expect(JSON.parse(read.find((c) => c.objectUUID === SERIALS.acmeLabAp)?.fields ?? 'null')).toMatchObject({ virtualDeviceUUID: null, spareNetworkUUID: null });
    const inventory = (await app.graphql(INVENTORY)).body.data.networksForCompany as JsonTree[];
    expect(inventoryOf(replica)).toEqual(inventory);
  });

  it('lists a device coming online and falling silent, in the transactions that record its events', async () => {
    const ingest = await createScopedKey(app, 'ingest');
    const observedAt = new Date(clock.now()).toISOString();
    expect((await postReports(app, ingest, [report(SERIALS.acmeSwitch, observedAt)])).status).toBe(200);
    clock.advance(120_000);
    expect(await app.server.services.reports.checkOffline()).toBe(1);
    const read = await catchUp();
    expect(read.map(({ objectType, objectUUID, kind, at, fields }) => ({ objectType, objectUUID, kind, at, fields: JSON.parse(fields ?? 'null') as unknown }))).toEqual([
      { objectType: 'HardwareDevice', objectUUID: SERIALS.acmeSwitch, kind: 'ONLINE', at: observedAt, fields: { serialNumber: SERIALS.acmeSwitch, isConnectedToBackend: true } },
      {
        objectType: 'HardwareDevice',
        objectUUID: SERIALS.acmeSwitch,
        kind: 'OFFLINE',
        at: new Date(Date.parse(observedAt) + 90_000).toISOString(),
        fields: { serialNumber: SERIALS.acmeSwitch, isConnectedToBackend: false },
      },
    ]);
  });

  it("never shows another company's changes", async () => {
    await settled(app);
    const acme = await page(null, 1000);
    const uuids = new Set(acme.data.changes?.changes.map((c) => c.objectUUID));
    expect(uuids.has(IDS.globexHq)).toBe(false);
    expect(uuids.has(SERIALS.globexAp)).toBe(false);
    const other = await page(null, 1000, globex);
    const theirs = other.data.changes?.changes.map((c) => c.objectUUID) ?? [];
    expect(theirs).toContain(IDS.globexHq);
    expect(theirs.filter((uuid) => uuids.has(uuid))).toEqual([]);
    // acme's cursor means nothing to globex: answered like an expired one
    const foreign = await page(cursor, 10, globex);
    expect(foreign.errors?.[0]?.extensions.code).toBe('CURSOR_EXPIRED');
  });

  it('checks limit and after', async () => {
    for (const limit of [0, 1001]) {
      const body = await page(null, limit);
      expect(body.data.changes).toBeNull();
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'limit' });
    }
    const bad = await page('not-a-cursor');
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
    const one = await page(null, 1);
    expect(one.data.changes?.changes).toHaveLength(1);
    expect(one.data.changes?.hasMore).toBe(true);
  });

  it('answers CURSOR_EXPIRED for a cursor whose change retention deleted', async () => {
    const first = (await page(null, 1)).data.changes?.changes[0] as Change;
    // EVENT_RETENTION_DAYS from now reaches back past nothing: move the first change's time back instead
    await app.server.store.db.updateTable('changes').set({ changed_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', idOf(first.cursor)).execute();
    await app.server.services.reports.expire();
    const body = await page(first.cursor);
    expect(body.data.changes).toBeNull();
    expect(body.errors?.[0]).toMatchObject({ extensions: { code: 'CURSOR_EXPIRED', argument: 'after' } });
    expect(body.errors?.[0]?.message).toMatch(/resync from empty with after: null/);
    // from empty still works, without the expired change
    const fresh = await page(null, 1);
    expect(fresh.data.changes?.changes[0]?.cursor).not.toBe(first.cursor);
  });
});

function idOf(cursor: string): number {
  return Number(Buffer.from(cursor, 'base64url').toString().split('.')[1]);
}

describe.runIf(storeKinds().includes('postgres'))('the change feed with writers in several processes on one PostgreSQL', () => {
  let app: TestApp;
  const servers: ServerProcess[] = [];
  let writer: string;

  beforeAll(async () => {
    app = await startTestApp('postgres', { data: createFixture(), backgroundWork: false });
    writer = await createWriteKey(app);
    // two more netgraph processes on the same database, each writing in its own transactions
    servers.push(...(await Promise.all([0, 1].map(() => startServerProcess({ DATABASE_URL: app.database.url })))));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await app?.close();
  });

  it('a reader paging while they commit, and while one transaction commits late, misses nothing and repeats nothing', async () => {
    const urls = [app.url, ...servers.map((s) => s.url)];
    const write = (url: string, query: string) =>
      fetch(`${url}/api/v1/graphql`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) }).then(
        async (res) => expect(((await res.json()) as JsonTree).errors).toBeUndefined(),
      );
    // one transaction that takes its ids (transaction and row) before the writers and commits after them
    const late = new pg.Client({ connectionString: app.database.url });
    await late.connect();
    await late.query('BEGIN');
    await late.query(
      "INSERT INTO changes (company_id, object_type, object_id, kind, changed_at, fields) SELECT id, 'Network', $1, 'UPDATED', now(), '{}' FROM companies WHERE slug = 'acme'",
      [IDS.acmeHq],
    );
    // then three processes, each creating VLANs (its own numbers) and updating one, concurrently
    const writers = urls.map(async (url, w) => {
      for (let i = 0; i < 12; i++) {
        const vlanID = 100 + w * 100 + i;
        await write(url, `mutation { createVLAN(input: { networkUUID: "${IDS.acmeEmpty}", name: "w${w}-${i}", vlanID: ${vlanID} }) { vlan { UUID } } }`);
        if (i % 4 === 3) await write(url, `mutation { updateNetwork(input: { networkUUID: "${IDS.acmeEmpty}", label: "w${w}-${i}" }) { network { UUID } } }`);
      }
    });
    const lateCommit = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await late.query('COMMIT');
      await late.end();
    })();

    // the reader pages all along, small pages, from empty
    const seen: Change[] = [];
    let after: string | null = null;
    let done = false;
    const finished = Promise.all([...writers, lateCommit]).then(() => (done = true));
    const reader = (async () => {
      for (;;) {
        const wasDone = done;
        if (wasDone) await settled(app);
        const res = await app.graphql(FEED, { variables: { after, limit: 7 } });
        const result = (res.body as { data: { changes: { changes: Change[]; endCursor: string | null; hasMore: boolean } } }).data.changes;
        seen.push(...result.changes);
        after = result.endCursor;
        if (wasDone && !result.hasMore) return;
        if (!result.hasMore) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await finished;
    await reader;

    // the whole feed, read afterwards in one page, is exactly what the reader saw, in the same order
    const all = ((await app.graphql(FEED, { variables: { after: null, limit: 1000 } })).body.data.changes as { changes: Change[] }).changes;
    expect(seen.map((c) => c.cursor)).toEqual(all.map((c) => c.cursor));
    expect(new Set(seen.map((c) => c.cursor)).size).toBe(seen.length);
    // every write is there: 36 VLANs, 9 network updates and the late one, besides the import
    expect(all.filter((c) => c.objectType === 'VLAN' && c.kind === 'CREATED' && (JSON.parse(c.fields ?? '{}') as JsonTree).vlanID >= 100)).toHaveLength(36);
    expect(all.filter((c) => c.objectType === 'Network' && c.kind === 'UPDATED')).toHaveLength(10);
    // the late transaction's row has the smallest id of the writes but was committed last: the feed still served it
    const lateRow = all.find((c) => c.objectUUID === IDS.acmeHq && c.kind === 'UPDATED') as Change;
    const writes = all.filter((c) => (c.objectType === 'VLAN' && c.kind === 'CREATED' && idOf(c.cursor) > idOf(lateRow.cursor)) || (c.objectType === 'Network' && c !== lateRow && c.kind === 'UPDATED'));
    expect(writes).toHaveLength(45);
    expect(Math.min(...writes.map((c) => idOf(c.cursor)))).toBeGreaterThan(idOf(lateRow.cursor));
  }, 30_000);
});
