import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { rowCount } from './helpers/stored-reports.js';
import { storeKinds } from './helpers/stores.js';

// activeClients' distinct clients as one row per network, bucket and device (migration 0043), written through
// POST /api/v1/reports: a row gains only the addresses it lacks, in every tier, and is left alone otherwise.
const TIERS = ['client_presence_set_rollups', 'client_presence_set_rollups_hourly', 'client_presence_set_rollups_daily'] as const;
const epoch = REPORT_EPOCH / 1000;
const client = (macAddress: string, isWireless: boolean) => ({ macAddress, ip: null, hostname: null, isWireless, signal: isWireless ? -60 : null, vlanID: null, ssid: null, portNumber: null });

describe.each(storeKinds())('client presence sets on %s', (kind) => {
  let app: TestApp;
  let key: string;
  /** Each tier's row of the access point: its addresses, and on PostgreSQL the transaction that wrote its version (xmin). */
  const rows = async () =>
    Promise.all(
      TIERS.map(async (table) => {
        const version = kind === 'postgres' ? sql.raw('xmin::text') : sql.raw("''");
        // the bucket of REPORT_EPOCH, a whole hour, in each tier
        const bucket = table.endsWith('_daily') ? epoch - (epoch % 86_400) : epoch;
        const found = await sql<{ wireless_macs: string; wired_macs: string; version: string; device: number }>`
          SELECT wireless_macs, wired_macs, ${version} AS version, hardware_device_id AS device FROM ${sql.table(table)} WHERE bucket = ${bucket}`.execute(app.server.store.db);
        expect(found.rows).toHaveLength(1);
        const [row] = found.rows;
        return { wireless: JSON.parse(row?.wireless_macs ?? '') as string[], wired: JSON.parse(row?.wired_macs ?? '') as string[], version: row?.version, device: Number(row?.device) };
      }),
    );
  const post = async (seconds: number, clients: ReturnType<typeof client>[]) =>
    expect((await postReports(app, key, [report(SERIALS.acmeAp, at(seconds), { clients })])).body).toMatchObject({ accepted: 1, rejected: [] });
  const active = async () =>
    (
      await app.graphql(`query ($f: MetricsFilterInput!) { activeClients(networkUUID: "${IDS.acmeHq}", filter: $f) { wired { value } wireless { value } } }`, {
        variables: { f: { durationSeconds: 3600, stepSeconds: 3600, endTime: at(3600) } },
      })
    ).body.data.activeClients;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), clock: createTestClock(REPORT_EPOCH + 3_600_000).now, env: { DEVICE_OFFLINE_AFTER_SECONDS: '86400' }, backgroundWork: false });
    key = await createScopedKey(app, 'ingest');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('adds to a row only the clients it lacks, and writes nothing when a report lists the clients already counted', async () => {
    await post(0, [client('3c:22:fb:00:00:02', true), client('3c:22:fb:00:00:01', true), client('3c:22:fb:00:00:09', false)]);
    const first = await rows();
    for (const row of first) expect(row).toMatchObject({ wireless: ['3c:22:fb:00:00:01', '3c:22:fb:00:00:02'], wired: ['3c:22:fb:00:00:09'] });
    expect(first.every((row) => row.device > 0)).toBe(true);

    // 30 s later, the same 5-minute bucket, the same clients in another order: no row changes
    await post(30, [client('3c:22:fb:00:00:09', false), client('3c:22:fb:00:00:01', true), client('3c:22:fb:00:00:02', true)]);
    expect(await rows()).toEqual(first);

    // a new client in the same bucket: every tier gains it, sorted, and keeps the others
    await post(60, [client('3c:22:fb:00:00:00', true)]);
    const second = await rows();
    for (const row of second) expect(row).toMatchObject({ wireless: ['3c:22:fb:00:00:00', '3c:22:fb:00:00:01', '3c:22:fb:00:00:02'], wired: ['3c:22:fb:00:00:09'] });
    if (kind === 'postgres') expect(second.map((row) => row.version)).not.toEqual(first.map((row) => row.version));

    // another 5-minute bucket of the same hour with a client already counted in the hour: a new 5-minute row, the hour and day unchanged
    await post(600, [client('3c:22:fb:00:00:01', true)]);
    expect(await rows()).toEqual(second);
    const count = (table: string) => rowCount(app.server.store.db, table);
    expect(await Promise.all(TIERS.map(count))).toEqual([2, 1, 1]);
    expect(await active()).toEqual({ wired: [{ value: 1 }], wireless: [{ value: 3 }] });
  });
});
