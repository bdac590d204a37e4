import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

// One connection, so holding it makes the next read wait for the pool until its deadline.
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
    let free: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (free = resolve));
    let taken: () => void = () => undefined;
    const connectionTaken = new Promise<void>((resolve) => (taken = resolve));
    const holder = app.server.store.db.connection().execute(async () => {
      taken();
      await held;
    });
    await connectionTaken;
    try {
      const res = await app.graphql(query);
      expect(res.status).toBe(504);
      expect(res.body.errors[0].extensions.code).toBe('TIMEOUT');
    } finally {
      free();
      await holder;
    }
    // the timed-out read got the connection once it was free, and gave it back unused
    const after = await app.graphql(query);
    expect(after.status).toBe(200);
    expect(after.body.data.companyBySlug.slug).toBe('acme');
    expect(app.server.store.poolState()).toMatchObject({ inUse: 0, waiting: 0 });
  });
});
