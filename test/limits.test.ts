import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp, TestResponse } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

/** The documented defaults, in place of the test helper's unreachable ones. */
const DEFAULT_LIMITS = { RATE_LIMIT_REQUESTS: '500', COMPLEXITY_BUDGET: '750' };

/** Costs 4: three fields of one object. */
const CHEAP = `{ virtualDevice(UUID: "${IDS.acmeAp}") { UUID label isOnline } }`;
/** The spec's companyBySlug selection: costs 314. */
const SPEC_COMPANY = `{ companyBySlug(slug: "acme") { name networks { UUID label isActive mailingAddress { city subdivisionCode }
  virtualDevices { label deviceType hardwareDevice { serialNumber isConnectedToBackend } }
  vlans { name vlanID isEnabled } ssids { ssid isEnabled } } } }`;
/** Every field of the company, twice over (the second under an alias): costs 988. */
const FULL_NETWORKS = `UUID label slug isActive mailingAddress { city subdivisionCode }
  virtualDevices { UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber deviceType deviceModel isConnectedToBackend } }
  vlans { UUID name vlanID isEnabled } ssids { UUID ssid isEnabled }`;
const TOO_COMPLEX = `{ companyBySlug(slug: "acme") { uuid name slug networks { ${FULL_NETWORKS} } again: networks { ${FULL_NETWORKS} } } }`;

const TOO_MANY_REQUESTS = { title: 'Too many requests', id: 'too_many_requests', detail: 'Too many requests', status: 429 };

function limitHeaders(res: TestResponse): Record<string, string | null> {
  const names = [
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'x-complexity-cost',
    'x-complexity-remaining',
    'x-complexity-limit',
    'x-complexity-reset',
    'ratelimit-policy',
    'ratelimit',
  ];
  return Object.fromEntries(names.map((name) => [name, res.headers.get(name)]));
}

describe.each(storeKinds())('per-key limits on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock();
    app = await startTestApp(kind, { data: createFixture(), env: DEFAULT_LIMITS, clock: clock.now });
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('headers', () => {
    it('every authenticated response carries the request and complexity headers, both Meter and IETF', async () => {
      const key = await app.createKey('acme');
      const res = await app.graphql(CHEAP, { key });
      expect(res.status).toBe(200);
      // the clock stands at Sun, 01 Mar 2026 15:30:00 GMT (plus what earlier tests moved it)
      const now = clock.now();
      expect(limitHeaders(res)).toEqual({
        'x-ratelimit-remaining': '499',
        'x-ratelimit-reset': new Date(now + 60_000).toUTCString(),
        'x-complexity-cost': '4',
        'x-complexity-remaining': '746',
        'x-complexity-limit': '750',
        'x-complexity-reset': new Date(now + 1_000).toUTCString(),
        'ratelimit-policy': '"requests";q=500;w=60, "complexity";q=750;w=15;netgraph-unit="points"',
        ratelimit: '"requests";r=499;t=60, "complexity";r=746;t=1',
      });
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    });

    it('a request that runs nothing costs no points but still reports the limits', async () => {
      const key = await app.createKey('acme');
      const res = await app.graphql('{ nope }', { key });
      expect(res.status).toBe(422);
      expect(limitHeaders(res)).toMatchObject({ 'x-ratelimit-remaining': '499', 'x-complexity-cost': '0', 'x-complexity-remaining': '750' });
      const bad = await app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"query": ',
      });
      expect(bad.status).toBe(400);
      expect(limitHeaders(bad)).toMatchObject({ 'x-ratelimit-remaining': '498', 'x-complexity-cost': '0' });
    });

    it('a request without a valid key gets no limit headers and uses no key budget', async () => {
      const res = await app.graphql(CHEAP, { key: null });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
      expect(res.headers.get('ratelimit')).toBeNull();
    });
  });

  describe('request rate', () => {
    it('the 501st request of a key within its minute gets 429 with the Meter body and Retry-After; other keys are unaffected', async () => {
      const key = await app.createKey('acme');
      const start = clock.now();
      // concurrently, 20 at a time: the count must hold under concurrency, each request seeing its own number
      const remaining: number[] = [];
      for (let batch = 0; batch < 25; batch++) {
        const responses = await Promise.all(Array.from({ length: 20 }, () => app.graphql('{ __typename }', { key })));
        for (const res of responses) {
          expect(res.status).toBe(200);
          remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
        }
      }
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i));
      const res = await app.graphql('{ __typename }', { key });
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.text).toBe(JSON.stringify(TOO_MANY_REQUESTS));
      expect(res.headers.get('retry-after')).toBe(new Date(start + 60_000).toUTCString());
      expect(limitHeaders(res)).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': new Date(start + 60_000).toUTCString() });
      expect((await app.graphql('{ __typename }', { key: await app.createKey('acme') })).status).toBe(200);
    });
  });

  describe('request rate with a small limit', () => {
    let small: TestApp;
    beforeAll(async () => {
      small = await startTestApp(kind, { data: createFixture(), env: { ...DEFAULT_LIMITS, RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' }, clock: clock.now });
    });
    afterAll(async () => {
      await small?.close();
    });

    it('repeated 429s neither extend nor reset the window, which ends a minute after its first request', async () => {
      const key = await small.createKey('acme');
      const start = clock.now();
      for (let i = 0; i < 3; i++) expect((await small.graphql('{ __typename }', { key })).status).toBe(200);
      const reset = new Date(start + 60_000).toUTCString();
      for (const wait of [0, 30_000, 29_999]) {
        clock.advance(wait);
        const res = await small.graphql('{ __typename }', { key });
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toBe(reset);
      }
      clock.advance(1);
      const res = await small.graphql('{ __typename }', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('2');
      expect(res.headers.get('x-ratelimit-reset')).toBe(new Date(start + 120_000).toUTCString());
    });

    it('a key over its limit is refused before its body is read: even a malformed body gets 429', async () => {
      const key = await small.createKey('acme');
      for (let i = 0; i < 3; i++) await small.graphql('{ __typename }', { key });
      const res = await small.request('/api/v1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"query": not json',
      });
      expect(res.status).toBe(429);
      expect(res.body).toEqual(TOO_MANY_REQUESTS);
    });
  });

  describe('complexity', () => {
    it('an operation over 750 points is refused before it runs, with 422 and COMPLEXITY_LIMIT_EXCEEDED, and costs nothing', async () => {
      const key = await app.createKey('acme');
      for (const accept of ['application/json', 'application/graphql-response+json']) {
        const res = await app.graphql(TOO_COMPLEX, { key, headers: { accept } });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          errors: [
            {
              message: 'operation has complexity 988, which exceeds the limit of 750',
              locations: [{ line: 1, column: 1 }],
              extensions: { code: 'COMPLEXITY_LIMIT_EXCEEDED', cost: 988, limit: 750 },
            },
          ],
          data: null,
        });
        expect(limitHeaders(res)).toMatchObject({ 'x-complexity-cost': '0', 'x-complexity-remaining': '750' });
      }
    });

    it('prices a document before validating it: a costly invalid document, or a costly unused fragment, is refused as too complex', async () => {
      const key = await app.createKey('acme');
      // 500 unmerged root lists would cost validation hundreds of milliseconds; priced first, they cost nothing
      const flood = await app.graphql(`{ ${'networksForCompany(companySlug: "acme") { UUID } '.repeat(500)} }`, { key });
      expect(flood.status).toBe(422);
      expect(flood.body.errors).toEqual([
        expect.objectContaining({
          message: 'operation has complexity 3500, which exceeds the limit of 750',
          extensions: { code: 'COMPLEXITY_LIMIT_EXCEEDED', cost: 3500, limit: 750 },
        }),
      ]);
      const unknown = await app.graphql(`{ nope { ${'x '.repeat(800)} } }`, { key });
      expect(unknown.body.errors[0].extensions).toEqual({ code: 'COMPLEXITY_LIMIT_EXCEEDED', cost: 801, limit: 750 });
      const unused = await app.graphql(`{ __typename } fragment Big on Query { ${'__typename '.repeat(751)} }`, { key });
      expect(unused.status).toBe(422);
      expect(unused.body.errors[0]).toMatchObject({
        message: 'fragment "Big" has complexity 751, which exceeds the limit of 750',
        extensions: { code: 'COMPLEXITY_LIMIT_EXCEEDED', cost: 751, limit: 750 },
      });
    });

    it('runs operations while the budget holds a point (it may go below zero), then answers 429 THROTTLED with Retry-After, and refills continuously to full', async () => {
      const key = await app.createKey('acme');
      const start = clock.now();
      const costs = [];
      // requested 314 each, actually 73: acme's three networks hold 4 devices, 3 VLANs and 2 SSIDs between them
      for (let i = 0; i < 11; i++) {
        const res = await app.graphql(SPEC_COMPANY, { key });
        expect(res.status).toBe(200);
        costs.push([res.headers.get('x-complexity-cost'), res.headers.get('x-complexity-remaining')]);
      }
      // the eleventh found 20 points, fewer than its requested 314, and ran: the budget is at -53, reported as 0
      expect(costs).toEqual([
        ['73', '677'],
        ['73', '604'],
        ['73', '531'],
        ['73', '458'],
        ['73', '385'],
        ['73', '312'],
        ['73', '239'],
        ['73', '166'],
        ['73', '93'],
        ['73', '20'],
        ['73', '0'],
      ]);
      const throttled = await app.graphql(SPEC_COMPANY, { key });
      expect(throttled.status).toBe(429);
      // 54 points short of one point at 50 points a second: 1.08 s, rounded up to the second
      expect(throttled.headers.get('retry-after')).toBe(new Date(start + 2_000).toUTCString());
      expect(throttled.body).toEqual({
        errors: [
          {
            // Meter's documented body, exactly
            message: 'Complexity budget exhausted. Try a less complex query or wait for your budget to restore.',
            extensions: { code: 'THROTTLED', cost: 314, remaining: 0, retryAfterSeconds: 2 },
          },
        ],
        data: null,
      });
      // X-Complexity-Reset says when the budget admits again, as Retry-After does
      expect(limitHeaders(throttled)).toMatchObject({ 'x-complexity-cost': '0', 'x-complexity-remaining': '0', 'x-complexity-reset': new Date(start + 2_000).toUTCString() });

      clock.advance(1_079);
      expect((await app.graphql(CHEAP, { key })).status).toBe(429);
      clock.advance(1);
      const refilled = await app.graphql(SPEC_COMPANY, { key });
      expect(refilled.status).toBe(200);
      expect(refilled.headers.get('x-complexity-remaining')).toBe('0');

      clock.advance(60_000);
      expect((await app.graphql(CHEAP, { key })).headers.get('x-complexity-remaining')).toBe(String(750 - 4));
    });

    it('never throttles a script that paces itself as Meter documents: wait while fewer than 100 points remain, until X-Complexity-Reset', async () => {
      // the public Meter MSP dashboard's rule (PROACTIVE_CX_THRESH = 100, then sleep until the reset plus one second)
      const key = await app.createKey('acme');
      const statuses: number[] = [];
      let waited = 0;
      for (let i = 0; i < 40; i++) {
        const res = await app.graphql(SPEC_COMPANY, { key });
        statuses.push(res.status);
        if (Number(res.headers.get('x-complexity-remaining')) < 100) {
          const wait = Date.parse(res.headers.get('x-complexity-reset') as string) - clock.now() + 1_000;
          waited += wait;
          clock.advance(wait);
        }
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // it did wait: 40 operations of 73 points are 2,920, four budgets' worth
      expect(waited).toBeGreaterThan(0);
    });
  });

  describe('actual cost', () => {
    /** Requested 2 + 5 × (4 + 3 + 2) = 47; HQ has 3 clients, so actually 2 + 3 × 9 = 29. */
    const CLIENTS = `{ networkClients(networkUUID: "${IDS.acmeHq}") { macAddress ip clientName lastSeen connectedVLAN { name vlanID } accessPoint { label } } }`;
    const withCost = (key: string, query: string) =>
      app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, extensions: { cost: true } }),
      });

    it('charges the budget what the answer holds, not what the lists might have held, and says both when asked', async () => {
      const key = await app.createKey('acme');
      const res = await withCost(key, CLIENTS);
      expect(res.status).toBe(200);
      expect(res.body.data.networkClients).toHaveLength(3);
      expect(res.body.extensions).toEqual({ cost: { requested: 47, actual: 29, remaining: 721 } });
      expect(limitHeaders(res)).toMatchObject({ 'x-complexity-cost': '29', 'x-complexity-remaining': '721' });
      // the budget went down by the actual cost, and goes on from there
      const again = await app.graphql(CLIENTS, { key });
      expect(limitHeaders(again)).toMatchObject({ 'x-complexity-cost': '29', 'x-complexity-remaining': '692' });
      expect(again.body.extensions).toBeUndefined();
    });

    it('counts each list at what it holds at every level, and an operation without lists at what it requested', async () => {
      const key = await app.createKey('acme');
      // requested 1 + 1 + (2 + 5 × (1 + (2 + 5 × 1))) = 44; actually hq 3 devices, lab 1, annex 0: 1 + 1 + (2 + (1 + 5) + (1 + 3) + (1 + 2)) = 17
      const nested = await withCost(key, '{ companyBySlug(slug: "acme") { name networks { label virtualDevices { label } } } }');
      expect(nested.body.extensions.cost).toEqual({ requested: 44, actual: 17, remaining: 733 });
      const point = await withCost(key, CHEAP);
      expect(point.body.extensions.cost).toEqual({ requested: 4, actual: 4, remaining: 729 });
      // a network of another company answers null: its list holds nothing
      const foreign = await withCost(key, `{ networkClients(networkUUID: "${IDS.globexHq}") { macAddress } }`);
      expect(foreign.body.data).toEqual({ networkClients: null });
      expect(foreign.body.extensions.cost).toEqual({ requested: 7, actual: 2, remaining: 727 });
    });

    it('still refuses an operation whose requested cost is over the limit before it runs, however little its answer would hold', async () => {
      const key = await app.createKey('acme');
      const res = await withCost(key, TOO_COMPLEX);
      expect(res.status).toBe(422);
      expect(res.body.errors[0].extensions).toEqual({ code: 'COMPLEXITY_LIMIT_EXCEEDED', cost: 988, limit: 750 });
      expect(res.body.extensions).toBeUndefined();
      expect(limitHeaders(res)).toMatchObject({ 'x-complexity-cost': '0', 'x-complexity-remaining': '750' });
    });
  });

  describe('configured numbers', () => {
    let custom: TestApp;
    beforeAll(async () => {
      custom = await startTestApp(kind, {
        data: createFixture(),
        env: { COMPLEXITY_LIMIT: '20', COMPLEXITY_BUDGET: '30', COMPLEXITY_REFILL_SECONDS: '3', RATE_LIMIT_REQUESTS: '7', RATE_LIMIT_WINDOW_SECONDS: '10' },
        clock: clock.now,
      });
    });
    afterAll(async () => {
      await custom?.close();
    });

    it('apply the limits from the configuration', async () => {
      const key = await custom.createKey('acme');
      const over = await custom.graphql(`{ virtualDevicesForNetwork(networkUUID: "${IDS.acmeHq}") { UUID label deviceType deviceModel isOnline } }`, { key });
      expect(over.status).toBe(422);
      expect(over.body.errors[0].message).toBe('operation has complexity 27, which exceeds the limit of 20');
      const res = await custom.graphql(CHEAP, { key });
      expect(res.headers.get('ratelimit-policy')).toBe('"requests";q=7;w=10, "complexity";q=30;w=3;netgraph-unit="points"');
      expect(res.headers.get('x-complexity-remaining')).toBe('26');
    });
  });
});
