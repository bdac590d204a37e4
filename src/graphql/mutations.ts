import type { Caller } from '../modules/api-key/api-key.service.js';
import type { InternalRootName, RootName } from '../modules/read/read.repository.js';
import type { Services } from '../services.js';

/** An object a payload field reads back after the write: which read root, and its argument. */
export interface ObjectReference {
  readonly root: RootName | InternalRootName;
  readonly arg: string;
}

/**
 * What a mutation resolver returns: plain values by payload field name (ids
 * of deleted objects), and the objects to read back through the compiled
 * read path, by payload field name (null for none).
 */
export class MutationPayload {
  constructor(
    readonly values: Readonly<Record<string, unknown>>,
    readonly objects: Readonly<Record<string, ObjectReference | null>>,
  ) {}
}

/** The services mutations call: each resolver calls exactly one method. */
export type WriteServices = Pick<Services, 'networks' | 'virtualDevices' | 'hardwareDevices' | 'vlans' | 'ssids'>;

type Input = Readonly<Record<string, unknown>>;
type MutationResolver = (services: WriteServices, caller: Caller, input: Input) => Promise<MutationPayload>;

/**
 * The input as the service's own input type. graphql-js has coerced it to
 * the schema's input type, which the service types mirror; every service
 * checks each value again anyway, as a dashboard calls them directly.
 */
const given = <T>(input: Input): T => input as unknown as T;

const network = (uuid: string): ObjectReference => ({ root: 'networkByUUID', arg: uuid });
const virtualDevice = (uuid: string): ObjectReference => ({ root: 'virtualDevice', arg: uuid });
const hardwareDevice = (serial: string): ObjectReference => ({ root: 'hardwareDevice', arg: serial });
const objects = (refs: Record<string, ObjectReference | null>) => new MutationPayload({}, refs);
const values = (plain: Record<string, unknown>) => new MutationPayload(plain, {});

/**
 * Every Mutation field: thin adapters that call one service with the caller
 * (which checks the scope, validates, writes in one transaction and records
 * the audit entry) and say what the payload holds.
 */
export const MUTATION_RESOLVERS: Readonly<Record<string, MutationResolver>> = {
  createNetwork: async (s, caller, input) => objects({ network: network((await s.networks.create(caller, given(input))).UUID) }),
  updateNetwork: async (s, caller, input) => objects({ network: network((await s.networks.update(caller, given(input))).UUID) }),
  deleteNetwork: async (s, caller, input) => {
    const deleted = await s.networks.delete(caller, given(input));
    return values({ deletedNetworkUUID: deleted.UUID, hardwareReturnedToSpare: deleted.hardwareReturnedToSpare });
  },

  createVirtualDevice: async (s, caller, input) =>
    objects({ virtualDevice: virtualDevice((await s.virtualDevices.create(caller, given(input))).UUID) }),
  updateVirtualDevice: async (s, caller, input) =>
    objects({ virtualDevice: virtualDevice((await s.virtualDevices.update(caller, given(input))).UUID) }),
  deleteVirtualDevice: async (s, caller, input) => {
    const deleted = await s.virtualDevices.delete(caller, given(input));
    const spare = deleted.hardwareSerialNumber === null ? [] : [deleted.hardwareSerialNumber];
    return values({ deletedVirtualDeviceUUID: deleted.UUID, hardwareReturnedToSpare: spare });
  },

  registerHardwareDevice: async (s, caller, input) =>
    objects({ hardwareDevice: hardwareDevice((await s.hardwareDevices.register(caller, given(input))).serialNumber) }),
  updateHardwareDevice: async (s, caller, input) =>
    objects({ hardwareDevice: hardwareDevice((await s.hardwareDevices.update(caller, given(input))).serialNumber) }),
  deleteHardwareDevice: async (s, caller, input) =>
    values({ deletedSerialNumber: (await s.hardwareDevices.delete(caller, given(input))).serialNumber }),
  assignHardwareDevice: async (s, caller, input) => {
    const assigned = await s.hardwareDevices.assign(caller, given(input));
    return objects({
      hardwareDevice: hardwareDevice(assigned.serialNumber),
      virtualDevice: virtualDevice(assigned.virtualDeviceUUID as string),
    });
  },
  unassignHardwareDevice: async (s, caller, input) => {
    const { before, after } = await s.hardwareDevices.unassign(caller, given(input));
    const previous = before.virtualDeviceUUID === null ? null : virtualDevice(before.virtualDeviceUUID);
    return objects({ hardwareDevice: hardwareDevice(after.serialNumber), previousVirtualDevice: previous });
  },

  createVLAN: async (s, caller, input) => objects({ vlan: { root: 'vlanByUUID', arg: (await s.vlans.create(caller, given(input))).UUID } }),
  updateVLAN: async (s, caller, input) => objects({ vlan: { root: 'vlanByUUID', arg: (await s.vlans.update(caller, given(input))).UUID } }),
  deleteVLAN: async (s, caller, input) => values({ deletedVLANUUID: (await s.vlans.delete(caller, given(input))).UUID }),

  createSSID: async (s, caller, input) => objects({ ssid: { root: 'ssidByUUID', arg: (await s.ssids.create(caller, given(input))).UUID } }),
  updateSSID: async (s, caller, input) => objects({ ssid: { root: 'ssidByUUID', arg: (await s.ssids.update(caller, given(input))).UUID } }),
  deleteSSID: async (s, caller, input) => values({ deletedSSIDUUID: (await s.ssids.delete(caller, given(input))).UUID }),
};
