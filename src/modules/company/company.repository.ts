import type { SqlContext } from '../../db/store.js';

/** A company as stored. */
export interface CompanyRow {
  readonly id: number;
  readonly uuid: string;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: string;
}

/** SQL of the companies. */
export function createCompanyRepository(context: SqlContext) {
  const { db } = context;
  const selectCompanies = () =>
    db.selectFrom('companies').select(['id', 'uuid', 'slug', 'name', 'created_at as createdAt']);
  return {
    async insert(company: { uuid: string; slug: string; name: string; createdAt: string }): Promise<CompanyRow> {
      const row = await db
        .insertInto('companies')
        .values({ uuid: company.uuid, slug: company.slug, name: company.name, created_at: company.createdAt })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: row.id, ...company };
    },
    async findBySlug(slug: string): Promise<CompanyRow | undefined> {
      return selectCompanies().where('slug', '=', slug).executeTakeFirst();
    },
    async findById(id: number): Promise<CompanyRow | undefined> {
      return selectCompanies().where('id', '=', id).executeTakeFirst();
    },
    async list(): Promise<CompanyRow[]> {
      return selectCompanies().orderBy('slug').execute();
    },
    async count(): Promise<number> {
      const row = await db.selectFrom('companies').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type CompanyRepository = ReturnType<typeof createCompanyRepository>;
