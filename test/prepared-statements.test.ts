import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARED_STATEMENTS_MAX } from '../src/db/postgres.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

// One connection, so every request and every check below runs on the same PostgreSQL session.
describe.runIf(storeKinds().includes('postgres'))('prepared read statements on postgres', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('postgres', { data: createFixture(), env: { DATABASE_POOL_SIZE: '1' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  async function preparedCount(like: string): Promise<number> {
    const row = await app.server.store.selectRow(
      "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'netgraph\\_read\\_%' AND statement LIKE $1",
      [like],
    );
    return Number(row?.n);
  }

  it('prepares a document once per connection and reuses it for every argument', async () => {
    const query = 'query ($id: UUID!) { virtualDevice(UUID: $id) { label } }';
    for (const id of [IDS.acmeAp, IDS.acmeSwitch, IDS.acmeObserver]) {
      const res = await app.graphql(query, { variables: { id } });
      expect(res.status).toBe(200);
      expect(res.body.data.virtualDevice.label).toBeTypeOf('string');
    }
    expect(await preparedCount('%FROM virtual_devices t0 WHERE t0.uuid%')).toBe(1);
  });

  it(`keeps at most ${PREPARED_STATEMENTS_MAX} statements prepared, and still runs the texts beyond`, async () => {
    const total = PREPARED_STATEMENTS_MAX + 20;
    for (let i = 0; i < total; i++) {
      const row = await app.server.store.selectRow(`SELECT ${i}::int AS n`, []);
      expect(row?.n).toBe(i);
    }
    expect(await preparedCount('%')).toBe(PREPARED_STATEMENTS_MAX);
  });
});
