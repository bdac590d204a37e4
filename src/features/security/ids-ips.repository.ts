import type { SqlContext } from '../../db/store.js';

/** A network's IDS/IPS configuration as stored. */
export interface IdsIpsConfigRow {
  readonly id: number;
  readonly uuid: string;
  readonly mode: string;
}

/** SQL of IDS/IPS configurations: at most one per network. */
export function createIdsIpsRepository({ db }: SqlContext) {
  return {
    async findByNetwork(networkId: number): Promise<IdsIpsConfigRow | undefined> {
      return db.selectFrom('ids_ips_configs').select(['id', 'uuid', 'mode']).where('network_id', '=', networkId).executeTakeFirst();
    },

    async insert(networkId: number, uuid: string, mode: string): Promise<void> {
      await db.insertInto('ids_ips_configs').values({ uuid, network_id: networkId, mode }).execute();
    },

    async updateMode(id: number, mode: string): Promise<void> {
      await db.updateTable('ids_ips_configs').set({ mode }).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('ids_ips_configs').where('id', '=', id).execute();
    },
  };
}
