import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Webhooks (docs/webhooks.md): endpoints with their encrypted signing secrets
 * and alert rules, the durable outbox of messages, the log of delivery
 * attempts, and a `dispatched_at` marker on events and audit entries that the
 * dispatcher sets once it has turned them into messages. Additive: servers of
 * the previous version insert events and audit entries without the marker,
 * and those rows are simply dispatched later.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await addDispatchMarkers(db, dialect);
  await createEndpoints(db, dialect);
  await createOutbox(db, dialect);
}

function columns(dialect: SqlDialect) {
  return {
    t: dialect.types,
    id: (c: ColumnDefinitionBuilder) =>
      dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
    company: (c: ColumnDefinitionBuilder) => c.notNull().references('companies.id').onDelete('cascade'),
    endpoint: (c: ColumnDefinitionBuilder) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
  };
}

/**
 * A nullable marker, not a high-water mark of ids: on PostgreSQL ids are
 * handed out before commit, so a transaction with a smaller id can commit
 * after one with a larger id, and a cursor past it would skip it forever.
 * The partial index holds only the rows still to dispatch, so it stays small.
 * What is already there when webhooks arrive happened before any rule, so it
 * is marked dispatched.
 */
async function addDispatchMarkers(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t } = columns(dialect);
  const at = new Date().toISOString();
  for (const table of ['events', 'audit_log'] as const) {
    await db.schema.alterTable(table).addColumn('dispatched_at', t.timestamp).execute();
    await sql`UPDATE ${sql.table(table)} SET dispatched_at = ${at}`.execute(db);
    await db.schema
      .createIndex(`${table}_undispatched_idx`)
      .on(table)
      .column('id')
      .where(sql.ref('dispatched_at'), 'is', null)
      .execute();
  }
}

/** Endpoints, their signing secrets and their alert rules. */
async function createEndpoints(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id, company, endpoint } = columns(dialect);
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, company)
    .addColumn('label', t.text, (c) => c.notNull())
    .addColumn('url', t.text, (c) => c.notNull())
    .addColumn('enabled', t.boolean, (c) => c.notNull())
    .addColumn('auth_kind', t.text, (c) => c.notNull().check(sql.raw(`auth_kind IN ('none', 'basic', 'bearer')`)))
    // AES-256-GCM of the Basic credentials or the Bearer token (webhook.cipher.ts); NULL for none
    .addColumn('auth_value', t.text)
    // why the endpoint was turned off by netgraph (GONE, FAILING), NULL when on or turned off by a person
    .addColumn('disabled_reason', t.text)
    .addColumn('failing_since', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_company_idx').on('webhook_endpoints').column('company_id').execute();

  await db.schema
    .createTable('webhook_secrets')
    .addColumn('id', t.id, id)
    .addColumn('endpoint_id', t.id, endpoint)
    // AES-256-GCM of the whsec_ secret: signing needs the secret itself, so it cannot be hashed
    .addColumn('secret', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    // NULL for the current secret; a rotated one signs until then
    .addColumn('expires_at', t.timestamp)
    .execute();
  await db.schema.createIndex('webhook_secrets_endpoint_idx').on('webhook_secrets').column('endpoint_id').execute();

  await db.schema
    .createTable('webhook_rules')
    .addColumn('id', t.id, id)
    .addColumn('endpoint_id', t.id, endpoint)
    .addColumn('company_id', t.id, company)
    .addColumn('alert_type', t.text, (c) => c.notNull())
    // NULL: every network of the company
    .addColumn('network_id', t.id, (c) => c.references('networks.id').onDelete('cascade'))
    // CLIENT_COUNT_ABOVE only
    .addColumn('threshold', t.integer)
    .execute();
  await db.schema.createIndex('webhook_rules_company_idx').on('webhook_rules').columns(['company_id', 'alert_type']).execute();
  await db.schema.createIndex('webhook_rules_endpoint_idx').on('webhook_rules').column('endpoint_id').execute();

  // whether a network's connected clients were above a CLIENT_COUNT_ABOVE rule's threshold at the last check
  await db.schema
    .createTable('webhook_client_counts')
    .addColumn('rule_id', t.id, (c) => c.notNull().references('webhook_rules.id').onDelete('cascade'))
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('above', t.boolean, (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_client_counts_key', ['rule_id', 'network_id'])
    .execute();
}

/** The outbox (one row per message to one endpoint) and the log of its attempts. */
async function createOutbox(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id, company, endpoint } = columns(dialect);
  await db.schema
    .createTable('webhook_messages')
    .addColumn('id', t.id, id)
    // the webhook-id header: the same on every attempt and replay
    .addColumn('uuid', t.text, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, company)
    .addColumn('endpoint_id', t.id, endpoint)
    .addColumn('alert_type', t.text, (c) => c.notNull())
    .addColumn('payload', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('state', t.text, (c) => c.notNull().check(sql.raw(`state IN ('pending', 'delivered', 'failed')`)))
    .addColumn('attempts', t.integer, (c) => c.notNull())
    // when the next attempt is due; NULL once delivered or failed
    .addColumn('next_attempt_at', t.timestamp)
    // a claimed message: its claimer's token and when the claim lapses (a process that died mid-attempt)
    .addColumn('lease_token', t.text)
    .addColumn('lease_until', t.timestamp)
    .execute();
  await db.schema
    .createIndex('webhook_messages_due_idx')
    .on('webhook_messages')
    .column('next_attempt_at')
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_messages_company_idx').on('webhook_messages').columns(['company_id', 'created_at']).execute();
  await db.schema.createIndex('webhook_messages_endpoint_idx').on('webhook_messages').column('endpoint_id').execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', t.id, id)
    .addColumn('message_id', t.id, (c) => c.notNull().references('webhook_messages.id').onDelete('cascade'))
    .addColumn('attempted_at', t.timestamp, (c) => c.notNull())
    // the HTTP status; NULL when no answer came (refused target, connection error, timeout)
    .addColumn('status', t.integer)
    .addColumn('duration_ms', t.integer, (c) => c.notNull())
    // the first bytes of the answer's body
    .addColumn('response', t.text)
    .addColumn('error', t.text)
    .execute();
  await db.schema.createIndex('webhook_attempts_message_idx').on('webhook_attempts').columns(['message_id', 'attempted_at']).execute();

  // the encryption key netgraph generates when WEBHOOK_ENCRYPTION_KEY is not set (docs/webhooks.md)
  await db.schema
    .createTable('webhook_settings')
    .addColumn('name', t.text, (c) => c.primaryKey())
    .addColumn('value', t.text, (c) => c.notNull())
    .execute();
}
