// The chaos run's data, through netgraph's own services (the built dist/):
// the demo company, keys, revocations, and the check that what was
// acknowledged is in the database.
import pg from 'pg';
import { loadConfig } from '../../dist/config.js';
import { migrateToLatest } from '../../dist/db/migrate.js';
import { generateDemoDataset } from '../../dist/tools/demo/dataset.js';
import { openRuntime } from '../../dist/runtime.js';

/** Runs `fn` with the services of a runtime on `databaseUrl`, closed afterwards. */
async function withServices(databaseUrl, fn) {
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: databaseUrl, DEMO_DATA: 'off' }), { poolSize: 2 });
  try {
    return await fn(runtime.services, runtime.store);
  } finally {
    await runtime.close();
  }
}

/**
 * Migrates, loads the demo company (acme) and creates `perScope` keys of each
 * scope. Returns the keys ({ read, write, ingest }: arrays of { id, key }) and
 * serial numbers of acme's hardware, for reports.
 */
export async function seed(databaseUrl, perScope) {
  return withServices(databaseUrl, async (services, store) => {
    await migrateToLatest(store);
    await services.imports.import(generateDemoDataset());
    const keys = { read: [], write: [], ingest: [] };
    for (const [name, scope] of [['read', 'read'], ['write', 'read_write'], ['ingest', 'ingest']]) {
      for (let i = 1; i <= perScope; i++) {
        const created = await services.apiKeys.create({ companySlug: 'acme', label: `chaos ${name} ${i}`, scope });
        keys[name].push({ id: created.id, key: created.key });
      }
    }
    const serials = generateDemoDataset()
      .companies[0].networks.flatMap((network) => network.virtualDevices)
      .flatMap((device) => (device.hardwareDevice ? [device.hardwareDevice.serialNumber] : []));
    return { keys, serials };
  });
}

/** Revokes the keys `ids`; resolves once the revocations are committed. */
export async function revokeKeys(databaseUrl, ids) {
  await withServices(databaseUrl, async (services) => {
    for (const id of ids) await services.apiKeys.revoke(id);
  });
}

/** How many of the acknowledged network slugs and report ids the database does NOT hold. */
export async function countLost(databaseUrl, { writes, reports }) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const networks = await client.query('SELECT count(*)::int AS n FROM networks WHERE slug = ANY($1)', [writes]);
    const receipts = await client.query('SELECT count(*)::int AS n FROM report_receipts WHERE report_id = ANY($1)', [reports]);
    return { writes: writes.length - networks.rows[0].n, reports: reports.length - receipts.rows[0].n };
  } finally {
    await client.end();
  }
}
