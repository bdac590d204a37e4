import { SSID_MAX_BYTES, VLAN_ID_RULE, isSsidName, isVlanId } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import type { SqlContext } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { getCallersNetwork } from '../network/network.access.js';
import { isGiven, notFound, requireBoolean, requireOneOf, requireSomeChange, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createSsidRepository } from './ssid.repository.js';
import type { SsidRow, SsidValues } from './ssid.repository.js';

/** The fields of a new SSID. `isEnabled` defaults to true. */
export interface SsidFields {
  readonly ssid: string;
  readonly isEnabled?: boolean;
  readonly isGuest?: boolean;
  readonly isHidden?: boolean;
  readonly encryptionProtocol?: string | null;
  readonly vlanID?: number | null;
}

/** An SSID as the API and the audit log show it. */
export interface SsidSnapshot {
  readonly UUID: string;
  readonly networkUUID: string;
  readonly ssid: string;
  readonly isEnabled: boolean;
  readonly isGuest: boolean;
  readonly isHidden: boolean;
  readonly encryptionProtocol: string | null;
  readonly vlanID: number | null;
}

const UPDATABLE = ['ssid', 'isEnabled', 'isGuest', 'isHidden', 'encryptionProtocol', 'vlanID'] as const;

/** Meter's SSIDEncryptionProtocol values: what an SSID's encryptionProtocol may be (or null). */
export const SSID_ENCRYPTION_PROTOCOLS = [
  'OPEN_MAC_AUTH_RADIUS',
  'WPA2',
  'WPA2_ENTERPRISE',
  'WPA2_IPSK',
  'WPA2_MPSK',
  'WPA3',
  'WPA3_ENTERPRISE',
  'WPA3_OWE',
  'WPA3_TRANSITION',
] as const;

/** Checks an SSID's fields; `path` prefixes the field names in errors (e.g. `ssids[0].`). */
export function checkSsidFields(input: Partial<SsidFields>, path = ''): SsidValues {
  const ssid = input.ssid;
  if (!isSsidName(ssid)) {
    throw new AppError('BAD_USER_INPUT', `${path}ssid must be a name of 1 to ${SSID_MAX_BYTES} bytes (UTF-8).`, { field: `${path}ssid` });
  }
  const flag = (value: boolean | undefined, field: string, fallback: boolean) => (value === undefined ? fallback : requireBoolean(value, `${path}${field}`));
  return {
    ssid,
    isEnabled: flag(input.isEnabled, 'isEnabled', true),
    isGuest: flag(input.isGuest, 'isGuest', false),
    isHidden: flag(input.isHidden, 'isHidden', false),
    encryptionProtocol:
      input.encryptionProtocol === null || input.encryptionProtocol === undefined
        ? null
        : requireOneOf(input.encryptionProtocol, `${path}encryptionProtocol`, SSID_ENCRYPTION_PROTOCOLS),
    vlanId: optionalVlanNumber(input.vlanID, `${path}vlanID`),
  };
}

/** A VLAN number, or null. */
function optionalVlanNumber(value: unknown, field: string): number | null {
  if (value === null || value === undefined) return null;
  if (isVlanId(value)) return value;
  throw new AppError('BAD_USER_INPUT', `${field} must be ${VLAN_ID_RULE}, or null.`, { field });
}

/** CONFLICT for an SSID name that another SSID of the network uses. */
export function ssidConflict(ssid: string, field: string): AppError {
  return new AppError('CONFLICT', `The network already has an SSID named ${JSON.stringify(ssid)}: pick another name.`, { field });
}

/** Inserts a checked SSID on a network; CONFLICT naming `path + 'ssid'` when its name is taken. */
export async function insertSsid(
  tx: SqlContext,
  writes: WriteService,
  network: { id: number; uuid: string },
  values: SsidValues,
  path = '',
): Promise<SsidSnapshot> {
  const ssids = createSsidRepository(tx);
  const conflict = () => ssidConflict(values.ssid, `${path}ssid`);
  if (await ssids.isNameTaken(network.id, values.ssid)) throw conflict();
  const uuid = randomUUID();
  await writes.unique(ssids.insert(network.id, uuid, values), conflict);
  return snapshotOf(uuid, network.uuid, values);
}

/** SSIDs of a company's networks: create, update, delete. Each is one audited transaction. */
export function createSsidService(writes: WriteService) {
  return {
    /** Adds an SSID to a network; its name must be an SSID name (isSsidName) unused on the network. */
    async create(caller: Caller, input: { networkUUID: string } & SsidFields): Promise<SsidSnapshot> {
      return writes.run(caller, async (tx) => {
        const networkUuid = requireUuid(input.networkUUID, 'networkUUID');
        const values = checkSsidFields(input);
        const network = await getCallersNetwork(tx, caller, networkUuid);
        const created = await insertSsid(tx, writes, network, values);
        return { result: created, change: buildChange('ssid.create', created.UUID, null, created) };
      });
    },

    /** Changes the given fields of an SSID (e.g. `isEnabled: false` to switch it off); absent fields stay. */
    async update(caller: Caller, input: { ssidUUID: string } & Partial<SsidFields>): Promise<SsidSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.ssidUUID, 'ssidUUID');
        requireSomeChange(input, UPDATABLE);
        const ssids = createSsidRepository(tx);
        const row = await ssids.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('ssidUUID');
        const before = toSnapshot(row);
        const values = checkSsidFields({
          ssid: isGiven(input, 'ssid') ? input.ssid : row.ssid,
          isEnabled: isGiven(input, 'isEnabled') ? requireBoolean(input.isEnabled, 'isEnabled') : row.isEnabled,
          isGuest: isGiven(input, 'isGuest') ? requireBoolean(input.isGuest, 'isGuest') : row.isGuest,
          isHidden: isGiven(input, 'isHidden') ? requireBoolean(input.isHidden, 'isHidden') : row.isHidden,
          encryptionProtocol: isGiven(input, 'encryptionProtocol') ? input.encryptionProtocol : row.encryptionProtocol,
          vlanID: isGiven(input, 'vlanID') ? input.vlanID : row.vlanId,
        });
        const conflict = () => ssidConflict(values.ssid, 'ssid');
        if (await ssids.isNameTaken(row.networkId, values.ssid, row.id)) throw conflict();
        await writes.unique(ssids.update(row.id, values), conflict);
        const after = snapshotOf(uuid, row.networkUuid, values);
        return { result: after, change: buildChange('ssid.update', uuid, before, after) };
      });
    },

    /** Deletes an SSID. */
    async delete(caller: Caller, input: { ssidUUID: string }): Promise<SsidSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.ssidUUID, 'ssidUUID');
        const ssids = createSsidRepository(tx);
        const row = await ssids.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('ssidUUID');
        await ssids.delete(row.id);
        const before = toSnapshot(row);
        return { result: before, change: buildChange('ssid.delete', uuid, before, null) };
      });
    },
  };
}

export type SsidService = ReturnType<typeof createSsidService>;

/** The network's SSIDs as the API and the audit log show them, read in `tx` (network.service.ts: what a network delete removes). */
export async function listNetworkSsids(tx: SqlContext, networkId: number): Promise<SsidSnapshot[]> {
  return (await createSsidRepository(tx).listByNetwork(networkId)).map(toSnapshot);
}

/** A stored SSID as the API shows it. */
export function toSnapshot(row: SsidRow): SsidSnapshot {
  return snapshotOf(row.uuid, row.networkUuid, row);
}

function snapshotOf(uuid: string, networkUuid: string, values: SsidValues): SsidSnapshot {
  const { ssid, isEnabled, isGuest, isHidden, encryptionProtocol, vlanId } = values;
  return { UUID: uuid, networkUUID: networkUuid, ssid, isEnabled, isGuest, isHidden, encryptionProtocol, vlanID: vlanId };
}
