import type { TestApp, TestResponse } from './app.js';

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
