import type { SqlContext } from '../../db/store.js';

/** A VLAN as stored (the columns a write sets, and its ids), with its network's UUID. */
export interface VlanRow extends VlanValues {
  readonly id: number;
  readonly uuid: string;
  readonly networkId: number;
  readonly networkUuid: string;
}

/** How a VLAN's clients get their IPv4 addresses. */
export type ClientAssignmentProtocol = 'DHCP' | 'STATIC';

/** The columns a VLAN write sets. */
export interface VlanValues {
  readonly name: string;
  readonly vlanId: number;
  readonly isEnabled: boolean;
  readonly isDefault: boolean;
  readonly description: string | null;
  readonly ipV4ClientGateway: string | null;
  readonly ipV4ClientPrefixLength: number | null;
  readonly ipV4ClientAssignmentProtocol: ClientAssignmentProtocol | null;
}

/** The columns of VLAN values. */
const columnsOf = (values: VlanValues) => ({
  name: values.name,
  vlan_id: values.vlanId,
  is_enabled: values.isEnabled,
  is_default: values.isDefault,
  description: values.description,
  ipv4_client_gateway: values.ipV4ClientGateway,
  ipv4_client_prefix_length: values.ipV4ClientPrefixLength,
  ipv4_client_assignment_protocol: values.ipV4ClientAssignmentProtocol,
});

/** SQL of VLANs. A VLAN belongs to a company through its network. */
export function createVlanRepository({ db }: SqlContext) {
  const selectVlans = () =>
    db
      .selectFrom('vlans as l')
      .innerJoin('networks as n', 'n.id', 'l.network_id')
      .select([
        'l.id',
        'l.uuid',
        'l.network_id as networkId',
        'n.uuid as networkUuid',
        'l.name',
        'l.vlan_id as vlanId',
        'l.is_enabled as isEnabled',
        'l.is_default as isDefault',
        'l.description',
        'l.ipv4_client_gateway as ipV4ClientGateway',
        'l.ipv4_client_prefix_length as ipV4ClientPrefixLength',
        'l.ipv4_client_assignment_protocol as ipV4ClientAssignmentProtocol',
      ]);
  const toRow = <R extends { isEnabled: unknown; isDefault: unknown; ipV4ClientAssignmentProtocol: string | null }>(row: R) => ({
    ...row,
    isEnabled: Boolean(row.isEnabled),
    isDefault: Boolean(row.isDefault),
    // only the service writes it, with one of these values
    ipV4ClientAssignmentProtocol: row.ipV4ClientAssignmentProtocol as ClientAssignmentProtocol | null,
  });

  return {
    /** The VLAN with this UUID on a network of the company; undefined for another company's, as for a missing one. */
    async findByUuid(companyId: number, uuid: string): Promise<VlanRow | undefined> {
      const row = await selectVlans().where('n.company_id', '=', companyId).where('l.uuid', '=', uuid).executeTakeFirst();
      return row && toRow(row);
    },

    /** The network's VLANs, by name then VLAN id (the API's order). */
    async listByNetwork(networkId: number): Promise<VlanRow[]> {
      const rows = await selectVlans().where('l.network_id', '=', networkId).orderBy('l.name').orderBy('l.vlan_id').execute();
      return rows.map(toRow);
    },

    /** True when another VLAN of the network has this VLAN id. */
    async isVlanIdTaken(networkId: number, vlanId: number, exceptId: number | null = null): Promise<boolean> {
      let query = db.selectFrom('vlans').select('id').where('network_id', '=', networkId).where('vlan_id', '=', vlanId);
      if (exceptId !== null) query = query.where('id', '<>', exceptId);
      return (await query.executeTakeFirst()) !== undefined;
    },

    async insert(networkId: number, uuid: string, values: VlanValues): Promise<void> {
      await db
        .insertInto('vlans')
        .values({ uuid, network_id: networkId, ...columnsOf(values) })
        .execute();
    },

    async update(id: number, values: VlanValues): Promise<void> {
      await db
        .updateTable('vlans')
        .set(columnsOf(values))
        .where('id', '=', id)
        .execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('vlans').where('id', '=', id).execute();
    },
  };
}
