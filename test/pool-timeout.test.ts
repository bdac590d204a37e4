import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

// One connection for reads, so keeping it busy makes the next read wait for the pool until its deadline.
describe.runIf(storeKinds().includes('postgres'))('request timeout while waiting for a connection on postgres', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('postgres', { data: createFixture(), env: { REQUEST_TIMEOUT_MS: '1000', DATABASE_POOL_SIZE: '1' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers TIMEOUT at the deadline, and returns the connection that comes late to the pool', async () => {
    const query = '{ companyBySlug(slug: "acme") { slug } }';
    expect((await app.graphql(query)).status).toBe(200);
    // the reads' only connection is busy for 1.5 s
    const holder = app.server.store.selectRow('SELECT pg_sleep(1.5)::text AS slept', []);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const res = await app.graphql(query);
    expect(res.status).toBe(504);
    expect(res.body.errors[0].extensions.code).toBe('TIMEOUT');
    await holder;
    // the timed-out read got the connection once it was free, and gave it back unused
    const after = await app.graphql(query);
    expect(after.status).toBe(200);
    expect(after.body.data.companyBySlug.slug).toBe('acme');
    expect(app.server.store.poolState()).toMatchObject({ inUse: 0, waiting: 0 });
  });
});
