import { describe, expect, it } from 'vitest';
import type { Caller } from '../../kernel/caller.js';
import { bucketLevel, budgetHoldsAt, countRequest, refundToBucket, takeFromBucket } from './limits.arithmetic.js';
import type { BucketPolicy, LimitPolicies, WindowPolicy } from './limits.arithmetic.js';
import { createFailoverLimitStore } from './limits.failover.js';
import { limitHeaders } from '../../http/limit-headers.js';
import { httpDate } from './limits.headers.js';
import { createLimitsService } from './limits.service.js';
import { createMemoryLimitStore } from './limits.store.js';
import type { LimitStore } from './limits.store.js';

const T0 = Date.UTC(2026, 2, 2, 15, 30, 0);
const WINDOW: WindowPolicy = { limit: 500, windowMs: 60_000 };
const BUCKET: BucketPolicy = { capacity: 750, refillMs: 15_000 };
const POLICIES: LimitPolicies = { requests: WINDOW, budget: BUCKET };

describe('request window arithmetic', () => {
  it('starts a window at the first request and ends it windowMs later', () => {
    let state = countRequest(undefined, T0 + 123, WINDOW);
    expect(state).toEqual({ start: T0 + 123, count: 1 });
    state = countRequest(state, T0 + 60_122, WINDOW);
    expect(state).toEqual({ start: T0 + 123, count: 2 });
    state = countRequest(state, T0 + 60_123, WINDOW);
    expect(state).toEqual({ start: T0 + 60_123, count: 1 });
  });

  it('counts requests over the limit without moving the window', () => {
    let state = countRequest(undefined, T0, { limit: 2, windowMs: 60_000 });
    for (let i = 1; i <= 10; i++) state = countRequest(state, T0 + i * 5_000, { limit: 2, windowMs: 60_000 });
    expect(state).toEqual({ start: T0, count: 11 });
  });
});

describe('complexity budget arithmetic', () => {
  it('starts full and refills continuously, 50 points a second, never above capacity', () => {
    expect(bucketLevel(undefined, T0, BUCKET)).toBe(750);
    const empty = { level: 0, updatedAt: T0 };
    expect(bucketLevel(empty, T0 + 1_000, BUCKET)).toBe(50);
    expect(bucketLevel(empty, T0 + 7_500, BUCKET)).toBe(375);
    expect(bucketLevel(empty, T0 + 15_000, BUCKET)).toBe(750);
    expect(bucketLevel(empty, T0 + 60_000, BUCKET)).toBe(750);
    expect(bucketLevel(empty, T0 + 20, BUCKET)).toBe(1);
  });

  it('ignores a clock that goes backwards instead of draining the budget', () => {
    expect(bucketLevel({ level: 100, updatedAt: T0 }, T0 - 5_000, BUCKET)).toBe(100);
  });

  it('takes the cost while the budget holds a point, going below zero, and changes nothing when it does not', () => {
    const first = takeFromBucket(undefined, T0, BUCKET, 314);
    expect(first).toEqual({ allowed: true, state: { level: 436, updatedAt: T0 }, level: 436 });
    const second = takeFromBucket(first.state, T0, BUCKET, 314);
    expect(second.level).toBe(122);
    // 122 points admit an operation of 314: the budget goes to -192
    const third = takeFromBucket(second.state, T0, BUCKET, 314);
    expect(third).toEqual({ allowed: true, state: { level: -192, updatedAt: T0 }, level: -192 });
    // below one point nothing is admitted, and nothing changes; 3.86 s later (193 points of refill) it is at one
    const refused = takeFromBucket(third.state, T0 + 3_859, BUCKET, 5);
    expect(refused.allowed).toBe(false);
    expect(refused.state).toBe(third.state);
    expect(takeFromBucket(third.state, T0 + 3_860, BUCKET, 5)).toMatchObject({ allowed: true, level: -4 });
  });

  it('gives back what an operation did not use, never above capacity', () => {
    const charged = takeFromBucket(undefined, T0, BUCKET, 57);
    expect(charged.level).toBe(693);
    // 57 requested, 25 actual: 32 back, after 200 ms of refill (10 points)
    expect(refundToBucket(charged.state, T0 + 200, BUCKET, 32)).toEqual({ level: 735, updatedAt: T0 + 200 });
    expect(refundToBucket(charged.state, T0 + 1_000, BUCKET, 32)).toEqual({ level: 750, updatedAt: T0 + 1_000 });
    expect(refundToBucket(undefined, T0, BUCKET, 5)).toEqual({ level: 750, updatedAt: T0 });
  });

  it('says when the budget will hold a cost again', () => {
    expect(budgetHoldsAt({ level: 122, at: T0 }, 314, BUCKET)).toBe(T0 + 3_840);
    expect(budgetHoldsAt({ level: 400, at: T0 }, 314, BUCKET)).toBe(T0);
    // never waits for more than a full budget
    expect(budgetHoldsAt({ level: 0, at: T0 }, 10_000, BUCKET)).toBe(T0 + 15_000);
  });
});

describe('limit headers', () => {
  it('writes HTTP-dates as IMF-fixdate, rounded up to the second', () => {
    expect(httpDate(Date.UTC(2026, 2, 2, 15, 30, 45))).toBe('Mon, 02 Mar 2026 15:30:45 GMT');
    expect(httpDate(Date.UTC(2026, 2, 2, 15, 30, 44, 1))).toBe('Mon, 02 Mar 2026 15:30:45 GMT');
  });

  it('writes the same HTTP-dates whatever seconds were asked for before', () => {
    const dates: [number, string][] = [
      [Date.UTC(2026, 2, 2, 15, 30, 45), 'Mon, 02 Mar 2026 15:30:45 GMT'],
      [Date.UTC(2026, 2, 2, 15, 30, 45, 1), 'Mon, 02 Mar 2026 15:30:46 GMT'],
      [Date.UTC(2026, 2, 2, 15, 30, 44, 999), 'Mon, 02 Mar 2026 15:30:45 GMT'],
      [Date.UTC(2026, 2, 2, 15, 31, 30), 'Mon, 02 Mar 2026 15:31:30 GMT'],
      [Date.UTC(2026, 2, 3, 0, 0, 0, 1), 'Tue, 03 Mar 2026 00:00:01 GMT'],
      [Date.UTC(2027, 0, 1), 'Fri, 01 Jan 2027 00:00:00 GMT'],
      [Date.UTC(1999, 11, 31, 23, 59, 59, 500), 'Sat, 01 Jan 2000 00:00:00 GMT'],
      [Date.UTC(2026, 2, 2, 15, 30, 46), 'Mon, 02 Mar 2026 15:30:46 GMT'],
    ];
    // more seconds than httpDate keeps, asked in one order, then in others
    for (const order of [dates, [...dates].reverse(), dates.filter((_, i) => i % 2 === 0), dates]) {
      for (const [ms, expected] of order) expect(httpDate(ms)).toBe(expected);
    }
  });

  it('reports both limits in the Meter headers and the IETF draft fields', () => {
    const headers = limitHeaders(
      { now: T0, requests: { remaining: 487, resetAt: T0 + 45_000 }, budget: { cost: 46, level: 704.5 } },
      POLICIES,
    );
    expect(headers).toEqual({
      'X-RateLimit-Remaining': '487',
      'X-RateLimit-Reset': 'Mon, 02 Mar 2026 15:30:45 GMT',
      'X-Complexity-Cost': '46',
      'X-Complexity-Remaining': '704',
      'X-Complexity-Limit': '750',
      // 705 is reached 10 ms later
      'X-Complexity-Reset': 'Mon, 02 Mar 2026 15:30:01 GMT',
      'RateLimit-Policy': '"requests";q=500;w=60, "complexity";q=750;w=15;netgraph-unit="points"',
      RateLimit: '"requests";r=487;t=45, "complexity";r=704;t=1',
    });
  });

  it('reports a full budget as reset now', () => {
    const headers = limitHeaders({ now: T0, requests: { remaining: 1, resetAt: T0 }, budget: { cost: 0, level: 750 } }, POLICIES);
    expect(headers['X-Complexity-Reset']).toBe('Mon, 02 Mar 2026 15:30:00 GMT');
    expect(headers.RateLimit).toBe('"requests";r=1;t=0, "complexity";r=750;t=0');
  });
});

const caller = (keyUuid: string): Caller => ({
  companyId: 1,
  companySlug: 'acme',
  keyId: 1,
  keyUuid,
  label: 'test',
  scope: 'read',
});

const silentLog = { warn: () => undefined, info: () => undefined };

describe('limits service (memory store, injected clock)', () => {
  const config = {
    requestsPerWindow: 3,
    windowSeconds: 60,
    maxComplexity: 750,
    complexityBudget: 750,
    budgetRefillSeconds: 15,
    redisUrl: null,
    redisKeyPrefix: 'unused:',
  };

  it('refuses the request after the limit until the window ends, per key', async () => {
    let now = T0;
    const limits = createLimitsService(config, { now: () => now, log: silentLog });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limits.admitRequest(caller('a')));
    expect(results.map((r) => [r.allowed, r.state.requests.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(results[3]).toMatchObject({ retryAt: T0 + 60_000 });
    expect((await limits.admitRequest(caller('b'))).allowed).toBe(true);
    now = T0 + 59_999;
    expect(await limits.admitRequest(caller('a'))).toMatchObject({ allowed: false, retryAt: T0 + 60_000 });
    now = T0 + 60_000;
    expect(await limits.admitRequest(caller('a'))).toMatchObject({ allowed: true, state: { requests: { remaining: 2 } } });
  });

  it('charges operations to the budget and says when it admits one again', async () => {
    let now = T0;
    const limits = createLimitsService(config, { now: () => now, log: silentLog });
    const admitted = (await limits.admitRequest(caller('a'))).state;
    expect((await limits.chargeOperation(caller('a'), admitted, 314)).state.budget).toEqual({ cost: 314, level: 436 });
    expect((await limits.chargeOperation(caller('a'), admitted, 314)).state.budget).toEqual({ cost: 314, level: 122 });
    expect((await limits.chargeOperation(caller('a'), admitted, 314)).state.budget).toEqual({ cost: 314, level: -192 });
    const refused = await limits.chargeOperation(caller('a'), admitted, 314);
    // back at one point after 193 points of refill (50 a second)
    expect(refused).toMatchObject({ allowed: false, retryAt: T0 + 3_860, state: { budget: { cost: 0, level: -192 } } });
    now = T0 + 3_859;
    expect((await limits.chargeOperation(caller('a'), admitted, 314)).allowed).toBe(false);
    now = T0 + 3_860;
    expect((await limits.chargeOperation(caller('a'), admitted, 314)).allowed).toBe(true);
  });
});

describe('failover store', () => {
  function brokenStore(): LimitStore & { broken: boolean } {
    const inner = createMemoryLimitStore(POLICIES);
    const store = {
      broken: true,
      admit: (key: string, now: number) => (store.broken ? Promise.reject(new Error('down')) : inner.admit(key, now)),
      charge: (key: string, cost: number, now: number) =>
        store.broken ? Promise.reject(new Error('down')) : inner.charge(key, cost, now),
      refund: (key: string, points: number, now: number) =>
        store.broken ? Promise.reject(new Error('down')) : inner.refund(key, points, now),
      close: () => inner.close(),
    };
    return store;
  }

  it('serves from the local store while the shared one fails, logging once per change', async () => {
    const shared = brokenStore();
    const log: string[] = [];
    const store = createFailoverLimitStore(shared, createMemoryLimitStore(POLICIES), {
      warn: (_details, message) => log.push(`warn: ${message}`),
      info: (message) => log.push(`info: ${message}`),
    });
    for (let i = 0; i < 3; i++) expect((await store.admit('k', T0)).requests.count).toBe(i + 1);
    expect(store.mode()).toBe('local');
    shared.broken = false;
    expect((await store.admit('k', T0)).requests.count).toBe(1);
    await store.charge('k', 1, T0);
    expect(store.mode()).toBe('shared');
    shared.broken = true;
    await store.admit('k', T0);
    expect(log).toEqual([
      'warn: rate limits: Redis is unavailable; serving with per-process limits until it is back',
      'info: rate limits: Redis answers again; limits are shared across processes again',
      'warn: rate limits: Redis is unavailable; serving with per-process limits until it is back',
    ]);
  });
});
