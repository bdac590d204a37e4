import { SLUG_MAX_LENGTH } from '../company/company.rules.js';
import { TEXT_MAX } from '../../kernel/rules.js';
import { bool, filterField, inCompany, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping, ObjectReference } from '../../engine/read.model.js';
import { slugArgument } from '../company/company.graphql.js';
import { SSIDS_OF_NETWORK } from '../ssid/ssid.graphql.js';
import { VLANS_OF_NETWORK } from '../vlan/vlan.graphql.js';
import { VIRTUAL_DEVICE_TYPES } from '../../platform/import/import.schema.js';
import { asInput } from '../../platform/write/write.rules.js';
import { MAX_NESTED } from './network.service.js';
import type { NetworkService } from './network.service.js';

/** Ordered by label, then UUID, as the schema says. */
const DEVICES_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'virtual_devices',
  join: (v, n) => `${v}.network_id = ${n}.id`,
  orderBy: (v) => `${v}.label, ${v}.uuid`,
};

/** GraphQL's coercion has checked the enum already; this keeps the text argument's contract. */
const isVirtualDeviceType = (value: string): boolean => (VIRTUAL_DEVICE_TYPES as readonly string[]).includes(value);

/** virtualDevicesForNetwork's devices: the network's, of filter.deviceType only when given. */
const FILTERED_DEVICES_OF_NETWORK: ListMapping = {
  ...DEVICES_OF_NETWORK,
  // a flag parameter, not `arg IS NULL`: PostgreSQL cannot type an uncast text parameter there
  join: (v, n, c) =>
    !c.mayBeGiven('filter')
      ? DEVICES_OF_NETWORK.join(v, n, c)
      : `${v}.network_id = ${n}.id AND (${c.value('boolean', (args) => filterField(args, 'deviceType') == null)} OR ${v}.device_type = ${c.arg('filter.deviceType')})`,
};

const network = (uuid: string): ObjectReference => ({ root: 'networkByUUID', arg: uuid });

/**
 * Networks: the Network type with its address and the lists below it
 * (ordered as the schema says), the read of a network's devices, and the
 * writes of networks.
 */
export const NETWORK_FEATURE = {
  sdl: /* GraphQL */ `
"""A site: one physical location with its devices, VLANs and SSIDs."""
type Network {
  UUID: UUID!
  label: String!
  """Short, URL-safe name, unique within the company."""
  slug: String!
  """The slug of the company the network belongs to."""
  companySlug: String!
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

"""Where a network is. Each part is null when unknown."""
type MailingAddress {
  """The street address."""
  line1: String
  """More of the street address: a suite, floor or building."""
  line2: String
  city: String
  """The region code, e.g. an ISO 3166-2 subdivision such as \`CA\`."""
  subdivisionCode: String
  """The postal (ZIP) code."""
  postalCode: String
}

extend type Query {
  """The network's virtual devices, ordered by label, then UUID."""
  virtualDevicesForNetwork(
    "The network's UUID."
    networkUUID: UUID!
    "Only some of the devices."
    filter: DevicesForNetworkFilter
  ): [VirtualDevice!]

  """One network by its UUID."""
  network("The network's UUID." UUID: UUID!): Network

  """One network by its company's slug and its own."""
  networkBySlug(
    "The company's slug: lowercase letters, digits and single hyphens, 1 to ${SLUG_MAX_LENGTH} characters; anything else is BAD_USER_INPUT."
    companySlug: String!
    "The network's slug, unique within the company (same rule)."
    networkSlug: String!
  ): Network
}

extend type Mutation {
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
}

"""Which of a network's virtual devices virtualDevicesForNetwork lists."""
input DevicesForNetworkFilter {
  "Only devices of this type; absent or null: every type."
  deviceType: VirtualDeviceType
}

"""Where a network is. Each part may be null when unknown; all null means no address."""
input MailingAddressInput {
  "The street address, 1 to ${TEXT_MAX.addressLine} characters, or null."
  line1: String
  "More of the street address (suite, floor, building), 1 to ${TEXT_MAX.addressLine} characters, or null."
  line2: String
  "City name, 1 to ${TEXT_MAX.city} characters, or null."
  city: String
  "Region code, e.g. an ISO 3166-2 subdivision such as \`CA\`: 1 to ${TEXT_MAX.subdivisionCode} characters, or null."
  subdivisionCode: String
  "The postal (ZIP) code, 1 to ${TEXT_MAX.postalCode} characters, or null."
  postalCode: String
}

"""A new network."""
input CreateNetworkInput {
  "Display label, 1 to ${TEXT_MAX.networkLabel} characters, not blank."
  label: String!
  "Short URL-safe name, unique within the company: lowercase letters, digits and single hyphens, 1 to ${SLUG_MAX_LENGTH} characters."
  slug: String!
  "Whether the network is in service."
  isActive: Boolean! = true
  "Where the network is; none when absent or null."
  mailingAddress: MailingAddressInput
  "VLANs to create with the network, at most ${MAX_NESTED.vlans}; field errors name them as \`input.vlans[i]\`."
  vlans: [NewVLANInput!]
  "SSIDs to create with the network, at most ${MAX_NESTED.ssids}; field errors name them as \`input.ssids[i]\`."
  ssids: [NewSSIDInput!]
}

"""Changes to a network: absent fields stay as they are."""
input UpdateNetworkInput {
  "The network to change."
  networkUUID: UUID!
  "New display label, 1 to ${TEXT_MAX.networkLabel} characters, not blank."
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
`,
  readModel: {
    Network: {
      UUID: text('uuid'),
      label: text('label'),
      slug: text('slug'),
      companySlug: { kind: 'computed', type: 'string', sql: (n) => `(SELECT nc.slug FROM companies nc WHERE nc.id = ${n}.company_id)` },
      isActive: bool('is_active'),
      mailingAddress: {
        kind: 'embedded',
        nullWhen: (n) =>
          `${n}.mailing_line1 IS NULL AND ${n}.mailing_line2 IS NULL AND ${n}.mailing_city IS NULL AND ` +
          `${n}.mailing_subdivision_code IS NULL AND ${n}.mailing_postal_code IS NULL`,
      },
      virtualDevices: DEVICES_OF_NETWORK,
      vlans: VLANS_OF_NETWORK,
      ssids: SSIDS_OF_NETWORK,
    },
    MailingAddress: {
      line1: text('mailing_line1', true),
      line2: text('mailing_line2', true),
      city: text('mailing_city', true),
      subdivisionCode: text('mailing_subdivision_code', true),
      postalCode: text('mailing_postal_code', true),
    },
  },
  roots: {
    virtualDevicesForNetwork: {
      table: 'networks',
      arguments: [
        { name: 'networkUUID', type: 'uuid' },
        { name: 'filter', type: 'input', fields: [{ name: 'deviceType', type: 'text', check: isVirtualDeviceType, rule: 'a VirtualDeviceType' }] },
      ],
      where: inCompany('uuid', 'networkUUID'),
      list: FILTERED_DEVICES_OF_NETWORK,
    },
    network: { table: 'networks', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
    networkBySlug: {
      table: 'networks',
      arguments: [slugArgument('companySlug'), slugArgument('networkSlug')],
      where: (n, c) =>
        `${n}.slug = ${c.arg('networkSlug')} AND ${n}.company_id = (SELECT bc.id FROM companies bc WHERE bc.slug = ${c.arg('companySlug')} AND bc.id = ${c.company()})`,
    },
  },
  internalRoots: {
    // createNetwork and updateNetwork read the network back through it
    networkByUUID: { table: 'networks', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
  },
  mutations: {
    createNetwork: async (s, caller, input) => ({ objects: { network: network((await s.networks.create(caller, asInput(input))).UUID) } }),
    updateNetwork: async (s, caller, input) => ({ objects: { network: network((await s.networks.update(caller, asInput(input))).UUID) } }),
    deleteNetwork: async (s, caller, input) => {
      const deleted = await s.networks.delete(caller, asInput(input));
      return { values: { deletedNetworkUUID: deleted.UUID, hardwareReturnedToSpare: deleted.hardwareReturnedToSpare } };
    },
  },
} satisfies GraphQLFeature<{ networks: NetworkService }>;
