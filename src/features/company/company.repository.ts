import type { SqlContext } from '../../db/store.js';

/** A company as stored. */
export interface CompanyRow {
  readonly id: number;
  readonly uuid: string;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: string;
  readonly isCustomer: boolean;
  readonly websiteDomain: string | null;
}

/** What a company write sets beyond its identity. */
export interface CompanyDetails {
  readonly isCustomer: boolean;
  readonly websiteDomain: string | null;
}

/** SQL of the companies. */
export function createCompanyRepository(context: SqlContext) {
  const { db } = context;
  const selectCompanies = () =>
    db.selectFrom('companies').select(['id', 'uuid', 'slug', 'name', 'created_at as createdAt', 'is_customer as isCustomer', 'website_domain as websiteDomain']);
  const toRow = <R extends { isCustomer: unknown }>(row: R) => ({ ...row, isCustomer: Boolean(row.isCustomer) });
  return {
    async insert(company: { uuid: string; slug: string; name: string; createdAt: string } & CompanyDetails): Promise<CompanyRow> {
      const row = await db
        .insertInto('companies')
        .values({
          uuid: company.uuid,
          slug: company.slug,
          name: company.name,
          created_at: company.createdAt,
          is_customer: company.isCustomer,
          website_domain: company.websiteDomain,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: row.id, ...company };
    },
    async update(id: number, details: CompanyDetails): Promise<void> {
      await db.updateTable('companies').set({ is_customer: details.isCustomer, website_domain: details.websiteDomain }).where('id', '=', id).execute();
    },
    async findBySlug(slug: string): Promise<CompanyRow | undefined> {
      const row = await selectCompanies().where('slug', '=', slug).executeTakeFirst();
      return row && toRow(row);
    },
    async findById(id: number): Promise<CompanyRow | undefined> {
      const row = await selectCompanies().where('id', '=', id).executeTakeFirst();
      return row && toRow(row);
    },
    async list(): Promise<CompanyRow[]> {
      return (await selectCompanies().orderBy('slug').execute()).map(toRow);
    },
    async count(): Promise<number> {
      const row = await db.selectFrom('companies').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type CompanyRepository = ReturnType<typeof createCompanyRepository>;
