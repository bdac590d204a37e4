import type { SqlContext } from '../../db/store.js';

/** A hardware device as stored, with the UUID of the virtual device it is assigned to, if any. */
export interface HardwareDeviceRow {
  readonly id: number;
  readonly serialNumber: string;
  readonly deviceType: string;
  readonly deviceModel: string;
  readonly virtualDeviceId: number | null;
  readonly virtualDeviceUuid: string | null;
  /** The network spare hardware is placed at; null when placed nowhere (and once assigned). */
  readonly spareNetworkId: number | null;
  readonly spareNetworkUuid: string | null;
}

/** SQL of hardware devices. */
export function createHardwareDeviceRepository({ db }: SqlContext) {
  return {
    /** The company's hardware device with this serial number; undefined for another company's, as for a missing one. */
    async findBySerial(companyId: number, serialNumber: string): Promise<HardwareDeviceRow | undefined> {
      return db
        .selectFrom('hardware_devices as h')
        .leftJoin('virtual_devices as v', 'v.id', 'h.virtual_device_id')
        .leftJoin('networks as sn', 'sn.id', 'h.spare_network_id')
        .select([
          'h.id',
          'h.serial_number as serialNumber',
          'h.device_type as deviceType',
          'h.device_model as deviceModel',
          'h.virtual_device_id as virtualDeviceId',
          'v.uuid as virtualDeviceUuid',
          'h.spare_network_id as spareNetworkId',
          'sn.uuid as spareNetworkUuid',
        ])
        .where('h.company_id', '=', companyId)
        .where('h.serial_number', '=', serialNumber)
        .executeTakeFirst();
    },

    /**
     * True when the serial number is registered in any company. Serial
     * numbers are unique across the service; callers must not tell a
     * caller which company holds it.
     */
    async isSerialRegistered(serialNumber: string): Promise<boolean> {
      const row = await db.selectFrom('hardware_devices').select('id').where('serial_number', '=', serialNumber).executeTakeFirst();
      return row !== undefined;
    },

    /** Inserts spare hardware into the company's inventory, placed at a network or nowhere (null); it starts not connected. */
    async insert(companyId: number, values: { serialNumber: string; deviceType: string; deviceModel: string; spareNetworkId: number | null }): Promise<void> {
      await db
        .insertInto('hardware_devices')
        .values({
          company_id: companyId,
          serial_number: values.serialNumber,
          device_type: values.deviceType,
          device_model: values.deviceModel,
          is_connected_to_backend: false,
          virtual_device_id: null,
          spare_network_id: values.spareNetworkId,
        })
        .execute();
    },

    async updateModel(id: number, deviceModel: string): Promise<void> {
      await db.updateTable('hardware_devices').set({ device_model: deviceModel }).where('id', '=', id).execute();
    },

    /**
     * Assigns the hardware to a virtual device (placed nowhere then), or
     * returns it to spare with null, placed at the network `spareNetworkId`.
     */
    async setVirtualDevice(id: number, virtualDeviceId: number | null, spareNetworkId: number | null = null): Promise<void> {
      await db.updateTable('hardware_devices').set({ virtual_device_id: virtualDeviceId, spare_network_id: spareNetworkId }).where('id', '=', id).execute();
    },

    /** Places spare hardware at a network, or nowhere with null. */
    async placeAt(id: number, networkId: number | null): Promise<void> {
      await db.updateTable('hardware_devices').set({ spare_network_id: networkId }).where('id', '=', id).execute();
    },

    /** Places the hardware of a virtual device about to be deleted at the network (its foreign key then returns it to spare). */
    async placeHardwareOfVirtualDevice(virtualDeviceId: number, networkId: number): Promise<void> {
      await db.updateTable('hardware_devices').set({ spare_network_id: networkId }).where('virtual_device_id', '=', virtualDeviceId).execute();
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('hardware_devices').where('id', '=', id).execute();
    },
  };
}
