import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Alert receivers (docs/alerts.md) and two things webhook endpoints learn
 * for them. An endpoint row becomes a delivery channel of the outbox:
 * `channel` webhook (the API's webhook endpoints, all existing rows), email
 * or slack (a receiver's EMAIL or SLACK target, whose messages go through
 * the same outbox, claims, retries, log and replay); `target` holds an email
 * channel's address or a slack channel's incoming-webhook URL, sealed.
 * `payload_format` picks the body a webhook endpoint gets: standard (today's)
 * or meter (Meter's alert names, snake_case data, X-Meter-Signature).
 * Additive: the old version reads none of the new columns, and the defaults
 * keep its rows and inserts what they were.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('channel', t.text, (c) => c.notNull().defaultTo('webhook').check(sql.raw(`channel IN ('webhook', 'email', 'slack')`)))
    .execute();
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('payload_format', t.text, (c) => c.notNull().defaultTo('standard').check(sql.raw(`payload_format IN ('standard', 'meter')`)))
    .execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('target', t.text).execute();
  await createReceivers(db, dialect);
}

async function createReceivers(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const id = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement());
  const company = (c: ColumnDefinitionBuilder) => c.notNull().references('companies.id').onDelete('cascade');
  const receiver = (c: ColumnDefinitionBuilder) => c.notNull().references('alert_receivers.id').onDelete('cascade');
  await db.schema
    .createTable('alert_receivers')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, company)
    .addColumn('label', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_receivers_company_idx').on('alert_receivers').column('company_id').execute();

  // a target delivers through an endpoint row: the webhook endpoint it names, or its own email/slack channel (same UUID)
  await db.schema
    .createTable('alert_receiver_targets')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('receiver_id', t.id, receiver)
    .addColumn('company_id', t.id, company)
    .addColumn('type', t.text, (c) => c.notNull().check(sql.raw(`type IN ('WEBHOOK', 'EMAIL', 'SLACK')`)))
    .addColumn('endpoint_id', t.id, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_receiver_targets_receiver_idx').on('alert_receiver_targets').column('receiver_id').execute();
  await db.schema.createIndex('alert_receiver_targets_endpoint_idx').on('alert_receiver_targets').column('endpoint_id').execute();

  await db.schema
    .createTable('alert_receiver_rules')
    .addColumn('id', t.id, id)
    .addColumn('receiver_id', t.id, receiver)
    .addColumn('company_id', t.id, company)
    .addColumn('alert_type', t.text, (c) => c.notNull())
    // NULL: every network of the company
    .addColumn('network_id', t.id, (c) => c.references('networks.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('alert_receiver_rules_company_idx').on('alert_receiver_rules').columns(['company_id', 'alert_type']).execute();
  await db.schema.createIndex('alert_receiver_rules_receiver_idx').on('alert_receiver_rules').column('receiver_id').execute();
}
