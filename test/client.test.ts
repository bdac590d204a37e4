import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { NetgraphNetworkError, NetgraphRequestError, createClient, graphql, requireData } from '../src/client/index.js';
import type { GraphQLErrorValue, WaitEvent } from '../src/client/index.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, fullReport, postReports } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { settled } from './helpers/changes.js';

const Networks = graphql(`
  query Networks($slug: String!) {
    networksForCompany(companySlug: $slug) { UUID label isActive virtualDevices { label deviceType isOnline } }
  }
`);

const Device = graphql(`
  query Device($uuid: UUID!) { virtualDevice(UUID: $uuid) { UUID label isOnline } }
`);

/** Seven devices under aliases, no list: its actual cost is its requested cost, 28. */
const SEVEN_DEVICES = graphql(`
  query SevenDevices($uuid: UUID!) {
    a: virtualDevice(UUID: $uuid) { UUID label isOnline }
    b: virtualDevice(UUID: $uuid) { UUID label isOnline }
    c: virtualDevice(UUID: $uuid) { UUID label isOnline }
    d: virtualDevice(UUID: $uuid) { UUID label isOnline }
    e: virtualDevice(UUID: $uuid) { UUID label isOnline }
    f: virtualDevice(UUID: $uuid) { UUID label isOnline }
    g: virtualDevice(UUID: $uuid) { UUID label isOnline }
  }
`);

const Events = graphql(`
  query Events($network: UUID!, $limit: Int!, $offset: Int, $endTime: DateTime) {
    recentEventLogEventsPage(networkUUID: $network, limit: $limit, offset: $offset, endTime: $endTime) {
      total
      events { eventTypeAPIName generatedAt details }
    }
  }
`);

const Changes = graphql(`
  query Changes($after: String, $limit: Int) {
    changes(after: $after, limit: $limit) { changes { cursor objectType objectUUID kind fields } endCursor hasMore }
  }
`);

const RenameVlan = graphql(`
  mutation RenameVlan($vlan: UUID!, $name: String!) { updateVLAN(input: { vlanUUID: $vlan, name: $name }) { vlan { UUID name } } }
`);

/** The rename with every field of the VLAN: costs 19. */
const RenameVlanFully = graphql(`
  mutation RenameVlanFully($vlan: UUID!, $name: String!) {
    updateVLAN(input: { vlanUUID: $vlan, name: $name }) {
      vlan { UUID name vlanID isEnabled isDefault networkUUID ipV4ClientGateway ipV4ClientPrefixLength }
    }
  }
`);

/** A fetch that keeps the status of every answer the client got: the real fetch, watched. */
function watchedFetch(): { fetch: typeof fetch; statuses: number[] } {
  const statuses: number[] = [];
  return {
    statuses,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    },
  };
}

describe.each(storeKinds())('the typed client against a running netgraph on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('returns typed results', async () => {
    const client = createClient({ url: app.url, apiKey: await app.createKey('acme') });
    const result = await client.request(Networks, { slug: 'acme' });
    expectTypeOf(result.data).toEqualTypeOf<{
      networksForCompany: { UUID: string; label: string; isActive: boolean; virtualDevices: { label: string; deviceType: 'ACCESS_POINT' | 'CELLULAR_GATEWAY' | 'CONTROLLER' | 'POWER_DISTRIBUTION_UNIT' | 'SWITCH' | 'OBSERVER'; isOnline: boolean }[] }[] | null;
    } | null>();
    expect(result.errors).toEqual([]);
    expect(result.status).toBe(200);
    const networks = requireData(result).networksForCompany ?? [];
    expect(networks.map((n) => n.label).sort()).toEqual(['Annex', 'HQ — Zürich', 'Lab']);
    expect(networks.find((n) => n.UUID === IDS.acmeHq)?.virtualDevices).toHaveLength(3);
    expect(result.cost).toMatchObject({ requested: expect.any(Number), actual: expect.any(Number) });
    // @ts-expect-error the variables are required and typed
    await expect(client.request(Networks, { slug: 1 })).resolves.toMatchObject({ status: 400 });
  });

  it('gives a field error as a value with its code and path, beside the data that answered', async () => {
    const client = createClient({ url: app.url, apiKey: await app.createKey('acme') });
    const Both = graphql(`query Both($mine: UUID!, $theirs: UUID!) { mine: network(UUID: $mine) { label } theirs: network(UUID: $theirs) { label } }`);
    const result = await client.request(Both, { mine: IDS.acmeHq, theirs: IDS.globexHq });
    expect(result.data).toEqual({ mine: { label: 'HQ — Zürich' }, theirs: null });
    expect(result.errors).toEqual([expect.objectContaining({ path: ['theirs'], extensions: { code: 'UNAUTHORIZED' } })]);
    expectTypeOf(result.errors[0]!).toEqualTypeOf<GraphQLErrorValue>();
    expect(() => requireData(result)).toThrow(NetgraphRequestError);
  });

  it("answers a revoked key's request with UNAUTHENTICATED, and no data", async () => {
    const created = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'to revoke' });
    const client = createClient({ url: app.url, apiKey: created.key });
    expect((await client.request(Device, { uuid: IDS.acmeAp })).status).toBe(200);
    await app.server.services.apiKeys.revoke(created.id);
    const result = await client.request(Device, { uuid: IDS.acmeAp });
    expect(result).toEqual({
      data: null,
      status: 401,
      cost: undefined,
      errors: [{ message: 'Unauthorized. Please include your API credentials', extensions: { code: 'UNAUTHENTICATED', status: 401 } }],
    });
  });

  it('pages through the event log to its end, each event once', async () => {
    const now = Date.now();
    const reports = Array.from({ length: 23 }, (_, i) => fullReport(SERIALS.acmeAp, now - (30 - i) * 60_000, i + 1));
    expect((await postReports(app, await createScopedKey(app, 'ingest'), reports)).status).toBe(200);
    const client = createClient({ url: app.url, apiKey: await app.createKey('acme') });
    const all = requireData(await client.request(Events, { network: IDS.acmeHq, limit: 100 })).recentEventLogEventsPage!;
    expect(all.total).toBeGreaterThanOrEqual(23);
    const paged = [];
    const pages: number[] = [];
    const counting = createClient({ url: app.url, apiKey: await app.createKey('acme'), onWait: () => undefined, fetch: (input, init) => (pages.push(1), fetch(input, init)) });
    for await (const event of counting.eventLog(Events, { network: IDS.acmeHq, limit: 5 })) {
      expectTypeOf(event).toEqualTypeOf<{ eventTypeAPIName: string; generatedAt: string; details: string | null }>();
      paged.push(event);
    }
    expect(paged).toEqual(all.events);
    expect(pages).toHaveLength(Math.ceil(all.total / 5));
    // a document that cannot page says so before it sends anything
    const NoOffset = graphql(`query NoOffset($network: UUID!, $limit: Int!) { recentEventLogEventsPage(networkUUID: $network, limit: $limit) { total events { eventTypeAPIName } } }`);
    await expect(counting.eventLog(NoOffset, { network: IDS.acmeHq }).next()).rejects.toThrow('a paged document must declare $offset');
    // a page with errors ends the iteration with them
    const other = counting.eventLog(Events, { network: IDS.globexHq });
    await expect(other.next()).rejects.toSatisfy((error: NetgraphRequestError) => error.has('UNAUTHORIZED'));
  });

  it('pages through the change feed to its end, each change once, and on from a cursor', async () => {
    const client = createClient({ url: app.url, apiKey: await app.createKey('acme') });
    await settled(app);
    const all = requireData(await client.request(Changes, { after: null, limit: 1000 })).changes!;
    expect(all.hasMore).toBe(false);
    expect(all.changes.length).toBeGreaterThan(10);
    const pages: number[] = [];
    const counting = createClient({ url: app.url, apiKey: await app.createKey('acme'), fetch: (input, init) => (pages.push(1), fetch(input, init)) });
    const paged = [];
    for await (const change of counting.changes(Changes, { after: null, limit: 4 })) {
      expectTypeOf(change.kind).toEqualTypeOf<'CREATED' | 'UPDATED' | 'DELETED' | 'ONLINE' | 'OFFLINE'>();
      paged.push(change);
    }
    expect(paged).toEqual(all.changes);
    expect(pages).toHaveLength(Math.ceil(all.changes.length / 4));
    // on from the fifth change: the rest, and nothing else
    const rest = [];
    for await (const change of client.changes(Changes, { after: all.changes[4]!.cursor, limit: 100 })) rest.push(change);
    expect(rest).toEqual(all.changes.slice(5));
    const NoAfter = graphql(`query NoAfter { changes { changes { cursor } endCursor hasMore } }`);
    await expect(client.changes(NoAfter, {}).next()).rejects.toThrow('a paged document must declare $after');
  });
});

describe('the typed client and the limits', () => {
  let app: TestApp;
  beforeAll(async () => {
    // a tiny request window and budget, on the real clock
    app = await startTestApp('sqlite', {
      data: createFixture(),
      env: { RATE_LIMIT_REQUESTS: '4', RATE_LIMIT_WINDOW_SECONDS: '2', COMPLEXITY_LIMIT: '40', COMPLEXITY_BUDGET: '40', COMPLEXITY_REFILL_SECONDS: '2' },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("waits out the request limit's 429 as Retry-After says", async () => {
    const watched = watchedFetch();
    const waits: WaitEvent[] = [];
    const client = createClient({ url: app.url, apiKey: await app.createKey('acme'), fetch: watched.fetch, pace: false, onWait: (w) => waits.push(w) });
    for (let i = 0; i < 6; i++) expect((await client.request(Device, { uuid: IDS.acmeAp })).status).toBe(200);
    expect(watched.statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(waits.filter((w) => w.reason === 'rate-limit').length).toBe(watched.statuses.filter((s) => s === 429).length);
    // Retry-After is a date rounded up to the second, at most the 2 s window away
    for (const wait of waits) expect(wait.ms).toBeLessThanOrEqual(3_000);
  });

  it("waits out THROTTLED's 429 as Retry-After says, and a mutation sent again after it runs once", async () => {
    const watched = watchedFetch();
    const waits: WaitEvent[] = [];
    const apiKey = await createScopedKey(app, 'read_write');
    const client = createClient({ url: app.url, apiKey, fetch: watched.fetch, pace: false, onWait: (w) => waits.push(w) });
    const before = (await app.server.services.audit.list({ companySlug: 'acme' })).filter((e) => e.objectId === IDS.acmeVlan).length;
    expect((await client.request(SEVEN_DEVICES, { uuid: IDS.acmeAp })).cost).toMatchObject({ requested: 28, actual: 28 });
    // takes the budget well below zero, past the client: an operation of the whole limit (40), sent until it runs (an
    // operation runs while the budget holds a point), leaves at most 1 - 40 points, 2 s at 20 a second from admitting again
    const drain = `{ ${'abcdefghij'.split('').map((alias) => `${alias}: virtualDevice(UUID: "${IDS.acmeAp}") { UUID label isOnline }`).join(' ')} }`;
    const drainBudget = async () => {
      while ((await app.graphql(drain, { key: apiKey })).status === 429) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    await drainBudget();
    // below one point: a 429 with Retry-After, waited out, then it runs
    const result = await client.request(SEVEN_DEVICES, { uuid: IDS.acmeAp });
    expect(result.status).toBe(200);
    expect(watched.statuses.slice(-2)).toEqual([429, 200]);
    expect(waits.map((w) => w.reason)).toContain('throttled');
    // a mutation throttled did not run, so the client sends it again, and it runs once
    await drainBudget();
    const renamed = await client.request(RenameVlanFully, { vlan: IDS.acmeVlan, name: 'Guest 2' });
    expect(watched.statuses.slice(-2)).toEqual([429, 200]);
    expect(renamed.errors).toEqual([]);
    expect(renamed.data?.updateVLAN?.vlan?.name).toBe('Guest 2');
    expect((await app.server.services.audit.list({ companySlug: 'acme' })).filter((e) => e.objectId === IDS.acmeVlan)).toHaveLength(before + 1);
  });

  it('never sees a 429 when it paces from the headers, looping over both limits', async () => {
    const watched = watchedFetch();
    const waits: WaitEvent[] = [];
    const client = createClient({ url: app.url, apiKey: await app.createKey('acme'), fetch: watched.fetch, onWait: (w) => waits.push(w) });
    for (let i = 0; i < 10; i++) {
      const result = i % 2 === 0 ? await client.request(SEVEN_DEVICES, { uuid: IDS.acmeAp }) : await client.request(Device, { uuid: IDS.acmeAp });
      expect(result.status).toBe(200);
    }
    expect(watched.statuses).toEqual(Array(10).fill(200));
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((w) => w.reason === 'pace')).toBe(true);
  });

  it("waits only until the budget holds one point, as the server admits, not for a document's whole cost, and sees no 429", async () => {
    const watched = watchedFetch();
    const waits: WaitEvent[] = [];
    const client = createClient({ url: app.url, apiKey: await app.createKey('acme'), fetch: watched.fetch, onWait: (w) => waits.push(w) });
    for (let i = 0; i < 6; i++) expect((await client.request(SEVEN_DEVICES, { uuid: IDS.acmeAp })).status).toBe(200);
    expect(watched.statuses).toEqual(Array(6).fill(200));
    expect(waits.every((w) => w.reason === 'pace')).toBe(true);
    // 6 operations of 28 points from a full budget of 40 at 20 points a second: the server admits the sixth once five
    // were taken and it holds one point again, after (5 × 28 - 39) / 20 = 5.05 s of refill (less the refill during the
    // requests themselves). Waiting for each document's whole 28 points instead would wait (5 × 28 - 40 + 28) / 20 = 6.4 s.
    const paced = waits.reduce((sum, w) => sum + w.ms, 0);
    expect(paced).toBeLessThanOrEqual(5_050 + 50);
    expect(paced).toBeGreaterThan(0);
  });
});

describe('the typed client and failures between it and the server', () => {
  let app: TestApp;
  let proxy: http.Server;
  let proxyUrl: string;
  // what the proxy does with the next requests: answer 503, drop the connection, or pass them on
  let plan: ('503' | 'drop' | 'pass')[] = [];
  let seen = 0;
  beforeAll(async () => {
    app = await startTestApp('sqlite', { data: createFixture() });
    const target = new URL(app.url);
    proxy = http.createServer((req, res) => {
      seen += 1;
      const step = plan.shift() ?? 'pass';
      if (step === 'drop') {
        req.socket.destroy();
        return;
      }
      if (step === '503') {
        res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>503 Service Unavailable</h1>');
        return;
      }
      const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await app?.close();
  });

  const quick = { retries: 3, baseDelayMs: 10, maxDelayMs: 50 };

  it('retries a query after a 503 and a dropped connection, with backoff', async () => {
    const waits: WaitEvent[] = [];
    const client = createClient({ url: proxyUrl, apiKey: await app.createKey('acme'), retry: quick, onWait: (w) => waits.push(w) });
    plan = ['503', 'drop'];
    seen = 0;
    const result = await client.request(Device, { uuid: IDS.acmeAp });
    expect(result.data?.virtualDevice?.UUID).toBe(IDS.acmeAp);
    expect(seen).toBe(3);
    expect(waits.map((w) => w.reason)).toEqual(['retry', 'retry']);
  });

  it('gives up after its retries: the last 503 as a value, no answer as NetgraphNetworkError', async () => {
    const client = createClient({ url: proxyUrl, apiKey: await app.createKey('acme'), retry: quick });
    plan = ['503', '503', '503', '503'];
    const result = await client.request(Device, { uuid: IDS.acmeAp });
    expect(result).toMatchObject({ status: 503, data: null, errors: [{ extensions: { code: 'HTTP_ERROR', status: 503 } }] });
    plan = ['drop', 'drop', 'drop', 'drop'];
    await expect(client.request(Device, { uuid: IDS.acmeAp })).rejects.toSatisfy((error: NetgraphNetworkError) => error instanceof NetgraphNetworkError && error.attempts === 4);
  });

  it('never retries a mutation unless asked: it may have run', async () => {
    const key = await createScopedKey(app, 'read_write');
    const client = createClient({ url: proxyUrl, apiKey: key, retry: quick });
    plan = ['503'];
    seen = 0;
    expect((await client.request(RenameVlan, { vlan: IDS.acmeVlan, name: 'Once' })).status).toBe(503);
    plan = ['drop'];
    await expect(client.request(RenameVlan, { vlan: IDS.acmeVlan, name: 'Once' })).rejects.toBeInstanceOf(NetgraphNetworkError);
    expect(seen).toBe(2);
    // asked, per request or per client, it does
    plan = ['503'];
    expect((await client.request(RenameVlan, { vlan: IDS.acmeVlan, name: 'Twice' }, { retry: true })).data?.updateVLAN?.vlan?.name).toBe('Twice');
    plan = ['drop'];
    const retrying = createClient({ url: proxyUrl, apiKey: key, retry: quick, retryMutations: true });
    expect((await retrying.request(RenameVlan, { vlan: IDS.acmeVlan, name: 'Thrice' })).data?.updateVLAN?.vlan?.name).toBe('Thrice');
    expect(seen).toBe(6);
  });
});
