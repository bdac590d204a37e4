import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, migrateUpTo } from '../src/db/migrate.js';
import { openStore } from '../src/db/open-store.js';
import type { Store } from '../src/db/store.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';

/** A client observation of the previous layout: every column, the ones not given null. */
function observation(networkId: number, deviceId: number, observedAt: string, mac: string, sample: Record<string, unknown> = {}) {
  const none = { radio_band: null, channel: null, signal: null, snr: null, rx_rate: null, tx_rate: null, rx_bytes: null, tx_bytes: null, hw_mode: null, ssid: null, vlan_id: null };
  return { network_id: networkId, hardware_device_id: deviceId, observed_at: observedAt, mac_address: mac, is_wireless: false, ...none, ...sample };
}

/** Every client observation, in one order whatever the layout. */
async function observations(store: Store) {
  return store.db.selectFrom('client_observations').selectAll().orderBy('observed_at').orderBy('mac_address').execute();
}

/** The company, network and hardware the observations belong to. */
async function seed(store: Store): Promise<{ networkId: number; deviceId: number }> {
  const { db } = store;
  const at = '2026-11-01T00:00:00.000Z';
  const company = await db.insertInto('companies').values({ uuid: '00000000-0000-4000-8000-000000000001', slug: 'acme', name: 'Acme', created_at: at }).returning('id').executeTakeFirstOrThrow();
  const network = await db
    .insertInto('networks')
    .values({ uuid: '00000000-0000-4000-8000-000000000002', company_id: company.id, slug: 'hq', label: 'HQ', is_active: true, created_at: at } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  const device = await db
    .insertInto('hardware_devices')
    .values({ company_id: company.id, serial_number: 'AP-1', device_type: 'ACCESS_POINT', device_model: 'AP1', is_connected_to_backend: false } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return { networkId: Number(network.id), deviceId: Number(device.id) };
}

describe.each(storeKinds())('migration 0040 on %s', (kind) => {
  it('turns stored client observations into one compact row per report that reads back the same', async () => {
    const database = await createTestDatabase(kind);
    const store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateUpTo(store, '0037-collector-ranges');
      const { networkId, deviceId } = await seed(store);
      // a day with its own partition on PostgreSQL (as ingest makes them), and one in the DEFAULT partition
      if (kind === 'postgres') {
        await sql`CREATE TABLE client_observations_p20261127 PARTITION OF client_observations FOR VALUES FROM ('2026-11-27T00:00:00Z') TO ('2026-11-28T00:00:00Z')`.execute(store.db);
      }
      const first = '2026-11-27T10:00:00.000Z';
      const second = '2026-11-28T10:00:30.000Z';
      const wireless = { is_wireless: true, radio_band: '5 GHz', channel: 36, signal: -61, snr: 34, rx_rate: 866.7, tx_rate: 0.1 + 0.2, rx_bytes: 123_456_789_012, tx_bytes: 0, hw_mode: '802.11ax', ssid: 'Café "5G" \\ ünï', vlan_id: 10 };
      await store.db
        .insertInto('client_observations')
        .values([
          observation(networkId, deviceId, first, '02:00:00:00:00:01', wireless),
          observation(networkId, deviceId, first, '02:00:00:00:00:02', { vlan_id: 20, rx_bytes: 5, tx_bytes: 7 }),
          observation(networkId, deviceId, first, '02:00:00:00:00:03', { is_wireless: true, signal: -80, rx_rate: 2, ssid: 'alpha' }),
          observation(networkId, deviceId, second, '02:00:00:00:00:01', { ...wireless, signal: -60, rx_rate: 1200.5 }),
        ] as never)
        .execute();
      const before = await observations(store);
      expect(before).toHaveLength(4);

      await migrateToLatest(store);
      expect(await observations(store)).toEqual(before);
      const sets = await store.db.selectFrom('client_observation_sets').select(['observed_at', 'samples']).orderBy('observed_at').execute();
      expect(sets.map((s) => (JSON.parse(s.samples) as unknown[]).length)).toEqual([3, 1]);
      // each client's array without its trailing nulls (the wired client's Wi-Fi generation, the guest's counters and more)
      expect((JSON.parse(sets[0]!.samples) as unknown[][]).map((a) => a.length).sort((a, b) => a - b)).toEqual([9, 12, 13]);
      if (kind === 'postgres') {
        const held = await sql<{ part: string; n: string }>`SELECT tableoid::regclass::text AS part, count(*) AS n FROM client_observation_sets GROUP BY 1 ORDER BY 1`.execute(store.db);
        expect(held.rows.map((r) => `${r.part} ${r.n}`)).toEqual(['client_observation_sets_default 1', 'client_observation_sets_p20261127 1']);
        // the view's text compares in byte order (COLLATE "C"), as the table's columns did, whatever the database's collation
        const collations = await sql<{ column_name: string; collation_name: string | null }>`SELECT column_name, collation_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'client_observations' AND data_type = 'text' ORDER BY column_name`.execute(store.db);
        expect(collations.rows.map((r) => `${r.column_name} ${r.collation_name}`)).toEqual(['hw_mode C', 'mac_address C', 'radio_band C', 'ssid C']);
      }

      // the previous version's ingest writes rows to client_observations: each becomes a compact row of its own
      const late = observation(networkId, deviceId, '2026-11-28T10:01:00.000Z', '02:00:00:00:00:04', { is_wireless: true, signal: -70, tx_rate: 6.5 });
      await store.db.insertInto('client_observations').values(late as never).execute();
      const after = await observations(store);
      expect(after.slice(0, 4)).toEqual(before);
      expect(after[4]).toMatchObject({ mac_address: '02:00:00:00:00:04', signal: -70, tx_rate: 6.5, rx_rate: null });
      expect(Boolean(after[4]?.is_wireless)).toBe(true);
      const { n } = await store.db.selectFrom('client_observation_sets').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(n)).toBe(3);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
