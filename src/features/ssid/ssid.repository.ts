import type { SqlContext } from '../../db/store.js';

/** An SSID as stored, with its network's UUID. */
export interface SsidRow {
  readonly id: number;
  readonly uuid: string;
  readonly networkId: number;
  readonly networkUuid: string;
  readonly ssid: string;
  readonly isEnabled: boolean;
  readonly isGuest: boolean;
  readonly isHidden: boolean;
  readonly encryptionProtocol: string | null;
  readonly vlanId: number | null;
}

/** The columns an SSID write sets. */
export interface SsidValues {
  readonly ssid: string;
  readonly isEnabled: boolean;
  readonly isGuest: boolean;
  readonly isHidden: boolean;
  readonly encryptionProtocol: string | null;
  /** The number of the network's VLAN its clients go on; null: none. */
  readonly vlanId: number | null;
}

/** The columns of SSID values. */
const columnsOf = (values: SsidValues) => ({
  ssid: values.ssid,
  is_enabled: values.isEnabled,
  is_guest: values.isGuest,
  is_hidden: values.isHidden,
  encryption_protocol: values.encryptionProtocol,
  vlan_id: values.vlanId,
});

/** SQL of SSIDs. An SSID belongs to a company through its network. */
export function createSsidRepository({ db }: SqlContext) {
  const selectSsids = () =>
    db
      .selectFrom('ssids as s')
      .innerJoin('networks as n', 'n.id', 's.network_id')
      .select([
        's.id',
        's.uuid',
        's.network_id as networkId',
        'n.uuid as networkUuid',
        's.ssid',
        's.is_enabled as isEnabled',
        's.is_guest as isGuest',
        's.is_hidden as isHidden',
        's.encryption_protocol as encryptionProtocol',
        's.vlan_id as vlanId',
      ]);
  const toRow = <R extends { isEnabled: unknown; isGuest: unknown; isHidden: unknown }>(row: R) => ({
    ...row,
    isEnabled: Boolean(row.isEnabled),
    isGuest: Boolean(row.isGuest),
    isHidden: Boolean(row.isHidden),
  });

  return {
    /** The SSID with this UUID on a network of the company; undefined for another company's, as for a missing one. */
    async findByUuid(companyId: number, uuid: string): Promise<SsidRow | undefined> {
      const row = await selectSsids().where('n.company_id', '=', companyId).where('s.uuid', '=', uuid).executeTakeFirst();
      return row && toRow(row);
    },

    /** The network's SSIDs, by name (the API's order). */
    async listByNetwork(networkId: number): Promise<SsidRow[]> {
      const rows = await selectSsids().where('s.network_id', '=', networkId).orderBy('s.ssid').execute();
      return rows.map(toRow);
    },

    /** True when another SSID of the network has this name. */
    async isNameTaken(networkId: number, ssid: string, exceptId: number | null = null): Promise<boolean> {
      let query = db.selectFrom('ssids').select('id').where('network_id', '=', networkId).where('ssid', '=', ssid);
      if (exceptId !== null) query = query.where('id', '<>', exceptId);
      return (await query.executeTakeFirst()) !== undefined;
    },

    async insert(networkId: number, uuid: string, values: SsidValues): Promise<void> {
      await db.insertInto('ssids').values({ uuid, network_id: networkId, ...columnsOf(values) }).execute();
    },

    async update(id: number, values: SsidValues): Promise<void> {
      await db.updateTable('ssids').set(columnsOf(values)).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('ssids').where('id', '=', id).execute();
    },
  };
}
