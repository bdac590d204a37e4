import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_MAX } from '../src/db/postgres-reads.js';
import { openStore } from '../src/db/open-store.js';
import type { Row, Store } from '../src/db/store.js';
import { isAppError } from '../src/kernel/errors.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { startTcpProxy } from './helpers/processes.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';

/**
 * A read that doubles as a clock: it returns ten times its number after
 * sleeping for its seconds. Each test has a text of its own, so what one
 * test's statements teach the store about their time does not carry over.
 */
function sleepyRead(name: string) {
  return {
    text: `SELECT $1::int * 10 AS v, pg_sleep($2::float8)::text AS s /* ${name} */`,
    batchText: `SELECT b.i, b.p1 * 10 AS v, pg_sleep(b.p2)::text AS s FROM unnest($1::int[], $2::float8[]) WITH ORDINALITY AS b(p1, p2, i) /* ${name} */`,
  };
}
type SleepyRead = ReturnType<typeof sleepyRead>;

describe.runIf(storeKinds().includes('postgres'))('coalescing reads on postgres (the store)', () => {
  let database: TestDatabase;
  let store: Store;
  let unbatched: Store;
  let shortBudget: Store;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const target = { dialect: 'postgres' as const, url: database.url };
    // a budget far above any statement here: batch sizes do not depend on how fast this machine is
    store = await openStore(target, { poolSize: 4, readBatchBudgetMs: 1000 });
    unbatched = await openStore(target, { poolSize: 4, readBatchBudgetMs: 0 });
    shortBudget = await openStore(target, { poolSize: 4, readBatchBudgetMs: 100 });
  });
  afterAll(async () => {
    await store?.close();
    await unbatched?.close();
    await shortBudget?.close();
    await database?.drop();
  });

  /** A text whose statements the store has timed: until then, it is not batched. */
  async function timed(name: string, on: Store = store): Promise<SleepyRead> {
    const statement = sleepyRead(name);
    for (let i = 0; i < 40; i++) await on.selectRow(statement.text, [i, 0], { batchText: statement.batchText });
    return statement;
  }

  function read(statement: SleepyRead, n: number, sleep = 0, deadline?: number, on: Store = store): Promise<Row | undefined> {
    return on.selectRow(statement.text, [n, sleep], { batchText: statement.batchText, deadline });
  }

  async function statementsOf(on: Store, run: () => Promise<unknown>): Promise<number> {
    const before = on.stats.statements;
    await run();
    return on.stats.statements - before;
  }

  it('answers reads that arrive together with one statement, each with its own row', async () => {
    const statement = await timed('together');
    const numbers = Array.from({ length: 30 }, (_, i) => i + 1);
    let rows: (Row | undefined)[] = [];
    const statements = await statementsOf(store, async () => {
      rows = await Promise.all(numbers.map((n) => read(statement, n)));
    });
    expect(statements).toBe(1);
    expect(rows.map((row) => row?.v)).toEqual(numbers.map((n) => n * 10));
  });

  it('holds reads back while a statement of their text runs, and sends them together when it ends', async () => {
    const statement = await timed('held');
    const order: string[] = [];
    const statements = await statementsOf(store, async () => {
      const slow = read(statement, 1, 0.3).then(() => order.push('slow'));
      // once the slow one is running, five more arrive
      await new Promise((resolve) => setTimeout(resolve, 100));
      const quick = Promise.all([2, 3, 4, 5, 6].map((n) => read(statement, n))).then((rows) => {
        order.push('quick');
        return rows;
      });
      const [, rows] = await Promise.all([slow, quick]);
      expect(rows.map((row) => row?.v)).toEqual([20, 30, 40, 50, 60]);
    });
    expect(statements).toBe(2);
    expect(order).toEqual(['slow', 'quick']);
  });

  it('sends a full batch at once rather than hold it', async () => {
    const statement = await timed('full');
    const order: string[] = [];
    const statements = await statementsOf(store, async () => {
      const slow = read(statement, 0, 1).then(() => order.push('slow'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const full = Promise.all(Array.from({ length: BATCH_MAX }, (_, i) => read(statement, i))).then((rows) => {
        order.push('full');
        return rows;
      });
      const overflow = read(statement, 1000);
      const [, rows, last] = await Promise.all([slow, full, overflow]);
      expect(rows.map((row) => row?.v)).toEqual(Array.from({ length: BATCH_MAX }, (_, i) => i * 10));
      expect(last?.v).toBe(10_000);
    });
    // the slow read, the full batch, and the one read over the bound
    expect(statements).toBe(3);
    // held back, the batch would have gone when the slow read ended, or after the budget, which is longer
    expect(order).toEqual(['full', 'slow']);
  });

  it('times out a held read at its deadline without disturbing the statement that runs', async () => {
    const statement = await timed('deadline');
    const order: string[] = [];
    const slow = read(statement, 7, 0.6).then((row) => {
      order.push('slow');
      return row;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = await read(statement, 8, 0, performance.now() + 100).then(
      () => 'answered',
      (error: unknown) => error,
    );
    order.push('late');
    expect(isAppError(late, 'TIMEOUT')).toBe(true);
    expect((await slow)?.v).toBe(70);
    // at its deadline, not when the statement it waited for ended
    expect(order).toEqual(['late', 'slow']);
    // a held batch times out at the earliest deadline of its readers
    const slower = read(statement, 10, 0.6).then((row) => {
      order.push('slower');
      return row;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const both = await Promise.allSettled([read(statement, 11, 0, performance.now() + 5000), read(statement, 12, 0, performance.now() + 100)]);
    order.push('both');
    expect(both.map((result) => result.status === 'rejected' && isAppError(result.reason, 'TIMEOUT'))).toEqual([true, true]);
    expect((await slower)?.v).toBe(100);
    expect(order.slice(2)).toEqual(['both', 'slower']);
    // the text is not stuck: the next read is sent at once, not held for the budget (1 s), so it beats a statement of 0.9 s sent with it
    const next = read(statement, 9).then((row) => {
      order.push('next');
      return row;
    });
    const sleeper = store.selectRow('SELECT pg_sleep(0.9)::text AS slept', []).then(() => order.push('sleeper'));
    expect((await next)?.v).toBe(90);
    await sleeper;
    expect(order.slice(4)).toEqual(['next', 'sleeper']);
    expect(store.poolState()).toMatchObject({ inUse: 0, waiting: 0 });
  });

  it('holds reads back for no longer than the budget when the statement they wait for runs long', async () => {
    const statement = await timed('stall', shortBudget);
    const order: string[] = [];
    const stalled = read(statement, 1, 1, undefined, shortBudget).then((row) => {
      order.push('stalled');
      return row;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rows = await Promise.all([2, 3, 4].map((n) => read(statement, n, 0, undefined, shortBudget)));
    order.push('held');
    expect(rows.map((row) => row?.v)).toEqual([20, 30, 40]);
    expect((await stalled)?.v).toBe(10);
    // sent after the budget (100 ms), while the first statement still sleeps
    expect(order).toEqual(['held', 'stalled']);
  });

  it('keeps batching a cheap text after one of its statements comes back late', async () => {
    const statement = await timed('late-callback', shortBudget);
    // one statement five times the budget: to this process, no different from a callback a busy event loop ran late
    await read(statement, 1, 0.5, undefined, shortBudget);
    const numbers = Array.from({ length: 30 }, (_, i) => i + 1);
    const statements = await statementsOf(shortBudget, async () => {
      const rows = await Promise.all(numbers.map((n) => read(statement, n, 0, undefined, shortBudget)));
      expect(rows.map((row) => row?.v)).toEqual(numbers.map((n) => n * 10));
    });
    // the first read alone, the rest in one or two batches (one statement each, had the late one stopped the batching)
    expect(statements).toBeLessThanOrEqual(3);
  });

  it('stops batching a text once its reads keep taking half the budget or more', async () => {
    const statement = await timed('turned-expensive', shortBudget);
    for (let i = 0; i < 16; i++) await read(statement, i, 0.15, undefined, shortBudget);
    const statements = await statementsOf(shortBudget, () => Promise.all([1, 2, 3, 4].map((n) => read(statement, n, 0.05, undefined, shortBudget))));
    expect(statements).toBe(4);
  });

  it('fails every read of a statement that fails, and goes on with the next', async () => {
    const divide = 'SELECT 10 / $1::int AS v';
    const divideBatch = 'SELECT b.i, 10 / b.p1 AS v FROM unnest($1::int[]) WITH ORDINALITY AS b(p1, i)';
    for (let i = 0; i < 40; i++) await store.selectRow(divide, [1], { batchText: divideBatch });
    const results = await Promise.allSettled([1, 0, 2].map((n) => store.selectRow(divide, [n], { batchText: divideBatch })));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((await store.selectRow(divide, [5], { batchText: divideBatch }))?.v).toBe(2);
  });

  it('answers the reads that come after a batch found no connection (the database restarting) instead of holding them forever', async () => {
    const target = new URL(database.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    await proxy.open();
    const behindProxy = await openStore({ dialect: 'postgres', url: proxied.toString() }, { poolSize: 4, readBatchBudgetMs: 1000 });
    try {
      const statement = await timed('no-connection', behindProxy);
      // the database goes away: the next batch of the text cannot get a connection
      await proxy.cut();
      const first = await read(statement, 1, 0, undefined, behindProxy).catch((error: unknown) => error);
      expect(isAppError(first, 'SERVICE_UNAVAILABLE'), String(first)).toBe(true);
      // before the fix, this read joined the failed batch and never settled
      const second = read(statement, 2, 0, undefined, behindProxy).catch((error: unknown) => error);
      const settled = await Promise.race([second, new Promise((resolve) => setTimeout(() => resolve('still waiting after 8 s'), 8_000))]);
      expect(isAppError(settled, 'SERVICE_UNAVAILABLE'), String(settled)).toBe(true);
      // and once it is back, reads of the text are answered again
      await proxy.open();
      expect(await read(statement, 3, 0, undefined, behindProxy)).toMatchObject({ v: 30 });
    } finally {
      await behindProxy.close();
      await proxy.cut();
    }
  });

  it('plans the reads once per connection, and leaves the other statements to PostgreSQL', async () => {
    const reads = await store.selectRow("SELECT current_setting('plan_cache_mode') AS mode", []);
    expect(reads?.mode).toBe('force_generic_plan');
    const others = await sql<{ mode: string }>`SELECT current_setting('plan_cache_mode') AS mode`.execute(store.db);
    expect(others.rows[0]?.mode).toBe('auto');
  });

  it('runs every read on its own with a budget of 0', async () => {
    const statement = await timed('off', unbatched);
    const statements = await statementsOf(unbatched, () => Promise.all([1, 2, 3, 4, 5].map((n) => read(statement, n, 0, undefined, unbatched))));
    expect(statements).toBe(5);
  });
});

describe.runIf(storeKinds().includes('postgres'))('coalescing reads on postgres (over HTTP)', () => {
  let app: TestApp;
  const DEVICE = 'query Device($id: UUID!) { virtualDevice(UUID: $id) { UUID label } }';

  beforeAll(async () => {
    // one connection for reads, so a test can keep it busy while requests pile up
    app = await startTestApp('postgres', { data: createFixture(), env: { READ_BATCH_BUDGET_MS: '1000', DATABASE_POOL_SIZE: '1' }, backgroundWork: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('keeps every caller to its own company and its own key when their reads share a statement', async () => {
    const acme = await app.createKey('acme');
    const globex = await app.createKey('globex');
    const revoked = await app.createKey('acme', 'to revoke');
    for (let i = 0; i < 40; i++) expect((await app.graphql(DEVICE, { key: acme, variables: { id: IDS.acmeAp } })).status).toBe(200);
    // known to this process's key cache, then revoked as another process would: only the statement's own check can refuse it
    expect((await app.graphql(DEVICE, { key: revoked, variables: { id: IDS.acmeAp } })).status).toBe(200);
    await app.server.store.db.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('label', '=', 'to revoke').execute();

    const calls = Array.from({ length: 60 }, (_, i) => {
      const kind = ['acme-own', 'acme-foreign', 'globex-own', 'globex-foreign', 'revoked'][i % 5]!;
      const key = kind.startsWith('acme') ? acme : kind.startsWith('globex') ? globex : revoked;
      const id = kind === 'acme-own' || kind === 'globex-foreign' || kind === 'revoked' ? IDS.acmeAp : IDS.globexAp;
      return { kind, key, id };
    });
    // every key known to the key cache, so each request goes straight to its read, and their last use written
    expect((await app.graphql(DEVICE, { key: globex, variables: { id: IDS.globexAp } })).status).toBe(200);
    await app.server.services.apiKeys.flushLastUsed();

    const before = app.server.store.stats.statements;
    const responses = await whileConnectionHeld(() => Promise.all(calls.map(({ key, id }) => app.graphql(DEVICE, { key, variables: { id } }))));
    const statements = app.server.store.stats.statements - before;

    responses.forEach((res, i) => {
      const { kind, id } = calls[i]!;
      if (kind === 'revoked') {
        expect(res.status).toBe(401);
        return;
      }
      expect(res.status).toBe(200);
      if (kind.endsWith('own')) {
        expect(res.body).toEqual({ data: { virtualDevice: { UUID: id, label: expect.any(String) } } });
      } else {
        expect(res.body.data).toEqual({ virtualDevice: null });
        expect(res.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
      }
    });
    // the statement that kept the connection busy, and one for the sixty requests that waited for it
    expect(statements).toBe(2);
  });

  /** Starts `run` while the reads' only connection is busy, long enough for the requests to arrive. */
  async function whileConnectionHeld<T>(run: () => Promise<T>): Promise<T> {
    const holder = app.server.store.selectRow('SELECT pg_sleep(0.6)::text AS slept', []);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const result = run();
    await holder;
    return result;
  }
});
