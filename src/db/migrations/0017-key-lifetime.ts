import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * API keys with a lifetime and a place (docs/api-keys.md): when a key stops
 * working (`expires_at`, NULL for never), the addresses it is accepted from
 * (`allowed_addresses`, canonical CIDRs separated by spaces, NULL for
 * anywhere), and the client address of its last use, written with
 * `last_used_at`. Additive: nullable columns that servers of the previous
 * version never read (a key they admit has no expiry or allowlist yet).
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema.alterTable('api_keys').addColumn('expires_at', t.timestamp).execute();
  await db.schema.alterTable('api_keys').addColumn('allowed_addresses', t.text).execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_address', t.text).execute();
}
