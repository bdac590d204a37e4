import { TEXT_MAX } from '../../kernel/rules.js';
import { dateTime, inCompany, inNetworkOfCompany, networkUuidOf, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { BlockedClientService } from './blocked-client.service.js';

/** A network's blocked clients, by MAC address. */
const BLOCKED_CLIENTS_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'blocked_clients',
  join: (b, n) => `${b}.network_id = ${n}.id`,
  orderBy: (b) => `${b}.mac_address`,
};

/** Blocked clients: the MAC addresses a network refuses, written by blockClient and unblockClient. */
export const BLOCKED_CLIENT_FEATURE = {
  sdl: /* GraphQL */ `
"""A client MAC address blocked on a network (blockClient)."""
type NetworkClientBlocklistEntry {
  UUID: UUID!
  macAddress: MacAddress!
  """When it was blocked."""
  createdAt: DateTime!
  networkUUID: UUID!
  """Why it was blocked, as given; null when none."""
  reason: String
}

extend type Query {
  """The clients blocked on the network, ordered by MAC address."""
  blockedClientsForNetwork("The network's UUID." networkUUID: UUID!): [NetworkClientBlocklistEntry!]
}

extend type Mutation {
  """Blocks a client's MAC address on a network; CONFLICT when it is blocked there already."""
  blockClient("The network and the MAC address." input: BlockClientInput!): BlockClientPayload

  """Unblocks a client's MAC address on a network; UNAUTHORIZED (naming macAddress) when it is not blocked there."""
  unblockClient("The network and the MAC address." input: UnblockClientInput!): UnblockClientPayload
}

"""A MAC address to block on a network."""
input BlockClientInput {
  "The network."
  networkUUID: UUID!
  "The client's MAC address."
  macAddress: MacAddress!
  "Why, up to ${TEXT_MAX.description} characters, or null."
  reason: String
}

"""A MAC address to unblock on a network."""
input UnblockClientInput {
  "The network."
  networkUUID: UUID!
  "The client's MAC address."
  macAddress: MacAddress!
}

"""The result of blockClient."""
type BlockClientPayload {
  """The new blocklist entry."""
  blockedClient: NetworkClientBlocklistEntry!
}

"""The result of unblockClient."""
type UnblockClientPayload {
  """The UUID of the removed blocklist entry."""
  unblockedClientUUID: UUID!
}
`,
  readModel: {
    NetworkClientBlocklistEntry: {
      UUID: text('uuid'),
      macAddress: text('mac_address'),
      createdAt: dateTime('created_at'),
      networkUUID: { kind: 'computed', type: 'string', sql: (b) => networkUuidOf(`${b}.network_id`) },
      reason: text('reason', true),
    },
  },
  roots: {
    blockedClientsForNetwork: { table: 'networks', arguments: uuidArgument('networkUUID'), where: inCompany('uuid', 'networkUUID'), list: BLOCKED_CLIENTS_OF_NETWORK },
  },
  internalRoots: {
    // blockClient reads the entry back through it
    blockedClientByUUID: { table: 'blocked_clients', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  mutations: {
    blockClient: async (s, caller, input) => ({
      objects: { blockedClient: { root: 'blockedClientByUUID', arg: (await s.blockedClients.block(caller, asInput(input))).UUID } },
    }),
    unblockClient: async (s, caller, input) => ({ values: { unblockedClientUUID: (await s.blockedClients.unblock(caller, asInput(input))).UUID } }),
  },
} satisfies GraphQLFeature<{ blockedClients: BlockedClientService }>;
