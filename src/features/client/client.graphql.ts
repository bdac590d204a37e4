import { deviceLastSeenSql, onlineSql } from '../../kernel/online.js';
import {
  allNetworksInCompany,
  bool,
  dateTime,
  inCompany,
  isCallersCompany,
  networkUuidOf,
  nullable,
  text,
} from '../../engine/read.model.js';
import type { FieldMapping, GraphQLFeature, ListMapping, SqlContext } from '../../engine/read.model.js';
import { vlanByNumber } from '../vlan/vlan.graphql.js';
import { CLIENTS_FILTER_ARGUMENT, checkClientsFilter, clientsSelected } from './client.filter.js';
import { MAX_SEARCH_LENGTH, MAX_SEARCH_PAGE, SEARCH_PAGE_ARGUMENTS, checkSearchPage, clientSearch, searchPageSize } from './client.search.js';

/**
 * True while the client aliased `cl` counts as connected: marked connected,
 * and imported, or listed last by a device that is online.
 */
const isConnected = (cl: string, context: SqlContext): string =>
  `${cl}.is_connected AND (${cl}.hardware_device_id IS NULL OR ` +
  `${onlineSql(deviceLastSeenSql(`${cl}.hardware_device_id`, 'hw'), context.onlineSince())})`;

/** The clients of the network aliased `n` that the root's filter selects (the connected ones without), by MAC address. */
const CLIENTS_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'network_clients',
  join: (cl, n, context) => `${cl}.network_id = ${n}.id AND ${clientsSelected(cl, context, () => isConnected(cl, context))}`,
  orderBy: (cl) => `${cl}.mac_address`,
};

/** The connected clients of the network row `n` that the search of networkClientsPage finds (client.search.ts), as the row `cl`. */
const searchedClients = (c: SqlContext, n: string, cl: string): string =>
  `${cl}.network_id = ${n}.id AND ${isConnected(cl, c)} AND ${clientSearch(c, cl)}`;

/** A page of a network's connected clients that the search finds: `total`, and `clients` by MAC address. */
const CLIENTS_PAGE: Record<string, FieldMapping> = {
  total: { kind: 'computed', type: 'integer', sql: (n, c) => `(SELECT count(*) FROM network_clients tc WHERE ${searchedClients(c, n, 'tc')})` },
  clients: {
    kind: 'list',
    table: (c, n) =>
      `(SELECT pc.* FROM network_clients pc WHERE ${searchedClients(c, n, 'pc')} ORDER BY pc.mac_address LIMIT ${c.arg('limit')} OFFSET ${c.arg('offset')})`,
    join: (cl) => `${cl}.id IS NOT NULL`,
    orderBy: (cl) => `${cl}.mac_address`,
  },
};

/** The clients the filter selects of every network of the list argument networkUUIDs (of the caller's company), by MAC address, then network. */
const CLIENTS_OF_NETWORKS: ListMapping = {
  kind: 'list',
  table: 'network_clients',
  join: (cl, _parent, context) =>
    `${cl}.network_id IN (SELECT mn.id FROM networks mn WHERE ${context.dialect.inList('mn.uuid', context.arg('networkUUIDs'))} ` +
    `AND mn.company_id = ${context.company()}) AND ${clientsSelected(cl, context, () => isConnected(cl, context))}`,
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

"""An inclusive range of IP addresses, both of one family."""
input IPRangeInput {
  "The first address of the range."
  start: IP!
  "The last address of the range (addresses are ordered as numbers)."
  end: IP!
}

"""
Which clients networkClients and networksClients list. With a filter, a
client is listed when it was seen in the window of lookbackMinutes that
ends at timestamp (or now), connected or not any more, and matches every
other field given; the client's fields are its latest known ones.
"""
input NetworkClientsFilter {
  "Leave out clients whose MAC address is one of the company's hardware devices' (as they report it), e.g. an access point on a switch port."
  excludeMeterHardware: Boolean!
  "Per-client latency is not supported yet: true is BAD_USER_INPUT."
  includeLatency: Boolean!
  "Per-client throughput is not supported yet: true is BAD_USER_INPUT."
  includeThroughput: Boolean!
  "The window, in minutes, 1 to 43,200 (30 days). Without timestamp: clients last listed (lastSeen) in the last lookbackMinutes. With timestamp: clients with a session on the network (a stretch a device kept listing them) that began at or before timestamp and was last listed at or after lookbackMinutes before it; imported clients have no sessions."
  lookbackMinutes: Int!
  "Only wireless clients that the access point with this serial number (of the company) reported last; another company's serial matches none."
  apSerialNumber: String
  "Only clients with an address from start to end, inclusive; IPv4 or IPv6, both ends of one family. Clients without an address are left out."
  ipRange: IPRangeInput
  "Only the client with this MAC address."
  macAddress: MacAddress
  "Only wireless clients on the SSID of exactly this name."
  ssid: String
  "The end of the window: clients seen around this time, from the client sessions (see lookbackMinutes); absent: now."
  timestamp: DateTime
  "Only clients on the VLAN with this number."
  vlanID: Int
}

"""One page of a network's connected clients that a search finds, and how many it finds in all."""
type NetworkClientsPage {
  """Every connected client the search finds, on all pages."""
  total: Int!
  """This page's clients, by MAC address."""
  clients: [NetworkClient!]!
}

extend type Query {
  """
  The clients currently connected to the network, ordered by MAC address:
  the clients in the latest reports of its online devices, merged by MAC
  address (the latest report wins); until a device of the network first
  reports clients, the clients as imported. With a filter, the clients it
  selects (NetworkClientsFilter), connected or not.
  """
  networkClients(
    "The network's UUID."
    networkUUID: UUID!
    "Which clients to list instead of the connected ones."
    filter: NetworkClientsFilter
  ): [NetworkClient!]

  """
  A page of the clients currently connected to the network (as
  networkClients), by MAC address, that a search finds, with how many it
  finds in all: the dashboard's client list. Null with UNAUTHORIZED for a
  network that is not the key's company's.
  """
  networkClientsPage(
    "The network's UUID."
    networkUUID: UUID!
    "Up to ${MAX_SEARCH_LENGTH} characters, any case: clients whose MAC address holds its hex digits (with colons, hyphens, dots or nothing between them), whose IP address starts with it, or whose host name holds it. Absent or blank: every connected client."
    search: String
    "The most clients on the page, 1 to ${MAX_SEARCH_PAGE}."
    limit: Int!
    "How many of the clients found to skip (by MAC address), 0 or more."
    offset: Int = 0
  ): NetworkClientsPage

  """
  The clients currently connected to the networks (as networkClients), or
  those the filter selects, ordered by MAC address, then network. Null with
  UNAUTHORIZED when the company or any of the networks is not the API key's company's.
  """
  networksClients(
    "The company's UUID."
    companyUUID: UUID!
    "The networks' UUIDs; every one must be the company's."
    networkUUIDs: [UUID!]!
    "Which clients to list instead of the connected ones."
    filter: NetworkClientsFilter
  ): [NetworkClient!]
}
`,
  readModel: {
    NetworkClientsPage: CLIENTS_PAGE,
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
    networkClients: {
      table: 'networks',
      arguments: [{ name: 'networkUUID', type: 'uuid' }, CLIENTS_FILTER_ARGUMENT],
      check: checkClientsFilter,
      where: inCompany('uuid', 'networkUUID'),
      list: CLIENTS_OF_NETWORK,
    },
    networkClientsPage: {
      table: 'networks',
      arguments: [{ name: 'networkUUID', type: 'uuid' }, ...SEARCH_PAGE_ARGUMENTS],
      check: checkSearchPage,
      where: inCompany('uuid', 'networkUUID'),
    },
    networksClients: {
      kind: 'value',
      arguments: [{ name: 'companyUUID', type: 'uuid' }, { name: 'networkUUIDs', type: 'uuidList' }, CLIENTS_FILTER_ARGUMENT],
      check: checkClientsFilter,
      // NULL unless the company and every network are the caller's, so nothing of its own networks answers a foreign id
      json: (c, selection) =>
        `(CASE WHEN ${isCallersCompany('companyUUID', c)} AND ${allNetworksInCompany('networkUUIDs', c)} THEN ${c.list(CLIENTS_OF_NETWORKS, selection, '')} END)`,
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'NetworkClientsPage.clients': searchPageSize,
  },
} satisfies GraphQLFeature;
