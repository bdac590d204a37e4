import net from 'node:net';
import os from 'node:os';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

/** Where the PostgreSQL half of the suite runs; each test file makes its own schema in it. */
export const DEFAULT_TEST_DATABASE_URL = `postgres://${encodeURIComponent(os.userInfo().username)}@127.0.0.1:5432/postgres`;

/** Where the Redis half of the limit tests runs; each test uses a key prefix of its own. */
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
    redisUrl: string | null;
  }
}

/**
 * Decides once per run whether the PostgreSQL half runs: it does when
 * TEST_DATABASE_URL (or the local default) answers. In CI (CI=true) a missing
 * server fails the run; locally the half is skipped with a one-line notice.
 */
export default async function setup(project: TestProject): Promise<void> {
  await setupPostgres(project);
  await setupRedis(project);
}

async function setupPostgres(project: TestProject): Promise<void> {
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

/**
 * Decides whether the shared-limit (Redis) tests run: they do when
 * TEST_REDIS_URL (or the local default) answers PING. Same rule as PostgreSQL:
 * required with CI=true, skipped with a notice otherwise.
 */
async function setupRedis(project: TestProject): Promise<void> {
  const url = process.env.TEST_REDIS_URL || DEFAULT_TEST_REDIS_URL;
  try {
    await pingRedis(url);
    project.provide('redisUrl', url);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI === 'true') {
      throw new Error(`CI=true requires Redis for the test suite, but ${redact(url)} did not answer: ${reason}`);
    }
    console.warn(`notice: Redis at ${redact(url)} is not reachable (${reason}); the shared-limit tests are skipped. Set TEST_REDIS_URL to run them.`);
    project.provide('redisUrl', null);
  }
}

/** One PING over a plain socket: enough to know Redis answers, without a client library's reconnect loop. */
function pingRedis(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 6379) });
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(3_000, () => fail(new Error('timed out')));
    socket.once('error', fail);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      if (/^(\+PONG|-NOAUTH)/.test(data.toString())) resolve();
      else reject(new Error(`unexpected answer ${JSON.stringify(data.toString().trim())}`));
    });
  });
}

function redact(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*):[^@]*@/, '$1:***@');
}
