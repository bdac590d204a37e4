import type { SqlContext } from '../../db/store.js';

/** A blocked client as stored. */
export interface BlockedClientRow {
  readonly id: number;
  readonly uuid: string;
  readonly macAddress: string;
  readonly reason: string | null;
  readonly createdAt: string;
}

/** SQL of a network's blocklist of client MAC addresses. */
export function createBlockedClientRepository({ db }: SqlContext) {
  return {
    /** The entry of the network for this MAC address, if blocked. */
    async find(networkId: number, macAddress: string): Promise<BlockedClientRow | undefined> {
      return db
        .selectFrom('blocked_clients')
        .select(['id', 'uuid', 'mac_address as macAddress', 'reason', 'created_at as createdAt'])
        .where('network_id', '=', networkId)
        .where('mac_address', '=', macAddress)
        .executeTakeFirst();
    },

    async insert(networkId: number, row: Omit<BlockedClientRow, 'id'>): Promise<void> {
      await db
        .insertInto('blocked_clients')
        .values({ uuid: row.uuid, network_id: networkId, mac_address: row.macAddress, reason: row.reason, created_at: row.createdAt })
        .execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('blocked_clients').where('id', '=', id).execute();
    },
  };
}
