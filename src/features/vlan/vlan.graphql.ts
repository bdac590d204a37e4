import { TEXT_MAX, VLAN_ID } from '../../kernel/rules.js';
import { bool, inCompany, inNetworkOfCompany, integer, networkUuidOf, nullable, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping, ObjectReference } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { VlanService } from './vlan.service.js';

const vlan = (uuid: string): ObjectReference => ({ root: 'vlanByUUID', arg: uuid });

/** A network's VLANs, ordered by name, then vlanID, as the schema says (Network.vlans and the vlans root). */
export const VLANS_OF_NETWORK: ListMapping = { kind: 'list', table: 'vlans', join: (l, n) => `${l}.network_id = ${n}.id`, orderBy: (l) => `${l}.name, ${l}.vlan_id` };

/** The VLAN of a network (id expression `networkId`) with the number `vlanNumber` (an expression); none when the number is NULL. */
export const vlanByNumber = (networkId: (parent: string) => string, vlanNumber: (parent: string) => string) =>
  ({ kind: 'object', table: 'vlans', join: (l: string, p: string) => `${l}.network_id = ${networkId(p)} AND ${l}.vlan_id = ${vlanNumber(p)}` }) as const;

/** The fields of a new VLAN, alone (NewVLANInput) or on an existing network (CreateVLANInput). */
const NEW_VLAN_FIELDS = `  "VLAN name, 1 to ${TEXT_MAX.vlanName} characters, not blank."
  name: String!
  "VLAN number, ${VLAN_ID.min} to ${VLAN_ID.max}, unique within the network."
  vlanID: Int!
  "Whether the VLAN is enabled."
  isEnabled: Boolean! = true
  "Whether this is the network's default VLAN."
  isDefault: Boolean! = false
  "Free text, up to ${TEXT_MAX.description} characters, or null."
  description: String
  "The clients' IPv4 gateway, an IPv4 address, given with ipV4ClientPrefixLength; with a prefix of 30 or less, a host of its subnet (not its address or broadcast address)."
  ipV4ClientGateway: IP
  "The prefix length of the clients' subnet, 0 to 32, given with ipV4ClientGateway."
  ipV4ClientPrefixLength: Int
  "How the clients get their IPv4 addresses."
  ipV4ClientAssignmentProtocol: ClientAssignmentProtocol`;

/** VLANs: the VLAN type and its writes. A network lists its VLANs (network.graphql.ts). */
export const VLAN_FEATURE = {
  sdl: /* GraphQL */ `
"""A VLAN of a network."""
type VLAN {
  UUID: UUID!
  name: String!
  """${VLAN_ID.min} to ${VLAN_ID.max}, unique within the network."""
  vlanID: Int!
  isEnabled: Boolean!
  """Whether this is the network's default VLAN (false unless set)."""
  isDefault: Boolean!
  """Free text; null when not set."""
  description: String
  """The network the VLAN belongs to."""
  networkUUID: UUID!
  """The IPv4 gateway of the VLAN's clients; null when not configured."""
  ipV4ClientGateway: IP
  """The prefix length of the clients' IPv4 subnet (0 to 32), which holds the gateway; null when not configured."""
  ipV4ClientPrefixLength: Int
  """How the VLAN's clients get their IPv4 addresses; null when not configured."""
  ipV4ClientAssignmentProtocol: ClientAssignmentProtocol
}

"""How the clients of a VLAN get their IP addresses."""
enum ClientAssignmentProtocol {
  """From a DHCP server."""
  DHCP
  """Configured on each client."""
  STATIC
}

extend type Query {
  """The network's VLANs, ordered by name, then vlanID."""
  vlans("The network's UUID." networkUUID: UUID!): [VLAN!]

  """One VLAN by its UUID."""
  vlan("The VLAN's UUID." UUID: UUID!): VLAN
}

extend type Mutation {
  """Adds a VLAN to a network."""
  createVLAN("The new VLAN." input: CreateVLANInput!): CreateVLANPayload

  """Changes the given fields of a VLAN."""
  updateVLAN("The VLAN and the fields to change." input: UpdateVLANInput!): UpdateVLANPayload

  """Deletes a VLAN."""
  deleteVLAN("The VLAN to delete." input: DeleteVLANInput!): DeleteVLANPayload
}

"""A VLAN created together with its network."""
input NewVLANInput {
${NEW_VLAN_FIELDS}
}

"""A new VLAN on an existing network."""
input CreateVLANInput {
  "The network to add it to."
  networkUUID: UUID!
${NEW_VLAN_FIELDS}
}

"""Changes to a VLAN: absent fields stay as they are."""
input UpdateVLANInput {
  "The VLAN to change."
  vlanUUID: UUID!
  "New name, 1 to ${TEXT_MAX.vlanName} characters, not blank."
  name: String
  "New VLAN number, ${VLAN_ID.min} to ${VLAN_ID.max}, unique within the network."
  vlanID: Int
  "Whether the VLAN is enabled."
  isEnabled: Boolean
  "Whether this is the network's default VLAN."
  isDefault: Boolean
  "New description, up to ${TEXT_MAX.description} characters; null removes it."
  description: String
  "New clients' IPv4 gateway; null removes it (and needs ipV4ClientPrefixLength null too). The result is checked as on create."
  ipV4ClientGateway: IP
  "New prefix length, 0 to 32; null removes it."
  ipV4ClientPrefixLength: Int
  "New assignment protocol; null removes it."
  ipV4ClientAssignmentProtocol: ClientAssignmentProtocol
}

"""The VLAN to delete."""
input DeleteVLANInput {
  "The VLAN's UUID."
  vlanUUID: UUID!
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
`,
  readModel: {
    VLAN: {
      UUID: text('uuid'),
      name: text('name'),
      vlanID: integer('vlan_id'),
      isEnabled: bool('is_enabled'),
      isDefault: bool('is_default'),
      description: text('description', true),
      networkUUID: { kind: 'computed', type: 'string', sql: (l) => networkUuidOf(`${l}.network_id`) },
      ipV4ClientGateway: text('ipv4_client_gateway', true),
      ipV4ClientPrefixLength: nullable('ipv4_client_prefix_length', 'integer'),
      ipV4ClientAssignmentProtocol: text('ipv4_client_assignment_protocol', true),
    },
  },
  roots: {
    vlans: { table: 'networks', arguments: uuidArgument('networkUUID'), where: inCompany('uuid', 'networkUUID'), list: VLANS_OF_NETWORK },
    vlan: { table: 'vlans', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  internalRoots: {
    // createVLAN and updateVLAN read the VLAN back through it
    vlanByUUID: { table: 'vlans', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  mutations: {
    createVLAN: async (s, caller, input) => ({ objects: { vlan: vlan((await s.vlans.create(caller, asInput(input))).UUID) } }),
    updateVLAN: async (s, caller, input) => ({ objects: { vlan: vlan((await s.vlans.update(caller, asInput(input))).UUID) } }),
    deleteVLAN: async (s, caller, input) => ({ values: { deletedVLANUUID: (await s.vlans.delete(caller, asInput(input))).UUID } }),
  },
} satisfies GraphQLFeature<{ vlans: VlanService }>;
