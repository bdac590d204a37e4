import { SERIAL_RULE, TEXT_MAX, isSerialNumber } from '../../kernel/rules.js';
import { DEFAULT_OFFLINE_AFTER_SECONDS } from '../../kernel/online.js';
import { PORTS_OF_VIRTUAL_DEVICE } from '../port/port.graphql.js';
import { dateTime, inCompany, networkIdOfHardware, hardwareOnline, networkUuidOf, nullable, text, uuidArgument } from '../../engine/read.model.js';
import type { FieldMapping, GraphQLFeature, ObjectReference, ScalarType } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { HardwareDeviceService } from './hardware-device.service.js';
import type { VirtualDeviceService } from './virtual-device.service.js';

// the device writes read their payloads back through the two Query roots
const virtualDevice = (uuid: string): ObjectReference => ({ root: 'virtualDevice', arg: uuid });
const hardwareDevice = (serial: string): ObjectReference => ({ root: 'hardwareDevice', arg: serial });

/** A column of the hardware assigned to the virtual device; null without hardware. */
const hardwareColumn = (column: string, type: ScalarType): FieldMapping => ({
  kind: 'computed',
  type,
  nullable: true,
  sql: (v) => `(SELECT uh.${column} FROM hardware_devices uh WHERE uh.virtual_device_id = ${v}.id)`,
});

/**
 * Devices: virtual devices (a network's device slots), the hardware
 * inventory, and the writes of both (register, assign, unassign).
 */
export const DEVICE_FEATURE = {
  sdl: /* GraphQL */ `
"""The kind of a physical device."""
enum DeviceType {
  ACCESS_POINT
  CELLULAR_GATEWAY
  CONTROLLER
  POWER_DISTRIBUTION_UNIT
  SWITCH
}

"""
The kind of a virtual device: the slot a network has for a physical device.
OBSERVER has no hardware of its own.
"""
enum VirtualDeviceType {
  ACCESS_POINT
  CELLULAR_GATEWAY
  CONTROLLER
  OBSERVER
  POWER_DISTRIBUTION_UNIT
  SWITCH
}

"""A device slot on a network, with the hardware assigned to it, if any."""
type VirtualDevice {
  UUID: UUID!
  label: String!
  deviceType: VirtualDeviceType!
  deviceModel: String!
  """
  Reported by the device; read-only. The assigned hardware's
  isConnectedToBackend: true while its last report is younger than
  DEVICE_OFFLINE_AFTER_SECONDS (${DEFAULT_OFFLINE_AFTER_SECONDS} s by default), before its first report as
  the hardware was imported or created. Without hardware, as imported or created.
  """
  isOnline: Boolean!
  """Null when no hardware is assigned."""
  hardwareDevice: HardwareDevice
  """The network the device slot belongs to."""
  networkUUID: UUID!
  """Seconds since the assigned hardware started, from its latest report; null before one, or without hardware."""
  uptime: Int
  """
  netgraph's own (not in Meter's API): the CPU load of the assigned hardware
  in percent (0 to 100, averaged over its processors), from its latest
  report with one; null before one, or without hardware.
  """
  cpuUsagePercent: Float
  """netgraph's own (not in Meter's API): the memory in use of the assigned hardware, in bytes, from its latest report with it; null before one."""
  memoryUsedBytes: Float
  """netgraph's own (not in Meter's API): the memory installed in the assigned hardware, in bytes, from its latest report with it; null before one."""
  memoryTotalBytes: Float
  """The ports of the assigned hardware from its latest report with interfaces, by port number; empty before one."""
  phyInterfaces: [PhyInterface!]!
  """netgraph's own (not in Meter's API): where the assigned hardware's reports come from; null before its first report, or without hardware."""
  source: DeviceSource
}

"""What reports a device (netgraph's own): netgraph's SNMP collector or another sender of the report protocol."""
enum DeviceSourceKind {
  """netgraph's SNMP collector polls it (docs/collector.md)."""
  COLLECTOR
  """A sender of the report protocol (docs/reports.md)."""
  REPORTS
}

"""Where a device's reports come from, as of its latest one (netgraph's own)."""
type DeviceSource {
  kind: DeviceSourceKind!
  """The label of the ingest key that posted the latest report: the collector's, for COLLECTOR."""
  collectorName: String!
  """When the latest poll ran (its report's observedAt); for REPORTS, the latest report's."""
  lastPollAt: DateTime!
  """Why the latest poll failed (no answer, credentials refused); null when it answered, and for REPORTS."""
  lastError: String
  """How long the latest poll took, in milliseconds; null for REPORTS."""
  pollDurationMs: Float
}

"""A physical device of the company's inventory."""
type HardwareDevice {
  """Unique across the service."""
  serialNumber: String!
  deviceType: DeviceType!
  deviceModel: String!
  """
  Reported by the device; read-only. True while its last report is younger
  than DEVICE_OFFLINE_AFTER_SECONDS (${DEFAULT_OFFLINE_AFTER_SECONDS} s by default); until its first
  report, as imported or created.
  """
  isConnectedToBackend: Boolean!
  """The device's MAC address from its latest report; null before one."""
  macAddress: MacAddress
  """
  The network of the virtual device it is assigned to; for spare hardware,
  the network it is placed at (placeSpareHardwareDevice); null when spare and placed nowhere.
  """
  networkUUID: UUID
  """The virtual device it is assigned to; null when spare."""
  virtualDeviceUUID: UUID
}

extend type Query {
  """One virtual device by its UUID."""
  virtualDevice("The virtual device's UUID." UUID: UUID!): VirtualDevice

  """One hardware device by its serial number."""
  hardwareDevice(
    "Letters, digits, \`.\`, \`_\` and \`-\`, 1 to 64 characters, e.g. \`M1A3-7GKQ-2J4T\`; anything else is BAD_USER_INPUT."
    serialNumber: String!
  ): HardwareDevice
}

extend type Mutation {
  """Adds a virtual device (a device slot) to a network; it starts offline, without hardware."""
  createVirtualDevice("The new virtual device." input: CreateVirtualDeviceInput!): CreateVirtualDevicePayload

  """
  Changes the given fields of a virtual device. A new deviceType must match
  the assigned hardware's type: unassign the hardware first.
  """
  updateVirtualDevice("The virtual device and the fields to change." input: UpdateVirtualDeviceInput!): UpdateVirtualDevicePayload

  """Deletes a virtual device; its hardware, if any, goes back to the company's spare inventory, placed at the device's network."""
  deleteVirtualDevice("The virtual device to delete." input: DeleteVirtualDeviceInput!): DeleteVirtualDevicePayload

  """
  Registers a hardware device in the company's spare inventory; it starts not
  connected. Serial numbers are unique across the service: a serial number
  that is registered already, in this company or any other, is CONFLICT, with
  the same answer in both cases.
  """
  registerHardwareDevice("The new hardware device." input: RegisterHardwareDeviceInput!): RegisterHardwareDevicePayload

  """Changes the model of a hardware device. Its serial number and type never change."""
  updateHardwareDevice("The hardware device and its new model." input: UpdateHardwareDeviceInput!): UpdateHardwareDevicePayload

  """Removes a spare hardware device from the inventory; assigned hardware is CONFLICT (unassign it first)."""
  deleteHardwareDevice("The hardware device to delete." input: DeleteHardwareDeviceInput!): DeleteHardwareDevicePayload

  """
  Assigns a spare hardware device to a virtual device of the same type that
  has none (an OBSERVER takes no hardware). Assigning it where it is already
  assigned changes nothing.
  """
  assignHardwareDevice("The hardware device and the virtual device." input: AssignHardwareDeviceInput!): AssignHardwareDevicePayload

  """
  Returns a hardware device to the company's spare inventory, placed at the
  network of the virtual device it leaves. Unassigning spare hardware changes nothing.
  """
  unassignHardwareDevice("The hardware device." input: UnassignHardwareDeviceInput!): UnassignHardwareDevicePayload
}

"""A new virtual device."""
input CreateVirtualDeviceInput {
  "The network to add it to."
  networkUUID: UUID!
  "Display label, 1 to ${TEXT_MAX.deviceLabel} characters, not blank."
  label: String!
  "The kind of device the slot takes."
  deviceType: VirtualDeviceType!
  "Model of device, 1 to ${TEXT_MAX.deviceModel} characters, not blank."
  deviceModel: String!
}

"""Changes to a virtual device: absent fields stay as they are."""
input UpdateVirtualDeviceInput {
  "The virtual device to change."
  virtualDeviceUUID: UUID!
  "New display label, 1 to ${TEXT_MAX.deviceLabel} characters, not blank."
  label: String
  "New kind of device; must match the assigned hardware's type, if any."
  deviceType: VirtualDeviceType
  "New model, 1 to ${TEXT_MAX.deviceModel} characters, not blank."
  deviceModel: String
}

"""The virtual device to delete."""
input DeleteVirtualDeviceInput {
  "The virtual device's UUID."
  virtualDeviceUUID: UUID!
}

"""A hardware device to register in the company's inventory."""
input RegisterHardwareDeviceInput {
  "Letters, digits, \`.\`, \`_\` and \`-\`, 1 to 64 characters, unique across the service."
  serialNumber: String!
  "The kind of device."
  deviceType: DeviceType!
  "Model of device, 1 to ${TEXT_MAX.deviceModel} characters, not blank."
  deviceModel: String!
  "The network to place the spare hardware at (spareHardwareDevicesForNetwork); absent or null: nowhere."
  networkUUID: UUID
}

"""The new model of a hardware device."""
input UpdateHardwareDeviceInput {
  "The hardware device to change."
  serialNumber: String!
  "New model, 1 to ${TEXT_MAX.deviceModel} characters, not blank."
  deviceModel: String!
}

"""The spare hardware device to delete."""
input DeleteHardwareDeviceInput {
  "The hardware device's serial number."
  serialNumber: String!
}

"""Which hardware goes into which virtual device."""
input AssignHardwareDeviceInput {
  "The spare hardware device to assign."
  serialNumber: String!
  "The virtual device to assign it to: same type, no hardware yet."
  virtualDeviceUUID: UUID!
}

"""The hardware device to return to spare."""
input UnassignHardwareDeviceInput {
  "The hardware device's serial number."
  serialNumber: String!
}

"""The result of createVirtualDevice."""
type CreateVirtualDevicePayload {
  """The new virtual device."""
  virtualDevice: VirtualDevice!
}

"""The result of updateVirtualDevice."""
type UpdateVirtualDevicePayload {
  """The virtual device as changed."""
  virtualDevice: VirtualDevice!
}

"""The result of deleteVirtualDevice."""
type DeleteVirtualDevicePayload {
  """The UUID of the deleted virtual device."""
  deletedVirtualDeviceUUID: UUID!
  """Serial number of the hardware that went back to spare: none or one."""
  hardwareReturnedToSpare: [String!]!
}

"""The result of registerHardwareDevice."""
type RegisterHardwareDevicePayload {
  """The new hardware device."""
  hardwareDevice: HardwareDevice!
}

"""The result of updateHardwareDevice."""
type UpdateHardwareDevicePayload {
  """The hardware device as changed."""
  hardwareDevice: HardwareDevice!
}

"""The result of deleteHardwareDevice."""
type DeleteHardwareDevicePayload {
  """The serial number of the deleted hardware device."""
  deletedSerialNumber: String!
}

"""The result of assignHardwareDevice."""
type AssignHardwareDevicePayload {
  """The hardware device."""
  hardwareDevice: HardwareDevice!
  """The virtual device it is assigned to."""
  virtualDevice: VirtualDevice!
}

"""The result of unassignHardwareDevice."""
type UnassignHardwareDevicePayload {
  """The hardware device, now spare."""
  hardwareDevice: HardwareDevice!
  """The virtual device it was taken from; null when it was spare already."""
  previousVirtualDevice: VirtualDevice
}
`,
  readModel: {
    VirtualDevice: {
      UUID: text('uuid'),
      label: text('label'),
      deviceType: text('device_type'),
      deviceModel: text('device_model'),
      isOnline: {
        kind: 'computed',
        type: 'boolean',
        // the assigned hardware's state by the one rule; the slot's own flag only while it has no hardware
        sql: (v, context) =>
          `coalesce((SELECT ${hardwareOnline('hw', context)} FROM hardware_devices hw WHERE hw.virtual_device_id = ${v}.id), ${v}.is_online)`,
      },
      hardwareDevice: { kind: 'object', table: 'hardware_devices', join: (h, v) => `${h}.virtual_device_id = ${v}.id` },
      networkUUID: { kind: 'computed', type: 'string', sql: (v) => networkUuidOf(`${v}.network_id`) },
      uptime: hardwareColumn('uptime_seconds', 'integer'),
      cpuUsagePercent: hardwareColumn('cpu_percent', 'float'),
      memoryUsedBytes: hardwareColumn('memory_used_bytes', 'float'),
      memoryTotalBytes: hardwareColumn('memory_total_bytes', 'float'),
      phyInterfaces: PORTS_OF_VIRTUAL_DEVICE,
      source: { kind: 'object', table: 'hardware_devices', join: (h, v) => `${h}.virtual_device_id = ${v}.id AND ${h}.source_kind IS NOT NULL` },
    },
    DeviceSource: {
      kind: text('source_kind'),
      collectorName: text('source_name'),
      lastPollAt: dateTime('source_at'),
      lastError: text('source_poll_error', true),
      pollDurationMs: nullable('source_poll_ms', 'float'),
    },
    HardwareDevice: {
      serialNumber: text('serial_number'),
      deviceType: text('device_type'),
      deviceModel: text('device_model'),
      isConnectedToBackend: {
        kind: 'computed',
        type: 'boolean',
        sql: (h, context) => hardwareOnline(h, context),
      },
      macAddress: text('mac_address', true),
      networkUUID: {
        kind: 'computed',
        type: 'string',
        nullable: true,
        // spare_network_id is NULL while assigned
        sql: (h) => networkUuidOf(`coalesce(${networkIdOfHardware(h)}, ${h}.spare_network_id)`),
      },
      virtualDeviceUUID: {
        kind: 'computed',
        type: 'string',
        nullable: true,
        sql: (h) => `(SELECT hv.uuid FROM virtual_devices hv WHERE hv.id = ${h}.virtual_device_id)`,
      },
    },
  },
  roots: {
    virtualDevice: { table: 'virtual_devices', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
    hardwareDevice: {
      table: 'hardware_devices',
      arguments: [{ name: 'serialNumber', type: 'text', check: isSerialNumber, rule: SERIAL_RULE }],
      where: inCompany('serial_number', 'serialNumber'),
    },
  },
  internalRoots: {},
  mutations: {
    createVirtualDevice: async (s, caller, input) =>
      ({ objects: { virtualDevice: virtualDevice((await s.virtualDevices.create(caller, asInput(input))).UUID) } }),
    updateVirtualDevice: async (s, caller, input) =>
      ({ objects: { virtualDevice: virtualDevice((await s.virtualDevices.update(caller, asInput(input))).UUID) } }),
    deleteVirtualDevice: async (s, caller, input) => {
      const deleted = await s.virtualDevices.delete(caller, asInput(input));
      const spare = deleted.hardwareSerialNumber === null ? [] : [deleted.hardwareSerialNumber];
      return { values: { deletedVirtualDeviceUUID: deleted.UUID, hardwareReturnedToSpare: spare } };
    },

    registerHardwareDevice: async (s, caller, input) =>
      ({ objects: { hardwareDevice: hardwareDevice((await s.hardwareDevices.register(caller, asInput(input))).serialNumber) } }),
    updateHardwareDevice: async (s, caller, input) =>
      ({ objects: { hardwareDevice: hardwareDevice((await s.hardwareDevices.update(caller, asInput(input))).serialNumber) } }),
    deleteHardwareDevice: async (s, caller, input) =>
      ({ values: { deletedSerialNumber: (await s.hardwareDevices.delete(caller, asInput(input))).serialNumber } }),
    assignHardwareDevice: async (s, caller, input) => {
      const assigned = await s.hardwareDevices.assign(caller, asInput(input));
      return {
        objects: { hardwareDevice: hardwareDevice(assigned.serialNumber), virtualDevice: virtualDevice(assigned.virtualDeviceUUID as string) },
      };
    },
    unassignHardwareDevice: async (s, caller, input) => {
      const { before, after } = await s.hardwareDevices.unassign(caller, asInput(input));
      const previous = before.virtualDeviceUUID === null ? null : virtualDevice(before.virtualDeviceUUID);
      return { objects: { hardwareDevice: hardwareDevice(after.serialNumber), previousVirtualDevice: previous } };
    },
  },
} satisfies GraphQLFeature<{ virtualDevices: VirtualDeviceService; hardwareDevices: HardwareDeviceService }>;
