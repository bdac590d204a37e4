import { TEXT_MAX, VLAN_ID_RULE, isVlanId } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import { isIPv4 } from 'node:net';
import type { SqlContext } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { getCallersNetwork } from '../network/network.access.js';
import { isGiven, notFound, optionalText, requireBoolean, requireOneOf, requireSomeChange, requireText, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createVlanRepository } from './vlan.repository.js';
import type { ClientAssignmentProtocol, VlanRow, VlanValues } from './vlan.repository.js';

/** The fields of a new VLAN. `isEnabled` defaults to true. */
export interface VlanFields {
  readonly name: string;
  readonly vlanID: number;
  readonly isEnabled?: boolean;
  readonly isDefault?: boolean;
  readonly description?: string | null;
  readonly ipV4ClientGateway?: string | null;
  readonly ipV4ClientPrefixLength?: number | null;
  readonly ipV4ClientAssignmentProtocol?: ClientAssignmentProtocol | null;
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
  readonly ipV4ClientGateway: string | null;
  readonly ipV4ClientPrefixLength: number | null;
  readonly ipV4ClientAssignmentProtocol: ClientAssignmentProtocol | null;
}

/** The client addressing fields: each may be changed alone, and the result is checked as a whole. */
const ADDRESSING = ['ipV4ClientGateway', 'ipV4ClientPrefixLength', 'ipV4ClientAssignmentProtocol'] as const;

const UPDATABLE = ['name', 'vlanID', 'isEnabled', 'isDefault', 'description', ...ADDRESSING] as const;

/** Checks a VLAN's fields; `path` prefixes the field names in errors (e.g. `vlans[1].`). */
export function checkVlanFields(input: Partial<VlanFields>, path = ''): VlanValues {
  const vlanId = input.vlanID;
  if (!isVlanId(vlanId)) {
    throw new AppError('BAD_USER_INPUT', `${path}vlanID must be ${VLAN_ID_RULE}.`, { field: `${path}vlanID` });
  }
  return {
    name: requireText(input.name, `${path}name`, TEXT_MAX.vlanName),
    vlanId,
    isEnabled: input.isEnabled === undefined ? true : requireBoolean(input.isEnabled, `${path}isEnabled`),
    isDefault: input.isDefault === undefined ? false : requireBoolean(input.isDefault, `${path}isDefault`),
    description: input.description === undefined ? null : optionalText(input.description, `${path}description`, TEXT_MAX.description),
    ...checkClientAddressing(input, path),
  };
}

/**
 * Checks a VLAN's IPv4 client addressing: the gateway an IPv4 address and
 * the prefix length 0 to 32, given together or not at all; with a prefix of
 * 30 or less the gateway is a host of its subnet (neither the subnet's
 * address nor its broadcast address). The protocol is DHCP or STATIC.
 */
export function checkClientAddressing(input: Partial<VlanFields>, path = ''): Pick<VlanValues, (typeof ADDRESSING)[number]> {
  const gateway = input.ipV4ClientGateway ?? null;
  const prefix = input.ipV4ClientPrefixLength ?? null;
  const protocol = input.ipV4ClientAssignmentProtocol ?? null;
  const bad = (field: string, message: string) => new AppError('BAD_USER_INPUT', `${path}${field} ${message}`, { field: `${path}${field}` });
  if (gateway !== null && (typeof gateway !== 'string' || !isIPv4(gateway))) throw bad('ipV4ClientGateway', 'must be an IPv4 address, e.g. 10.0.1.1.');
  if (prefix !== null && (typeof prefix !== 'number' || !Number.isInteger(prefix) || prefix < 0 || prefix > 32)) {
    throw bad('ipV4ClientPrefixLength', 'must be a whole number from 0 to 32.');
  }
  if (gateway !== null && prefix === null) throw bad('ipV4ClientPrefixLength', 'must be given with ipV4ClientGateway: the subnet of the gateway.');
  if (gateway === null && prefix !== null) throw bad('ipV4ClientGateway', 'must be given with ipV4ClientPrefixLength: the subnet\'s gateway.');
  if (gateway !== null && prefix !== null && !isHostOf(gateway, prefix)) {
    throw bad('ipV4ClientGateway', `${gateway} is the address or the broadcast address of its /${prefix} subnet: use a host address.`);
  }
  return {
    ipV4ClientGateway: gateway,
    ipV4ClientPrefixLength: prefix,
    ipV4ClientAssignmentProtocol: protocol === null ? null : requireOneOf(protocol, `${path}ipV4ClientAssignmentProtocol`, ['DHCP', 'STATIC'] as const),
  };
}

/** True when `address` is neither the first nor the last address of its /prefix subnet (any address of a /31 or /32). */
function isHostOf(address: string, prefix: number): boolean {
  if (prefix > 30) return true;
  const value = address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
  const size = 2 ** (32 - prefix);
  const offset = value % size;
  return offset !== 0 && offset !== size - 1;
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
        const network = await getCallersNetwork(tx, caller, networkUuid);
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
          ...Object.fromEntries(ADDRESSING.map((field) => [field, isGiven(input, field) ? input[field] : row[field]])),
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

export type { VlanRow } from './vlan.repository.js';

/** The company's VLAN with this UUID as stored, read in `tx`, if any (inter-vlan.service.ts: the two VLANs of a pair). */
export function findVlan(tx: SqlContext, companyId: number, uuid: string): Promise<VlanRow | undefined> {
  return createVlanRepository(tx).findByUuid(companyId, uuid);
}

/** The network's VLANs as the API and the audit log show them, read in `tx` (network.service.ts: what a network delete removes). */
export async function listNetworkVlans(tx: SqlContext, networkId: number): Promise<VlanSnapshot[]> {
  return (await createVlanRepository(tx).listByNetwork(networkId)).map(toSnapshot);
}

/** A stored VLAN as the API shows it. */
export function toSnapshot(row: VlanRow): VlanSnapshot {
  return snapshotOf(row.uuid, row.networkUuid, row);
}

function snapshotOf(uuid: string, networkUuid: string, values: VlanValues): VlanSnapshot {
  const { name, vlanId, isEnabled, isDefault, description, ipV4ClientGateway, ipV4ClientPrefixLength, ipV4ClientAssignmentProtocol } = values;
  return {
    UUID: uuid,
    networkUUID: networkUuid,
    name,
    vlanID: vlanId,
    isEnabled,
    isDefault,
    description,
    ipV4ClientGateway,
    ipV4ClientPrefixLength,
    ipV4ClientAssignmentProtocol,
  };
}
