import type { Generated } from 'kysely';

/** The alert receiver feature's tables. */
export interface AlertTables {
  alert_receivers: AlertReceiverTable;
  alert_receiver_targets: AlertReceiverTargetTable;
  alert_receiver_rules: AlertReceiverRuleTable;
}

/** An alert receiver of a company (docs/alerts.md). */
export interface AlertReceiverTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  label: string;
  created_at: string;
  updated_at: string;
}

/** A target of a receiver: WEBHOOK, EMAIL or SLACK, delivered through the endpoint row endpoint_id. */
export interface AlertReceiverTargetTable {
  id: Generated<number>;
  uuid: string;
  receiver_id: number;
  company_id: number;
  type: string;
  endpoint_id: number;
  created_at: string;
}

/** Which alerts of which networks (null: all) go to a receiver's targets. */
export interface AlertReceiverRuleTable {
  id: Generated<number>;
  receiver_id: number;
  company_id: number;
  alert_type: string;
  network_id: number | null;
}
