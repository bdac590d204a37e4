import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { databaseUrl, withClient } from './postgres.js';

export type StoreKind = 'sqlite' | 'postgres';

/** The stores this run tests: SQLite always, PostgreSQL when the global setup found it. */
export function storeKinds(): StoreKind[] {
  return inject('postgresUrl') ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** A fresh, empty database of one kind, and how to throw it away. */
export interface TestDatabase {
  readonly kind: StoreKind;
  /** A DATABASE_URL for it. */
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database: a SQLite file in a temp folder, or a fresh
 * schema in the test PostgreSQL database (selected with search_path in the
 * URL). With `migrated`, a database with every migration run instead: a copy
 * of the run's template (test/helpers/global-setup.ts), a file or a
 * PostgreSQL database of its own.
 */
export async function createTestDatabase(kind: StoreKind, { migrated = false }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-test-'));
    const file = path.join(dir, 'netgraph.db');
    if (migrated) fs.copyFileSync(inject('migratedTemplates').sqliteFile, file);
    return {
      kind,
      url: `sqlite:${file}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = inject('postgresUrl');
  if (!base) throw new Error('PostgreSQL is not available for this run');
  const { postgresDatabase, postgresCopyPrefix } = inject('migratedTemplates');
  if (migrated && postgresDatabase) {
    const name = `${postgresCopyPrefix}${randomBytes(6).toString('hex')}`;
    await withClient(base, (client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${postgresDatabase}`));
    return {
      kind,
      url: databaseUrl(base, name),
      drop: () => withClient(base, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await withClient(base, (client) => client.query(`CREATE SCHEMA ${schema}`));
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    kind,
    url: url.toString(),
    drop: () => withClient(base, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).then(() => undefined),
  };
}

