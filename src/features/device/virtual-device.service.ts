import { TEXT_MAX } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import { AppError, invariant } from '../../kernel/errors.js';
import type { SqlContext } from '../../db/store.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { VIRTUAL_DEVICE_TYPES } from '../../platform/import/import.schema.js';
import { getCallersNetwork } from '../network/network.access.js';
import { isGiven, notFound, requireOneOf, requireSomeChange, requireText, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createHardwareDeviceRepository } from './hardware-device.repository.js';
import { createVirtualDeviceRepository } from './virtual-device.repository.js';
import type { VirtualDeviceRow, VirtualDeviceValues } from './virtual-device.repository.js';

/** The fields of a new virtual device. */
export interface VirtualDeviceFields {
  readonly label: string;
  readonly deviceType: string;
  readonly deviceModel: string;
}

/** A virtual device as the API and the audit log show it, with the serial number of its hardware. */
export interface VirtualDeviceSnapshot {
  readonly UUID: string;
  readonly networkUUID: string;
  readonly label: string;
  readonly deviceType: string;
  readonly deviceModel: string;
  readonly hardwareSerialNumber: string | null;
}

const UPDATABLE = ['label', 'deviceType', 'deviceModel'] as const;

/**
 * Virtual devices (the device slots of a network): create, update, delete.
 * Each is one audited transaction. New devices start offline: the online
 * flag is reported by devices and never written by clients.
 */
export function createVirtualDeviceService(writes: WriteService) {
  return {
    /** Adds a virtual device to a network of the caller's company. */
    async create(caller: Caller, input: { networkUUID: string } & VirtualDeviceFields): Promise<VirtualDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const networkUuid = requireUuid(input.networkUUID, 'networkUUID');
        const values = checkFields(input);
        const network = await getCallersNetwork(tx, caller, networkUuid);
        const uuid = randomUUID();
        await createVirtualDeviceRepository(tx).insert(caller.companyId, network.id, uuid, values);
        const created: VirtualDeviceSnapshot = { UUID: uuid, networkUUID: network.uuid, ...values, hardwareSerialNumber: null };
        return { result: created, change: buildChange('virtual_device.create', uuid, null, created) };
      });
    },

    /**
     * Changes the given fields. A new device type must match the assigned
     * hardware's type (and OBSERVER takes none): unassign the hardware first.
     */
    async update(caller: Caller, input: { virtualDeviceUUID: string } & Partial<VirtualDeviceFields>): Promise<VirtualDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.virtualDeviceUUID, 'virtualDeviceUUID');
        requireSomeChange(input, UPDATABLE);
        const devices = createVirtualDeviceRepository(tx);
        const row = await devices.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('virtualDeviceUUID');
        const values = checkFields({
          label: isGiven(input, 'label') ? input.label : row.label,
          deviceType: isGiven(input, 'deviceType') ? input.deviceType : row.deviceType,
          deviceModel: isGiven(input, 'deviceModel') ? input.deviceModel : row.deviceModel,
        });
        if (row.hardwareDeviceType !== null && row.hardwareDeviceType !== values.deviceType) {
          throw new AppError(
            'BAD_USER_INPUT',
            `deviceType ${values.deviceType} does not match the assigned ${row.hardwareDeviceType} hardware ${row.hardwareSerialNumber}: unassign it first.`,
            { field: 'deviceType' },
          );
        }
        await devices.update(row.id, values);
        const before = toSnapshot(row);
        const after: VirtualDeviceSnapshot = { ...before, ...values };
        return { result: after, change: buildChange('virtual_device.update', uuid, before, after) };
      });
    },

    /** Deletes a virtual device; its hardware, if any, goes back to the company's spare inventory. */
    async delete(caller: Caller, input: { virtualDeviceUUID: string }): Promise<VirtualDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.virtualDeviceUUID, 'virtualDeviceUUID');
        const devices = createVirtualDeviceRepository(tx);
        const row = await devices.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('virtualDeviceUUID');
        // its hardware stays spare at the device's network
        await createHardwareDeviceRepository(tx).placeHardwareOfVirtualDevice(row.id, row.networkId);
        await devices.delete(row.id);
        const before = toSnapshot(row);
        return { result: before, change: buildChange('virtual_device.delete', uuid, before, null) };
      });
    },
  };
}

export type VirtualDeviceService = ReturnType<typeof createVirtualDeviceService>;

/** The network's virtual devices as the API shows them, read in `tx` (network.service.ts: what a network delete removes). */
export async function listNetworkDevices(tx: SqlContext, networkId: number): Promise<VirtualDeviceSnapshot[]> {
  return (await createVirtualDeviceRepository(tx).listByNetwork(networkId)).map(toSnapshot);
}

/**
 * The company's virtual device `uuid`, read in another feature's write (`tx`):
 * its row id and the serial number of the hardware assigned to it (null: none);
 * undefined when the company has no such device.
 */
export async function findCompanyDevice(tx: SqlContext, companyId: number, uuid: string): Promise<{ id: number; hardwareSerialNumber: string | null } | undefined> {
  const device = await createVirtualDeviceRepository(tx).findByUuid(companyId, uuid);
  return device === undefined ? undefined : { id: device.id, hardwareSerialNumber: device.hardwareSerialNumber };
}

/**
 * Adds a virtual device to a network of the company inside another
 * feature's write (`tx`), whose audit entry records it; the fields checked
 * by that caller. Returns its row id (for what that write attaches to it) and UUID.
 */
export async function insertVirtualDevice(tx: SqlContext, companyId: number, networkId: number, fields: VirtualDeviceFields): Promise<{ id: number; uuid: string }> {
  const devices = createVirtualDeviceRepository(tx);
  const uuid = randomUUID();
  await devices.insert(companyId, networkId, uuid, fields);
  const device = await devices.findByUuid(companyId, uuid);
  invariant(device !== undefined, 'virtual-device-insert-missing');
  return { id: device.id, uuid };
}

function checkFields(input: Partial<VirtualDeviceFields>): VirtualDeviceValues {
  return {
    label: requireText(input.label, 'label', TEXT_MAX.deviceLabel),
    deviceType: requireOneOf(input.deviceType, 'deviceType', VIRTUAL_DEVICE_TYPES),
    deviceModel: requireText(input.deviceModel, 'deviceModel', TEXT_MAX.deviceModel),
  };
}

function toSnapshot(row: VirtualDeviceRow): VirtualDeviceSnapshot {
  return {
    UUID: row.uuid,
    networkUUID: row.networkUuid,
    label: row.label,
    deviceType: row.deviceType,
    deviceModel: row.deviceModel,
    hardwareSerialNumber: row.hardwareSerialNumber,
  };
}
