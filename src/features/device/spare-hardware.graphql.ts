import { inCompany } from '../../engine/read.model.js';
import type { ArgumentValues, GraphQLFeature, ListMapping, RootArgument } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { HardwareDeviceService } from './hardware-device.service.js';

/** The most spare hardware devices one page holds (HardwareDevicesFilter.limit; an absent limit pages this many). */
export const MAX_SPARE_PAGE = 100;

const FILTER_ARGUMENT: RootArgument = {
  name: 'filter',
  type: 'input',
  fields: [
    { name: 'deviceModel', type: 'text', check: () => true, rule: 'any model' },
    // GraphQL's coercion checks the DeviceType enum
    { name: 'deviceType', type: 'text', check: () => true, rule: 'a DeviceType' },
    { name: 'limit', type: 'int', default: MAX_SPARE_PAGE },
    { name: 'offset', type: 'int', default: 0 },
  ],
};

const filterOf = (args: ArgumentValues | undefined): Readonly<Record<string, unknown>> =>
  (args?.filter as Readonly<Record<string, unknown>> | null | undefined) ?? {};

/** The page of spare hardware of the network aliased `n` that the filter selects, by serial number. */
const SPARE_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: (c, n) =>
    `(SELECT sh.* FROM hardware_devices sh WHERE sh.spare_network_id = ${n}.id AND sh.virtual_device_id IS NULL ` +
    `AND sh.device_model = coalesce(${c.arg('filter.deviceModel')}, sh.device_model) ` +
    `AND sh.device_type = coalesce(${c.arg('filter.deviceType')}, sh.device_type) ` +
    `ORDER BY sh.serial_number LIMIT ${c.arg('filter.limit')} OFFSET ${c.arg('filter.offset')})`,
  join: (h) => `${h}.id IS NOT NULL`,
  orderBy: (h) => `${h}.serial_number`,
};

/**
 * Spare hardware placed at a network: hardware of the company that no
 * virtual device holds, placed there by registerHardwareDevice(networkUUID),
 * placeSpareHardwareDevice, or by leaving a virtual device of that network
 * (unassignHardwareDevice, deleteVirtualDevice).
 */
export const SPARE_HARDWARE_FEATURE = {
  sdl: /* GraphQL */ `
"""Which spare hardware devices to list, and which page of them."""
input HardwareDevicesFilter {
  "Only devices of this model (exact match)."
  deviceModel: String
  "Only devices of this type."
  deviceType: DeviceType
  "The most devices on the page, 1 to 100; absent: 100."
  limit: Int
  "How many matching devices to skip (by serial number), 0 or more; absent: 0."
  offset: Int
}

extend type Query {
  """
  The spare hardware placed at the network (hardware of the company that no
  virtual device holds), ordered by serial number, the page the filter
  selects. Null with UNAUTHORIZED for a network that is not the key's company's.
  """
  spareHardwareDevicesForNetwork(
    "The network's UUID."
    networkUUID: UUID!
    "Model, type and page; absent: the first 100 of every model and type."
    filter: HardwareDevicesFilter
  ): [HardwareDevice!]
}

extend type Mutation {
  """
  Places a spare hardware device at a network, where
  spareHardwareDevicesForNetwork lists it, or nowhere with a null
  networkUUID. Assigned hardware is CONFLICT (unassign it first).
  """
  placeSpareHardwareDevice("The hardware device and the network." input: PlaceSpareHardwareDeviceInput!): PlaceSpareHardwareDevicePayload
}

"""Where to place a spare hardware device."""
input PlaceSpareHardwareDeviceInput {
  "The spare hardware device's serial number."
  serialNumber: String!
  "The network to place it at; null: nowhere."
  networkUUID: UUID
}

"""The result of placeSpareHardwareDevice."""
type PlaceSpareHardwareDevicePayload {
  """The hardware device as placed."""
  hardwareDevice: HardwareDevice!
}
`,
  readModel: {},
  roots: {
    spareHardwareDevicesForNetwork: {
      table: 'networks',
      arguments: [{ name: 'networkUUID', type: 'uuid' }, FILTER_ARGUMENT],
      check: (args) => {
        const { limit, offset } = filterOf(args);
        if (typeof limit === 'number' && (limit < 1 || limit > MAX_SPARE_PAGE)) {
          return { argument: 'filter.limit', message: `must be 1 to ${MAX_SPARE_PAGE}: page through more with offset.` };
        }
        if (typeof offset === 'number' && offset < 0) return { argument: 'filter.offset', message: 'must be 0 or more.' };
        return undefined;
      },
      where: inCompany('uuid', 'networkUUID'),
      list: SPARE_OF_NETWORK,
    },
  },
  internalRoots: {},
  mutations: {
    placeSpareHardwareDevice: async (s, caller, input) => ({
      objects: { hardwareDevice: { root: 'hardwareDevice', arg: (await s.hardwareDevices.place(caller, asInput(input))).serialNumber } },
    }),
  },
  listSizes: {
    'Query.spareHardwareDevicesForNetwork': (args) => {
      const limit = filterOf(args).limit;
      return typeof limit === 'number' ? Math.max(1, Math.min(MAX_SPARE_PAGE, limit)) : MAX_SPARE_PAGE;
    },
  },
} satisfies GraphQLFeature<{ hardwareDevices: HardwareDeviceService }>;
