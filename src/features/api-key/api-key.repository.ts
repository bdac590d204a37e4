import { sql } from 'kysely';
import { sqlWithValues } from '../../db/sql-text.js';
import type { SqlContext } from '../../db/store.js';
import { isValidKeyColumn, keyValidSql } from '../../kernel/key-check.js';

/** An API key row, without its hash. */
export interface ApiKeyRow {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly companySlug: string;
  readonly label: string;
  readonly prefix: string;
  readonly scope: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly lastUsedAddress: string | null;
  readonly revokedAt: string | null;
  readonly expiresAt: string | null;
  /** When the key's API_KEY_EXPIRING alert was claimed (queued); null while it was not. */
  readonly expiryAlertedAt: string | null;
  /** Canonical CIDRs separated by spaces; null for any address. */
  readonly allowedAddresses: string | null;
}

/** When a key was last used, and from where. */
export interface KeyUse {
  readonly id: number;
  readonly address: string | null;
}

/** SQL of the API keys. */
export function createApiKeyRepository({ db }: SqlContext) {
  const selectKeys = () =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('companies as c', 'c.id', 'k.company_id')
      .select([
        'k.id',
        'k.uuid',
        'k.company_id as companyId',
        'c.slug as companySlug',
        'k.label',
        'k.prefix',
        'k.scope',
        'k.created_at as createdAt',
        'k.last_used_at as lastUsedAt',
        'k.last_used_address as lastUsedAddress',
        'k.revoked_at as revokedAt',
        'k.expires_at as expiresAt',
        'k.expiry_alerted_at as expiryAlertedAt',
        'k.allowed_addresses as allowedAddresses',
      ]);

  return {
    async insert(key: {
      uuid: string;
      companyId: number;
      label: string;
      prefix: string;
      hash: string;
      scope: string;
      createdAt: string;
      expiresAt: string | null;
      allowedAddresses: string | null;
    }): Promise<void> {
      await db
        .insertInto('api_keys')
        .values({
          uuid: key.uuid,
          company_id: key.companyId,
          label: key.label,
          prefix: key.prefix,
          secret_hash: key.hash,
          scope: key.scope,
          created_at: key.createdAt,
          expires_at: key.expiresAt,
          allowed_addresses: key.allowedAddresses,
        })
        .execute();
    },

    /** The key with this hash, and whether it is valid at `at` (kernel/key-check.ts); undefined for an unknown one. */
    async findByHash(hash: string, at: string): Promise<{ row: ApiKeyRow; valid: boolean } | undefined> {
      const found = await selectKeys()
        .select(sqlWithValues<unknown>(([now]) => keyValidSql('k.id', now as string), [at]).as('valid'))
        .where('k.secret_hash', '=', hash)
        .executeTakeFirst();
      if (found === undefined) return undefined;
      const { valid, ...row } = found;
      return { row, valid: isValidKeyColumn(valid) };
    },

    /** The keys whose visible prefix starts with `prefix`, within the company when one is given, oldest first. */
    async findByPrefix(prefix: string, companyId: number | undefined): Promise<ApiKeyRow[]> {
      // not LIKE: SQLite's ignores case, and the prefix's letters are base62
      const query = selectKeys().where(sql<string>`substr(k.prefix, 1, ${sql.lit(prefix.length)})`, '=', prefix);
      return (companyId === undefined ? query : query.where('k.company_id', '=', companyId)).orderBy('k.created_at').orderBy('k.id').limit(10).execute();
    },

    async findByUuid(uuid: string): Promise<ApiKeyRow | undefined> {
      return selectKeys().where('k.uuid', '=', uuid).executeTakeFirst();
    },

    async listByCompany(companyId: number): Promise<ApiKeyRow[]> {
      return selectKeys().where('k.company_id', '=', companyId).orderBy('k.created_at').orderBy('k.id').execute();
    },

    /** True when the key exists, is not revoked and has not expired at `at` (kernel/key-check.ts): one indexed read. */
    async isActive(id: number, at: string): Promise<boolean> {
      const row = await db.selectNoFrom(sqlWithValues<unknown>(([key, now]) => keyValidSql(key as string, now as string), [id, at]).as('valid')).executeTakeFirst();
      return isValidKeyColumn(row?.valid);
    },

    /** Marks the key revoked; returns false when it was already revoked. */
    async revoke(uuid: string, at: string): Promise<boolean> {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('uuid', '=', uuid)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Sets when the key stops working (null: never). */
    async setExpiry(id: number, expiresAt: string | null): Promise<void> {
      await db.updateTable('api_keys').set({ expires_at: expiresAt }).where('id', '=', id).execute();
    },

    /** Sets the key's allowlist (stored form; null: any address). */
    async setAllowlist(id: number, allowedAddresses: string | null): Promise<void> {
      await db.updateTable('api_keys').set({ allowed_addresses: allowedAddresses }).where('id', '=', id).execute();
    },

    /**
     * Moves last_used_at forward to `at` for the given keys, each with the
     * address of its use, in one statement; never backwards.
     */
    async touch(uses: readonly KeyUse[], at: string): Promise<void> {
      if (uses.length === 0) return;
      const address = sql<string | null>`CASE id ${sql.join(uses.map((use) => sql`WHEN ${use.id} THEN ${use.address}`), sql.raw(' '))} END`;
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at, last_used_address: address })
        .where('id', 'in', uses.map((use) => use.id))
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
