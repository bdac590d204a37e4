import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicaState } from '../src/db/store.js';
import { startTestApp } from './helpers/app.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import type { TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { postgresBinaries, startReplicaPair } from './helpers/replica-cluster.js';
import type { ReplicaPair } from './helpers/replica-cluster.js';
import type { TestDatabase } from './helpers/stores.js';

const bin = postgresBinaries();
const DEVICE_LABEL = `{ virtualDevice(UUID: "${IDS.acmeAp}") { label } }`;

/**
 * A real primary and streaming replica of their own (helpers/replica-cluster.ts), and two servers on them:
 * `trusting` reads the replica however far behind it is (an hour), `bounded` only while it is within 300 ms.
 * Reads are told apart by pausing the replica's replay: what was written since shows on the primary only.
 */
describe.skipIf(bin === undefined)('the API\'s queries on a PostgreSQL read replica', () => {
  let pair: ReplicaPair;
  let trusting: TestApp;
  let bounded: TestApp;
  let primary: pg.Client;
  let replica: pg.Client;
  const changes: ReplicaState[] = [];

  beforeAll(async () => {
    pair = await startReplicaPair(bin as string);
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const inSchema = (url: string) => `${url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    primary = new pg.Client({ connectionString: inSchema(pair.primaryUrl) });
    // a replica stopped by the test ends its connections: an error then must not crash the run
    primary.on('error', () => undefined);
    await primary.connect();
    await primary.query(`CREATE SCHEMA ${schema}`);
    // both servers share the clusters, which pair.stop() removes
    const database: TestDatabase = { kind: 'postgres', url: inSchema(pair.primaryUrl), drop: async () => undefined };
    const replicaEnv = (maxLagMs: number) => ({ READ_DATABASE_URL: inSchema(pair.replicaUrl), READ_REPLICA_MAX_LAG_MS: String(maxLagMs) });
    trusting = await startTestApp('postgres', { database, data: createFixture(), env: replicaEnv(3_600_000) });
    bounded = await startTestApp('postgres', { database, env: replicaEnv(300) });
    trusting.server.store.replica?.onChange((state) => changes.push(state));
    await pair.waitForReplay();
    replica = new pg.Client({ connectionString: inSchema(pair.replicaUrl) });
    replica.on('error', () => undefined);
    await replica.connect();
    await Promise.all([until(trusting, 'replica'), until(bounded, 'replica')]);
  });

  afterAll(async () => {
    await replica?.end().catch(() => undefined);
    await primary?.end().catch(() => undefined);
    await trusting?.close();
    await bounded?.close();
    await pair?.stop();
  });

  it('reads from the replica, and a mutation answers with its own write from the primary', async () => {
    const writer = await trusting.server.services.apiKeys.create({ companySlug: 'acme', label: 'writer', scope: 'read_write' });
    await pair.waitForReplay();
    await pair.pauseReplay();
    const updated = await trusting.graphql(`mutation { updateVirtualDevice(input: { virtualDeviceUUID: "${IDS.acmeAp}", label: "Renamed" }) { virtualDevice { label } } }`, {
      key: writer.key,
    });
    expect(updated.body).toEqual({ data: { updateVirtualDevice: { virtualDevice: { label: 'Renamed' } } } });
    // the query reads the paused replica, which has not seen the rename
    expect((await trusting.graphql(DEVICE_LABEL)).body).toEqual({ data: { virtualDevice: { label: 'AP "lobby"\n2nd line' } } });
    expect((await trusting.request('/metrics')).text).toMatch(/^netgraph_read_replica_in_use 1$/m);
    await pair.resumeReplay();
    await pair.waitForReplay();
    expect((await trusting.graphql(DEVICE_LABEL)).body).toEqual({ data: { virtualDevice: { label: 'Renamed' } } });
  });

  it('refuses a key revoked on the primary at once, while the replica still has it active', async () => {
    const doomed = await trusting.createKey('acme', 'doomed');
    await pair.waitForReplay();
    expect((await trusting.graphql(DEVICE_LABEL, { key: doomed })).status).toBe(200);
    await pair.pauseReplay();
    // behind the server's back, as another process would: its authentication cache still knows the key
    await primary.query(`UPDATE api_keys SET revoked_at = now() WHERE label = 'doomed'`);
    const refused = await trusting.graphql(DEVICE_LABEL, { key: doomed });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ title: 'Unauthorized. Please include your API credentials', id: 'unauthorized', status: 401 });
    expect((await replica.query(`SELECT revoked_at FROM api_keys WHERE label = 'doomed'`)).rows).toEqual([{ revoked_at: null }]);
    expect(trusting.server.store.replica?.state().target).toBe('replica');
    // reads past the lag bound go to the primary, which has the revocation too
    await primary.query(`UPDATE virtual_devices SET label = 'Past the bound' WHERE uuid = '${IDS.acmeAp}'`);
    await until(bounded, 'primary');
    expect(bounded.server.store.replica?.state().reason).toBe('lagging');
    const key = await bounded.createKey('acme', 'bounded');
    expect((await bounded.graphql(DEVICE_LABEL, { key })).body).toEqual({ data: { virtualDevice: { label: 'Past the bound' } } });
    expect((await bounded.graphql(DEVICE_LABEL, { key: doomed })).status).toBe(401);
    expect((await trusting.graphql(DEVICE_LABEL)).body).toEqual({ data: { virtualDevice: { label: 'Renamed' } } });
    await pair.resumeReplay();
    await until(bounded, 'replica');
  });

  it('answers from the primary while the replica is down, and goes back to it when it returns', async () => {
    changes.length = 0;
    await pair.stopReplica();
    for (let i = 0; i < 5; i++) {
      expect((await trusting.graphql(DEVICE_LABEL)).body).toEqual({ data: { virtualDevice: { label: 'Past the bound' } } });
    }
    expect(trusting.server.store.replica?.state()).toMatchObject({ target: 'primary', reason: 'unavailable' });
    expect((await trusting.request('/metrics')).text).toMatch(/^netgraph_read_replica_in_use 0$/m);
    await pair.startReplica();
    await until(trusting, 'replica');
    await pair.waitForReplay();
    await pair.pauseReplay();
    await primary.query(`UPDATE virtual_devices SET label = 'Unseen' WHERE uuid = '${IDS.acmeAp}'`);
    expect((await trusting.graphql(DEVICE_LABEL)).body).toEqual({ data: { virtualDevice: { label: 'Past the bound' } } });
    await pair.resumeReplay();
    // one change (and one log line) per transition: out, back
    expect(changes.map((change) => `${change.target}:${change.reason}`)).toEqual(['primary:unavailable', 'replica:in-use']);
  });

  it('serves the dashboard from the primary, so a page shows what was just written', async () => {
    await trusting.server.services.users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: 'correct horse battery' });
    const client = createDashboardClient(trusting);
    expect((await signIn(client, 'admin@acme.example', 'correct horse battery')).status).toBe(303);
    await pair.waitForReplay();
    await pair.pauseReplay();
    await primary.query(`UPDATE networks SET label = 'Seen on the primary' WHERE uuid = '${IDS.acmeHq}'`);
    expect((await client.get(`/networks/${IDS.acmeHq}`)).text).toContain('Seen on the primary');
    // while the API's query, on the replica, does not see it yet
    const query = await trusting.graphql(`{ networksForCompany(companySlug: "acme") { UUID label } }`);
    expect(query.body.data.networksForCompany.find((n: { UUID: string }) => n.UUID === IDS.acmeHq).label).toBe('HQ — Zürich');
    await pair.resumeReplay();
  });
});

/** Waits until the server's queries read from `target`. */
async function until(app: TestApp, target: ReplicaState['target'], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (app.server.store.replica?.state().target !== target) {
    if (Date.now() > deadline) throw new Error(`the server's reads did not move to the ${target} within ${timeoutMs} ms: ${JSON.stringify(app.server.store.replica?.state())}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
