import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { databaseUrl, withClient } from './postgres.js';

/** Where the PostgreSQL half of the suite runs; each test file makes its own schema in it. */
export const DEFAULT_TEST_DATABASE_URL = `postgres://${encodeURIComponent(os.userInfo().username)}@127.0.0.1:5432/postgres`;

/** Where the Redis half of the limit tests runs; each test uses a key prefix of its own. */
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
    redisUrl: string | null;
    /** Migrated databases to copy (test/helpers/stores.ts): a SQLite file, and a PostgreSQL database on postgresUrl's server, with the names of its copies. */
    migratedTemplates: { sqliteFile: string; postgresDatabase: string | null; postgresCopyPrefix: string };
  }
}

/**
 * Decides once per run whether the PostgreSQL half runs: it does when
 * TEST_DATABASE_URL (or the local default) answers. In CI (CI=true) a missing
 * server fails the run; locally the half is skipped with a one-line notice.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await setupPostgres(project);
  await setupRedis(project);
  return setupTemplates(project);
}

/**
 * Prepares one database of each store for the whole run, as a server leaves
 * it on its first start (migrated; on PostgreSQL, the day partitions of the
 * raw series and the request log made), so a test app starts on a copy of it
 * instead of doing all that again: about 3 seconds a PostgreSQL schema, a
 * tenth of one a SQLite file, against a file copy or a CREATE DATABASE ...
 * TEMPLATE. Tests of the migrations themselves start from empty databases,
 * as before. The teardown drops the template and any copy a failed test file
 * left behind.
 */
async function setupTemplates(project: TestProject): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-template-'));
  const sqliteFile = path.join(dir, 'netgraph.db');
  await startedOnce(`sqlite:${sqliteFile}`);
  const base = project.getProvidedContext().postgresUrl;
  const run = randomBytes(4).toString('hex');
  const postgresCopyPrefix = `netgraph_test_${run}_`;
  const postgresDatabase = base ? `netgraph_template_${run}` : null;
  if (base && postgresDatabase) {
    await withClient(base, (client) => client.query(`CREATE DATABASE ${postgresDatabase}`));
    // closed before any copy: PostgreSQL copies a template only while nobody is connected to it
    await startedOnce(databaseUrl(base, postgresDatabase));
  }
  project.provide('migratedTemplates', { sqliteFile, postgresDatabase, postgresCopyPrefix });
  return async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (!base || !postgresDatabase) return;
    await withClient(base, async (client) => {
      const left = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`, [`${postgresCopyPrefix}%`, postgresDatabase]);
      for (const { datname } of left.rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    });
  };
}

/** Starts a server on the database (as test/helpers/app.ts does, without background work) and stops it once it is prepared. */
async function startedOnce(url: string): Promise<void> {
  const server = await startServer(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', PORT: '0', DEMO_DATA: 'off' }), () => undefined, { backgroundWork: false });
  try {
    await server.prepared;
  } finally {
    await server.close();
  }
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
