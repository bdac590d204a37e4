import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The webhook feature's tables: endpoints, their secrets and rules, the outbox and its attempts. */
export interface WebhookTables {
  webhook_endpoints: WebhookEndpointTable;
  webhook_secrets: WebhookSecretTable;
  webhook_rules: WebhookRuleTable;
  webhook_client_counts: WebhookClientCountTable;
  webhook_messages: WebhookMessageTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_settings: WebhookSettingTable;
}

/** A webhook endpoint of a company; auth_value is encrypted (webhook.cipher.ts). */
export interface WebhookEndpointTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  label: string;
  url: string;
  enabled: BoolColumn;
  /** none, basic or bearer. */
  auth_kind: string;
  auth_value: string | null;
  /** GONE or FAILING when netgraph turned the endpoint off; null otherwise. */
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  /** webhook (the API's endpoints), email or slack (an alert receiver's target: docs/alerts.md). */
  channel: Generated<string>;
  /** standard or meter: the body a webhook endpoint's messages carry. */
  payload_format: Generated<string>;
  /** An email channel's address; a slack channel's incoming-webhook URL, encrypted; null for webhooks. */
  target: string | null;
}

/** A signing secret of an endpoint, encrypted; expires_at null for the current one. */
export interface WebhookSecretTable {
  id: Generated<number>;
  endpoint_id: number;
  secret: string;
  created_at: string;
  expires_at: string | null;
}

/** Which alerts of which networks (null: all) go to an endpoint. */
export interface WebhookRuleTable {
  id: Generated<number>;
  endpoint_id: number;
  company_id: number;
  alert_type: string;
  network_id: number | null;
  threshold: number | null;
}

/** A CLIENT_COUNT_ABOVE rule's state per network, so each upward crossing fires once. */
export interface WebhookClientCountTable {
  rule_id: number;
  network_id: number;
  above: BoolColumn;
}

/** One message of the outbox to one endpoint; uuid is its webhook-id. */
export interface WebhookMessageTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  endpoint_id: number;
  alert_type: string;
  payload: string;
  created_at: string;
  /** pending, delivered or failed. */
  state: string;
  attempts: number;
  next_attempt_at: string | null;
  lease_token: string | null;
  lease_until: string | null;
}

/** One delivery attempt of a message. */
export interface WebhookAttemptTable {
  id: Generated<number>;
  message_id: number;
  attempted_at: string;
  status: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
}

/** Settings webhooks keep in the database (the generated encryption key). */
export interface WebhookSettingTable {
  name: string;
  value: string;
}
