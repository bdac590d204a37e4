import type { SqlContext } from '../../db/store.js';

/** The columns a firewall rule write sets. */
export interface FirewallRuleValues {
  readonly name: string;
  readonly description: string | null;
  readonly action: 'PERMIT' | 'DENY';
  readonly isEnabled: boolean;
  readonly srcPrefix: string | null;
  readonly dstPrefix: string | null;
  readonly priority: number;
}

/** A firewall rule as stored, with its network. */
export interface FirewallRuleRow extends FirewallRuleValues {
  readonly id: number;
  readonly uuid: string;
  readonly networkId: number;
  readonly networkUuid: string;
}

const columnsOf = (values: FirewallRuleValues) => ({
  name: values.name,
  description: values.description,
  action: values.action,
  is_enabled: values.isEnabled,
  src_prefix: values.srcPrefix,
  dst_prefix: values.dstPrefix,
  priority: values.priority,
});

/** SQL of firewall rules. A rule belongs to a company through its network. */
export function createFirewallRuleRepository({ db }: SqlContext) {
  return {
    /** The rule with this UUID on a network of the company; undefined for another company's, as for a missing one. */
    async findByUuid(companyId: number, uuid: string): Promise<FirewallRuleRow | undefined> {
      const row = await db
        .selectFrom('firewall_rules as r')
        .innerJoin('networks as n', 'n.id', 'r.network_id')
        .select([
          'r.id',
          'r.uuid',
          'r.network_id as networkId',
          'n.uuid as networkUuid',
          'r.name',
          'r.description',
          'r.action',
          'r.is_enabled as isEnabled',
          'r.src_prefix as srcPrefix',
          'r.dst_prefix as dstPrefix',
          'r.priority',
        ])
        .where('n.company_id', '=', companyId)
        .where('r.uuid', '=', uuid)
        .executeTakeFirst();
      return row && { ...row, action: row.action as FirewallRuleValues['action'], isEnabled: Boolean(row.isEnabled) };
    },

    /** The network's largest priority; 0 when it has no rules. */
    async maxPriority(networkId: number): Promise<number> {
      const row = await db.selectFrom('firewall_rules').select((eb) => eb.fn.max('priority').as('max')).where('network_id', '=', networkId).executeTakeFirst();
      return Number(row?.max ?? 0);
    },

    /** True when another rule of the network has this priority. */
    async isPriorityTaken(networkId: number, priority: number, exceptId: number | null = null): Promise<boolean> {
      let query = db.selectFrom('firewall_rules').select('id').where('network_id', '=', networkId).where('priority', '=', priority);
      if (exceptId !== null) query = query.where('id', '<>', exceptId);
      return (await query.executeTakeFirst()) !== undefined;
    },

    async insert(networkId: number, uuid: string, values: FirewallRuleValues): Promise<void> {
      await db
        .insertInto('firewall_rules')
        .values({ uuid, network_id: networkId, ...columnsOf(values) })
        .execute();
    },

    async update(id: number, values: FirewallRuleValues): Promise<void> {
      await db.updateTable('firewall_rules').set(columnsOf(values)).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('firewall_rules').where('id', '=', id).execute();
    },
  };
}
