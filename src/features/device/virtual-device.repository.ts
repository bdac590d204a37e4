import type { SqlContext } from '../../db/store.js';

/** A virtual device as stored, with its network's UUID and the serial number of its hardware, if any. */
export interface VirtualDeviceRow {
  readonly id: number;
  readonly uuid: string;
  readonly networkId: number;
  readonly networkUuid: string;
  readonly label: string;
  readonly deviceType: string;
  readonly deviceModel: string;
  readonly hardwareSerialNumber: string | null;
  readonly hardwareDeviceType: string | null;
}

/** The columns a virtual device write sets. Its online flag is reported by the device, never written here. */
export interface VirtualDeviceValues {
  readonly label: string;
  readonly deviceType: string;
  readonly deviceModel: string;
}

/** SQL of virtual devices. */
export function createVirtualDeviceRepository({ db }: SqlContext) {
  const selectDevices = () =>
    db
      .selectFrom('virtual_devices as v')
      .innerJoin('networks as n', 'n.id', 'v.network_id')
      .leftJoin('hardware_devices as h', 'h.virtual_device_id', 'v.id')
      .select([
        'v.id',
        'v.uuid',
        'v.network_id as networkId',
        'n.uuid as networkUuid',
        'v.label',
        'v.device_type as deviceType',
        'v.device_model as deviceModel',
        'h.serial_number as hardwareSerialNumber',
        'h.device_type as hardwareDeviceType',
      ]);

  return {
    /** The virtual device with this UUID within the company; undefined for another company's, as for a missing one. */
    async findByUuid(companyId: number, uuid: string): Promise<VirtualDeviceRow | undefined> {
      return selectDevices().where('v.company_id', '=', companyId).where('v.uuid', '=', uuid).executeTakeFirst();
    },

    /** The network's virtual devices, by label then UUID (the API's order). */
    async listByNetwork(networkId: number): Promise<VirtualDeviceRow[]> {
      return selectDevices().where('v.network_id', '=', networkId).orderBy('v.label').orderBy('v.uuid').execute();
    },

    /** Inserts a virtual device; it starts offline. */
    async insert(companyId: number, networkId: number, uuid: string, values: VirtualDeviceValues): Promise<void> {
      await db
        .insertInto('virtual_devices')
        .values({
          uuid,
          company_id: companyId,
          network_id: networkId,
          label: values.label,
          device_type: values.deviceType,
          device_model: values.deviceModel,
          is_online: false,
        })
        .execute();
    },

    async update(id: number, values: VirtualDeviceValues): Promise<void> {
      await db
        .updateTable('virtual_devices')
        .set({ label: values.label, device_type: values.deviceType, device_model: values.deviceModel })
        .where('id', '=', id)
        .execute();
    },

    /** Deletes the virtual device; the foreign key returns its hardware to spare. */
    async delete(id: number): Promise<void> {
      await db.deleteFrom('virtual_devices').where('id', '=', id).execute();
    },
  };
}
