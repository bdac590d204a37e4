import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../src/features/api-key/api-key.token.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp, TestResponse } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { postReports, report } from './helpers/reports.js';
import { runNetgraph } from './helpers/cli.js';
import { storeKinds } from './helpers/stores.js';

const READ = '{ companyBySlug(slug: "acme") { slug } }';
const MUTATION = 'mutation { createNetwork(input: { label: "Lifetime", slug: "lifetime" }) { network { slug } } }';
/** Headers that differ between any two answers. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

/** Everything a client sees of an answer but what differs per response: status, headers, body. */
function seen(response: TestResponse): { status: number; headers: Record<string, string>; text: string } {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !PER_RESPONSE.has(name)));
  return { status: response.status, headers, text: response.text };
}

/** The requests every path that takes a key answers: the bare GraphQL endpoint, Fastify's route (a query string sends it there), reports. */
function paths(app: TestApp, key: string, headers: Record<string, string> = {}) {
  const graphql = (path: string, query: string) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, body: JSON.stringify({ query }) });
  return {
    read: () => graphql('/api/v1/graphql', READ),
    typename: () => graphql('/api/v1/graphql', '{ __typename }'),
    routeRead: () => graphql('/api/v1/graphql?via=route', READ),
    mutation: () => graphql('/api/v1/graphql', MUTATION),
    reports: () => postReports(app, key, [report('Q2XX-AAAA-0001', new Date().toISOString())], { headers }),
  };
}

/** Each path's answer, in the order of paths(). */
async function answers(app: TestApp, key: string, headers: Record<string, string> = {}): Promise<Record<keyof ReturnType<typeof paths>, ReturnType<typeof seen>>> {
  const requests = paths(app, key, headers);
  const result: Partial<Record<keyof typeof requests, ReturnType<typeof seen>>> = {};
  for (const name of Object.keys(requests) as (keyof typeof requests)[]) result[name] = seen(await requests[name]());
  return result as Record<keyof typeof requests, ReturnType<typeof seen>>;
}

describe.each(storeKinds())('API key expiry on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A key of each scope the paths need, created with `terms`. */
  const create = (label: string, scope: 'read_write' | 'ingest', terms: { expires?: string; allow?: string[] } = {}) =>
    app.server.services.apiKeys.create({ companySlug: 'acme', label, scope, ...terms });
  /** Moves a key's expiry into the past, as time would. */
  const expire = (id: string) =>
    app.server.store.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1_000).toISOString() }).where('uuid', '=', id).execute();

  it('takes a lifetime or a date and lists it', async () => {
    const before = Date.now();
    const created = await create('ninety days', 'read_write', { expires: '90d' });
    const expiresAt = Date.parse(created.expiresAt as string);
    expect(expiresAt - before).toBeGreaterThanOrEqual(90 * 86_400_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(90 * 86_400_000);
    expect((await create('twelve hours', 'read_write', { expires: '12h' })).expiresAt).toMatch(/Z$/);
    expect((await create('dated', 'read_write', { expires: '2030-01-31' })).expiresAt).toBe('2030-01-31T00:00:00.000Z');
    expect((await create('timed', 'read_write', { expires: '2030-01-31T12:00:00+02:00' })).expiresAt).toBe('2030-01-31T10:00:00.000Z');
    expect((await app.server.services.apiKeys.get(created.id)).expiresAt).toBe(created.expiresAt);
    expect((await create('forever', 'read_write')).expiresAt).toBeNull();
  });

  it('refuses an expiry that is no lifetime or date, past, or more than ten years ahead', async () => {
    for (const expires of ['90', '90w', 'tomorrow', '2030-02-30', '2020-01-01', '3651d', '0h']) {
      await expect(create('bad', 'read_write', { expires })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'expires' } });
    }
  });

  it('an expired key answers exactly like a revoked one on every path, cached or not', async () => {
    const [expiring, expiringIngest, revoked, revokedIngest] = await Promise.all([
      create('expiring', 'read_write', { expires: '1h' }),
      create('expiring ingest', 'ingest', { expires: '1h' }),
      create('revoked', 'read_write'),
      create('revoked ingest', 'ingest'),
    ]);
    // before its expiry it works, and is cached by the server
    expect((await paths(app, expiring.key).read()).status).toBe(200);
    expect((await paths(app, expiringIngest.key).reports()).status).toBe(200);
    await Promise.all([expire(expiring.id), expire(expiringIngest.id)]);
    await app.server.services.apiKeys.revoke(revoked.id);
    await app.server.services.apiKeys.revoke(revokedIngest.id);

    const expiredAnswers = { ...(await answers(app, expiring.key)), reports: (await answers(app, expiringIngest.key)).reports };
    const revokedAnswers = { ...(await answers(app, revoked.key)), reports: (await answers(app, revokedIngest.key)).reports };
    const unknownAnswers = await answers(app, generateKey().key);
    expect(expiredAnswers).toEqual(revokedAnswers);
    expect(expiredAnswers).toEqual(unknownAnswers);
    for (const answer of Object.values(expiredAnswers)) {
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text)).toEqual({ id: 'unauthorized', status: 401, title: 'Unauthorized. Please include your API credentials' });
    }
  });

  it('a key expiring later works on every path', async () => {
    const key = await create('later', 'read_write', { expires: '30d' });
    const ingest = await create('later ingest', 'ingest', { expires: '30d' });
    const ok = paths(app, key.key);
    expect((await ok.read()).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    expect((await ok.routeRead()).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    expect((await ok.mutation()).body).toEqual({ data: { createNetwork: { network: { slug: 'lifetime' } } } });
    expect((await paths(app, ingest.key).reports()).status).toBe(200);
  });
});

describe.each(storeKinds())('API key allowlists on %s', (kind) => {
  let app: TestApp;
  let direct: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), env: { TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await app?.close();
    await direct?.close();
  });

  const create = (on: TestApp, label: string, scope: 'read_write' | 'ingest', allow: string[]) =>
    on.server.services.apiKeys.create({ companySlug: 'acme', label, scope, allow });
  const from = (address: string) => ({ 'x-forwarded-for': `${address}, 198.51.100.9` });

  it('canonicalises prefixes and bare addresses, and refuses anything else naming the entry', async () => {
    const key = await create(app, 'canonical', 'read_write', ['10.0.0.0/8', ' 192.0.2.7 ', '2001:DB8:0:0::/32', '::1', '10.0.0.0/8']);
    expect(key.allowedAddresses).toEqual(['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32', '::1/128']);
    expect((await app.server.services.apiKeys.get(key.id)).allowedAddresses).toEqual(key.allowedAddresses);
    for (const entry of ['10.0.0.1/8', '10.0.0.0/33', 'example.com', '10.0.0/8', 'fe80::1%eth0', '']) {
      await expect(create(app, 'bad', 'read_write', [entry])).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'allow' }, message: expect.stringContaining(`"${entry}"`) });
    }
  });

  it('behind a trusted proxy: admits X-Forwarded-For inside the list, refuses outside exactly like an unknown key, on every path', async () => {
    const v4 = await create(app, 'v4', 'read_write', ['10.0.0.0/8']);
    const v6 = await create(app, 'v6', 'read_write', ['2001:db8::/32']);
    const ingest = await create(app, 'ingest v4', 'ingest', ['10.0.0.0/8']);
    const inside = paths(app, v4.key, from('10.20.30.40'));
    expect((await inside.read()).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    expect((await inside.routeRead()).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    expect((await paths(app, v6.key, from('2001:db8:1::5')).read()).status).toBe(200);
    expect((await paths(app, ingest.key, from('10.0.0.1')).reports()).status).toBe(200);

    const unknown = await answers(app, generateKey().key, from('192.0.2.1'));
    const outside = { ...(await answers(app, v4.key, from('192.0.2.1'))), reports: (await answers(app, ingest.key, from('192.0.2.1'))).reports };
    expect(outside).toEqual(unknown);
    expect(outside.read.status).toBe(401);
    // the next proxy's address (the right-most) is not the client's; IPv6 outside the prefix; no header: the peer, 127.0.0.1
    expect((await paths(app, v4.key, { 'x-forwarded-for': '192.0.2.1, 10.0.0.1' }).read()).status).toBe(401);
    expect((await paths(app, v6.key, from('2001:db9::1')).read()).status).toBe(401);
    expect((await paths(app, v4.key).read()).status).toBe(401);
    // still admitted from inside after refusals: a refusal does not drop the key
    expect((await inside.read()).status).toBe(200);
  });

  it('a direct connection from 127.0.0.1 counts as that address; an allowlist change applies at once in the process', async () => {
    const local = await create(app, 'local', 'read_write', ['127.0.0.1']);
    expect((await paths(app, local.key).read()).status).toBe(200);
    await app.server.services.apiKeys.setAllowlist(local.id, ['10.0.0.0/8']);
    expect((await paths(app, local.key).read()).status).toBe(401);
    await app.server.services.apiKeys.setAllowlist(local.id, []);
    expect((await paths(app, local.key, from('192.0.2.1')).read()).status).toBe(200);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: the peer address decides', async () => {
    direct = await startTestApp(kind, { data: createFixture() });
    const spoofed = await create(direct, 'spoofed', 'read_write', ['10.0.0.0/8']);
    const local = await create(direct, 'local', 'read_write', ['127.0.0.0/8', '::1']);
    expect((await paths(direct, spoofed.key, from('10.0.0.1')).read()).status).toBe(401);
    expect((await paths(direct, local.key, from('192.0.2.1')).read()).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    // the last use is recorded with the address it came from
    await direct.server.services.apiKeys.flushLastUsed();
    expect((await direct.server.services.apiKeys.get(local.id)).lastUsedAddress).toBe('127.0.0.1');
  });
});

describe.each(storeKinds())('API key rotation and the keys commands on %s', (kind) => {
  let app: TestApp;
  const env = () => ({ DATABASE_URL: app.database.url });
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('`keys rotate` makes a successor with the same terms; the old key works during the overlap, then answers like a revoked one', async () => {
    const old = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'rotating', scope: 'read_write', expires: '90d', allow: ['127.0.0.1', '::1'] });
    const oldPaths = paths(app, old.key);
    // used, so the server holds it in its cache
    expect((await oldPaths.read()).status).toBe(200);
    const rotatedAt = Date.now();
    const result = await runNetgraph(['keys', 'rotate', old.id, '--overlap', '4s', '--json'], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as { key: string; id: string; label: string; scope: string; expiresAt: string; allowedAddresses: string[]; rotated: { id: string; expiresAt: string } };
    expect(output).toMatchObject({ label: 'rotating', scope: 'read_write', allowedAddresses: ['127.0.0.1/32', '::1/128'], rotated: { id: old.id } });
    // the same lifetime, from the rotation
    const lifetime = Date.parse(old.expiresAt as string) - Date.parse(old.createdAt);
    expect(Date.parse(output.expiresAt) - rotatedAt).toBeGreaterThanOrEqual(lifetime - 5_000);
    expect(Date.parse(output.expiresAt) - Date.now()).toBeLessThanOrEqual(lifetime);
    expect(Date.parse(output.rotated.expiresAt) - rotatedAt).toBeLessThanOrEqual(4_000 + 5_000);

    const successor = paths(app, output.key);
    expect((await successor.read()).body).toEqual({ data: { companyBySlug: { slug: 'acme' } } });
    // within the overlap (the CLI takes about a second to start)
    expect((await oldPaths.read()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(output.rotated.expiresAt) - Date.now()) + 50));
    const revoked = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'revoked', scope: 'read_write' });
    await app.server.services.apiKeys.revoke(revoked.id);
    const expired = await answers(app, old.key);
    expect({ read: expired.read, typename: expired.typename, routeRead: expired.routeRead, mutation: expired.mutation }).toEqual(
      await answers(app, revoked.key).then(({ reports: _reports, ...graphql }) => graphql),
    );
    expect(expired.read.status).toBe(401);
    expect((await successor.mutation()).status).toBe(200);

    // audit-logged like creation and revocation, never with the value
    const acme = await app.server.services.companies.getBySlug('acme');
    const { entries } = await app.server.services.audit.newestPage(acme.id, { limit: 10 });
    const rotate = entries.find((e) => e.action === 'api_key.rotate');
    expect(rotate).toMatchObject({ objectId: old.id, actor: { type: 'cli' }, after: { successor: output.id, expiresAt: output.rotated.expiresAt } });
    expect(entries.find((e) => e.action === 'api_key.create' && e.objectId === output.id)).toMatchObject({ after: { rotatedFrom: old.id, label: 'rotating' } });
    expect(JSON.stringify(entries)).not.toContain(output.key.slice(10));
  });

  it('refuses to rotate a revoked key, and names a bad overlap', async () => {
    const key = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'gone' });
    await app.server.services.apiKeys.revoke(key.id);
    const revoked = await runNetgraph(['keys', 'rotate', key.id], env());
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toBe(`netgraph keys rotate: API key "gone" (${key.id}) is revoked: rotate a key that still works, or create a new one.\n`);
    const overlap = await runNetgraph(['keys', 'rotate', key.id, '--overlap', 'soon'], env());
    expect(overlap.stderr).toBe('netgraph keys rotate: --overlap must be a duration like 30m, 24h or 7d (at most 30d), not "soon"\n');
  });

  it('`keys create --expires --allow`, `keys allow` and `keys list` with its warning and last use', async () => {
    const created = await runNetgraph(['keys', 'create', '--company', 'acme', '--label', 'cli-bounded', '--expires', '72h', '--allow', '127.0.0.1', '--allow', '2001:db8::/32'], env());
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created API key "cli-bounded" \(id [0-9a-f-]{36}, scope read\) for acme\. It expires \d{4}-\d\d-\d\dT[\d:.]+Z and is allowed from 127\.0\.0\.1\/32, 2001:db8::\/32\.\n\n {2}ngk_/);
    const key = /\n {2}(ngk_\S+)\n/.exec(created.stdout)?.[1] as string;
    const id = /\(id ([0-9a-f-]{36})/.exec(created.stdout)?.[1] as string;
    expect((await paths(app, key).read()).status).toBe(200);
    await app.server.services.apiKeys.flushLastUsed();
    const table = await runNetgraph(['keys', 'list', '--company', 'acme'], env());
    expect(table.stdout).toMatch(/^ID\s+LABEL\s+KEY\s+SCOPE\s+CREATED\s+EXPIRES\s+ALLOWED FROM\s+LAST USED\s+STATUS/);
    expect(table.stdout).toMatch(/cli-bounded .* 127\.0\.0\.1\/32 2001:db8::\/32 +\S+Z from 127\.0\.0\.1 +EXPIRES SOON \(\S+Z\)\n/);

    const bad = await runNetgraph(['keys', 'create', '--company', 'acme', '--label', 'x', '--allow', '10.0.0.1/8'], env());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('netgraph keys create: allow: "10.0.0.1/8" is not an IPv4 or IPv6 address or CIDR prefix');
    const changed = await runNetgraph(['keys', 'allow', id, '--allow', '10.0.0.0/8', '--json'], env());
    expect(JSON.parse(changed.stdout)).toMatchObject({ id, allowedAddresses: ['10.0.0.0/8'] });
    const cleared = await runNetgraph(['keys', 'allow', id, '--any'], env());
    expect(cleared.stdout).toBe(`netgraph keys allow: "cli-bounded" (${id}) is now accepted from any address; other addresses get 401.\n`);
    expect((await runNetgraph(['keys', 'allow', id], env())).stderr).toContain('give the new allowlist with --allow CIDR');
  });
});
