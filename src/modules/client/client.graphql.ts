import { dateTime, inCompany, text, uuidArgument } from '../read/read.model.js';
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
  """
  The clients currently connected to the network, ordered by MAC address:
  the clients in the latest reports of its online devices, merged by MAC
  address (the latest report wins); until a device of the network first
  reports clients, the clients as imported.
  """
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
      arguments: uuidArgument('networkUUID'),
      where: inCompany('uuid', 'networkUUID'),
      list: {
        kind: 'list',
        table: 'network_clients',
        // a reported client is connected while the device that listed it last is online
        join: (cl, n, context) =>
          `${cl}.network_id = ${n}.id AND ${cl}.is_connected AND (${cl}.hardware_device_id IS NULL OR ` +
          `(SELECT hw.last_seen_at FROM hardware_devices hw WHERE hw.id = ${cl}.hardware_device_id) >= ${context.onlineSince()})`,
        orderBy: (cl) => `${cl}.mac_address`,
      },
    },
  },
  internalRoots: {},
  mutations: {},
} satisfies GraphQLFeature;
