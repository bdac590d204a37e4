import { sql } from 'kysely';
import { sqlWithValue } from '../../db/sql-text.js';
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
  readonly revokedAt: string | null;
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
        'k.revoked_at as revokedAt',
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
        })
        .execute();
    },

    /** The key with this hash while it is valid (kernel/key-check.ts); undefined for an unknown or revoked one. */
    async findValidByHash(hash: string): Promise<ApiKeyRow | undefined> {
      const row = await selectKeys()
        .select(sql.raw<unknown>(keyValidSql('k.id')).as('valid'))
        .where('k.secret_hash', '=', hash)
        .executeTakeFirst();
      if (row === undefined || !isValidKeyColumn(row.valid)) return undefined;
      const { valid: _valid, ...key } = row;
      return key;
    },

    async findByUuid(uuid: string): Promise<ApiKeyRow | undefined> {
      return selectKeys().where('k.uuid', '=', uuid).executeTakeFirst();
    },

    async listByCompany(companyId: number): Promise<ApiKeyRow[]> {
      return selectKeys().where('k.company_id', '=', companyId).orderBy('k.created_at').orderBy('k.id').execute();
    },

    /** True when the key exists and is not revoked (kernel/key-check.ts): one indexed read. */
    async isActive(id: number): Promise<boolean> {
      const row = await db.selectNoFrom(sqlWithValue<unknown>(keyValidSql, id).as('valid')).executeTakeFirst();
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

    /** Moves last_used_at forward for the given keys; never backwards. */
    async touch(ids: readonly number[], at: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', 'in', ids)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
