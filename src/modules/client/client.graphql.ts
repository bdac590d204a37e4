import {
  allNetworksInCompany,
  bool,
  dateTime,
  inCompany,
  isCallersCompany,
  networkUuidOf,
  nullable,
  text,
  uuidArgument,
} from '../read/read.model.js';
import type { FieldMapping, GraphQLFeature, ListMapping, SqlContext } from '../read/read.model.js';
import { vlanByNumber } from '../vlan/vlan.graphql.js';

/**
 * True while the client aliased `cl` counts as connected: marked connected,
 * and imported, or listed last by a device that is online.
 */
const isConnected = (cl: string, context: SqlContext): string =>
  `${cl}.is_connected AND (${cl}.hardware_device_id IS NULL OR ` +
  `(SELECT hw.last_seen_at FROM hardware_devices hw WHERE hw.id = ${cl}.hardware_device_id) >= ${context.onlineSince()})`;

/** The connected clients of the network aliased `n`, by MAC address. */
const CLIENTS_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'network_clients',
  join: (cl, n, context) => `${cl}.network_id = ${n}.id AND ${isConnected(cl, context)}`,
  orderBy: (cl) => `${cl}.mac_address`,
};

/** The connected clients of every network of the list argument networkUUIDs (of the caller's company), by MAC address, then network. */
const CLIENTS_OF_NETWORKS: ListMapping = {
  kind: 'list',
  table: 'network_clients',
  join: (cl, _parent, context) =>
    `${cl}.network_id IN (SELECT mn.id FROM networks mn WHERE ${context.dialect.inList('mn.uuid', context.arg('networkUUIDs'))} ` +
    `AND mn.company_id = ${context.company()}) AND ${isConnected(cl, context)}`,
  orderBy: (cl) => `${cl}.mac_address, ${cl}.network_id`,
};

/** The connected clients on port `portNumber` of the hardware device `hardwareId` (expressions): a port's connected devices. */
export const clientsOnPort = (hardwareId: (parent: string) => string, portNumber: (parent: string) => string): ListMapping => ({
  kind: 'list',
  table: 'network_clients',
  join: (cl, p, context) =>
    `${cl}.hardware_device_id = ${hardwareId(p)} AND ${cl}.port_number = ${portNumber(p)} AND NOT ${cl}.is_wireless AND ${isConnected(cl, context)}`,
  orderBy: (cl) => `${cl}.mac_address`,
});

/** The access point that reported a wireless client: the virtual device its reporting hardware is assigned to; none for wired ones. */
const ACCESS_POINT: FieldMapping = {
  kind: 'object',
  table: 'virtual_devices',
  join: (v, cl) => `${cl}.is_wireless AND ${v}.id = (SELECT ah.virtual_device_id FROM hardware_devices ah WHERE ah.id = ${cl}.hardware_device_id)`,
};

/** The clients connected to a network: nothing writes them through the API (an import or a device reports them). */
export const CLIENT_FEATURE = {
  sdl: /* GraphQL */ `
"""A client currently connected to a network."""
type NetworkClient {
  macAddress: MacAddress!
  """Null when the client has no address yet."""
  ip: IP
  lastSeen: DateTime!
  """The client's host name as reported; null when none."""
  clientName: String
  """True for a client of an access point, false for one on a switch port."""
  isWireless: Boolean!
  """Signal strength in dBm as reported; null for wired clients."""
  signal: Int
  """The network's VLAN with the reported vlanID; null when the network has none."""
  connectedVLAN: VLAN
  """The network's SSID with the reported name; null for wired clients and when the network has none."""
  connectedSSID: SSID
  """The access point that reported the client; null for wired clients."""
  accessPoint: VirtualDevice
  networkUUID: UUID!
}

extend type Query {
  """
  The clients currently connected to the network, ordered by MAC address:
  the clients in the latest reports of its online devices, merged by MAC
  address (the latest report wins); until a device of the network first
  reports clients, the clients as imported.
  """
  networkClients("The network's UUID." networkUUID: UUID!): [NetworkClient!]

  """
  The clients currently connected to the networks (as networkClients),
  ordered by MAC address, then network. Null with UNAUTHORIZED when the
  company or any of the networks is not the API key's company's.
  """
  networksClients(
    "The company's UUID."
    companyUUID: UUID!
    "The networks' UUIDs; every one must be the company's."
    networkUUIDs: [UUID!]!
  ): [NetworkClient!]
}
`,
  readModel: {
    NetworkClient: {
      macAddress: text('mac_address'),
      ip: text('ip', true),
      lastSeen: dateTime('last_seen'),
      clientName: text('hostname', true),
      isWireless: bool('is_wireless'),
      signal: nullable('signal', 'integer'),
      connectedVLAN: vlanByNumber(
        (cl) => `${cl}.network_id`,
        (cl) => `${cl}.vlan_id`,
      ),
      connectedSSID: { kind: 'object', table: 'ssids', join: (s, cl) => `${cl}.is_wireless AND ${s}.network_id = ${cl}.network_id AND ${s}.ssid = ${cl}.ssid` },
      accessPoint: ACCESS_POINT,
      networkUUID: { kind: 'computed', type: 'string', sql: (cl) => networkUuidOf(`${cl}.network_id`) },
    },
  },
  roots: {
    networkClients: { table: 'networks', arguments: uuidArgument('networkUUID'), where: inCompany('uuid', 'networkUUID'), list: CLIENTS_OF_NETWORK },
    networksClients: {
      kind: 'value',
      arguments: [
        { name: 'companyUUID', type: 'uuid' },
        { name: 'networkUUIDs', type: 'uuidList' },
      ],
      // NULL unless the company and every network are the caller's, so nothing of its own networks answers a foreign id
      json: (c, selection) =>
        `(CASE WHEN ${isCallersCompany('companyUUID', c)} AND ${allNetworksInCompany('networkUUIDs', c)} THEN ${c.list(CLIENTS_OF_NETWORKS, selection, '')} END)`,
    },
  },
  internalRoots: {},
  mutations: {},
} satisfies GraphQLFeature;
