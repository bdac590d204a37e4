import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openRuntime } from '../src/runtime.js';
import { startTestApp } from './helpers/app.js';
import { connectedClients, isConnectedToBackend, storedReports } from './helpers/stored-reports.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { startServerProcess } from './helpers/processes.js';
import type { ServerProcess } from './helpers/processes.js';
import { REPORT_EPOCH, createScopedKey, fullReport, postReports } from './helpers/reports.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';

const SERIAL_LIST = [SERIALS.acmeAp, SERIALS.acmeSwitch, SERIALS.acmeLabAp];
const SENDERS = 4;
const BATCH = 25;
/** Batches acknowledged (across senders) before the server is killed, while the senders keep posting. */
const KILL_AFTER = 24;
const ENV = { INGEST_RATE_LIMIT_REPORTS: '100000000' };

/** A migrated database with the fixture loaded, and an ingest key for acme. */
async function prepare(database: TestDatabase): Promise<string> {
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: database.url, DEMO_DATA: 'off' }), {});
  try {
    await migrateToLatest(runtime.store);
    await runtime.services.imports.import(createFixture());
    return (await runtime.services.apiKeys.create({ companySlug: 'acme', label: 'durability', scope: 'ingest' })).key;
  } finally {
    await runtime.close();
  }
}

async function post(url: string, key: string, reports: readonly unknown[]): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/api/v1/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reports }),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * Posts batches until the server stops answering, and keeps those it
 * acknowledged with 200; `onAck` is told after each. A 503 (PostgreSQL gave
 * up on a write conflict between the senders) is retried with the same
 * batch, as a collector does; a failed request (the server is gone) ends the
 * sender.
 */
async function sendUntilGone(url: string, key: string, sender: number, acknowledged: unknown[][], onAck: () => void): Promise<void> {
  for (let b = 0; ; b++) {
    const now = Date.now();
    const batch = Array.from({ length: BATCH }, (_, i) => fullReport(SERIAL_LIST[(b + i) % SERIAL_LIST.length] as string, now - i * 10, sender * 100_000 + b * BATCH + i));
    let answer: { status: number; body: unknown };
    try {
      let attempts = 0;
      do answer = await post(url, key, batch);
      while (answer.status === 503 && ++attempts < 20);
    } catch {
      return;
    }
    if (answer.status !== 200) throw new Error(`unexpected answer ${answer.status}: ${JSON.stringify(answer.body)}`);
    expect(answer.body).toEqual({ accepted: BATCH, duplicates: 0, rejected: [] });
    acknowledged.push(batch);
    onAck();
  }
}

describe.each(storeKinds())('acknowledged reports survive SIGKILL on %s', (kind) => {
  const servers: ServerProcess[] = [];
  let database: TestDatabase | undefined;
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    await database?.drop();
  });

  it('finds every report acknowledged with 200 after a restart: resending each batch gives only duplicates', async () => {
    database = await createTestDatabase(kind);
    const key = await prepare(database);
    const first = await startServerProcess({ ...ENV, DATABASE_URL: database.url });
    servers.push(first);

    const acknowledged: unknown[][] = [];
    let killed: Promise<number | null> | undefined;
    const onAck = () => {
      if (acknowledged.length >= KILL_AFTER) killed ??= first.stop('SIGKILL');
    };
    await Promise.all(Array.from({ length: SENDERS }, (_, s) => sendUntilGone(first.url, key, s, acknowledged, onAck)));
    expect(await killed).toBeNull(); // no exit code: killed by the signal
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

    const second = await startServerProcess({ ...ENV, DATABASE_URL: database.url });
    servers.push(second);
    for (const batch of acknowledged) {
      const answer = await post(second.url, key, batch);
      expect(answer).toEqual({ status: 200, body: { accepted: 0, duplicates: batch.length, rejected: [] } });
    }
    await second.stop();
  });
});

/** Everything the fixture's acme devices' reports stored, and the clients the API lists as connected. */
async function storedRows(app: TestApp, companyId: number) {
  const reports = storedReports(app.server.store.db);
  const networks = [IDS.acmeHq, IDS.acmeLab];
  return {
    telemetry: await Promise.all(networks.map((n) => reports.networkTelemetry(companyId, n))),
    events: await Promise.all(networks.map((n) => reports.events(companyId, n, { limit: 10_000 }))),
    clients: await Promise.all(networks.map((n) => connectedClients(app, companyId, n))),
    sessions: await Promise.all(networks.map((n) => reports.clientSessions(companyId, n))),
    devices: await Promise.all(
      SERIAL_LIST.map(async (s) => ({
        // as stored, with whether the API says it is connected
        state: { ...(await reports.deviceState(companyId, s)), isConnectedToBackend: await isConnectedToBackend(app, s) },
        counters: await reports.deviceTelemetry(companyId, s),
      })),
    ),
  };
}

describe.each(storeKinds())('a flood of duplicate reports on %s', (kind) => {
  let app: TestApp | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('changes nothing: every answer is accepted 0 with every report a duplicate, and the stored rows stay as they were', async () => {
    const clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: ENV });
    const key = await createScopedKey(app, 'ingest');
    const companyId = (await app.server.services.companies.getBySlug('acme')).id;
    const batch = Array.from({ length: 40 }, (_, i) => fullReport(SERIAL_LIST[i % SERIAL_LIST.length] as string, REPORT_EPOCH - i * 15_000, i + 1));
    expect((await postReports(app, key, batch)).body).toEqual({ accepted: 40, duplicates: 0, rejected: [] });
    const before = await storedRows(app, companyId);
    expect(before.telemetry[0]?.uplinkSamples.length).toBeGreaterThan(0);
    expect(before.events[0]?.total).toBeGreaterThan(0);

    // later in time too: a duplicate that arrives after the device went silent must not bring it back online
    clock.advance(120_000);
    const flooded = await app.server.services.reports.checkOffline();
    const settled = await storedRows(app, companyId);
    const answers: unknown[] = [];
    for (let round = 0; round < 25; round++) {
      const posted = await Promise.all(Array.from({ length: 4 }, () => postReports(app as TestApp, key, batch)));
      answers.push(...posted.map((a) => ({ status: a.status, body: a.body })));
    }
    expect(answers).toEqual(Array.from({ length: 100 }, () => ({ status: 200, body: { accepted: 0, duplicates: 40, rejected: [] } })));
    expect(await storedRows(app, companyId)).toEqual(settled);
    // the offline check recorded the devices' silence, and the flood took none of it back
    expect(flooded).toBeGreaterThan(0);
    expect(settled.devices.map((d) => d.state?.isConnectedToBackend)).toEqual(SERIAL_LIST.map(() => false));
    expect(before.devices.map((d) => d.state?.lastSeenAt)).toEqual(settled.devices.map((d) => d.state?.lastSeenAt));
  });
});
