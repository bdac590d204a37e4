import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The fields a multi-company MSP dashboard written for Meter reads (issue 32):
 * a network's street address lines and postal code, and a VLAN's IPv4 client
 * gateway, prefix length and address assignment protocol. Additive: every
 * column is nullable, so servers of the previous version keep working.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema.alterTable('networks').addColumn('mailing_line1', t.text).execute();
  await db.schema.alterTable('networks').addColumn('mailing_line2', t.text).execute();
  await db.schema.alterTable('networks').addColumn('mailing_postal_code', t.text).execute();
  await db.schema.alterTable('vlans').addColumn('ipv4_client_gateway', t.text).execute();
  await db.schema.alterTable('vlans').addColumn('ipv4_client_prefix_length', t.integer).execute();
  // DHCP or STATIC; null: not configured
  await db.schema.alterTable('vlans').addColumn('ipv4_client_assignment_protocol', t.text).execute();
}
