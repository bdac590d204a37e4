import { expect } from 'vitest';
import { startTestApp } from './app.js';
import type { TestApp, TestResponse } from './app.js';
import { createFixture } from './fixture.js';
import type { StoreKind } from './stores.js';

/** The password of the dashboard users startDashboardApp() creates. */
export const DASHBOARD_PASSWORD = 'correct horse battery';

/** A minimal browser for black-box tests of the dashboard: a cookie jar and forms with their CSRF token. */
export interface DashboardClient {
  readonly cookies: Map<string, string>;
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  /** POSTs a urlencoded form as a browser on this site would; `csrf: null` leaves the token out. */
  post(path: string, fields: Record<string, string>, options?: { csrf?: string | null; headers?: Record<string, string> }): Promise<TestResponse>;
  /** The CSRF token of the last page that had a form. */
  csrf(): string;
}

/** A client with an empty cookie jar. Redirects are not followed, so tests see them. */
export function createDashboardClient(app: TestApp): DashboardClient {
  const cookies = new Map<string, string>();
  let lastCsrf = '';

  const remember = (res: TestResponse) => {
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (!name) continue;
      if (/max-age=0/i.test(header)) cookies.delete(name);
      else cookies.set(name, value.join('='));
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.text)?.[1];
    if (token) lastCsrf = token;
    return res;
  };
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');

  return {
    cookies,
    async get(path, headers = {}) {
      return remember(await app.request(path, { redirect: 'manual', headers: { accept: 'text/html', cookie: cookieHeader(), ...headers } }));
    },
    async post(path, fields, options = {}) {
      const body = new URLSearchParams(fields);
      const csrf = options.csrf === undefined ? lastCsrf : options.csrf;
      if (csrf !== null) body.set('_csrf', csrf);
      return remember(
        await app.request(path, {
          method: 'POST',
          redirect: 'manual',
          headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', origin: app.url, cookie: cookieHeader(), ...options.headers },
          body: body.toString(),
        }),
      );
    },
    csrf: () => lastCsrf,
  };
}

/** Signs a client in through the sign-in form; returns the POST's response (a 303 on success). */
export async function signIn(client: DashboardClient, email: string, password: string): Promise<TestResponse> {
  await client.get('/sign-in');
  return client.post('/sign-in', { email, password, next: '/networks' });
}

/**
 * An app on `kind` with the fixture and three dashboard users, each with
 * DASHBOARD_PASSWORD: acme's admin (admin@acme.example) and member
 * (member@acme.example), and globex's admin (admin@globex.example).
 */
export async function startDashboardApp(kind: StoreKind): Promise<TestApp> {
  const app = await startTestApp(kind, { data: createFixture() });
  const users = app.server.services.users;
  await users.create({ companySlug: 'acme', email: 'admin@acme.example', role: 'admin', password: DASHBOARD_PASSWORD });
  await users.create({ companySlug: 'acme', email: 'member@acme.example', role: 'member', password: DASHBOARD_PASSWORD });
  await users.create({ companySlug: 'globex', email: 'admin@globex.example', role: 'admin', password: DASHBOARD_PASSWORD });
  return app;
}

/** A new client signed in as one of startDashboardApp()'s users; the sign-in must answer 303. */
export async function signedInClient(app: TestApp, email: string): Promise<DashboardClient> {
  const client = createDashboardClient(app);
  expect((await signIn(client, email, DASHBOARD_PASSWORD)).status).toBe(303);
  return client;
}
