import os from 'node:os';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

/** Where the PostgreSQL half of the suite runs; each test file makes its own schema in it. */
export const DEFAULT_TEST_DATABASE_URL = `postgres://${encodeURIComponent(os.userInfo().username)}@127.0.0.1:5432/postgres`;

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
  }
}

/**
 * Decides once per run whether the PostgreSQL half runs: it does when
 * TEST_DATABASE_URL (or the local default) answers. In CI (CI=true) a missing
 * server fails the run; locally the half is skipped with a one-line notice.
 */
export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    project.provide('postgresUrl', url);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI === 'true') {
      throw new Error(`CI=true requires PostgreSQL for the test suite, but ${redact(url)} did not answer: ${reason}`);
    }
    console.warn(`notice: PostgreSQL at ${redact(url)} is not reachable (${reason}); the PostgreSQL half of the suite is skipped. Set TEST_DATABASE_URL to run it.`);
    project.provide('postgresUrl', null);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redact(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*):[^@]*@/, '$1:***@');
}
