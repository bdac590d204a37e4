import type { SqlContext } from '../../db/store.js';

/** A network as stored: the columns a write sets, and its ids. */
export interface NetworkRow extends NetworkValues {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
}

/** The columns a network write sets. */
export interface NetworkValues {
  readonly slug: string;
  readonly label: string;
  readonly isActive: boolean;
  readonly mailingLine1: string | null;
  readonly mailingLine2: string | null;
  readonly mailingCity: string | null;
  readonly mailingSubdivisionCode: string | null;
  readonly mailingPostalCode: string | null;
}

/** SQL of networks. */
export function createNetworkRepository({ db }: SqlContext) {
  return {
    /** The network with this UUID within the company; undefined for another company's, as for a missing one. */
    async findByUuid(companyId: number, uuid: string): Promise<NetworkRow | undefined> {
      const row = await db
        .selectFrom('networks')
        .select([
          'id',
          'uuid',
          'company_id as companyId',
          'slug',
          'label',
          'is_active as isActive',
          'mailing_line1 as mailingLine1',
          'mailing_line2 as mailingLine2',
          'mailing_city as mailingCity',
          'mailing_subdivision_code as mailingSubdivisionCode',
          'mailing_postal_code as mailingPostalCode',
        ])
        .where('company_id', '=', companyId)
        .where('uuid', '=', uuid)
        .executeTakeFirst();
      return row && { ...row, isActive: Boolean(row.isActive) };
    },

    /** True when another network of the company has this slug. */
    async isSlugTaken(companyId: number, slug: string, exceptId: number | null = null): Promise<boolean> {
      let query = db.selectFrom('networks').select('id').where('company_id', '=', companyId).where('slug', '=', slug);
      if (exceptId !== null) query = query.where('id', '<>', exceptId);
      return (await query.executeTakeFirst()) !== undefined;
    },

    /** Inserts a network and returns its row id. */
    async insert(companyId: number, uuid: string, values: NetworkValues, createdAt: string): Promise<number> {
      const row = await db
        .insertInto('networks')
        .values({ uuid, company_id: companyId, created_at: createdAt, ...columns(values) })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async update(id: number, values: NetworkValues): Promise<void> {
      await db.updateTable('networks').set(columns(values)).where('id', '=', id).execute();
    },

    /**
     * Deletes the network. The foreign keys remove its devices, VLANs, SSIDs
     * and clients, and set its hardware's virtual device to NULL (spare).
     */
    async delete(id: number): Promise<void> {
      await db.deleteFrom('networks').where('id', '=', id).execute();
    },

    /** How many clients (connected or not) the network has. */
    async countClients(id: number): Promise<number> {
      const row = await db
        .selectFrom('network_clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('network_id', '=', id)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type NetworkRepository = ReturnType<typeof createNetworkRepository>;

function columns(values: NetworkValues) {
  return {
    slug: values.slug,
    label: values.label,
    is_active: values.isActive,
    mailing_line1: values.mailingLine1,
    mailing_line2: values.mailingLine2,
    mailing_city: values.mailingCity,
    mailing_subdivision_code: values.mailingSubdivisionCode,
    mailing_postal_code: values.mailingPostalCode,
  };
}
