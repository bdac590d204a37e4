import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Dashboard users, their sessions, and failed sign-ins. Failures are rows in
 * the store (not process memory) so that lockouts hold across every server
 * process on one database. Additive only: older servers ignore these tables.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const id = (c: ColumnDefinitionBuilder) =>
    dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement();

  await db.schema
    .createTable('users')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    // stored lowercased; one sign-in name across the whole service
    .addColumn('email', t.text, (c) => c.notNull().unique())
    .addColumn('role', t.text, (c) => c.notNull().check(sql.raw(`role IN ('admin', 'member')`)))
    .addColumn('password_hash', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_company_idx').on('users').column('company_id').execute();

  await db.schema
    .createTable('user_sessions')
    .addColumn('id', t.id, id)
    // SHA-256 of the cookie's token; the token itself is never stored
    .addColumn('token_hash', t.text, (c) => c.notNull().unique())
    .addColumn('user_id', t.id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_sessions_user_idx').on('user_sessions').columns(['user_id', 'expires_at']).execute();

  await db.schema
    .createTable('sign_in_failures')
    .addColumn('id', t.id, id)
    // "account:<email>" or "address:<ip>"
    .addColumn('subject', t.text, (c) => c.notNull())
    .addColumn('failed_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_failures_subject_idx')
    .on('sign_in_failures')
    .columns(['subject', 'failed_at'])
    .execute();
}
