import type { SqlContext } from '../../db/store.js';

/** A receiver row. */
export interface ReceiverRow {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly label: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A target row with the endpoint row it delivers through. */
export interface TargetRow {
  readonly id: number;
  readonly uuid: string;
  readonly type: 'WEBHOOK' | 'EMAIL' | 'SLACK';
  readonly endpointId: number;
  readonly endpointUuid: string;
  /** An email channel's address, a slack channel's sealed URL; null for a webhook endpoint. */
  readonly target: string | null;
  readonly createdAt: string;
  /** The endpoint row's state: off when netgraph turned it off (GONE, FAILING) or, for WEBHOOK, its endpoint is off. */
  readonly enabled: boolean;
  readonly disabledReason: string | null;
  /** The endpoint row's label and URL: a webhook endpoint's own, a slack channel's origin only (the URL is a secret). */
  readonly endpointLabel: string;
  readonly endpointUrl: string;
}

/** A receiver's rule as stored: the network's UUID when it names one. */
export interface ReceiverRuleRow {
  readonly alertType: string;
  readonly networkUuid: string | null;
}

/** SQL of alert receivers, their targets and their rules (the targets' endpoint rows are webhook.repository.ts'). */
export function createAlertRepository({ db }: SqlContext) {
  const receivers = () =>
    db.selectFrom('alert_receivers').select(['id', 'uuid', 'company_id as companyId', 'label', 'created_at as createdAt', 'updated_at as updatedAt']);
  const toReceiver = (row: Omit<ReceiverRow, 'id' | 'companyId'> & { id: number | string; companyId: number | string }): ReceiverRow => ({
    ...row, id: Number(row.id), companyId: Number(row.companyId),
  });

  return {
    async insertReceiver(companyId: number, uuid: string, label: string, at: string): Promise<number> {
      const row = await db
        .insertInto('alert_receivers')
        .values({ uuid, company_id: companyId, label, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** The company's receiver with this UUID; undefined for another company's. */
    async findReceiver(companyId: number, uuid: string): Promise<ReceiverRow | undefined> {
      const row = await receivers().where('company_id', '=', companyId).where('uuid', '=', uuid).executeTakeFirst();
      return row && toReceiver(row);
    },

    async receiverById(id: number): Promise<ReceiverRow> {
      return toReceiver(await receivers().where('id', '=', id).executeTakeFirstOrThrow());
    },

    /** The company's receivers, ordered by label, then UUID (as alertReceiversForCompany lists them). */
    async listReceivers(companyId: number): Promise<ReceiverRow[]> {
      return (await receivers().where('company_id', '=', companyId).orderBy('label').orderBy('uuid').execute()).map(toReceiver);
    },

    async countReceivers(companyId: number): Promise<number> {
      const row = await db.selectFrom('alert_receivers').select((eb) => eb.fn.countAll<number>().as('n')).where('company_id', '=', companyId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async updateReceiver(id: number, label: string, at: string): Promise<void> {
      await db.updateTable('alert_receivers').set({ label, updated_at: at }).where('id', '=', id).execute();
    },

    async deleteReceiver(id: number): Promise<void> {
      await db.deleteFrom('alert_receivers').where('id', '=', id).execute();
    },

    /** The receiver's targets, in the order they were added. */
    async listTargets(receiverId: number): Promise<TargetRow[]> {
      const rows = await db
        .selectFrom('alert_receiver_targets as t')
        .innerJoin('webhook_endpoints as e', 'e.id', 't.endpoint_id')
        .select([
          't.id', 't.uuid', 't.type', 't.endpoint_id as endpointId', 'e.uuid as endpointUuid', 'e.target', 't.created_at as createdAt',
          'e.enabled', 'e.disabled_reason as disabledReason', 'e.label as endpointLabel', 'e.url as endpointUrl',
        ])
        .where('t.receiver_id', '=', receiverId)
        .orderBy('t.id')
        .execute();
      return rows.map((row) => ({ ...row, id: Number(row.id), endpointId: Number(row.endpointId), type: row.type as TargetRow['type'], enabled: Boolean(row.enabled) }));
    },

    async insertTarget(receiverId: number, companyId: number, target: { uuid: string; type: string; endpointId: number }, at: string): Promise<void> {
      await db
        .insertInto('alert_receiver_targets')
        .values({ uuid: target.uuid, receiver_id: receiverId, company_id: companyId, type: target.type, endpoint_id: target.endpointId, created_at: at })
        .execute();
    },

    async deleteTarget(id: number): Promise<void> {
      await db.deleteFrom('alert_receiver_targets').where('id', '=', id).execute();
    },

    async replaceRules(receiverId: number, companyId: number, rules: readonly { alertType: string; networkId: number | null }[]): Promise<void> {
      await db.deleteFrom('alert_receiver_rules').where('receiver_id', '=', receiverId).execute();
      if (rules.length === 0) return;
      await db
        .insertInto('alert_receiver_rules')
        .values(rules.map((rule) => ({ receiver_id: receiverId, company_id: companyId, alert_type: rule.alertType, network_id: rule.networkId })))
        .execute();
    },

    /** The receiver's rules, in the order they were written. */
    async listRules(receiverId: number): Promise<ReceiverRuleRow[]> {
      return db
        .selectFrom('alert_receiver_rules as r')
        .leftJoin('networks as n', 'n.id', 'r.network_id')
        .select(['r.alert_type as alertType', 'n.uuid as networkUuid'])
        .where('r.receiver_id', '=', receiverId)
        .orderBy('r.id')
        .execute();
    },
  };
}

export type AlertRepository = ReturnType<typeof createAlertRepository>;
