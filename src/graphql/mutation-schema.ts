import { COMPLEXITY_WEIGHTS } from './complexity.js';

/**
 * The writes of the public contract: one style throughout,
 * `<verb><Type>(input: <Verb><Type>Input!): <Verb><Type>Payload`.
 * Like SCHEMA_SDL, fields may be added but are never renamed or retyped.
 */
export const MUTATION_SDL = /* GraphQL */ `
"""
Every write. Needs an API key with scope \`read_write\`: with a read-only key
the whole request is refused with 403 FORBIDDEN and nothing runs.

The fields of a mutation run one after another, in document order. Each is
one transaction of its own, recorded exactly once in the audit log when it
changes something, and sees what the fields before it changed. Input rules are checked by the server;
a field that breaks one changes nothing and answers \`null\` with an error at
its path whose \`extensions.code\` says why and \`extensions.field\` names the
input field (e.g. \`input.slug\`, \`input.vlans[1].vlanID\`, or \`input\` itself).

The payload fields are nullable on purpose: one failing field nulls only
itself, and the fields before it stay done, so a client sees exactly which
succeeded. An id of another company answers exactly like one that does not
exist: UNAUTHORIZED, as for reads.

Update inputs change only the fields they give: an absent field stays as it
is; \`null\` clears a field that may be empty (\`mailingAddress\`) and is
BAD_USER_INPUT for any other. \`isOnline\` and \`isConnectedToBackend\` are
reported by devices and cannot be written: new devices start offline and
not connected.

Complexity: each mutation field costs ${COMPLEXITY_WEIGHTS.mutation} points plus what its payload
selection costs as a read (docs/limits.md).
"""
type Mutation {
  """
  Creates a network in the key's company, optionally with its first VLANs
  and SSIDs: all of it or nothing, in one transaction.
  """
  createNetwork("The new network." input: CreateNetworkInput!): CreateNetworkPayload

  """Changes the given fields of a network."""
  updateNetwork("The network and the fields to change." input: UpdateNetworkInput!): UpdateNetworkPayload

  """
  Deletes a network with its virtual devices, VLANs, SSIDs and clients. Its
  hardware goes back to the company's spare inventory.
  """
  deleteNetwork("The network to delete." input: DeleteNetworkInput!): DeleteNetworkPayload

  """Adds a virtual device (a device slot) to a network; it starts offline, without hardware."""
  createVirtualDevice("The new virtual device." input: CreateVirtualDeviceInput!): CreateVirtualDevicePayload

  """
  Changes the given fields of a virtual device. A new deviceType must match
  the assigned hardware's type: unassign the hardware first.
  """
  updateVirtualDevice("The virtual device and the fields to change." input: UpdateVirtualDeviceInput!): UpdateVirtualDevicePayload

  """Deletes a virtual device; its hardware, if any, goes back to the company's spare inventory."""
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
  Returns a hardware device to the company's spare inventory. Unassigning
  spare hardware changes nothing.
  """
  unassignHardwareDevice("The hardware device." input: UnassignHardwareDeviceInput!): UnassignHardwareDevicePayload

  """Adds a VLAN to a network."""
  createVLAN("The new VLAN." input: CreateVLANInput!): CreateVLANPayload

  """Changes the given fields of a VLAN."""
  updateVLAN("The VLAN and the fields to change." input: UpdateVLANInput!): UpdateVLANPayload

  """Deletes a VLAN."""
  deleteVLAN("The VLAN to delete." input: DeleteVLANInput!): DeleteVLANPayload

  """Adds an SSID to a network."""
  createSSID("The new SSID." input: CreateSSIDInput!): CreateSSIDPayload

  """Changes the given fields of an SSID, e.g. \`isEnabled: false\` to switch it off."""
  updateSSID("The SSID and the fields to change." input: UpdateSSIDInput!): UpdateSSIDPayload

  """Deletes an SSID."""
  deleteSSID("The SSID to delete." input: DeleteSSIDInput!): DeleteSSIDPayload
}

"""Where a network is. Each part may be null when unknown; both null means no address."""
input MailingAddressInput {
  "City name, 1 to 200 characters, or null."
  city: String
  "Region code, e.g. an ISO 3166-2 subdivision such as \`CA\`: 1 to 20 characters, or null."
  subdivisionCode: String
}

"""A new network."""
input CreateNetworkInput {
  "Display label, 1 to 200 characters, not blank."
  label: String!
  "Short URL-safe name, unique within the company: lowercase letters, digits and single hyphens, 1 to 63 characters."
  slug: String!
  "Whether the network is in service."
  isActive: Boolean! = true
  "Where the network is; none when absent or null."
  mailingAddress: MailingAddressInput
  "VLANs to create with the network, at most 4094; field errors name them as \`input.vlans[i]\`."
  vlans: [NewVLANInput!]
  "SSIDs to create with the network, at most 256; field errors name them as \`input.ssids[i]\`."
  ssids: [NewSSIDInput!]
}

"""Changes to a network: absent fields stay as they are."""
input UpdateNetworkInput {
  "The network to change."
  networkUUID: UUID!
  "New display label, 1 to 200 characters, not blank."
  label: String
  "New slug, unique within the company (same rule as on create)."
  slug: String
  "Whether the network is in service."
  isActive: Boolean
  "The new address, replacing the whole address (absent parts become null); null removes it."
  mailingAddress: MailingAddressInput
}

"""The network to delete."""
input DeleteNetworkInput {
  "The network's UUID."
  networkUUID: UUID!
}

"""A new virtual device."""
input CreateVirtualDeviceInput {
  "The network to add it to."
  networkUUID: UUID!
  "Display label, 1 to 200 characters, not blank."
  label: String!
  "The kind of device the slot takes."
  deviceType: VirtualDeviceType!
  "Model of device, 1 to 100 characters, not blank."
  deviceModel: String!
}

"""Changes to a virtual device: absent fields stay as they are."""
input UpdateVirtualDeviceInput {
  "The virtual device to change."
  virtualDeviceUUID: UUID!
  "New display label, 1 to 200 characters, not blank."
  label: String
  "New kind of device; must match the assigned hardware's type, if any."
  deviceType: VirtualDeviceType
  "New model, 1 to 100 characters, not blank."
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
  "Model of device, 1 to 100 characters, not blank."
  deviceModel: String!
}

"""The new model of a hardware device."""
input UpdateHardwareDeviceInput {
  "The hardware device to change."
  serialNumber: String!
  "New model, 1 to 100 characters, not blank."
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

"""A VLAN created together with its network."""
input NewVLANInput {
  "VLAN name, 1 to 100 characters, not blank."
  name: String!
  "VLAN number, 1 to 4094, unique within the network."
  vlanID: Int!
  "Whether the VLAN is enabled."
  isEnabled: Boolean! = true
}

"""A new VLAN on an existing network."""
input CreateVLANInput {
  "The network to add it to."
  networkUUID: UUID!
  "VLAN name, 1 to 100 characters, not blank."
  name: String!
  "VLAN number, 1 to 4094, unique within the network."
  vlanID: Int!
  "Whether the VLAN is enabled."
  isEnabled: Boolean! = true
}

"""Changes to a VLAN: absent fields stay as they are."""
input UpdateVLANInput {
  "The VLAN to change."
  vlanUUID: UUID!
  "New name, 1 to 100 characters, not blank."
  name: String
  "New VLAN number, 1 to 4094, unique within the network."
  vlanID: Int
  "Whether the VLAN is enabled."
  isEnabled: Boolean
}

"""The VLAN to delete."""
input DeleteVLANInput {
  "The VLAN's UUID."
  vlanUUID: UUID!
}

"""An SSID created together with its network."""
input NewSSIDInput {
  "Wireless network name, 1 to 32 bytes of UTF-8, unique within the network."
  ssid: String!
  "Whether the SSID is broadcast."
  isEnabled: Boolean! = true
}

"""A new SSID on an existing network."""
input CreateSSIDInput {
  "The network to add it to."
  networkUUID: UUID!
  "Wireless network name, 1 to 32 bytes of UTF-8, unique within the network."
  ssid: String!
  "Whether the SSID is broadcast."
  isEnabled: Boolean! = true
}

"""Changes to an SSID: absent fields stay as they are."""
input UpdateSSIDInput {
  "The SSID to change."
  ssidUUID: UUID!
  "New name, 1 to 32 bytes of UTF-8, unique within the network."
  ssid: String
  "Whether the SSID is broadcast."
  isEnabled: Boolean
}

"""The SSID to delete."""
input DeleteSSIDInput {
  "The SSID's UUID."
  ssidUUID: UUID!
}

"""The result of createNetwork."""
type CreateNetworkPayload {
  """The new network, with its VLANs and SSIDs."""
  network: Network!
}

"""The result of updateNetwork."""
type UpdateNetworkPayload {
  """The network as changed."""
  network: Network!
}

"""The result of deleteNetwork."""
type DeleteNetworkPayload {
  """The UUID of the deleted network."""
  deletedNetworkUUID: UUID!
  """Serial numbers of the hardware that went back to the company's spare inventory."""
  hardwareReturnedToSpare: [String!]!
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

"""The result of createVLAN."""
type CreateVLANPayload {
  """The new VLAN."""
  vlan: VLAN!
}

"""The result of updateVLAN."""
type UpdateVLANPayload {
  """The VLAN as changed."""
  vlan: VLAN!
}

"""The result of deleteVLAN."""
type DeleteVLANPayload {
  """The UUID of the deleted VLAN."""
  deletedVLANUUID: UUID!
}

"""The result of createSSID."""
type CreateSSIDPayload {
  """The new SSID."""
  ssid: SSID!
}

"""The result of updateSSID."""
type UpdateSSIDPayload {
  """The SSID as changed."""
  ssid: SSID!
}

"""The result of deleteSSID."""
type DeleteSSIDPayload {
  """The UUID of the deleted SSID."""
  deletedSSIDUUID: UUID!
}
`;
