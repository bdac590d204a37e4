import { hardwareIdsOfNetwork, inCompany, networkIdOfHardware, text, uuidArgument } from '../../engine/read.model.js';
import type { FieldMapping, GraphQLFeature, ListMapping } from '../../engine/read.model.js';

// LLDP topology (issue 30): netgraph's own fields beside Meter's API. A port's
// LLDP neighbour is stored on its port row (migration 0013), so a neighbour
// and a network's links read the ports' rows and resolve the far end inside
// the reporting device's network (so never into another company).

/** The network id of the hardware that reported the port aliased `p`. */
const networkOfPort = (p: string): string => `(SELECT ${networkIdOfHardware('tn')} FROM hardware_devices tn WHERE tn.id = ${p}.hardware_device_id)`;

/**
 * The id of the virtual device the neighbour of the port aliased `p` is: in
 * the port's network, the device whose hardware's MAC address is the
 * neighbour's chassis id, else the device labelled as the neighbour's system
 * name; the lowest id when several match. NULL when none does.
 */
const remoteDeviceOfPort = (p: string): string =>
  `coalesce(` +
  `(SELECT tv.id FROM virtual_devices tv JOIN hardware_devices th ON th.virtual_device_id = tv.id ` +
  `WHERE tv.network_id = ${networkOfPort(p)} AND th.mac_address = ${p}.lldp_chassis_id ORDER BY tv.id LIMIT 1), ` +
  `(SELECT tl.id FROM virtual_devices tl WHERE tl.network_id = ${networkOfPort(p)} AND tl.label = ${p}.lldp_system_name ORDER BY tl.id LIMIT 1))`;

/** A port's LLDP neighbour: the port's own row, null when it sees none. */
export const LLDP_NEIGHBOR_OF_PORT: FieldMapping = { kind: 'embedded', nullWhen: (p) => `${p}.lldp_chassis_id IS NULL` };

/** The ports of the network aliased `n`'s devices that see an LLDP neighbour, by device UUID, then port number. */
const LINKS_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'device_ports',
  join: (p, n) => `${p}.lldp_chassis_id IS NOT NULL AND ${p}.hardware_device_id IN ${hardwareIdsOfNetwork('tl', n)}`,
  orderBy: (p) =>
    `(SELECT tov.uuid FROM hardware_devices toh JOIN virtual_devices tov ON tov.id = toh.virtual_device_id WHERE toh.id = ${p}.hardware_device_id), ${p}.port_number`,
};

/** LLDP neighbours of ports, and a network's links between devices. */
export const TOPOLOGY_FEATURE = {
  sdl: /* GraphQL */ `
"""
netgraph's own (not in Meter's API): the LLDP neighbour a port sees, as the
neighbour's LLDP advertisement describes itself, from the port's latest
report (docs/reports.md; the SNMP collector reads LLDP-MIB's remote table).
"""
type LLDPNeighbor {
  """The neighbour's chassis id: a MAC address (lowercase, colon-separated) when it sends one, else its text as sent."""
  chassisID: String!
  """The neighbour's id of its port (an interface name or a MAC address, as it chooses); null when not sent."""
  portID: String
  """The neighbour's description of its port (often its interface name); null when not sent."""
  portDescription: String
  """The neighbour's system name (its host name); null when not sent."""
  systemName: String
  """
  The netgraph device the neighbour is, in the reporting device's network:
  the one whose hardware's MAC address is the chassis id, else the one
  labelled as the system name; null when none is.
  """
  remoteDevice: VirtualDevice
  """
  The port of remoteDevice at the other end: the one whose label is the
  neighbour's portID or portDescription (the lowest port number when
  several are); null when remoteDevice is null or no label matches.
  """
  remotePhyInterface: PhyInterface
}

"""
netgraph's own (not in Meter's API): one end of a link of the network's
topology, as a device's port sees its LLDP neighbour. A link between two
devices that both report LLDP appears twice, once from each end.
"""
type TopologyLink {
  """The device whose port sees the neighbour."""
  virtualDevice: VirtualDevice!
  """The port that sees it."""
  phyInterface: PhyInterface!
  """The neighbour at the other end."""
  neighbor: LLDPNeighbor!
}

extend type Query {
  """
  netgraph's own (not in Meter's API): the network's links, one per port of
  its devices that sees an LLDP neighbour (from each device's latest
  report), ordered by the device's UUID, then port number.
  """
  networkTopology("The network's UUID." networkUUID: UUID!): [TopologyLink!]
}
`,
  readModel: {
    LLDPNeighbor: {
      chassisID: text('lldp_chassis_id'),
      portID: text('lldp_port_id', true),
      portDescription: text('lldp_port_description', true),
      systemName: text('lldp_system_name', true),
      remoteDevice: { kind: 'object', table: 'virtual_devices', join: (v, p) => `${v}.id = ${remoteDeviceOfPort(p)}` },
      remotePhyInterface: {
        kind: 'object',
        table: 'device_ports',
        join: (r, p) =>
          `${r}.id = (SELECT tp.id FROM device_ports tp WHERE tp.hardware_device_id = ` +
          `(SELECT tr.id FROM hardware_devices tr WHERE tr.virtual_device_id = ${remoteDeviceOfPort(p)}) ` +
          `AND (tp.label = ${p}.lldp_port_id OR tp.label = ${p}.lldp_port_description) ORDER BY tp.port_number LIMIT 1)`,
      },
    },
    TopologyLink: {
      virtualDevice: {
        kind: 'object',
        table: 'virtual_devices',
        join: (v, p) => `${v}.id = (SELECT tlh.virtual_device_id FROM hardware_devices tlh WHERE tlh.id = ${p}.hardware_device_id)`,
      },
      phyInterface: { kind: 'embedded', nullWhen: () => '1 = 0' },
      neighbor: { kind: 'embedded', nullWhen: () => '1 = 0' },
    },
  },
  roots: {
    networkTopology: { table: 'networks', arguments: uuidArgument('networkUUID'), where: inCompany('uuid', 'networkUUID'), list: LINKS_OF_NETWORK },
  },
  internalRoots: {},
  mutations: {},
} satisfies GraphQLFeature;
