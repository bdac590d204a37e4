import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { tryTakeSessionLock } from '../src/db/session-lock.js';
import { DEMO_BACKFILL_SECONDS, DEMO_COMPANY_SLUG, DEMO_SIMULATOR_LOCK } from '../src/tools/demo/demo-simulator.js';
import { openRuntime } from '../src/runtime.js';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/tables.js';
import type { Services } from '../src/services.js';
import { fleetNetworksOf } from '../src/tools/simulator/simulator.fleet.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { startServerProcess } from './helpers/processes.js';
import { REPORT_EPOCH } from './helpers/reports.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import { storedReports } from './helpers/stored-reports.js';
import type { TestDatabase } from './helpers/stores.js';

/** Half an hour between reports: a day of history is 48 ticks, and the test moves the clock one tick at a time. */
const INTERVAL_S = 1800;
const DEMO_OPTIONS = { intervalSeconds: INTERVAL_S, pollMs: 10 };
const DEMO_ENV = { DEMO_DATA: 'on' };

interface DemoFleet {
  readonly companyId: number;
  readonly serials: readonly string[];
}

async function demoFleet(services: Services): Promise<DemoFleet> {
  const company = (await services.imports.export(DEMO_COMPANY_SLUG)).companies[0];
  if (company === undefined) throw new Error('no demo company');
  const serials = fleetNetworksOf(company).flatMap((n) => n.devices.map((d) => d.serialNumber));
  return { companyId: (await services.companies.getBySlug(DEMO_COMPANY_SLUG)).id, serials };
}

/** The newest report time (ms) of any demo device, from the devices' state; undefined when none has reported. */
async function latestReport(db: Kysely<Database>, fleet: DemoFleet): Promise<number | undefined> {
  let latest: number | undefined;
  for (const serial of fleet.serials) {
    const seen = (await storedReports(db).deviceState(fleet.companyId, serial))?.lastSeenAt;
    if (seen != null) latest = Math.max(latest ?? 0, Date.parse(seen));
  }
  return latest;
}

/** Every time (ms) at which some demo device reported, from the stored port counters. */
async function reportTimes(db: Kysely<Database>, fleet: DemoFleet): Promise<number[]> {
  const times = new Set<number>();
  for (const serial of fleet.serials) {
    for (const row of (await storedReports(db).deviceTelemetry(fleet.companyId, serial)).portCounters) times.add(Date.parse(row.observed_at));
  }
  return [...times].sort((a, b) => a - b);
}

/** Polls until `condition` holds; fails with `what` after a minute and a half. */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1800; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const ticks = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i * INTERVAL_S * 1000);

describe.each(storeKinds())('the live demo network on %s', (kind) => {
  const apps: TestApp[] = [];
  let database: TestDatabase | undefined;
  afterAll(async () => {
    for (const app of apps) await app.server.close().catch(() => undefined);
    await database?.drop();
  });

  it('backfills a day on the first start, keeps reporting, stops on close, and resumes on the next start', async () => {
    const clock = createTestClock(REPORT_EPOCH);
    database = await createTestDatabase(kind);
    const first = await startTestApp(kind, { database, env: DEMO_ENV, clock: clock.now, demoSimulator: DEMO_OPTIONS });
    apps.push(first);
    const { services } = first.server;
    const fleet = await demoFleet(services);
    expect(fleet.serials.length).toBeGreaterThan(10);

    await until('the backfill reached now', async () => (await latestReport(first.server.store.db, fleet)) === REPORT_EPOCH);
    const backfillTicks = DEMO_BACKFILL_SECONDS / INTERVAL_S;
    const firstTick = REPORT_EPOCH - (backfillTicks - 1) * INTERVAL_S * 1000;
    // a report at every tick of the last 24 hours, the first 23.5 hours ago
    expect(await reportTimes(first.server.store.db, fleet)).toEqual(ticks(firstTick, backfillTicks));

    clock.advance(INTERVAL_S * 1000);
    await until('a live report arrived', async () => (await latestReport(first.server.store.db, fleet)) === REPORT_EPOCH + INTERVAL_S * 1000);
    const target = loadConfig({ DATABASE_URL: database.url }).database;
    // PostgreSQL: the running simulator holds its lock, so no other process starts a second one
    if (kind === 'postgres') expect(await tryTakeSessionLock(target, DEMO_SIMULATOR_LOCK)).toBeUndefined();

    await first.server.close();
    apps.pop();
    const lock = await tryTakeSessionLock(target, DEMO_SIMULATOR_LOCK);
    expect(lock).toBeDefined();
    await lock?.release();
    clock.advance(3 * INTERVAL_S * 1000);
    const reader = await openRuntime(loadConfig({ DATABASE_URL: database.url, DEMO_DATA: 'off' }), {}, clock.now);
    try {
      // a simulator left running would report the three ticks the clock moved past
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await latestReport(reader.store.db, fleet)).toBe(REPORT_EPOCH + INTERVAL_S * 1000);
    } finally {
      await reader.close();
    }

    const second = await startTestApp(kind, { database, env: DEMO_ENV, clock: clock.now, demoSimulator: DEMO_OPTIONS });
    apps.push(second);
    await until('the restarted simulator caught up', async () => (await latestReport(second.server.store.db, fleet)) === REPORT_EPOCH + 4 * INTERVAL_S * 1000);
    // the history has no gap: the ticks missed while the server was down were sent as history
    expect(await reportTimes(second.server.store.db, fleet)).toEqual(ticks(firstTick, backfillTicks + 4));
    // a day's backfill takes 5 to 8 s alone and passed 30 s under the whole suite's load on a slow machine
  }, 120_000);

  it('sends nothing with DEMO_SIMULATOR=off', async () => {
    const clock = createTestClock(REPORT_EPOCH);
    const app = await startTestApp(kind, { env: { ...DEMO_ENV, DEMO_SIMULATOR: 'off' }, clock: clock.now, demoSimulator: DEMO_OPTIONS });
    try {
      const fleet = await demoFleet(app.server.services);
      expect(fleet.serials.length).toBeGreaterThan(10);
      clock.advance(INTERVAL_S * 1000);
      // with the simulator on, its first reports are stored within a few polls
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await latestReport(app.server.store.db, fleet)).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});

describe('the live demo under netgraph serve --workers', () => {
  it('runs in the primary only, and stops with it on SIGTERM', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const server = await startServerProcess({ DATABASE_URL: database.url, DEMO_DATA: 'on' }, ['--workers', '2'], 'demo simulator: backfill');
      await until('both workers listen', async () => (server.output().match(/netgraph listening on/g) ?? []).length === 2);
      expect(await server.stop('SIGTERM')).toBe(0);
      const output = server.output();
      expect(output).toContain('The demo network is live');
      // one simulator, in the primary (its lines are the primary's "netgraph: ..." lines, not the workers' JSON log)
      expect(output.match(/demo simulator: \d+ devices/g)).toHaveLength(1);
      expect(output).toMatch(/^netgraph: demo simulator: \d+ devices/m);
      expect(output).toMatch(/^netgraph: demo simulator stopped: \d+ reports sent/m);
    } finally {
      await database.drop();
    }
  });
});
