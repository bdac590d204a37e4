import { dateTime, inCompany, text } from '../read/read.model.js';
import type { GraphQLFeature } from '../read/read.model.js';

/** The clients connected to a network: nothing writes them through the API (an import or a device reports them). */
export const CLIENT_FEATURE = {
  sdl: /* GraphQL */ `
"""A client currently connected to a network."""
type NetworkClient {
  macAddress: MacAddress!
  """Null when the client has no address yet."""
  ip: IP
  lastSeen: DateTime!
}

extend type Query {
  """The clients currently connected to the network, ordered by MAC address."""
  networkClients("The network's UUID." networkUUID: UUID!): [NetworkClient!]
}
`,
  readModel: {
    NetworkClient: {
      macAddress: text('mac_address'),
      ip: text('ip', true),
      lastSeen: dateTime('last_seen'),
    },
  },
  roots: {
    networkClients: {
      table: 'networks',
      argument: { name: 'networkUUID', type: 'uuid' },
      where: inCompany('uuid'),
      list: {
        kind: 'list',
        table: 'network_clients',
        join: (cl, n) => `${cl}.network_id = ${n}.id AND ${cl}.is_connected`,
        orderBy: (cl) => `${cl}.mac_address`,
      },
    },
  },
  internalRoots: {},
  mutations: {},
} satisfies GraphQLFeature;
