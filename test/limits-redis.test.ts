import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { LimitsConfig } from '../src/config.js';
import type { Caller } from '../src/kernel/caller.js';
import { createLimitsService } from '../src/platform/limits/limits.service.js';
import type { LimitsService } from '../src/platform/limits/limits.service.js';
import { limitPolicies } from '../src/platform/limits/limits.service.js';
import { createRedisLimitStore } from '../src/platform/limits/limits.redis.js';
import { createMemoryLimitStore } from '../src/platform/limits/limits.store.js';
import type { LimitStore } from '../src/platform/limits/limits.store.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { closedPort, countKeys, deleteKeys, startRedisProxy, uniquePrefix } from './helpers/redis.js';

const redisUrl = inject('redisUrl');

const LIMITS: LimitsConfig = {
  requestsPerWindow: 500,
  windowSeconds: 60,
  maxComplexity: 750,
  complexityBudget: 750,
  budgetRefillSeconds: 15,
  redisUrl: null,
  redisKeyPrefix: 'unused:',
};

const caller: Caller = { companyId: 1, companySlug: 'acme', keyId: 1, keyUuid: 'key-a', label: 'test', scope: 'read' };

/** Collects what the limits log, to check it says each change once. */
function createLogCollector() {
  const lines: string[] = [];
  return {
    lines,
    warn: (_details: { err: unknown }, message: string) => lines.push(`warn: ${message}`),
    info: (message: string) => lines.push(`info: ${message}`),
  };
}

describe.runIf(redisUrl)('limits in Redis', () => {
  const url = redisUrl as string;
  const prefixes: string[] = [];
  const prefix = () => {
    const p = uniquePrefix();
    prefixes.push(p);
    return p;
  };
  afterAll(async () => {
    for (const p of prefixes) await deleteKeys(url, p);
  });

  it('the Lua scripts do the same arithmetic as the memory store, at the same clock', async () => {
    const policies = limitPolicies({ ...LIMITS, requestsPerWindow: 3, complexityBudget: 100, budgetRefillSeconds: 7 });
    const redis = createRedisLimitStore(url, prefix(), policies);
    const memory = createMemoryLimitStore(policies);
    try {
      expect(await redis.connected(5_000)).toBe(true);
      const clock = createTestClock();
      const steps: [string, number, number][] = [
        ['admit', 0, 0],
        ['charge', 0, 60],
        ['admit', 1_234, 0],
        ['charge', 1, 45],
        ['charge', 0, 45],
        ['admit', 2_000, 0],
        ['admit', 500, 0],
        ['charge', 3_333, 17],
        ['admit', 56_000, 0],
        ['charge', 10_000, 100],
        ['admit', 1, 0],
        ['charge', 0, 60],
        ['refund', 250, 37],
        ['refund', 0, 90],
        ['charge', 2, 99],
        ['refund', 1_111, 13],
      ];
      const step = (store: LimitStore, operation: string, cost: number, now: number) =>
        operation === 'admit' ? store.admit('k', now) : operation === 'charge' ? store.charge('k', cost, now) : store.refund('k', cost, now);
      for (const [operation, advance, cost] of steps) {
        clock.advance(advance);
        const now = clock.now();
        const [a, b] = await Promise.all([step(redis, operation, cost, now), step(memory, operation, cost, now)]);
        expect(a, `${operation} at +${now - createTestClock().now()} ms`).toEqual(b);
      }
    } finally {
      await redis.close();
    }
  });

  it('two servers with one REDIS_URL and prefix share one request window and one budget per key', async () => {
    const shared = { REDIS_URL: url, REDIS_KEY_PREFIX: prefix(), RATE_LIMIT_REQUESTS: '5', COMPLEXITY_BUDGET: '750' };
    const clock = createTestClock();
    const a = await startTestApp('sqlite', { data: createFixture(), env: shared, clock: clock.now });
    let b: TestApp | undefined;
    try {
      // a second server on the same database, as a second process would be
      b = await startTestApp('sqlite', { env: { ...shared, DATABASE_URL: a.database.url }, clock: clock.now });
      const key = await a.createKey('acme');
      const spec = `{ companyBySlug(slug: "acme") { name networks { UUID label } } }`;
      const statuses = [];
      const remaining = [];
      for (let i = 0; i < 6; i++) {
        const res = await (i % 2 === 0 ? a : b).graphql(i === 0 ? spec : '{ __typename }', { key });
        statuses.push(res.status);
        remaining.push([res.headers.get('x-ratelimit-remaining'), res.headers.get('x-complexity-remaining')]);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      // requested 1 + 1 + (2 + 5 * 2) = 14 points on a, actually 1 + 1 + (2 + 3 * 2) = 10 (acme has three networks),
      // then 1 point each, refilling nothing: the clock stands still
      expect(remaining).toEqual([
        ['4', '740'],
        ['3', '739'],
        ['2', '738'],
        ['1', '737'],
        ['0', '736'],
        ['0', '736'],
      ]);
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it('two servers charge one budget the actual cost, with concurrent requests on both', async () => {
    const shared = { REDIS_URL: url, REDIS_KEY_PREFIX: prefix(), COMPLEXITY_BUDGET: '750' };
    const clock = createTestClock();
    const a = await startTestApp('sqlite', { data: createFixture(), env: shared, clock: clock.now });
    let b: TestApp | undefined;
    try {
      b = await startTestApp('sqlite', { env: { ...shared, DATABASE_URL: a.database.url }, clock: clock.now });
      const key = await a.createKey('acme');
      // requested 2 + 5 * (4 + 3 + 2) = 47; HQ has 3 clients: actually 2 + 3 * 9 = 29
      const clients = `{ networkClients(networkUUID: "${IDS.acmeHq}") { macAddress ip clientName lastSeen connectedVLAN { name vlanID } accessPoint { label } } }`;
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ((i % 2 === 0 ? a : b) as TestApp).graphql(clients, { key })));
      expect(answers.map((res) => [res.status, res.headers.get('x-complexity-cost')])).toEqual(Array.from({ length: 10 }, () => [200, '29']));
      // each charged 47 and gave 18 back, atomically: the budget is down by the actual costs alone
      const after = await (b as TestApp).graphql(`{ virtualDevice(UUID: "${IDS.acmeAp}") { UUID } }`, { key });
      expect(after.headers.get('x-complexity-remaining')).toBe(String(750 - 10 * 29 - 2));
    } finally {
      await b?.close();
      await a.close();
    }
  });

  describe('when Redis is away', () => {
    it('a server whose Redis cannot be reached serves with per-process limits', async () => {
      const app = await startTestApp('sqlite', {
        data: createFixture(),
        env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, REDIS_KEY_PREFIX: prefix(), RATE_LIMIT_REQUESTS: '2' },
      });
      try {
        const key = await app.createKey('acme');
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeAp}") { label } }`, { key })).status);
        expect(statuses).toEqual([200, 200, 429]);
      } finally {
        await app.close();
      }
    });

    it('says once that Redis is unavailable, not once per request', async () => {
      const log = createLogCollector();
      const limits = createLimitsService({ ...LIMITS, redisUrl: `redis://127.0.0.1:${await closedPort()}`, redisKeyPrefix: prefix() }, { log });
      try {
        await limits.ready();
        for (let i = 0; i < 5; i++) expect((await limits.admitRequest(caller)).state.requests.remaining).toBe(499 - i);
        expect(limits.mode()).toBe('local');
        expect(log.lines).toEqual(['warn: rate limits: Redis is unavailable; serving with per-process limits until it is back']);
      } finally {
        await limits.close();
      }
    });

    let proxy: Awaited<ReturnType<typeof startRedisProxy>>;
    let limits: LimitsService;
    const log = createLogCollector();
    const keyPrefix = uniquePrefix();
    beforeAll(async () => {
      prefixes.push(keyPrefix);
      proxy = await startRedisProxy(url);
      limits = createLimitsService({ ...LIMITS, redisUrl: proxy.url, redisKeyPrefix: keyPrefix }, { log });
      await limits.ready();
    });
    afterAll(async () => {
      await limits?.close();
      await proxy?.close();
    });

    it('falls back to per-process limits when Redis goes away and shares them again when it is back, logging each change once', async () => {
      expect((await limits.admitRequest(caller)).state.requests.remaining).toBe(499);
      expect(limits.mode()).toBe('shared');
      expect(await countKeys(url, keyPrefix)).toBe(1);

      await proxy.stop();
      for (let i = 0; i < 5; i++) expect((await limits.admitRequest(caller)).allowed).toBe(true);
      expect(limits.mode()).toBe('local');
      expect(log.lines).toEqual(['warn: rate limits: Redis is unavailable; serving with per-process limits until it is back']);

      await proxy.start();
      // the client reconnects on its own schedule (at most a second apart); until then requests stay local
      let decision = await limits.admitRequest(caller);
      for (let attempt = 0; limits.mode() === 'local' && attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        decision = await limits.admitRequest(caller);
      }
      expect(limits.mode()).toBe('shared');
      // the window in Redis went on where it was: its first request, then this one
      expect(decision.state.requests.remaining).toBe(498);
      expect(log.lines).toEqual([
        'warn: rate limits: Redis is unavailable; serving with per-process limits until it is back',
        'info: rate limits: Redis answers again; limits are shared across processes again',
      ]);
    });
  });
});
