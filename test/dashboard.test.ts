import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { DASHBOARD_PASSWORD, createDashboardClient, signIn, signedInClient, startDashboardApp } from './helpers/dashboard.js';
import type { DashboardClient } from './helpers/dashboard.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';

const KEYS = '/settings/integrations/api-keys';

describe.each(storeKinds())('the dashboard over HTTP on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startDashboardApp(kind);
  });
  afterAll(async () => {
    await app?.close();
  });

  const freshSession = (email: string) => signedInClient(app, email);
  // a sign-in costs a deliberately slow password hash: tests that do not end their session share one per user
  const sessions = new Map<string, Promise<DashboardClient>>();
  const signedIn = (email: string) => {
    if (!sessions.has(email)) sessions.set(email, freshSession(email));
    return sessions.get(email) as Promise<DashboardClient>;
  };
  const keyCount = async (company: string) => (await app.server.services.apiKeys.list(company)).length;

  describe('signed out', () => {
    it.each(['/', '/networks', `/networks/${IDS.acmeHq}`, KEYS, '/no-such-page'])('GET %s redirects to sign-in and shows no data', async (path) => {
      const res = await createDashboardClient(app).get(path);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(/^\/sign-in(\?next=.*)?$/);
      expect(res.text).not.toContain('HQ');
    });

    it('remembers the page to return to, and only a local one', async () => {
      const res = await createDashboardClient(app).get(`/networks/${IDS.acmeHq}`);
      expect(res.headers.get('location')).toBe(`/sign-in?next=${encodeURIComponent(`/networks/${IDS.acmeHq}`)}`);
      const client = createDashboardClient(app);
      await client.get('/sign-in?next=//evil.example/x');
      const post = await client.post('/sign-in', { email: 'admin@acme.example', password: DASHBOARD_PASSWORD, next: '//evil.example/x' });
      expect(post.headers.get('location')).toBe('/networks');
    });

    it('refuses a state-changing request without a session', async () => {
      const res = await createDashboardClient(app).post(KEYS, { label: 'sneaky' }, { csrf: 'x' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/sign-in?expired=1');
    });
  });

  describe('sign-in', () => {
    it('serves the form with a pre-session CSRF cookie and strict headers', async () => {
      const res = await createDashboardClient(app).get('/sign-in');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('netgraph_csrf='));
      expect(cookie).toMatch(/; Path=\/sign-in; Max-Age=7200; HttpOnly; SameSite=Lax$/);
      expect(res.text).toContain(`name="_csrf" value="${decodeURIComponent(/^netgraph_csrf=([^;]+)/.exec(cookie ?? '')?.[1] ?? '')}"`);
    });

    it('sets an HttpOnly, SameSite=Lax session cookie that expires, without Secure unless configured', async () => {
      const client = createDashboardClient(app);
      const res = await signIn(client, 'Admin@Acme.Example', DASHBOARD_PASSWORD);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/networks');
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('netgraph_session='));
      expect(cookie).toMatch(/^netgraph_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/);
      const page = await client.get('/networks');
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
    });

    it('marks cookies Secure with COOKIE_SECURE=on and honours SESSION_TTL_MINUTES', async () => {
      const secure = await startTestApp(kind, { data: createFixture(), env: { COOKIE_SECURE: 'on', SESSION_TTL_MINUTES: '30' } });
      try {
        await secure.server.services.users.create({ companySlug: 'acme', email: 'a@acme.example', role: 'admin', password: DASHBOARD_PASSWORD });
        const client = createDashboardClient(secure);
        const form = await client.get('/sign-in');
        expect(form.headers.getSetCookie()[0]).toMatch(/; Secure$/);
        const res = await client.post('/sign-in', { email: 'a@acme.example', password: DASHBOARD_PASSWORD });
        expect(res.headers.getSetCookie().find((c) => c.startsWith('netgraph_session='))).toMatch(/; Max-Age=1800; HttpOnly; SameSite=Lax; Secure$/);
      } finally {
        await secure.close();
      }
    });

    it('shows a wrong password in the page, without a session', async () => {
      const client = createDashboardClient(app);
      await client.get('/sign-in');
      const res = await client.post('/sign-in', { email: 'member@acme.example', password: 'wrong password' });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('Wrong email or password.');
      expect(res.text).toContain('value="member@acme.example"');
      expect(client.cookies.has('netgraph_session')).toBe(false);
    });

    it('locks an account after 5 failures, even for the right password, with Retry-After', async () => {
      const client = createDashboardClient(app);
      const email = 'locked@acme.example';
      await app.server.services.users.create({ companySlug: 'acme', email, role: 'member', password: DASHBOARD_PASSWORD });
      for (let i = 0; i < 5; i++) {
        await client.get('/sign-in');
        expect((await client.post('/sign-in', { email, password: `wrong ${i}` })).status).toBe(401);
      }
      await client.get('/sign-in');
      const res = await client.post('/sign-in', { email, password: DASHBOARD_PASSWORD });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(800);
      expect(res.text).toContain('Too many failed sign-ins. Try again in 15 minutes.');
      expect(client.cookies.has('netgraph_session')).toBe(false);
    });

    it('refuses a sign-in without the form token, with a token not matching the cookie, or from another site (login CSRF)', async () => {
      const missing = createDashboardClient(app);
      await missing.get('/sign-in');
      const cases = [
        await missing.post('/sign-in', { email: 'admin@acme.example', password: DASHBOARD_PASSWORD }, { csrf: null }),
        await missing.post('/sign-in', { email: 'admin@acme.example', password: DASHBOARD_PASSWORD }, { csrf: 'forged-token-forged-token-forged' }),
        await missing.post('/sign-in', { email: 'admin@acme.example', password: DASHBOARD_PASSWORD }, { headers: { origin: 'http://evil.example' } }),
      ];
      for (const res of cases) {
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe('/sign-in?expired=1');
        expect(res.headers.getSetCookie().some((c) => c.startsWith('netgraph_session='))).toBe(false);
      }
    });

    it('reads the session cookie from a Cookie header with malformed pairs, the first of repeated names winning', async () => {
      const token = (await signedIn('member@acme.example')).cookies.get('netgraph_session') as string;
      const client = createDashboardClient(app);
      const first = await client.get('/networks', { cookie: `broken; =x; bad=%E0%A4%A; netgraph_session=${token}; netgraph_session=forged` });
      expect(first.status).toBe(200);
      const forgedFirst = await client.get('/networks', { cookie: `netgraph_session=forged; netgraph_session=${token}` });
      expect(forgedFirst.status).toBe(302);
    });

    it('signs out: the cookie is cleared and the old session no longer works, on any request', async () => {
      const client = await freshSession('member@acme.example');
      const token = client.cookies.get('netgraph_session') as string;
      await client.get('/networks');
      const res = await client.post('/sign-out', {});
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/sign-in?signed-out=1');
      expect(client.cookies.has('netgraph_session')).toBe(false);
      const stolen = createDashboardClient(app);
      stolen.cookies.set('netgraph_session', token);
      expect((await stolen.get('/networks')).status).toBe(302);
    });
  });

  describe('pages', () => {
    it('lists the networks of the user\'s company only, with device and online counts', async () => {
      const res = await (await signedIn('member@acme.example')).get('/networks');
      expect(res.status).toBe(200);
      const rows = [...res.text.matchAll(/<tr>\s*<td><a class="row-link" href="\/networks\/([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]]);
      expect(rows).toEqual([
        [IDS.acmeEmpty, 'Annex'],
        [IDS.acmeHq, 'HQ — Zürich'],
        [IDS.acmeLab, 'Lab'],
      ]);
      expect(res.text).toContain('2 of 3');
      expect(res.text).not.toContain('Globex');
    });

    it('shows a network with escaped labels, devices, connected clients, VLANs and SSIDs', async () => {
      const res = await (await signedIn('member@acme.example')).get(`/networks/${IDS.acmeHq}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('AP &quot;lobby&quot;\n2nd line');
      expect(res.text).toContain('M1A3-SW00-0001');
      expect(res.text).toContain('<time datetime="2026-11-21T17:03:00.000Z" title="2026-11-21 17:03:00 UTC">');
      expect(res.text).not.toContain('aa:bb:cc:00:00:01'); // not connected
      for (const text of ['Acme-Guest', 'Corp', 'Guest', 'Observer 🛰', 'No hardware']) expect(res.text).toContain(text);
    });

    it('answers another company\'s network, a missing one and a malformed id with the same 404 page', async () => {
      const client = await signedIn('admin@acme.example');
      const pages = [
        await client.get(`/networks/${IDS.globexHq}`),
        await client.get('/networks/99999999-9999-4999-8999-999999999999'),
        await client.get('/networks/not-a-uuid'),
      ];
      for (const res of pages) {
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.text).toContain('There is no network at this address in your company.');
        expect(res.text).not.toContain('Globex HQ');
      }
    });

    it('answers unknown browser paths with an HTML 404, and keeps JSON for scripts and /api/*', async () => {
      const client = await signedIn('admin@acme.example');
      const page = await client.get('/no-such-page');
      expect(page.status).toBe(404);
      expect(page.text).toContain('Page not found');
      const api = await client.get('/api/v2/graphql');
      expect(api.status).toBe(404);
      expect(api.body).toMatchObject({ id: 'not_found', status: 404 });
      const script = await app.request('/no-such-page');
      expect(script.body).toMatchObject({ id: 'not_found', status: 404 });
    });

    it('serves its stylesheet and script with a long cache for the versioned URL', async () => {
      const page = await (await signedIn('member@acme.example')).get('/networks');
      const css = /href="(\/assets\/app\.css\?v=[^"]+)"/.exec(page.text)?.[1] as string;
      const res = await app.request(css);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await app.request('/assets/../package.json')).status).toBe(404);
    });
  });

  describe('API keys', () => {
    it('creates a key shown once, not cached, that works on the API, and lists only its visible part', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(KEYS);
      const res = await client.post(KEYS, { label: 'http-test' });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('location')).toBeNull();
      const key = /id="new-key" class="key-value" value="(ngk_[A-Za-z0-9]+)"/.exec(res.text)?.[1] as string;
      expect(res.text).toContain('data-replace-url="/settings/integrations/api-keys"');
      expect((await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key })).status).toBe(200);
      const list = await client.get(KEYS);
      expect(list.text).toContain('http-test');
      expect(list.text).toContain(`${key.slice(0, 10)}…`);
      expect(list.text).not.toContain(key);
    });

    it('creates a key with an expiry and an allowlist, refuses bad ones in their field, and lists the last use with its address', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(KEYS);
      const badExpiry = await client.post(KEYS, { label: 'bad-expiry', expires: 'soon', allow: '' });
      expect(badExpiry.status).toBe(400);
      expect(badExpiry.text).toContain('<span class="field-error" id="expires-help">expires must be a lifetime like 12h or 90d');
      expect(badExpiry.text).toContain('value="bad-expiry"');
      const badAllow = await client.post(KEYS, { label: 'bad-allow', expires: '', allow: '10.0.0.1/8' });
      expect(badAllow.status).toBe(400);
      expect(badAllow.text).toContain('<span class="field-error" id="allow-help">allow: &quot;10.0.0.1/8&quot; is not an IPv4 or IPv6 address or CIDR prefix');
      const made = await client.post(KEYS, { label: 'bounded', expires: '2h', allow: '127.0.0.1, 10.0.0.0/8' });
      expect(made.status).toBe(200);
      const key = /id="new-key" class="key-value" value="(ngk_[A-Za-z0-9]+)"/.exec(made.text)?.[1] as string;
      expect((await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key })).status).toBe(200);
      await app.server.services.apiKeys.flushLastUsed();
      const row = /<tr data-key-id="[^"]+">\s*<td class="strong"><a href="[^"]+" data-key-page>bounded<\/a><\/td>[\s\S]*?<\/tr>/.exec((await client.get(KEYS)).text)?.[0] ?? '';
      expect(row).toContain('<td><code>127.0.0.1/32</code> <code>10.0.0.0/8</code> </td>');
      expect(row).toContain('<span data-expiry-warning><span class="badge badge-warning">Expires in 1 hour</span></span>');
      expect(row).toContain('from <code data-last-used-address>127.0.0.1</code>');
    });

    it('creates read-only keys by default and read_write keys when chosen, and lists each key\'s scope', async () => {
      const client = await signedIn('admin@acme.example');
      const form = await client.get(KEYS);
      expect(form.text).toContain('<option value="read" selected>Read only</option>');
      const keyOf = (text: string) => /id="new-key" class="key-value" value="(ngk_[A-Za-z0-9]+)"/.exec(text)?.[1] as string;
      const reader = keyOf((await client.post(KEYS, { label: 'scope-default' })).text);
      const writerPage = await client.post(KEYS, { label: 'scope-writer', scope: 'read_write' });
      expect(writerPage.text).toContain('New read and write key for');
      const writer = keyOf(writerPage.text);
      const mutation = 'mutation($slug: String!) { createNetwork(input: { label: "Scoped", slug: $slug }) { network { slug } } }';
      const refused = await app.graphql(mutation, { key: reader, variables: { slug: 'scope-by-reader' } });
      expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const done = await app.graphql(mutation, { key: writer, variables: { slug: 'scope-by-writer' } });
      expect(done.body.data?.createNetwork?.network).toEqual({ slug: 'scope-by-writer' });
      const list = (await client.get(KEYS)).text;
      expect(list).toMatch(/scope-default(?:<\/a>)?<\/td>\s*<td><code[^]*?<\/td>\s*<td><span class="badge badge-neutral">Read only<\/span>/);
      expect(list).toMatch(/scope-writer(?:<\/a>)?<\/td>\s*<td><code[^]*?<\/td>\s*<td><span class="badge badge-warning">Read and write<\/span>/);
      const bad = await client.post(KEYS, { label: 'scope-bad', scope: 'admin' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('scope must be one of read, read_write, ingest.');
      expect(bad.text).toContain('value="scope-bad"');
    });

    it('refuses a label that is empty, in the page', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(KEYS);
      const before = await keyCount('acme');
      const res = await client.post(KEYS, { label: '   ' });
      expect(res.status).toBe(400);
      expect(res.text).toContain('Enter a label of 1 to 100 characters');
      expect(await keyCount('acme')).toBe(before);
    });

    it('refuses a key creation without the session\'s CSRF token or from another site', async () => {
      const client = await signedIn('admin@acme.example');
      await client.get(KEYS);
      const before = await keyCount('acme');
      const other = await signedIn('member@acme.example');
      await other.get(KEYS);
      const refused = [
        await client.post(KEYS, { label: 'csrf-missing' }, { csrf: null }),
        await client.post(KEYS, { label: 'csrf-other-session' }, { csrf: other.csrf() }),
        await client.post(KEYS, { label: 'csrf-cross-site' }, { headers: { origin: 'http://evil.example' } }),
        await client.post(KEYS, { label: 'csrf-cross-site' }, { headers: { origin: '', 'sec-fetch-site': 'cross-site' } }),
      ];
      for (const res of refused) {
        expect(res.status).toBe(403);
        expect(res.text).toContain('This form expired or came from another site');
      }
      expect(await keyCount('acme')).toBe(before);
    });

    it('revokes a key of the company at once, and 404s for another company\'s key', async () => {
      const client = await signedIn('admin@acme.example');
      const mine = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'to revoke' });
      const theirs = await app.server.services.apiKeys.create({ companySlug: 'globex', label: 'globex key' });
      await client.get(KEYS);
      const confirm = await client.get(`${KEYS}/${mine.id}/revoke`);
      expect(confirm.text).toContain('Revoke <strong>to revoke</strong>');
      const res = await client.post(`${KEYS}/${mine.id}/revoke`, {});
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${KEYS}?revoked=${mine.id}`);
      expect((await app.graphql('{ __typename }', { key: mine.key })).status).toBe(401);
      expect((await client.get(res.headers.get('location') as string)).text).toContain('Revoked <strong>to revoke</strong>');

      const foreign = await client.post(`${KEYS}/${theirs.id}/revoke`, {});
      expect(foreign.status).toBe(404);
      expect((await client.post(`${KEYS}/not-a-uuid/revoke`, {})).status).toBe(404);
      expect((await app.graphql('{ __typename }', { key: theirs.key })).status).toBe(200);
    });

    it('lets a member see the keys but not add or revoke them', async () => {
      const key = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'member cannot touch' });
      const client = await signedIn('member@acme.example');
      const list = await client.get(KEYS);
      expect(list.status).toBe(200);
      expect(list.text).toContain('member cannot touch');
      expect(list.text).not.toContain('Add API key');
      expect(list.text).not.toContain('data-revoke');
      const before = await keyCount('acme');
      const add = await client.post(KEYS, { label: 'member key' });
      expect(add.status).toBe(403);
      expect(add.text).toContain('Only admins can add or revoke API keys.');
      expect((await client.get(`${KEYS}/${key.id}/revoke`)).status).toBe(403);
      expect((await client.post(`${KEYS}/${key.id}/revoke`, {})).status).toBe(403);
      expect(await keyCount('acme')).toBe(before);
      expect((await app.graphql('{ __typename }', { key: key.key })).status).toBe(200);
    });
  });
});

describe.each(storeKinds())('the first start on %s', (kind) => {
  it('prints the API key block as before, then a demo admin login that signs in, then that the demo network is live', async () => {
    const database = await createTestDatabase(kind);
    const lines: string[] = [];
    const server = await startServer(loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', PORT: '0', DEMO_DATA: 'on' }), (text) => lines.push(text));
    try {
      await server.prepared;
      const [keyBlock, loginBlock, liveLine] = lines;
      expect(keyBlock).toMatch(/^\nnetgraph: first start\. Loaded the demo company "Acme Networks" \(slug: acme\)\.\n\n {2}API key \(shown only this once, store it now\): ngk_\w+\n\n {2}Try it:\n {2}curl -s /);
      expect(keyBlock).toMatch(/-d '\{"query":"\{ companyBySlug\(slug: \\"acme\\"\) \{ name networks \{ label slug isActive \} \} \}"\}'\n$/);
      expect(loginBlock).toContain('Dashboard: http://127.0.0.1:');
      expect(liveLine).toMatch(/The demo network is live: .* every 30 seconds .*\n {2}Stop that with DEMO_SIMULATOR=off\.\n$/);
      const password = /Sign in as admin@acme\.example with the password (\S+) /.exec(loginBlock ?? '')?.[1] as string;
      const signedIn = await server.services.users.signIn({ email: 'admin@acme.example', password, address: '127.0.0.1' });
      expect(signedIn.user).toMatchObject({ role: 'admin', company: 'acme' });
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
