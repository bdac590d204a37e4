import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The network feature's table. */
export interface NetworkTables {
  networks: NetworkTable;
}

export interface NetworkTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  slug: string;
  label: string;
  is_active: BoolColumn;
  mailing_city: string | null;
  mailing_subdivision_code: string | null;
  created_at: string;
  mailing_line1: Generated<string | null>;
  mailing_line2: Generated<string | null>;
  mailing_postal_code: Generated<string | null>;
}
