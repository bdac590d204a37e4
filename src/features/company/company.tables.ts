import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The company feature's table. */
export interface CompanyTables {
  companies: CompanyTable;
}

export interface CompanyTable {
  id: Generated<number>;
  uuid: string;
  slug: string;
  name: string;
  created_at: string;
  is_customer: Generated<BoolColumn>;
  website_domain: Generated<string | null>;
}
