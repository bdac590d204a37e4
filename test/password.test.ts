import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createDashboardClient, signIn } from './helpers/dashboard.js';
import type { DashboardClient } from './helpers/dashboard.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

const PATH = '/settings/account/password';
const OLD = 'correct horse battery';
const NEW = 'staple battery horse correct';

describe.each(storeKinds())('Settings > Account > Password on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    await app.server.services.users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: OLD });
    await app.server.services.users.create({ companySlug: 'acme', email: 'other@acme.example', role: 'member', password: OLD });
  });
  afterAll(async () => {
    await app?.close();
  });

  const signedIn = async (email: string, password = OLD): Promise<DashboardClient> => {
    const client = createDashboardClient(app);
    expect((await signIn(client, email, password)).status).toBe(303);
    return client;
  };
  const change = async (client: DashboardClient, fields: { current: string; next: string; confirm: string }) => {
    await client.get(PATH);
    return client.post(PATH, fields);
  };

  it('is in Settings for every user, with password inputs the browser can fill', async () => {
    const client = await signedIn('other@acme.example');
    const page = await client.get(PATH);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a href="${PATH}" aria-current="page">Password</a>`);
    expect(page.text).toMatch(/<input type="password" name="current" id="password-current" value="" autocomplete="current-password"/);
    expect(page.text).toMatch(/<input type="password" name="next" id="password-next" value="" autocomplete="new-password"/);
    expect((await client.get('/settings/integrations/api-keys')).text).toContain(`href="${PATH}"`);
  });

  it.each([
    ['a wrong current password', { current: 'not the password', next: NEW, confirm: NEW }, 'The current password is wrong.'],
    ['two different new passwords', { current: OLD, next: NEW, confirm: `${NEW}!` }, 'The two new passwords differ: type the same one twice.'],
    ['a new password that is too short', { current: OLD, next: 'short', confirm: 'short' }, 'The new password is not accepted: the password must be at least 10 characters.'],
    ['the current password again', { current: OLD, next: OLD, confirm: OLD }, 'The new password is the current one: choose another.'],
  ])('refuses %s next to its field, shows nothing typed and changes nothing', async (_name, fields, message) => {
    const client = await signedIn('other@acme.example');
    const res = await change(client, fields);
    expect(res.status).toBe(400);
    expect(res.text).toContain(`<span class="field-error"`);
    expect(res.text).toContain(message);
    for (const typed of new Set(Object.values(fields))) expect(res.text).not.toContain(`value="${typed}"`);
    expect((await client.get('/networks')).status).toBe(200);
    await signedIn('other@acme.example', OLD);
  });

  it('changes it: this session goes on, every other session ends, only the new password signs in, and it is audited', async () => {
    const here = await signedIn('member@acme.example');
    const elsewhere = await signedIn('member@acme.example');
    const oldCookie = here.cookies.get('netgraph_session');
    const res = await change(here, { current: OLD, next: NEW, confirm: NEW });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${PATH}?changed=1`);
    expect(here.cookies.get('netgraph_session')).not.toBe(oldCookie);
    const after = await here.get(`${PATH}?changed=1`);
    expect(after.status).toBe(200);
    expect(after.text).toContain('Password changed. Every other session of this account was signed out.');

    const signedOut = await elsewhere.get('/networks');
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get('location')).toMatch(/^\/sign-in/);
    expect((await signIn(createDashboardClient(app), 'member@acme.example', OLD)).status).toBe(401);
    await signedIn('member@acme.example', NEW);

    const [entry] = (await app.server.services.audit.list({ companySlug: 'acme' })).slice(-1);
    expect(entry).toMatchObject({ action: 'user.password_change', objectType: 'user', actor: { type: 'user', label: 'member@acme.example' }, before: null, after: null });
    expect(JSON.stringify(entry)).not.toContain(NEW);
  });
});
