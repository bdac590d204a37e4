import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * A network's security configuration (docs/security.md), written through
 * mutations: blocked client MAC addresses, firewall rules, the VLAN pairs
 * allowed to talk to each other and the IDS/IPS mode; and where spare
 * hardware is placed (`hardware_devices.spare_network_id`). Additive: new
 * tables and one nullable column, which servers of the previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await createBlockedClients(db, dialect);
  await createFirewallRules(db, dialect);
  await createInterVlanPairs(db, dialect);
  await createIdsIpsConfigs(db, dialect);
  // the network spare hardware waits at; a deleted network leaves it spare, placed nowhere
  await db.schema
    .alterTable('hardware_devices')
    .addColumn('spare_network_id', dialect.types.id, (c) => c.references('networks.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('hardware_devices_spare_network_idx').on('hardware_devices').column('spare_network_id').execute();
}

function columns(dialect: SqlDialect) {
  return {
    t: dialect.types,
    id: (c: ColumnDefinitionBuilder) =>
      dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
    network: (c: ColumnDefinitionBuilder) => c.notNull().references('networks.id').onDelete('cascade'),
  };
}

async function createBlockedClients(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id, network } = columns(dialect);
  await db.schema
    .createTable('blocked_clients')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('network_id', t.id, network)
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('reason', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('blocked_clients_network_mac_key', ['network_id', 'mac_address'])
    .execute();
}

async function createFirewallRules(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id, network } = columns(dialect);
  await db.schema
    .createTable('firewall_rules')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('network_id', t.id, network)
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('description', t.text)
    .addColumn('action', t.text, (c) => c.notNull().check(sql.raw(`action IN ('PERMIT', 'DENY')`)))
    .addColumn('is_enabled', t.boolean, (c) => c.notNull())
    // CIDR text in canonical form; NULL matches any address
    .addColumn('src_prefix', t.text)
    .addColumn('dst_prefix', t.text)
    .addColumn('priority', t.integer, (c) => c.notNull().check(sql.raw('priority >= 1')))
    .addUniqueConstraint('firewall_rules_network_priority_key', ['network_id', 'priority'])
    .execute();
}

/** A pair is unordered: stored once, the smaller VLAN row id first; a deleted VLAN takes its pairs with it. */
async function createInterVlanPairs(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id, network } = columns(dialect);
  const vlan = (c: ColumnDefinitionBuilder) => c.notNull().references('vlans.id').onDelete('cascade');
  await db.schema
    .createTable('inter_vlan_pairs')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('network_id', t.id, network)
    .addColumn('vlan_low_id', t.id, vlan)
    .addColumn('vlan_high_id', t.id, vlan)
    .addCheckConstraint('inter_vlan_pairs_order_check', sql.raw('vlan_low_id < vlan_high_id'))
    .addUniqueConstraint('inter_vlan_pairs_vlans_key', ['vlan_low_id', 'vlan_high_id'])
    .execute();
  await db.schema.createIndex('inter_vlan_pairs_network_idx').on('inter_vlan_pairs').column('network_id').execute();
  await db.schema.createIndex('inter_vlan_pairs_high_idx').on('inter_vlan_pairs').column('vlan_high_id').execute();
}

async function createIdsIpsConfigs(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id, network } = columns(dialect);
  await db.schema
    .createTable('ids_ips_configs')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('network_id', t.id, (c) => network(c).unique())
    .addColumn('mode', t.text, (c) => c.notNull().check(sql.raw(`mode IN ('IDS', 'IPS')`)))
    .execute();
}
