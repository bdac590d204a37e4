import type { SqlContext } from '../../db/store.js';
import { AppError, invariant } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { SERIAL_RULE, TEXT_MAX, isSerialNumber } from '../../kernel/rules.js';
import { DEVICE_TYPES } from '../../platform/import/import.schema.js';
import { findCallersNetwork } from '../network/network.access.js';
import { notFound, requireOneOf, requireText, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createHardwareDeviceRepository } from './hardware-device.repository.js';
import type { HardwareDeviceRow } from './hardware-device.repository.js';
import { createVirtualDeviceRepository } from './virtual-device.repository.js';

/** A hardware device as the API and the audit log show it, with the virtual device it is assigned to. */
export interface HardwareDeviceSnapshot {
  readonly serialNumber: string;
  readonly deviceType: string;
  readonly deviceModel: string;
  /** Null for spare hardware. */
  readonly virtualDeviceUUID: string | null;
  /** The network spare hardware is placed at; null when placed nowhere, and while assigned. */
  readonly spareNetworkUUID: string | null;
}

/**
 * The company's hardware inventory: register, update, delete (spare only),
 * assign to a virtual device, unassign. Each is one audited transaction;
 * assigning what is assigned already, or unassigning spare hardware, changes
 * nothing and records nothing.
 */
export function createHardwareDeviceService(writes: WriteService) {
  return {
    /**
     * Registers spare hardware in the caller's company. A serial number held
     * anywhere (this company or another) gets the same CONFLICT, which never
     * says where: see docs/errors.md.
     */
    async register(
      caller: Caller,
      input: { serialNumber: string; deviceType: string; deviceModel: string; networkUUID?: string | null },
    ): Promise<HardwareDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const serialNumber = checkSerial(input.serialNumber);
        const values = {
          serialNumber,
          deviceType: requireOneOf(input.deviceType, 'deviceType', DEVICE_TYPES),
          deviceModel: requireText(input.deviceModel, 'deviceModel', TEXT_MAX.deviceModel),
        };
        const network = await findCallersNetwork(tx, caller, input.networkUUID);
        const hardware = createHardwareDeviceRepository(tx);
        const conflict = () => notRegistrable(serialNumber);
        if (await hardware.isSerialRegistered(serialNumber)) throw conflict();
        await writes.unique(hardware.insert(caller.companyId, { ...values, spareNetworkId: network?.id ?? null }), conflict);
        const created: HardwareDeviceSnapshot = { ...values, virtualDeviceUUID: null, spareNetworkUUID: network?.uuid ?? null };
        return { result: created, change: buildChange('hardware_device.register', serialNumber, null, created) };
      });
    },

    /** Changes the model of a hardware device; its type and serial number never change. */
    async update(caller: Caller, input: { serialNumber: string; deviceModel: string }): Promise<HardwareDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const row = await getHardware(tx, caller, input.serialNumber);
        const deviceModel = requireText(input.deviceModel, 'deviceModel', TEXT_MAX.deviceModel);
        await createHardwareDeviceRepository(tx).updateModel(row.id, deviceModel);
        const before = toSnapshot(row);
        const after = { ...before, deviceModel };
        return { result: after, change: buildChange('hardware_device.update', row.serialNumber, before, after) };
      });
    },

    /** Removes spare hardware from the inventory; assigned hardware is a CONFLICT (unassign it first). */
    async delete(caller: Caller, input: { serialNumber: string }): Promise<HardwareDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const row = await getHardware(tx, caller, input.serialNumber);
        if (row.virtualDeviceUuid !== null) {
          throw new AppError('CONFLICT', `Hardware ${row.serialNumber} is assigned to virtual device ${row.virtualDeviceUuid}: unassign it first.`, {
            field: 'serialNumber',
          });
        }
        await createHardwareDeviceRepository(tx).delete(row.id);
        const before = toSnapshot(row);
        return { result: before, change: buildChange('hardware_device.delete', row.serialNumber, before, null) };
      });
    },

    /**
     * Assigns spare hardware to a virtual device of the same type that has
     * none. OBSERVER devices take no hardware.
     */
    async assign(caller: Caller, input: { serialNumber: string; virtualDeviceUUID: string }): Promise<HardwareDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const row = await getHardware(tx, caller, input.serialNumber);
        const deviceUuid = requireUuid(input.virtualDeviceUUID, 'virtualDeviceUUID');
        const device = await createVirtualDeviceRepository(tx).findByUuid(caller.companyId, deviceUuid);
        if (!device) throw notFound('virtualDeviceUUID');
        const before = toSnapshot(row);
        if (row.virtualDeviceId === device.id) return { result: before, change: null };
        checkAssignable(row, device);
        const conflict = () => hasHardware(deviceUuid, null);
        await writes.unique(createHardwareDeviceRepository(tx).setVirtualDevice(row.id, device.id), conflict);
        const after = { ...before, virtualDeviceUUID: deviceUuid, spareNetworkUUID: null };
        return { result: after, change: buildChange('hardware_device.assign', row.serialNumber, before, after) };
      });
    },

    /** Returns hardware to the company's spare inventory; `before.virtualDeviceUUID` says where it was. */
    async unassign(caller: Caller, input: { serialNumber: string }): Promise<{ before: HardwareDeviceSnapshot; after: HardwareDeviceSnapshot }> {
      return writes.run(caller, async (tx) => {
        const row = await getHardware(tx, caller, input.serialNumber);
        const before = toSnapshot(row);
        if (row.virtualDeviceId === null) return { result: { before, after: before }, change: null };
        // spare at the network of the device it leaves
        const device = await createVirtualDeviceRepository(tx).findByUuid(caller.companyId, row.virtualDeviceUuid ?? '');
        invariant(device !== undefined, 'unassign-without-device');
        await createHardwareDeviceRepository(tx).setVirtualDevice(row.id, null, device.networkId);
        const after = { ...before, virtualDeviceUUID: null, spareNetworkUUID: device.networkUuid };
        return { result: { before, after }, change: buildChange('hardware_device.unassign', row.serialNumber, before, after) };
      });
    },

    /**
     * Places spare hardware at a network (where spareHardwareDevicesForNetwork
     * lists it), or nowhere with a null networkUUID; assigned hardware is
     * CONFLICT. Placing it where it is changes nothing.
     */
    async place(caller: Caller, input: { serialNumber: string; networkUUID: string | null }): Promise<HardwareDeviceSnapshot> {
      return writes.run(caller, async (tx) => {
        const row = await getHardware(tx, caller, input.serialNumber);
        if (row.virtualDeviceUuid !== null) {
          throw new AppError('CONFLICT', `Hardware ${row.serialNumber} is assigned to virtual device ${row.virtualDeviceUuid}, not spare: unassign it first.`, {
            field: 'serialNumber',
          });
        }
        const network = await findCallersNetwork(tx, caller, input.networkUUID);
        const before = toSnapshot(row);
        if ((network?.id ?? null) === row.spareNetworkId) return { result: before, change: null };
        await createHardwareDeviceRepository(tx).placeAt(row.id, network?.id ?? null);
        const after = { ...before, spareNetworkUUID: network?.uuid ?? null };
        return { result: after, change: buildChange('hardware_device.place', row.serialNumber, before, after) };
      });
    },
  };
}

export type HardwareDeviceService = ReturnType<typeof createHardwareDeviceService>;

/**
 * Registers hardware of the company assigned to a virtual device at once,
 * inside another feature's write (`tx`), whose audit entry records it; the
 * values checked by that caller. A serial number registered anywhere throws
 * `conflict()`, which should not say where (docs/errors.md).
 */
export async function registerAssignedHardware(
  tx: SqlContext,
  writes: WriteService,
  companyId: number,
  values: { serialNumber: string; deviceType: string; deviceModel: string },
  virtualDeviceId: number,
  conflict: () => AppError,
): Promise<void> {
  const hardware = createHardwareDeviceRepository(tx);
  if (await hardware.isSerialRegistered(values.serialNumber)) throw conflict();
  await writes.unique(hardware.insert(companyId, { ...values, spareNetworkId: null }), conflict);
  const registered = await hardware.findBySerial(companyId, values.serialNumber);
  invariant(registered !== undefined, 'hardware-register-assigned-missing');
  await hardware.setVirtualDevice(registered.id, virtualDeviceId);
}

function checkSerial(value: unknown): string {
  if (typeof value === 'string' && isSerialNumber(value)) return value;
  throw new AppError('BAD_USER_INPUT', `serialNumber ${JSON.stringify(value)} is not valid: expected ${SERIAL_RULE}.`, { field: 'serialNumber' });
}

/** The caller's hardware with this serial number; UNAUTHORIZED for another company's, as for a missing one. */
async function getHardware(tx: SqlContext, caller: Caller, serial: unknown): Promise<HardwareDeviceRow> {
  const row = await createHardwareDeviceRepository(tx).findBySerial(caller.companyId, checkSerial(serial));
  if (!row) throw notFound('serialNumber');
  return row;
}

/** Type match, OBSERVER, and one hardware device per virtual device, each naming the field to fix. */
function checkAssignable(row: HardwareDeviceRow, device: { uuid: string; deviceType: string; hardwareSerialNumber: string | null }): void {
  if (device.deviceType === 'OBSERVER') {
    throw new AppError('BAD_USER_INPUT', 'An OBSERVER virtual device takes no hardware.', { field: 'virtualDeviceUUID' });
  }
  if (row.deviceType !== device.deviceType) {
    throw new AppError('BAD_USER_INPUT', `${row.deviceType} hardware cannot be assigned to a ${device.deviceType} virtual device.`, {
      field: 'serialNumber',
    });
  }
  if (row.virtualDeviceUuid !== null) {
    throw new AppError('CONFLICT', `Hardware ${row.serialNumber} is assigned to virtual device ${row.virtualDeviceUuid}: unassign it first.`, {
      field: 'serialNumber',
    });
  }
  if (device.hardwareSerialNumber !== null) throw hasHardware(device.uuid, device.hardwareSerialNumber);
}

function hasHardware(deviceUuid: string, serial: string | null): AppError {
  const which = serial === null ? '' : ` (${serial})`;
  return new AppError('CONFLICT', `Virtual device ${deviceUuid} already has hardware${which}: unassign it first.`, {
    field: 'virtualDeviceUUID',
  });
}

/**
 * The one answer for a serial number that cannot be registered, whether this
 * company or another holds it: it never says which, nor anything about the device.
 */
function notRegistrable(serial: string): AppError {
  return new AppError(
    'CONFLICT',
    `Serial number "${serial}" cannot be registered: it is registered already. Check the number; a device of your own inventory shows in hardwareDevice(serialNumber).`,
    { field: 'serialNumber' },
  );
}

function toSnapshot(row: HardwareDeviceRow): HardwareDeviceSnapshot {
  const { serialNumber, deviceType, deviceModel } = row;
  return { serialNumber, deviceType, deviceModel, virtualDeviceUUID: row.virtualDeviceUuid, spareNetworkUUID: row.spareNetworkUuid };
}
