import { TEXT_MAX, VLAN_ID } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import type { SqlContext } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { SLUG_RULE, isSlug } from '../company/company.rules.js';
import { listNetworkDevices } from '../device/virtual-device.service.js';
import { checkSsidFields, insertSsid, listNetworkSsids } from '../ssid/ssid.service.js';
import type { SsidFields, SsidSnapshot } from '../ssid/ssid.service.js';
import { checkVlanFields, insertVlan, listNetworkVlans } from '../vlan/vlan.service.js';
import type { VlanFields, VlanSnapshot } from '../vlan/vlan.service.js';
import { isGiven, notFound, optionalText, requireBoolean, requireSomeChange, requireText, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { createNetworkRepository } from './network.repository.js';
import type { NetworkRow, NetworkValues } from './network.repository.js';

/** A postal address; null parts are unknown. */
export interface MailingAddressFields {
  readonly line1?: string | null;
  readonly line2?: string | null;
  readonly city?: string | null;
  readonly subdivisionCode?: string | null;
  readonly postalCode?: string | null;
}

/** A stored address as the API and the audit log show it: every part, null when unknown. */
export interface MailingAddressSnapshot {
  readonly line1: string | null;
  readonly line2: string | null;
  readonly city: string | null;
  readonly subdivisionCode: string | null;
  readonly postalCode: string | null;
}

/** The fields of a new network, optionally with its first VLANs and SSIDs. `isActive` defaults to true. */
export interface CreateNetworkFields {
  readonly label: string;
  readonly slug: string;
  readonly isActive?: boolean;
  readonly mailingAddress?: MailingAddressFields | null;
  readonly vlans?: readonly VlanFields[];
  readonly ssids?: readonly SsidFields[];
}

/** The changes of a network update: absent fields stay, `mailingAddress: null` removes the address. */
export interface UpdateNetworkFields {
  readonly networkUUID: string;
  readonly label?: string;
  readonly slug?: string;
  readonly isActive?: boolean;
  readonly mailingAddress?: MailingAddressFields | null;
}

/** A network as the API and the audit log show it. */
export interface NetworkSnapshot {
  readonly UUID: string;
  readonly label: string;
  readonly slug: string;
  readonly isActive: boolean;
  readonly mailingAddress: MailingAddressSnapshot | null;
}

const UPDATABLE = ['label', 'slug', 'isActive', 'mailingAddress'] as const;
/**
 * At most this many VLANs (every VLAN id) and SSIDs in one createNetwork, so
 * one request cannot hold the write lock for long; add more with createVLAN
 * and createSSID.
 */
export const MAX_NESTED = { vlans: VLAN_ID.max - VLAN_ID.min + 1, ssids: 256 } as const;

/**
 * Networks of the caller's company: create (with VLANs and SSIDs, all or
 * nothing), update, delete (with everything on the network). Each is one
 * audited transaction.
 */
export function createNetworkService(writes: WriteService) {
  return {
    /** Creates a network; its slug must be valid and unused in the company. */
    async create(caller: Caller, input: CreateNetworkFields): Promise<NetworkSnapshot & { vlans: VlanSnapshot[]; ssids: SsidSnapshot[] }> {
      return writes.run(caller, async (tx) => {
        const values = checkNetwork({ ...input, isActive: input.isActive === undefined ? true : input.isActive });
        const vlans = checkList(input.vlans, 'vlans').map((vlan, i) => checkVlanFields(vlan, `vlans[${i}].`));
        const ssids = checkList(input.ssids, 'ssids').map((ssid, i) => checkSsidFields(ssid, `ssids[${i}].`));
        const networks = createNetworkRepository(tx);
        const conflict = () => slugConflict(values.slug);
        if (await networks.isSlugTaken(caller.companyId, values.slug)) throw conflict();
        const uuid = randomUUID();
        const id = await writes.unique(networks.insert(caller.companyId, uuid, values, writes.now().toISOString()), conflict);
        const network = { id, uuid };
        const created = {
          ...toSnapshot(uuid, values),
          vlans: await inOrder(vlans, (vlan, i) => insertVlan(tx, writes, network, vlan, `vlans[${i}].`)),
          ssids: await inOrder(ssids, (ssid, i) => insertSsid(tx, writes, network, ssid, `ssids[${i}].`)),
        };
        return { result: created, change: buildChange('network.create', uuid, null, created) };
      });
    },

    /** Changes the given fields of a network. */
    async update(caller: Caller, input: UpdateNetworkFields): Promise<NetworkSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.networkUUID, 'networkUUID');
        requireSomeChange(input, UPDATABLE);
        const networks = createNetworkRepository(tx);
        const row = await networks.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('networkUUID');
        const before = rowSnapshot(row);
        const values = checkNetwork({
          label: isGiven(input, 'label') ? input.label : row.label,
          slug: isGiven(input, 'slug') ? input.slug : row.slug,
          isActive: isGiven(input, 'isActive') ? input.isActive : row.isActive,
          mailingAddress: isGiven(input, 'mailingAddress') ? input.mailingAddress : before.mailingAddress,
        });
        const conflict = () => slugConflict(values.slug);
        if (await networks.isSlugTaken(caller.companyId, values.slug, row.id)) throw conflict();
        await writes.unique(networks.update(row.id, values), conflict);
        const after = toSnapshot(uuid, values);
        return { result: after, change: buildChange('network.update', uuid, before, after) };
      });
    },

    /**
     * Deletes a network with its virtual devices, VLANs, SSIDs and clients;
     * its hardware goes back to the company's spare inventory. The audit
     * entry's `before` lists all of it.
     */
    async delete(caller: Caller, input: { networkUUID: string }): Promise<NetworkSnapshot & { hardwareReturnedToSpare: string[] }> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.networkUUID, 'networkUUID');
        const networks = createNetworkRepository(tx);
        const row = await networks.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('networkUUID');
        const before = await describeContents(tx, row);
        await networks.delete(row.id);
        const result = { ...rowSnapshot(row), hardwareReturnedToSpare: before.hardwareReturnedToSpare };
        return { result, change: buildChange('network.delete', uuid, before, null) };
      });
    },
  };
}

export type NetworkService = ReturnType<typeof createNetworkService>;

/** Everything a network delete removes or returns to spare, for the audit log. */
async function describeContents(tx: SqlContext, row: NetworkRow) {
  const devices = await listNetworkDevices(tx, row.id);
  return {
    ...rowSnapshot(row),
    virtualDevices: devices.map((d) => ({
      UUID: d.UUID,
      label: d.label,
      deviceType: d.deviceType,
      deviceModel: d.deviceModel,
      hardwareSerialNumber: d.hardwareSerialNumber,
    })),
    vlans: await listNetworkVlans(tx, row.id),
    ssids: await listNetworkSsids(tx, row.id),
    clientCount: await createNetworkRepository(tx).countClients(row.id),
    hardwareReturnedToSpare: devices.flatMap((d) => (d.hardwareSerialNumber === null ? [] : [d.hardwareSerialNumber])),
  };
}

/** Checks a network's fields as they will be stored. */
function checkNetwork(input: Omit<UpdateNetworkFields, 'networkUUID'>): NetworkValues {
  if (typeof input.slug !== 'string' || !isSlug(input.slug)) {
    throw new AppError('BAD_USER_INPUT', `slug ${JSON.stringify(input.slug)} is not valid: use ${SLUG_RULE}.`, { field: 'slug' });
  }
  const address = input.mailingAddress;
  if (address !== null && address !== undefined && (typeof address !== 'object' || Array.isArray(address))) {
    throw new AppError('BAD_USER_INPUT', 'mailingAddress must be an object with line1, line2, city, subdivisionCode and postalCode, or null.', {
      field: 'mailingAddress',
    });
  }
  return {
    label: requireText(input.label, 'label', TEXT_MAX.networkLabel),
    slug: input.slug,
    isActive: requireBoolean(input.isActive, 'isActive'),
    mailingLine1: optionalText(address?.line1, 'mailingAddress.line1', TEXT_MAX.addressLine),
    mailingLine2: optionalText(address?.line2, 'mailingAddress.line2', TEXT_MAX.addressLine),
    mailingCity: optionalText(address?.city, 'mailingAddress.city', TEXT_MAX.city),
    mailingSubdivisionCode: optionalText(address?.subdivisionCode, 'mailingAddress.subdivisionCode', TEXT_MAX.subdivisionCode),
    mailingPostalCode: optionalText(address?.postalCode, 'mailingAddress.postalCode', TEXT_MAX.postalCode),
  };
}

function checkList<T>(items: readonly T[] | null | undefined, field: keyof typeof MAX_NESTED): readonly T[] {
  if (items === undefined || items === null) return [];
  if (Array.isArray(items) && items.length <= MAX_NESTED[field]) return items;
  throw new AppError('BAD_USER_INPUT', `${field} must be a list of at most ${MAX_NESTED[field]}: add more with createVLAN or createSSID.`, { field });
}

function slugConflict(slug: string): AppError {
  return new AppError('CONFLICT', `The company already has a network with slug "${slug}": pick another slug.`, { field: 'slug' });
}

/** Runs `fn` over the items one after another (one transaction runs one statement at a time). */
async function inOrder<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const [i, item] of items.entries()) out.push(await fn(item, i));
  return out;
}

/** The address of stored network values; null when every part is (no address). */
export function addressOf(values: Omit<NetworkValues, 'slug' | 'label' | 'isActive'>): MailingAddressSnapshot | null {
  const address = {
    line1: values.mailingLine1,
    line2: values.mailingLine2,
    city: values.mailingCity,
    subdivisionCode: values.mailingSubdivisionCode,
    postalCode: values.mailingPostalCode,
  };
  return Object.values(address).every((part) => part === null) ? null : address;
}

function toSnapshot(uuid: string, values: NetworkValues): NetworkSnapshot {
  return { UUID: uuid, label: values.label, slug: values.slug, isActive: values.isActive, mailingAddress: addressOf(values) };
}

function rowSnapshot(row: NetworkRow): NetworkSnapshot {
  return toSnapshot(row.uuid, row);
}
