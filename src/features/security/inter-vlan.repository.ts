import type { SqlContext } from '../../db/store.js';

/** A permitted pair as stored: the two VLAN row ids, the smaller first. */
export interface InterVlanPairRow {
  readonly id: number;
  readonly uuid: string;
}

/** SQL of the VLAN pairs a network permits to talk to each other. A pair is stored once, the smaller VLAN row id first. */
export function createInterVlanRepository({ db }: SqlContext) {
  return {
    /** The pair of these two VLAN row ids (either order), if permitted. */
    async find(vlanIdA: number, vlanIdB: number): Promise<InterVlanPairRow | undefined> {
      return db
        .selectFrom('inter_vlan_pairs')
        .select(['id', 'uuid'])
        .where('vlan_low_id', '=', Math.min(vlanIdA, vlanIdB))
        .where('vlan_high_id', '=', Math.max(vlanIdA, vlanIdB))
        .executeTakeFirst();
    },

    async insert(networkId: number, uuid: string, vlanIdA: number, vlanIdB: number): Promise<void> {
      await db
        .insertInto('inter_vlan_pairs')
        .values({ uuid, network_id: networkId, vlan_low_id: Math.min(vlanIdA, vlanIdB), vlan_high_id: Math.max(vlanIdA, vlanIdB) })
        .execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('inter_vlan_pairs').where('id', '=', id).execute();
    },
  };
}
