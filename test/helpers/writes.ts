import type { TestApp, TestResponse } from './app.js';

/** Creates a read_write key for a company and returns its value. */
export async function createWriteKey(app: TestApp, company = 'acme', label = 'writer'): Promise<string> {
  return (await app.server.services.apiKeys.create({ companySlug: company, label, scope: 'read_write' })).key;
}

/** Everything of a company in the import format: compare before and after to prove nothing changed. */
export async function snapshotOf(app: TestApp, company = 'acme'): Promise<unknown> {
  return app.server.services.imports.export(company);
}

/** The audit log of a company, oldest first. */
export async function auditOf(app: TestApp, company = 'acme') {
  return app.server.services.audit.list({ companySlug: company });
}

/** The one error of a response, as [path, code, field] for compact assertions. */
export function errorOf(res: TestResponse): [unknown, unknown, unknown] {
  const [error] = res.body.errors ?? [];
  return [error?.path, error?.extensions?.code, error?.extensions?.field];
}
