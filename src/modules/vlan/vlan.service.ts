import { randomUUID } from 'node:crypto';
import type { SqlContext } from '../../db/store.js';
import { AppError } from '../../errors.js';
import type { Caller } from '../api-key/api-key.service.js';
import { buildChange } from '../audit/audit.service.js';
import { createNetworkRepository } from '../network/network.repository.js';
import { isGiven, notFound, optionalText, requireBoolean, requireSomeChange, requireText, requireUuid } from '../write/write.rules.js';
import type { WriteService } from '../write/write.service.js';
import { createVlanRepository } from './vlan.repository.js';
import type { VlanRow, VlanValues } from './vlan.repository.js';

/** The fields of a new VLAN. `isEnabled` defaults to true. */
export interface VlanFields {
  readonly name: string;
  readonly vlanID: number;
  readonly isEnabled?: boolean;
  readonly isDefault?: boolean;
  readonly description?: string | null;
}

/** A VLAN as the API and the audit log show it. */
export interface VlanSnapshot {
  readonly UUID: string;
  readonly networkUUID: string;
  readonly name: string;
  readonly vlanID: number;
  readonly isEnabled: boolean;
  readonly isDefault: boolean;
  readonly description: string | null;
}

const UPDATABLE = ['name', 'vlanID', 'isEnabled', 'isDefault', 'description'] as const;

/** Checks a VLAN's fields; `path` prefixes the field names in errors (e.g. `vlans[1].`). */
export function checkVlanFields(input: Partial<VlanFields>, path = ''): VlanValues {
  const vlanId = input.vlanID;
  if (typeof vlanId !== 'number' || !Number.isInteger(vlanId) || vlanId < 1 || vlanId > 4094) {
    throw new AppError('BAD_USER_INPUT', `${path}vlanID must be a whole number from 1 to 4094.`, { field: `${path}vlanID` });
  }
  return {
    name: requireText(input.name, `${path}name`, 100),
    vlanId,
    isEnabled: input.isEnabled === undefined ? true : requireBoolean(input.isEnabled, `${path}isEnabled`),
    isDefault: input.isDefault === undefined ? false : requireBoolean(input.isDefault, `${path}isDefault`),
    description: input.description === undefined ? null : optionalText(input.description, `${path}description`, 500),
  };
}

/** CONFLICT for a VLAN id that another VLAN of the network uses. */
export function vlanIdConflict(vlanId: number, field: string): AppError {
  return new AppError('CONFLICT', `VLAN id ${vlanId} is already used by another VLAN of this network: pick another.`, { field });
}

/** Inserts a checked VLAN on a network; CONFLICT naming `path + 'vlanID'` when its id is taken. */
export async function insertVlan(
  tx: SqlContext,
  writes: WriteService,
  network: { id: number; uuid: string },
  values: VlanValues,
  path = '',
): Promise<VlanSnapshot> {
  const vlans = createVlanRepository(tx);
  const conflict = () => vlanIdConflict(values.vlanId, `${path}vlanID`);
  if (await vlans.isVlanIdTaken(network.id, values.vlanId)) throw conflict();
  const uuid = randomUUID();
  await writes.unique(vlans.insert(network.id, uuid, values), conflict);
  return snapshotOf(uuid, network.uuid, values);
}

/** VLANs of a company's networks: create, update, delete. Each is one audited transaction. */
export function createVlanService(writes: WriteService) {
  return {
    /** Adds a VLAN to a network; its id must be 1 to 4094 and unused on the network. */
    async create(caller: Caller, input: { networkUUID: string } & VlanFields): Promise<VlanSnapshot> {
      return writes.run(caller, async (tx) => {
        const networkUuid = requireUuid(input.networkUUID, 'networkUUID');
        const values = checkVlanFields(input);
        const network = await createNetworkRepository(tx).findByUuid(caller.companyId, networkUuid);
        if (!network) throw notFound('networkUUID');
        const created = await insertVlan(tx, writes, network, values);
        return { result: created, change: buildChange('vlan.create', created.UUID, null, created) };
      });
    },

    /** Changes the given fields of a VLAN; absent fields stay. */
    async update(caller: Caller, input: { vlanUUID: string } & Partial<VlanFields>): Promise<VlanSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.vlanUUID, 'vlanUUID');
        requireSomeChange(input, UPDATABLE);
        const vlans = createVlanRepository(tx);
        const row = await vlans.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('vlanUUID');
        const before = toSnapshot(row);
        const values = checkVlanFields({
          name: isGiven(input, 'name') ? input.name : row.name,
          vlanID: isGiven(input, 'vlanID') ? input.vlanID : row.vlanId,
          isEnabled: isGiven(input, 'isEnabled') ? requireBoolean(input.isEnabled, 'isEnabled') : row.isEnabled,
          isDefault: isGiven(input, 'isDefault') ? requireBoolean(input.isDefault, 'isDefault') : row.isDefault,
          description: isGiven(input, 'description') ? input.description : row.description,
        });
        const conflict = () => vlanIdConflict(values.vlanId, 'vlanID');
        if (await vlans.isVlanIdTaken(row.networkId, values.vlanId, row.id)) throw conflict();
        await writes.unique(vlans.update(row.id, values), conflict);
        const after = snapshotOf(uuid, row.networkUuid, values);
        return { result: after, change: buildChange('vlan.update', uuid, before, after) };
      });
    },

    /** Deletes a VLAN. */
    async delete(caller: Caller, input: { vlanUUID: string }): Promise<VlanSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.vlanUUID, 'vlanUUID');
        const vlans = createVlanRepository(tx);
        const row = await vlans.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('vlanUUID');
        await vlans.delete(row.id);
        const before = toSnapshot(row);
        return { result: before, change: buildChange('vlan.delete', uuid, before, null) };
      });
    },
  };
}

export type VlanService = ReturnType<typeof createVlanService>;

/** A stored VLAN as the API shows it. */
export function toSnapshot(row: VlanRow): VlanSnapshot {
  return snapshotOf(row.uuid, row.networkUuid, row);
}

function snapshotOf(uuid: string, networkUuid: string, values: VlanValues): VlanSnapshot {
  const { name, vlanId, isEnabled, isDefault, description } = values;
  return { UUID: uuid, networkUUID: networkUuid, name, vlanID: vlanId, isEnabled, isDefault, description };
}
