import type { SqlContext } from '../../db/store.js';
import type { SnmpColumns, StoredSnmp } from '../../kernel/snmp-target.js';

/** A range row as stored: its sealed credentials, and the collector key that sweeps it (null: every collector of the company). */
export interface RangeRow extends StoredSnmp {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly apiKeyId: number | null;
  readonly apiKeyUuid: string | null;
  readonly apiKeyLabel: string | null;
  /** When the range's collector key was revoked, and when it expires (or expired); null without one. */
  readonly apiKeyRevokedAt: string | null;
  readonly apiKeyExpiresAt: string | null;
  readonly cidr: string;
  readonly port: number;
  readonly ratePerSecond: number;
  readonly intervalSeconds: number;
}

/** The columns a range's settings are stored in. */
export interface RangeValues extends SnmpColumns {
  readonly api_key_id: number | null;
  readonly cidr: string;
  readonly port: number;
  readonly rate_per_second: number;
  readonly interval_seconds: number;
}

/** An API key of the company, as a range's collector is chosen by it. */
export interface KeyRow {
  readonly id: number;
  readonly scope: string;
  readonly revokedAt: string | null;
  readonly expiresAt: string | null;
}

type Numbers = 'id' | 'companyId' | 'port' | 'ratePerSecond' | 'intervalSeconds';

/** SQL of discovery ranges. Every lookup takes the company, so another company's range (or key) is never found. */
export function createCollectorRangeRepository({ db }: SqlContext) {
  const ranges = () =>
    db
      .selectFrom('collector_ranges as r')
      .leftJoin('api_keys as k', 'k.id', 'r.api_key_id')
      .select([
        'r.id',
        'r.uuid',
        'r.company_id as companyId',
        'r.api_key_id as apiKeyId',
        'k.uuid as apiKeyUuid',
        'k.label as apiKeyLabel',
        'k.revoked_at as apiKeyRevokedAt',
        'k.expires_at as apiKeyExpiresAt',
        'r.cidr',
        'r.port',
        'r.snmp_version as snmpVersion',
        'r.snmp_user as snmpUser',
        'r.snmp_level as snmpLevel',
        'r.auth_protocol as authProtocol',
        'r.priv_protocol as privProtocol',
        'r.credentials',
        'r.rate_per_second as ratePerSecond',
        'r.interval_seconds as intervalSeconds',
      ]);
  const toRow = (row: Omit<RangeRow, Numbers | 'apiKeyId'> & Record<Numbers, number | string> & { apiKeyId: number | string | null }): RangeRow => ({
    ...row,
    id: Number(row.id),
    companyId: Number(row.companyId),
    apiKeyId: row.apiKeyId === null ? null : Number(row.apiKeyId),
    port: Number(row.port),
    ratePerSecond: Number(row.ratePerSecond),
    intervalSeconds: Number(row.intervalSeconds),
  });

  return {
    /** The company's range with this UUID; undefined for another company's. */
    async find(companyId: number, uuid: string): Promise<RangeRow | undefined> {
      const row = await ranges().where('r.company_id', '=', companyId).where('r.uuid', '=', uuid).executeTakeFirst();
      return row && toRow(row);
    },

    /** The company's ranges, by CIDR, then UUID; with `keyId`, only those that key's collector sweeps (its own and every collector's). */
    async list(companyId: number, keyId?: number): Promise<RangeRow[]> {
      let query = ranges().where('r.company_id', '=', companyId);
      if (keyId !== undefined) query = query.where((eb) => eb.or([eb('r.api_key_id', 'is', null), eb('r.api_key_id', '=', keyId)]));
      const rows = await query.orderBy('r.cidr').orderBy('r.uuid').execute();
      return rows.map(toRow);
    },

    /** The company's API key with this UUID; undefined for another company's or none. */
    async findKey(companyId: number, uuid: string): Promise<KeyRow | undefined> {
      const row = await db
        .selectFrom('api_keys')
        .select(['id', 'scope', 'revoked_at as revokedAt', 'expires_at as expiresAt'])
        .where('company_id', '=', companyId)
        .where('uuid', '=', uuid)
        .executeTakeFirst();
      return row && { ...row, id: Number(row.id) };
    },

    /** How many ranges the key with this UUID holds (sweeps alone); 0 for an unknown key. */
    async countHeldBy(keyUuid: string): Promise<number> {
      const row = await db
        .selectFrom('collector_ranges as r')
        .innerJoin('api_keys as k', 'k.id', 'r.api_key_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('k.uuid', '=', keyUuid)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async count(companyId: number): Promise<number> {
      const row = await db.selectFrom('collector_ranges').select((eb) => eb.fn.countAll<number>().as('n')).where('company_id', '=', companyId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async insert(companyId: number, uuid: string, values: RangeValues, at: string): Promise<void> {
      await db.insertInto('collector_ranges').values({ uuid, company_id: companyId, ...values, created_at: at, updated_at: at }).execute();
    },

    async update(id: number, values: RangeValues, at: string): Promise<void> {
      await db.updateTable('collector_ranges').set({ ...values, updated_at: at }).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('collector_ranges').where('id', '=', id).execute();
    },
  };
}

export type CollectorRangeRepository = ReturnType<typeof createCollectorRangeRepository>;
