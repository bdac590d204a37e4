import { buildSchema, printSchema } from 'graphql';
import type { GraphQLSchema, GraphQLScalarType } from 'graphql';
import { MUTATION_SDL } from './mutation-schema.js';
import { DateTimeScalar, IPScalar, MacAddressScalar, UUIDScalar } from './scalars.js';

/**
 * The public contract. Fields and types may be added; the ones here are never
 * renamed or retyped. `schema.graphql` at the repository root is this SDL as
 * printed by graphql-js, and a test fails when they drift.
 */
export const SCHEMA_SDL = /* GraphQL */ `
"""
RFC 4122 UUID in canonical lowercase form, e.g. \`3f0e6a5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f\`.
"""
scalar UUID

"""
An RFC 3339 timestamp in UTC with milliseconds, e.g. \`2026-11-21T17:03:00.000Z\`.
"""
scalar DateTime

"""
A hardware address, lowercase and colon-separated, e.g. \`0c:8d:db:12:34:56\`.
"""
scalar MacAddress

"""
An IPv4 or IPv6 address literal, e.g. \`10.0.10.23\` or \`2001:db8::1\`.
"""
scalar IP

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

"""
Every read. Each field answers only for the company of the API key: an id or
slug of another company, or one that does not exist, answers \`null\` with an
UNAUTHORIZED error at that field's path, and the other fields still answer.
"""
type Query {
  """One virtual device by its UUID."""
  virtualDevice("The virtual device's UUID." UUID: UUID!): VirtualDevice

  """One hardware device by its serial number."""
  hardwareDevice(
    "Letters, digits, \`.\`, \`_\` and \`-\`, 1 to 64 characters, e.g. \`M1A3-7GKQ-2J4T\`; anything else is BAD_USER_INPUT."
    serialNumber: String!
  ): HardwareDevice

  """The company's networks, ordered by label, then UUID."""
  networksForCompany(
    "The company's slug: lowercase letters, digits and single hyphens, 1 to 63 characters; anything else is BAD_USER_INPUT."
    companySlug: String!
  ): [Network!]

  """The network's virtual devices, ordered by label, then UUID."""
  virtualDevicesForNetwork("The network's UUID." networkUUID: UUID!): [VirtualDevice!]

  """The clients currently connected to the network, ordered by MAC address."""
  networkClients("The network's UUID." networkUUID: UUID!): [NetworkClient!]

  """One company with everything below it."""
  companyBySlug(
    "The company's slug: lowercase letters, digits and single hyphens, 1 to 63 characters; anything else is BAD_USER_INPUT."
    slug: String!
  ): Company
}

"""A customer account. An API key belongs to exactly one company."""
type Company {
  uuid: UUID!
  name: String!
  """Short, URL-safe name, unique across the service."""
  slug: String!
  """Ordered by label, then UUID."""
  networks: [Network!]!
}

"""A site: one physical location with its devices, VLANs and SSIDs."""
type Network {
  UUID: UUID!
  label: String!
  """Short, URL-safe name, unique within the company."""
  slug: String!
  isActive: Boolean!
  """Null when the network has no address."""
  mailingAddress: MailingAddress
  """Ordered by label, then UUID."""
  virtualDevices: [VirtualDevice!]!
  """Ordered by name, then vlanID."""
  vlans: [VLAN!]!
  """Ordered by ssid."""
  ssids: [SSID!]!
}

"""Where a network is."""
type MailingAddress {
  city: String
  """The region code, e.g. an ISO 3166-2 subdivision such as \`CA\`."""
  subdivisionCode: String
}

"""A device slot on a network, with the hardware assigned to it, if any."""
type VirtualDevice {
  UUID: UUID!
  label: String!
  deviceType: VirtualDeviceType!
  deviceModel: String!
  """Reported by the device; read-only."""
  isOnline: Boolean!
  """Null when no hardware is assigned."""
  hardwareDevice: HardwareDevice
}

"""A physical device of the company's inventory."""
type HardwareDevice {
  """Unique across the service."""
  serialNumber: String!
  deviceType: DeviceType!
  deviceModel: String!
  """Reported by the device; read-only."""
  isConnectedToBackend: Boolean!
}

"""A client currently connected to a network."""
type NetworkClient {
  macAddress: MacAddress!
  """Null when the client has no address yet."""
  ip: IP
  lastSeen: DateTime!
}

"""A VLAN of a network."""
type VLAN {
  UUID: UUID!
  name: String!
  """1 to 4094, unique within the network."""
  vlanID: Int!
  isEnabled: Boolean!
}

"""A wireless network broadcast by a network's access points."""
type SSID {
  UUID: UUID!
  """1 to 32 bytes, unique within the network."""
  ssid: String!
  isEnabled: Boolean!
}
`;

const SCALARS: readonly GraphQLScalarType[] = [UUIDScalar, DateTimeScalar, MacAddressScalar, IPScalar];

/** Builds the executable schema: reads and writes, with the scalars' parsing attached. */
export function createSchema(): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL + MUTATION_SDL);
  for (const scalar of SCALARS) {
    const type = schema.getType(scalar.name) as GraphQLScalarType;
    type.serialize = scalar.serialize;
    type.parseValue = scalar.parseValue;
    type.parseLiteral = scalar.parseLiteral;
  }
  return schema;
}

/** The schema reference served at GET /api/v1/schema.graphql and committed as schema.graphql. */
export function printSchemaReference(schema: GraphQLSchema): string {
  return `${printSchema(schema)}\n`;
}
