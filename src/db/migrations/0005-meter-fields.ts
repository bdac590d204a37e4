import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The Meter API's descriptive fields (issue 16): a company's customer flag
 * and website domain, a VLAN's default flag and description, an SSID's guest
 * and hidden flags, encryption protocol and VLAN. Additive: each column has a
 * default or is nullable, so servers of the previous version keep working.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const yes = dialect.name === 'postgres' ? true : 1;
  const no = dialect.name === 'postgres' ? false : 0;
  await db.schema.alterTable('companies').addColumn('is_customer', t.boolean, (c) => c.notNull().defaultTo(yes)).execute();
  await db.schema.alterTable('companies').addColumn('website_domain', t.text).execute();
  await db.schema.alterTable('vlans').addColumn('is_default', t.boolean, (c) => c.notNull().defaultTo(no)).execute();
  await db.schema.alterTable('vlans').addColumn('description', t.text).execute();
  await db.schema.alterTable('ssids').addColumn('is_guest', t.boolean, (c) => c.notNull().defaultTo(no)).execute();
  await db.schema.alterTable('ssids').addColumn('is_hidden', t.boolean, (c) => c.notNull().defaultTo(no)).execute();
  await db.schema.alterTable('ssids').addColumn('encryption_protocol', t.text).execute();
  // the VLAN by its number in the same network (as clients report vlanID); null: none
  await db.schema.alterTable('ssids').addColumn('vlan_id', t.integer).execute();
}
