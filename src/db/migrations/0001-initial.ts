import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

const DEVICE_TYPES = ['ACCESS_POINT', 'CELLULAR_GATEWAY', 'CONTROLLER', 'POWER_DISTRIBUTION_UNIT', 'SWITCH'];
const VIRTUAL_DEVICE_TYPES = [...DEVICE_TYPES, 'OBSERVER'];

const inList = (column: string, values: string[]) => `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;

/** Companies, their networks, devices, VLANs, SSIDs, clients and API keys. */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const id = (c: ColumnDefinitionBuilder) =>
    dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement();

  await db.schema
    .createTable('companies')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('slug', t.text, (c) => c.notNull().unique())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('networks')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('slug', t.text, (c) => c.notNull())
    .addColumn('label', t.text, (c) => c.notNull())
    .addColumn('is_active', t.boolean, (c) => c.notNull())
    .addColumn('mailing_city', t.text)
    .addColumn('mailing_subdivision_code', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('networks_company_slug_key', ['company_id', 'slug'])
    .execute();
  await db.schema.createIndex('networks_company_label_idx').on('networks').columns(['company_id', 'label', 'uuid']).execute();

  await db.schema
    .createTable('virtual_devices')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('label', t.text, (c) => c.notNull())
    .addColumn('device_type', t.text, (c) => c.notNull().check(sql.raw(inList('device_type', VIRTUAL_DEVICE_TYPES))))
    .addColumn('device_model', t.text, (c) => c.notNull())
    .addColumn('is_online', t.boolean, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('virtual_devices_network_label_idx')
    .on('virtual_devices')
    .columns(['network_id', 'label', 'uuid'])
    .execute();

  await db.schema
    .createTable('hardware_devices')
    .addColumn('id', t.id, id)
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('serial_number', t.text, (c) => c.notNull().unique())
    .addColumn('device_type', t.text, (c) => c.notNull().check(sql.raw(inList('device_type', DEVICE_TYPES))))
    .addColumn('device_model', t.text, (c) => c.notNull())
    .addColumn('is_connected_to_backend', t.boolean, (c) => c.notNull())
    .addColumn('virtual_device_id', t.id, (c) => c.unique().references('virtual_devices.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('hardware_devices_company_idx').on('hardware_devices').column('company_id').execute();

  await db.schema
    .createTable('vlans')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('vlan_id', t.integer, (c) => c.notNull().check(sql.raw('vlan_id BETWEEN 1 AND 4094')))
    .addColumn('is_enabled', t.boolean, (c) => c.notNull())
    .addUniqueConstraint('vlans_network_vlan_id_key', ['network_id', 'vlan_id'])
    .execute();

  await db.schema
    .createTable('ssids')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('ssid', t.text, (c) => c.notNull())
    .addColumn('is_enabled', t.boolean, (c) => c.notNull())
    .addUniqueConstraint('ssids_network_ssid_key', ['network_id', 'ssid'])
    .execute();

  await db.schema
    .createTable('network_clients')
    .addColumn('id', t.id, id)
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('ip', t.text)
    .addColumn('last_seen', t.timestamp, (c) => c.notNull())
    .addColumn('is_connected', t.boolean, (c) => c.notNull())
    .addUniqueConstraint('network_clients_network_mac_key', ['network_id', 'mac_address'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('label', t.text, (c) => c.notNull())
    .addColumn('prefix', t.text, (c) => c.notNull())
    .addColumn('secret_hash', t.text, (c) => c.notNull().unique())
    .addColumn('scope', t.text, (c) => c.notNull().check(sql.raw(`scope IN ('read', 'read_write')`)))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_used_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .execute();
  await db.schema.createIndex('api_keys_company_idx').on('api_keys').column('company_id').execute();
}
