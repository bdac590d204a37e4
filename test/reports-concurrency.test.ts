import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/db/open-store.js';
import type { Store } from '../src/db/store.js';
import { createServices } from '../src/services.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { storedReports } from './helpers/stored-reports.js';

describe.each(storeKinds())('concurrent reports and checkers on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let key: string;
  let companyId: number;
  let otherStore: Store;

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now });
    key = await createScopedKey(app, 'ingest');
    companyId = (await app.server.services.companies.getBySlug('acme')).id;
    otherStore = await openStore(loadConfig({ DATABASE_URL: app.database.url }).database);
  });
  afterAll(async () => {
    await otherStore?.close();
    await app?.close();
  });

  it('stores every report of batches posted at once for the same devices, in any order', async () => {
    const serials = [SERIALS.acmeAp, SERIALS.acmeSwitch, SERIALS.acmeLabAp];
    const batches = Array.from({ length: 12 }, (_, b) =>
      Array.from({ length: 9 }, (_, i) => {
        const observedAt = new Date(REPORT_EPOCH - (b * 9 + i) * 1000).toISOString();
        return report(serials[(b + i) % 3] as string, observedAt, { clients: [{ macAddress: `dd:00:00:00:00:0${(b + i) % 5}` }] });
      }),
    );
    const answers = await Promise.all(batches.map((batch) => postReports(app, key, batch)));
    expect(answers.map((a) => a.status)).toEqual(batches.map(() => 200));
    expect(answers.reduce((sum, a) => sum + (a.body.accepted as number), 0)).toBe(108);
    const counts = await storedReports(app.server.store.db).networkTelemetry(companyId, IDS.acmeHq);
    expect(counts.clientObservations).toHaveLength(72);
  });

  it('records DEVICE_OFFLINE once when two processes check at once', async () => {
    clock.advance(120_000);
    const other = createServices(otherStore, { reports: { settings: { offlineAfterSeconds: 90, rawRetentionHours: 48, rollupRetentionDays: 90, hourlyRetentionDays: 90, dailyRetentionDays: 400, eventRetentionDays: 90 }, now: () => new Date(clock.now()) } });
    const checks = [() => other.reports.checkOffline(), () => app.server.services.reports.checkOffline(), () => other.reports.checkOffline()];
    // two SQLite connections in one process cannot wait for each other (the driver blocks the event loop): there, one after another
    if (kind === 'postgres') await Promise.all(checks.map((check) => check()));
    else for (const check of checks) await check();
    const events = await storedReports(app.server.store.db).events(companyId, IDS.acmeHq, { limit: 100, types: ['DEVICE_OFFLINE'] });
    expect(events.events.map((e) => e.serialNumber).sort()).toEqual([SERIALS.acmeSwitch, SERIALS.acmeAp].sort());
  });
});
