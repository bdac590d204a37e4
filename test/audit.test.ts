import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

/** The MUST audits that send `__type` introspection, which this API rejects by design (docs/errors.md). */
const INTROSPECTION_AUDITS = ['BF61', '28B9'];

describe.each(storeKinds())('GraphQL-over-HTTP audits (graphql-http) on %s', (kind) => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    key = await app.createKey('acme', 'audits');
  });
  afterAll(async () => {
    await app?.close();
  });

  const audits = serverAudits({
    url: () => `${app.url}/api/v1/graphql`,
    fetchFn: (input: string | URL | Request, init?: RequestInit) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}` } }),
  });

  it('runs every audit', () => {
    expect(audits.length).toBeGreaterThan(50);
  });

  for (const audit of audits) {
    const must = audit.name.startsWith('MUST');
    if (INTROSPECTION_AUDITS.includes(audit.id)) {
      it(`${audit.id} ${audit.name}: fails only because introspection is rejected`, async () => {
        const result = await audit.fn();
        expect(result.status).toBe('error');
        if (result.status !== 'error') return;
        expect(result.response.status).toBe(422);
        const body = JSON.parse(await result.response.text());
        expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(body.errors[0].message).toMatch(/introspection has been disabled.*"__type"/);
      });
    } else if (must) {
      it(`${audit.id} ${audit.name}`, async () => {
        const result = await audit.fn();
        expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
      });
    }
  }
});
