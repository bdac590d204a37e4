import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, migrateUpTo } from '../src/db/migrate.js';
import { openStore } from '../src/db/open-store.js';
import type { Store } from '../src/db/store.js';
import { createRequestLogRepository, createRequestSets } from '../src/features/request-log/request-log.repository.js';
import type { KeyRequest } from '../src/features/request-log/request-log.writer.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';

/** A request as the writer gets it: `fields` over a script's plain POST. */
function keyRequest(fields: Pick<KeyRequest, 'at' | 'keyId' | 'requestId'> & Partial<KeyRequest>): KeyRequest {
  return { method: 'POST', path: '/api/v1/graphql', operationName: null, rootFields: [], status: 200, errorCodes: [], cost: 1, durationMs: 1.5, statements: 1, clientAddress: '127.0.0.1', userAgent: null, ...fields };
}

const COLUMNS = ['requested_at', 'api_key_id', 'request_id', 'method', 'path', 'operation_name', 'root_fields', 'status', 'error_codes', 'cost', 'duration_ms', 'statements', 'client_address', 'user_agent'] as const;

/** A logged request of the previous layout. */
function request(keyId: number, requestedAt: string, requestId: string, fields: Record<string, unknown> = {}) {
  return {
    requested_at: requestedAt,
    api_key_id: keyId,
    request_id: requestId,
    method: 'POST',
    path: '/api/v1/graphql',
    operation_name: null,
    root_fields: null,
    status: 200,
    error_codes: null,
    cost: 1,
    duration_ms: 1.5,
    statements: 1,
    client_address: '127.0.0.1',
    user_agent: null,
    ...fields,
  };
}

/** Every logged request, the previous table's columns, in one order whatever the layout. */
async function requests(store: Store) {
  return store.db.selectFrom('api_request_log').select(COLUMNS).orderBy('requested_at').orderBy('request_id').execute();
}

/** A company and two of its keys. */
async function seed(store: Store): Promise<[number, number]> {
  const { db } = store;
  const at = '2026-11-01T00:00:00.000Z';
  const company = await db.insertInto('companies').values({ uuid: '00000000-0000-4000-8000-000000000001', slug: 'acme', name: 'Acme', created_at: at }).returning('id').executeTakeFirstOrThrow();
  const key = async (n: number) =>
    Number(
      (
        await db
          .insertInto('api_keys')
          .values({ uuid: `00000000-0000-4000-8000-00000000001${n}`, company_id: company.id, label: `key ${n}`, prefix: `ngk_test${n}`, secret_hash: `hash-${n}`, scope: 'read', created_at: at } as never)
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  return [await key(1), await key(2)];
}

describe.each(storeKinds())('migration 0041 on %s', (kind) => {
  it('turns stored requests into compact rows per key and minute that read back the same', async () => {
    const database = await createTestDatabase(kind);
    const store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateUpTo(store, '0040-client-observation-sets');
      const [one, two] = await seed(store);
      // a day with its own partition on PostgreSQL (as the server makes them), and one in the DEFAULT partition
      if (kind === 'postgres') {
        await sql`CREATE TABLE api_request_log_p20261127 PARTITION OF api_request_log FOR VALUES FROM ('2026-11-27T00:00:00Z') TO ('2026-11-28T00:00:00Z')`.execute(store.db);
      }
      await store.db
        .insertInto('api_request_log')
        .values([
          request(one, '2026-11-27T10:00:00.125Z', 'a', { operation_name: 'Devices', root_fields: 'networks,virtualDevice', cost: 12, duration_ms: 2 }),
          request(one, '2026-11-27T10:00:30.000Z', 'b', { status: 401, error_codes: 'UNAUTHENTICATED', cost: null, statements: 0, user_agent: 'Café "script" \\ ünï' }),
          request(two, '2026-11-27T23:59:59.999Z', 'c', { client_address: '2001:db8::1', duration_ms: 0.1 + 0.2 }),
          request(one, '2026-11-28T10:00:00.000Z', 'd', { status: 429, error_codes: 'THROTTLED,RATE_LIMITED' }),
        ] as never)
        .execute();
      const before = await requests(store);
      expect(before).toHaveLength(4);

      await migrateToLatest(store);
      expect(await requests(store)).toEqual(before);
      const sets = await store.db.selectFrom('api_request_log_sets').select(['api_key_id', 'first_at', 'last_at', 'requests']).orderBy('first_at').orderBy('api_key_id').execute();
      expect(sets.map((s) => [Number(s.api_key_id), (JSON.parse(s.requests) as unknown[]).length])).toEqual([
        [one, 2],
        [two, 1],
        [one, 1],
      ]);
      if (kind === 'postgres') {
        const held = await sql<{ part: string; n: string }>`SELECT tableoid::regclass::text AS part, count(*) AS n FROM api_request_log_sets GROUP BY 1 ORDER BY 1`.execute(store.db);
        expect(held.rows.map((r) => `${r.part} ${r.n}`)).toEqual(['api_request_log_sets_default 1', 'api_request_log_sets_p20261127 2']);
      }

      // the previous version's servers write rows to api_request_log: each becomes a compact row of its own
      await store.db.insertInto('api_request_log').values(request(two, '2026-11-28T10:01:00.000Z', 'e', { method: 'GET', path: '/metrics', cost: null }) as never).execute();
      const after = await requests(store);
      expect(after.slice(0, 4)).toEqual(before);
      expect(after[4]).toMatchObject({ request_id: 'e', method: 'GET', path: '/metrics', cost: null, status: 200 });
      const { n } = await store.db.selectFrom('api_request_log_sets').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(n)).toBe(4);

      // the server's writer: one row per key and UTC day, times to the millisecond (a fraction cut, as toISOString does)
      const written = (requestId: string, at: number) => ({ at, keyId: two, requestId, method: 'POST', path: '/api/v1/graphql', operationName: null, rootFields: [], status: 200, errorCodes: [], cost: 2.4, durationMs: 0.5, statements: 1, clientAddress: null, userAgent: null });
      await createRequestLogRepository(store).insert([written('w1', Date.parse('2026-11-29T23:59:59.999Z') + 0.7), written('w2', Date.parse('2026-11-30T00:00:00.000Z')), written('w3', Date.parse('2026-11-29T00:00:00.001Z'))]);
      const back = await store.db.selectFrom('api_request_log').select(['request_id', 'requested_at', 'cost', 'root_fields']).where('request_id', 'like', 'w%').orderBy('requested_at').execute();
      expect(back.map((r) => [r.request_id, new Date(r.requested_at).toISOString(), r.cost, r.root_fields])).toEqual([
        ['w3', '2026-11-29T00:00:00.001Z', 2, null],
        ['w1', '2026-11-29T23:59:59.999Z', 2, null],
        ['w2', '2026-11-30T00:00:00.000Z', 2, null],
      ]);
      await store.db.deleteFrom('api_request_log_sets').where('first_at', '>=', '2026-11-29T00:00:00.000Z').execute();

      // a key's read goes to its own compact rows of the window through the index: 2,000 rows more than
      // the migration's statistics say, gathered again by the servers' hourly task (Store.refreshStatistics)
      const spread = Array.from({ length: 2_000 }, (_, i) => {
        const at = new Date(Date.parse('2026-11-28T01:00:00.000Z') + i * 1_000).toISOString();
        return { api_key_id: i % 2 === 0 ? one : two, first_at: at, last_at: at, requests: JSON.stringify([[3_600_000 + i * 1_000, `spread-${i}`, 'POST', '/api/v1/graphql', null, null, 200, null, 1, 1, 1, null, null]]) };
      });
      for (let i = 0; i < spread.length; i += 500) await store.db.insertInto('api_request_log_sets').values(spread.slice(i, i + 500)).execute();
      await store.refreshStatistics();
      const since = '2026-11-28T01:33:10.000Z';
      const read = store.db.selectFrom('api_request_log').select('request_id').where('api_key_id', '=', one).where('set_last_at', '>=', since).where('requested_at', '>=', since).orderBy('requested_at', 'desc').limit(3).compile();
      const literal = (value: unknown) => (typeof value === 'number' ? String(value) : `'${String(value)}'`);
      const inlined = read.parameters.reduce<string>((text, value, i) => text.replace(kind === 'postgres' ? new RegExp(`\\$${i + 1}\\b`) : '?', literal(value)), read.sql);
      const plan = JSON.stringify((await sql.raw(`${kind === 'postgres' ? 'EXPLAIN (FORMAT JSON)' : 'EXPLAIN QUERY PLAN'} ${inlined}`).execute(store.db)).rows);
      expect(plan).toMatch(kind === 'postgres' ? /"Index Cond":"\(\(api_key_id = \d+\) AND \(last_at >= / : /SEARCH s USING INDEX api_request_log_sets_key_idx \(api_key_id=\? AND last_at>\?\)/);
      expect((await store.db.executeQuery(read)).rows).toEqual([{ request_id: 'd' }, { request_id: 'spread-1998' }, { request_id: 'spread-1996' }]);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});

describe.each(storeKinds())('migration 0042 on %s', (kind) => {
  it("reads rows with shapes as it reads rows of 0041's layout, field for field", async () => {
    const database = await createTestDatabase(kind);
    const store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateToLatest(store);
      const [one] = await seed(store);
      const base = Date.parse('2026-11-27T10:00:00.000Z');
      // requests that share some fields and not others: four shapes, one used again after another
      const recorded = [
        { status: 200, operationName: 'Devices', rootFields: ['networks', 'virtualDevice'], cost: 12, durationMs: 2 },
        { status: 200, operationName: 'Devices', rootFields: ['networks', 'virtualDevice'], cost: 12, durationMs: 0.1 + 0.2 },
        { status: 401, errorCodes: ['UNAUTHENTICATED'], cost: null, statements: 0, userAgent: 'Café "script" \\ ünï' },
        { status: 429, errorCodes: ['THROTTLED', 'RATE_LIMITED'], clientAddress: '2001:db8::1' },
        { status: 200, operationName: 'Devices', rootFields: ['networks', 'virtualDevice'], cost: 11, durationMs: 4.25 },
        { method: 'GET', path: '/metrics', status: 200, cost: null },
      ].map((fields, i) => keyRequest({ at: base + i * 1_000 + 0.4, keyId: one, requestId: `new-${i}`, ...fields }));
      await createRequestLogRepository(store).insert(recorded);
      // the same requests as the previous version's servers write them: one row of 0041's layout each
      for (const r of recorded) {
        await store.db
          .insertInto('api_request_log')
          .values(
            request(one, new Date(Math.floor(r.at)).toISOString(), r.requestId.replace('new', 'old'), {
              method: r.method,
              path: r.path,
              operation_name: r.operationName,
              root_fields: r.rootFields.length === 0 ? null : r.rootFields.join(','),
              status: r.status,
              error_codes: r.errorCodes.length === 0 ? null : r.errorCodes.join(','),
              cost: r.cost,
              duration_ms: r.durationMs,
              statements: r.statements,
              client_address: r.clientAddress,
              user_agent: r.userAgent,
            }) as never,
          )
          .execute();
      }
      const rows = await store.db.selectFrom('api_request_log_sets').select(['requests', 'shapes']).orderBy('first_at').execute();
      const written = rows.find((row) => row.shapes !== null);
      expect(JSON.parse(written?.shapes ?? '[]')).toHaveLength(4);
      expect(rows.filter((row) => row.shapes === null)).toHaveLength(recorded.length);

      const back = await requests(store);
      const fields = (prefix: string) => back.filter((row) => row.request_id.startsWith(prefix)).map(({ request_id: id, requested_at: at, ...rest }) => ({ id: id.slice(prefix.length), at: new Date(at).toISOString(), ...rest }));
      expect(fields('new-')).toHaveLength(recorded.length);
      expect(fields('new-')).toEqual(fields('old-'));
      expect(fields('new-')[2]).toMatchObject({ status: 401, error_codes: 'UNAUTHENTICATED', cost: null, user_agent: 'Café "script" \\ ünï' });
      expect(fields('new-')[4]).toMatchObject({ operation_name: 'Devices', root_fields: 'networks,virtualDevice', cost: 11, duration_ms: 4.25 });
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it('keeps request ids as they were given, quotes, backslashes and characters past ASCII included, in a row of hundreds', async () => {
    const database = await createTestDatabase(kind);
    const store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateToLatest(store);
      const [one] = await seed(store);
      // enough for the gathered text to be copied in several pieces and its Buffer to grow (EntryText)
      const many = Array.from({ length: 700 }, (_, i) => `r-${i}`);
      const ids = ['3f2b8c1e-5d6a-4e7f-9a0b-1c2d3e4f5a6b', 'a.b_c:d-e', 'say "hi"', 'back\\slash', 'tab\there', 'Café ünï', '日本語', 'emoji 😀', 'del \u007f', ...many];
      const base = Date.parse('2026-11-27T10:00:00.000Z');
      await createRequestLogRepository(store).insert(
        ids.map((requestId, i) => keyRequest({ at: base + i, keyId: one, requestId, cost: 1.6, durationMs: 0.1 + 0.2, statements: 2 })),
      );
      expect(await store.db.selectFrom('api_request_log_sets').select('api_key_id').execute()).toHaveLength(1);
      const back = await requests(store);
      expect(back.map((row) => row.request_id).sort()).toEqual([...ids].sort());
      expect(new Set(back.map((row) => `${row.cost} ${row.duration_ms} ${row.statements}`))).toEqual(new Set([`2 ${0.1 + 0.2} 2`]));
    } finally {
      await store.close();
      await database.drop();
    }
  });
});

describe('the gathering of the writer (createRequestSets)', () => {
  const request = (keyId: number, requestId: string, durationMs: number) => keyRequest({ at: Date.parse('2026-11-27T10:00:00.000Z'), keyId, requestId, cost: null, durationMs });
  const entries = (rows: { api_key_id: number; requests: string }[]) => new Map(rows.map((row) => [row.api_key_id, JSON.parse(row.requests) as unknown[][]]));

  it('gives each flush exactly its own requests, large and small sets alike, when it uses its memory again', () => {
    const sets = createRequestSets();
    // one key with thousands of requests (its entries outgrow their first memory), others with one or a few
    for (let i = 0; i < 3_000; i++) sets.add(request(1, `big-${i}`, i / 100));
    for (let key = 2; key < 50; key++) for (let i = 0; i < key % 5; i++) sets.add(request(key, `k${key}-${i}`, 1));
    const first = entries(sets.take());
    expect(first.get(1)?.map((entry) => entry[1])).toEqual(Array.from({ length: 3_000 }, (_, i) => `big-${i}`));
    expect(first.get(1)?.[2_999]?.[5]).toBe(29.99);
    expect(first.get(7)?.map((entry) => entry[1])).toEqual(['k7-0', 'k7-1']);
    expect(sets.size).toBe(0);
    // the next flush, shorter, in memory that held the longer one
    for (let i = 0; i < 70; i++) sets.add(request(1, `again-${i}`, 2));
    sets.add(request(3, 'alone', 3));
    const second = entries(sets.take());
    expect([...second.keys()].sort()).toEqual([1, 3]);
    expect(second.get(1)?.map((entry) => entry[1])).toEqual(Array.from({ length: 70 }, (_, i) => `again-${i}`));
    expect(second.get(3)).toEqual([[36_000_000, 'alone', 0, 200, null, 3, 1]]);
  });

  it('writes each entry as JSON that reads back its fields, whatever the id and numbers, in the first entries of a set and past them', () => {
    // a seeded generator: the same requests in every run
    let seed = 20261129;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const ids = () => pick([crypto.randomUUID(), `r-${Math.floor(random() * 1e6)}`, 'a.b_c:d-e', 'say "hi"', 'back\\slash', 'Café', '日本', 'del \u007f', '', 'x'.repeat(128)]);
    const numbers = () => pick([0, 1, 7, 200, 429, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 1e9, 1e9 + 7, 123_456_789_012_345, 999_999_999_999_999, 1e15, 2 ** 53, 1e20]);
    const durations = () => pick([0, 0.01, 0.1, 0.3, 0.5, 1, 1.05, 1.5, 1.55, 29.99, 100, 12_345.67, 0.1 + 0.2, 1 / 3, 2.675, Math.round(random() * 1e6) / 100, -1, Number.NaN, Number.POSITIVE_INFINITY, 9_999_999_999_999.99, 1e14]);
    const costs = () => pick([null, 0, 1, 1.5, 2.5, 0.4, -0.4, -3, 1e10, 1e16]);
    const day = Date.parse('2026-11-27T00:00:00.000Z');
    const requests = Array.from({ length: 4_000 }, (_, i) =>
      keyRequest({ at: day + Math.floor(random() * 86_400_000), keyId: i % 4 === 0 ? 2 + (i % 40) : 1, requestId: ids(), status: pick([200, 400, 429, 500]), cost: costs(), durationMs: durations(), statements: numbers() }),
    );
    const sets = createRequestSets();
    for (const request of requests) sets.add(request);
    const written = entries(sets.take());
    const expected = new Map<number, unknown[][]>();
    for (const r of requests) {
      const list = expected.get(r.keyId) ?? [];
      expected.set(r.keyId, list);
      const cost = r.cost === null ? null : Math.round(r.cost) + 0;
      list.push([r.at - day, r.requestId, 0, r.status, cost, Number.isFinite(r.durationMs) ? r.durationMs : null, r.statements]);
    }
    expect(written.get(1)?.length).toBeGreaterThan(1_000);
    expect(written).toEqual(expected);
  });
});
