import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, migrateUpTo } from '../src/db/migrate.js';
import { openStore } from '../src/db/open-store.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import { storedReports } from './helpers/stored-reports.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(storeKinds())('retention on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let companyId: number;
  const reports = () => app.server.services.reports;
  const counts = async () => {
    const stored = storedReports(app.server.store.db);
    const network = await stored.networkTelemetry(companyId, IDS.acmeHq);
    const device = await stored.deviceTelemetry(companyId, SERIALS.acmeSwitch);
    const events = await stored.events(companyId, IDS.acmeHq, { limit: 100 });
    const sessions = await stored.clientSessions(companyId, IDS.acmeHq);
    return {
      samples: network.uplinkSamples.length,
      observations: network.clientObservations.length,
      counters: device.portCounters.length,
      uplinkRollups: network.uplinkRollups.length,
      presence: network.clientPresence.length,
      counterRollups: device.counterRollups.length,
      reportCounts: network.reportCounts.length,
      events: events.total,
      sessions: sessions.length,
    };
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    // no background sweep (it runs at start and every minute): with one running beside the test's own expire(), a CI run found 4 events left
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, backgroundWork: false });
    // what the first background run does before reports arrive
    await reports().preparePartitions();
    companyId = (await app.server.services.companies.getBySlug('acme')).id;
    const key = await createScopedKey(app, 'ingest');
    const batch = [0, 600, 1200].map((offset) => {
      const observedAt = new Date(REPORT_EPOCH - offset * 1000).toISOString();
      return report(SERIALS.acmeSwitch, observedAt, {
        interfaces: [{ portNumber: 1, counters: { rxBytes: 1, txBytes: 1, rxPackets: 1, txPackets: 1, rxErrors: 0, txErrors: 0 } }],
        uplinkSamples: [{ portNumber: 1, observedAt, latencyMs: 1 }],
        clients: [{ macAddress: 'cc:00:00:00:00:01' }],
        events: [{ type: 'LINK_UP', observedAt }],
      });
    });
    expect((await postReports(app, key, batch)).body.accepted).toBe(3);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('keeps recent data and deletes, in bounded batches, what is past its retention', async () => {
    const all = { samples: 3, observations: 3, counters: 3, uplinkRollups: 3, presence: 3, counterRollups: 3, reportCounts: 3, events: 4, sessions: 1 };
    expect(await counts()).toEqual(all);
    clock.advance(47 * HOUR);
    await reports().expire(2);
    expect(await counts()).toEqual(all);
    // the newest raw rows are 48 h old plus a minute; the others older
    clock.advance(HOUR + 60_000);
    await reports().expire(2);
    const raw = { samples: 0, observations: 0, counters: 0 };
    expect(await counts()).toEqual({ ...all, ...raw });
    // the 5-minute rollups are kept 7 days: the newest are 7 days old less an hour, then plus a minute
    clock.advance(4 * DAY + 23 * HOUR);
    await reports().expire(2);
    expect(await counts()).toEqual({ ...all, ...raw });
    clock.advance(HOUR);
    await reports().expire(2);
    const rollups = { uplinkRollups: 0, presence: 0, counterRollups: 0, reportCounts: 0 };
    expect(await counts()).toEqual({ ...all, ...raw, ...rollups });
    // events and client history 90 days
    clock.advance(82 * DAY);
    await reports().expire(2);
    expect(await counts()).toEqual({ ...all, ...raw, ...rollups });
    clock.advance(DAY);
    await reports().expire(2);
    expect(await counts()).toEqual({ samples: 0, observations: 0, counters: 0, uplinkRollups: 0, presence: 0, counterRollups: 0, reportCounts: 0, events: 0, sessions: 0 });
  });

  it('keeps the raw series of PostgreSQL in day partitions, and drops whole days past the retention', async () => {
    if (kind !== 'postgres') return;
    const rowsIn = async (table: string) =>
      Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(app.server.store.db)).rows[0]?.n);
    const observedAt = new Date(clock.now()).toISOString();
    const key = await createScopedKey(app, 'ingest');
    await postReports(app, key, [report(SERIALS.acmeSwitch, observedAt, { uplinkSamples: [{ portNumber: 1, observedAt, latencyMs: 1 }] })]);
    const day = `uplink_samples_p${observedAt.slice(0, 10).replaceAll('-', '')}`;
    expect(await rowsIn(day)).toBe(1);
    expect(await rowsIn('uplink_samples_default')).toBe(0);
    // the end of that day plus the raw retention: the whole partition is past it
    clock.advance(Date.parse(observedAt.slice(0, 10)) + DAY + 48 * HOUR - clock.now() + 1);
    await reports().expire();
    await expect(rowsIn(day)).rejects.toThrow(/does not exist/);
    const ahead = new Date(clock.now() + 2 * DAY).toISOString().slice(0, 10).replaceAll('-', '');
    expect(await rowsIn(`uplink_samples_p${ahead}`)).toBe(0);
  });

  it('keeps a session that began before the client history retention while it was last seen within it', async () => {
    // retention finds expired sessions by first_seen (migration 0045) and deletes only those last seen before it too
    const key = await createScopedKey(app, 'ingest');
    const mac = 'cc:00:00:00:00:02';
    const listing = () => report(SERIALS.acmeSwitch, new Date(clock.now()).toISOString(), { clients: [{ macAddress: mac }] });
    const session = async () => (await storedReports(app.server.store.db).clientSessions(companyId, IDS.acmeHq)).filter((s) => s.macAddress === mac);
    const firstSeen = new Date(clock.now()).toISOString();
    expect((await postReports(app, key, [listing()])).body.accepted).toBe(1);
    clock.advance(60 * DAY);
    const lastSeen = new Date(clock.now()).toISOString();
    expect((await postReports(app, key, [listing()])).body.accepted).toBe(1);
    const one = (await session()).map((s) => [new Date(s.firstSeen).toISOString(), new Date(s.lastSeen).toISOString(), s.endedAt]);
    expect(one).toEqual([[firstSeen, lastSeen, null]]);
    // first seen 91 days ago, last seen 31
    clock.advance(31 * DAY);
    await reports().expire(1);
    expect(await session()).toHaveLength(1);
    // last seen 90 days ago and a minute
    clock.advance(59 * DAY + 60_000);
    await reports().expire(1);
    expect(await session()).toHaveLength(0);
  });
});

describe.each(storeKinds())('migration 0004 on %s', (kind) => {
  it('keeps every API key while widening the scopes to ingest', async () => {
    const database = await createTestDatabase(kind);
    const store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateUpTo(store, '0003-audit-log');
      const companyId = Number((await store.db.insertInto('companies').values({ uuid: '00000000-0000-4000-8000-000000000001', slug: 'acme', name: 'Acme', created_at: '2026-01-01T00:00:00.000Z' }).returning('id').executeTakeFirstOrThrow()).id);
      const key = { company_id: companyId, label: 'old', prefix: 'ngk_abcdef', scope: 'read_write', created_at: '2026-01-01T00:00:00.000Z' };
      await store.db.insertInto('api_keys').values([
        { ...key, uuid: '00000000-0000-4000-8000-0000000000a1', secret_hash: 'h1' },
        { ...key, uuid: '00000000-0000-4000-8000-0000000000a2', secret_hash: 'h2', scope: 'read' },
      ]).execute();
      await expect(store.db.insertInto('api_keys').values({ ...key, uuid: '00000000-0000-4000-8000-0000000000a3', secret_hash: 'h3', scope: 'ingest' }).execute()).rejects.toThrow();
      await migrateToLatest(store);
      const rows = await store.db.selectFrom('api_keys').select(['id', 'uuid', 'scope', 'secret_hash']).orderBy('id').execute();
      expect(rows.map((r) => `${r.uuid} ${r.scope} ${r.secret_hash}`)).toEqual([
        '00000000-0000-4000-8000-0000000000a1 read_write h1',
        '00000000-0000-4000-8000-0000000000a2 read h2',
      ]);
      await store.db.insertInto('api_keys').values({ ...key, uuid: '00000000-0000-4000-8000-0000000000a3', secret_hash: 'h3', scope: 'ingest' }).execute();
      // the constraints came along: unique hashes, known scopes only
      await expect(store.db.insertInto('api_keys').values({ ...key, uuid: '00000000-0000-4000-8000-0000000000a4', secret_hash: 'h3' }).execute()).rejects.toThrow();
      await expect(store.db.insertInto('api_keys').values({ ...key, uuid: '00000000-0000-4000-8000-0000000000a5', secret_hash: 'h5', scope: 'admin' }).execute()).rejects.toThrow();
      const newer = await store.db.selectFrom('api_keys').select('id').where('uuid', '=', '00000000-0000-4000-8000-0000000000a3').executeTakeFirstOrThrow();
      expect(Number(newer.id)).toBeGreaterThan(Number(rows[1]?.id));
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
