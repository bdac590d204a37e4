#!/usr/bin/env node
// The database time of the compiled reads of the list roots, as the read pool
// runs them (prepared, plan_cache_mode = force_generic_plan), on a database
// loaded with `netgraph import`: EXPLAIN (ANALYZE, BUFFERS) of each root's
// statement for one network in the middle of the data, `runs` times; prints
// the median execution time, the shared buffers of the last run, and the scan
// that visited the most rows. With --forget-statistics it first deletes the
// schema's planner statistics (pg_statistic rows, pg_class's reltuples back
// to "never analyzed"; needs a superuser): the state of a load nobody analyzed.
// Usage: npm run build && node bench/plans.mjs --database postgres://root@127.0.0.1:5432/netgraph_plans [--runs 50] [--forget-statistics]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = (file) => import(path.join(REPO, 'dist', file));
const { compileDocument } = await dist('graphql/compile.js');
const { FEATURES } = await dist('graphql/features.js');
const { createSchema } = await dist('graphql/schema.js');
const { getDialect } = await dist('db/dialect.js');

const { values: options } = parseArgs({
  options: { database: { type: 'string' }, runs: { type: 'string', default: '50' }, 'forget-statistics': { type: 'boolean', default: false } },
});
if (!options.database) throw new Error('--database URL is required (a PostgreSQL database loaded with netgraph import)');

/** Each list root: its query and its arguments, for the network `n` (its UUID, its company's UUID and slug, a device of it). */
const ROOTS = {
  networkClients: (n) => [`{ networkClients(networkUUID: "${n.uuid}") { macAddress ip lastSeen } }`, { networkUUID: n.uuid }],
  networksClients: (n) => [
    `{ networksClients(companyUUID: "${n.company_uuid}", networkUUIDs: ["${n.uuid}"]) { macAddress ip networkUUID } }`,
    { companyUUID: n.company_uuid, networkUUIDs: [n.uuid] },
  ],
  virtualDevicesForNetwork: (n) => [`{ virtualDevicesForNetwork(networkUUID: "${n.uuid}") { UUID label isOnline } }`, { networkUUID: n.uuid }],
  networksForCompany: (n) => [`{ networksForCompany(companySlug: "${n.company_slug}") { UUID label slug } }`, { companySlug: n.company_slug }],
  vlans: (n) => [`{ vlans(networkUUID: "${n.uuid}") { UUID name vlanID } }`, { networkUUID: n.uuid }],
  ssidsForNetwork: (n) => [`{ ssidsForNetwork(networkUUID: "${n.uuid}") { UUID ssid } }`, { networkUUID: n.uuid }],
  uplinkPhyInterfacesForNetwork: (n) => [`{ uplinkPhyInterfacesForNetwork(networkUUID: "${n.uuid}") { UUID portNumber virtualDeviceUUID } }`, { networkUUID: n.uuid }],
  bssidsForNetwork: (n) => [
    `{ bssidsForNetwork(networkUUID: "${n.uuid}", includeInactive: true) { BSSID radioBand accessPointSerialNumber } }`,
    { networkUUID: n.uuid, includeInactive: true },
  ],
  phyInterfacesForVirtualDevice: (n) => [
    `{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${n.device_uuid}") { UUID portNumber connectedDevices { client { macAddress } } } }`,
    { virtualDeviceUUID: n.device_uuid },
  ],
};

const client = new pg.Client({ connectionString: options.database });
await client.connect();
try {
  await client.query('SET plan_cache_mode = force_generic_plan');
  if (options['forget-statistics']) await forgetStatistics();
  const network = await middleNetwork();
  const stats = await client.query(`SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'network_clients'`);
  console.log(`network ${network.uuid} (company ${network.company_slug}); column statistics of network_clients: ${stats.rows[0].n}; ${options.runs} runs each`);
  for (const [root, of] of Object.entries(ROOTS)) console.log(await measure(root, network, ...of(network)));
} finally {
  await client.end();
}

async function forgetStatistics() {
  await client.query(`DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relnamespace = current_schema()::regnamespace)`);
  await client.query(`UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')`);
}

async function middleNetwork() {
  const { rows } = await client.query(`SELECT n.uuid, n.company_id, c.uuid AS company_uuid, c.slug AS company_slug,
      (SELECT v.uuid FROM virtual_devices v JOIN hardware_devices h ON h.virtual_device_id = v.id WHERE v.network_id = n.id ORDER BY v.id LIMIT 1) AS device_uuid
    FROM networks n JOIN companies c ON c.id = n.company_id ORDER BY n.id OFFSET (SELECT count(*) / 2 FROM networks) LIMIT 1`);
  if (rows.length === 0) throw new Error('no networks: load the database with netgraph import first');
  return rows[0];
}

/** Median execution time, buffers and the largest scan of one root's statement. */
async function measure(root, network, query, args) {
  const dialect = getDialect('postgres');
  const compiled = compileDocument(createSchema(), FEATURES, dialect, query);
  const now = new Date();
  const values = compiled.slots.map((slot) => {
    if (slot.kind === 'key') return null;
    if (slot.kind === 'company') return network.company_id;
    if (slot.kind === 'onlineSince') return new Date(now.getTime() - 300_000).toISOString();
    if (slot.kind === 'now') return now.toISOString();
    if (slot.kind === 'arg') return dialect.bindValue(slot.type, args[slot.path] ?? slot.fallback ?? null);
    return dialect.bindValue(slot.type, slot.compute(args, now));
  });
  const literal = (v) => (v === null ? 'NULL' : client.escapeLiteral(Array.isArray(v) ? `{${v.map((e) => `"${e}"`).join(',')}}` : String(v)));
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE plan_of_root AS ${compiled.text}`);
  const times = [];
  let plan;
  for (let i = 0; i < Number(options.runs); i++) {
    const result = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE plan_of_root(${values.map(literal).join(', ')})`);
    [plan] = result.rows[0]['QUERY PLAN'];
    times.push(plan['Execution Time']);
  }
  times.sort((a, b) => a - b);
  const worst = largestScan(plan.Plan);
  const buffers = plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks'];
  return `${root.padEnd(30)} ${times[Math.floor(times.length / 2)].toFixed(3)} ms  ${String(buffers).padStart(5)} buffers  largest scan: ${worst.rows} rows (${worst.node})`;
}

function largestScan(node) {
  const rows = node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
  const own = /Scan/.test(node['Node Type']) ? { rows, node: `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`.trim() } : { rows: 0, node: 'none' };
  return (node.Plans ?? []).map(largestScan).reduce((a, b) => (b.rows > a.rows ? b : a), own);
}
