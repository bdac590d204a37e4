import { clientsOnPort } from '../client/client.graphql.js';
import { bool, hardwareIdsOfNetwork, inCompany, integer, networkIdOfHardware, nullable, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping } from '../../engine/read.model.js';
import { LLDP_NEIGHBOR_OF_PORT } from '../topology/topology.graphql.js';
import { vlanByNumber } from '../vlan/vlan.graphql.js';

/** The hardware assigned to the virtual device aliased `v`. */
const hardwareOf = (v: string): string => `(SELECT ph.id FROM hardware_devices ph WHERE ph.virtual_device_id = ${v}.id)`;

/** The ports of the virtual device aliased `v` (its hardware's latest report with interfaces), by port number. */
export const PORTS_OF_VIRTUAL_DEVICE: ListMapping = {
  kind: 'list',
  table: 'device_ports',
  join: (p, v) => `${p}.hardware_device_id = ${hardwareOf(v)}`,
  orderBy: (p) => `${p}.port_number`,
};

/** The uplink ports of the devices of the network aliased `n`, online or not, by device UUID, then port number. */
const UPLINKS_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'device_ports',
  join: (p, n) =>
    `${p}.is_uplink AND ${p}.hardware_device_id IN ${hardwareIdsOfNetwork('u', n)}`,
  orderBy: (p) => `${virtualDeviceUuidOfPort(p)}, ${p}.port_number`,
};

/** The UUID of the virtual device whose hardware reported the port aliased `p`. */
const virtualDeviceUuidOfPort = (p: string): string =>
  `(SELECT pv.uuid FROM hardware_devices pvh JOIN virtual_devices pv ON pv.id = pvh.virtual_device_id WHERE pvh.id = ${p}.hardware_device_id)`;

/** The network id of the hardware that reported the port aliased `p`. */
const networkOfPort = (p: string): string => `(SELECT ${networkIdOfHardware('pn')} FROM hardware_devices pn WHERE pn.id = ${p}.hardware_device_id)`;

/** Ports: a device's physical interfaces as its latest report listed them, and the clients connected to them. */
/** The size a port's `connectedDevices` is priced at (docs/limits.md): one device, as on an access port. */
export const CONNECTED_DEVICES_PER_PORT = 1;

export const PORT_FEATURE = {
  sdl: /* GraphQL */ `
"""A physical port of a device, as the device's latest report with interfaces listed it."""
type PhyInterface {
  UUID: UUID!
  """The port's label as reported; null when none."""
  label: String
  portNumber: Int!
  """E.g. \`COPPER\`, \`SFP\`; null when not reported."""
  portType: String
  isEnabled: Boolean!
  """Whether a link is up on the port."""
  isConnected: Boolean!
  isTrunkPort: Boolean!
  """Whether the port is an uplink (WAN) port."""
  isUplink: Boolean!
  """Whether the uplink carries traffic now; null on ports that are not uplinks."""
  isUplinkActive: Boolean
  """The negotiated speed; null when not reported or no link."""
  portSpeedMbps: Int
  """The network's VLAN with the port's reported native VLAN number; null when none."""
  nativeVLAN: VLAN
  """The virtual device the reporting hardware is assigned to."""
  virtualDeviceUUID: UUID!
  """The wired clients connected to the port, by MAC address."""
  connectedDevices: [ConnectedDevice!]!
  """netgraph's own (not in Meter's API): the LLDP neighbour the port sees, from the latest report; null when none."""
  lldpNeighbor: LLDPNeighbor
  """
  netgraph's own (not in Meter's API): the port's spanning-tree state from the
  latest report (BRIDGE-MIB's dot1dStpPortState); null when the device does not
  say. Its changes are the events PORT_BLOCKED, PORT_UNBLOCKED,
  STP_ERROR_PORT_BLOCKED and STP_ERROR_PORT_UNBLOCKED (docs/alerts.md).
  """
  stpState: STPPortState
}

"""A port's spanning-tree state, as BRIDGE-MIB's dot1dStpPortState names them (BROKEN: the bridge found the port faulty)."""
enum STPPortState {
  DISABLED
  BLOCKING
  LISTENING
  LEARNING
  FORWARDING
  BROKEN
}

"""A wired client on a port."""
type ConnectedDevice {
  portNumber: Int!
  client: NetworkClient
}

extend type Query {
  """
  The uplink ports of the network's devices, from each device's latest
  report, online or not; ordered by virtual device UUID, then port number.
  """
  uplinkPhyInterfacesForNetwork("The network's UUID." networkUUID: UUID!): [PhyInterface!]

  """The ports of a virtual device's hardware, from its latest report, by port number."""
  phyInterfacesForVirtualDevice("The virtual device's UUID." virtualDeviceUUID: UUID!): [PhyInterface!]
}
`,
  readModel: {
    PhyInterface: {
      UUID: text('uuid'),
      label: text('label', true),
      portNumber: integer('port_number'),
      portType: text('port_type', true),
      isEnabled: bool('is_enabled'),
      isConnected: bool('is_connected'),
      isTrunkPort: bool('is_trunk_port'),
      isUplink: bool('is_uplink'),
      isUplinkActive: { kind: 'computed', type: 'boolean', nullable: true, sql: (p) => `(CASE WHEN ${p}.is_uplink THEN ${p}.is_uplink_active END)` },
      portSpeedMbps: nullable('port_speed_mbps', 'integer'),
      nativeVLAN: vlanByNumber(networkOfPort, (p) => `${p}.native_vlan_id`),
      virtualDeviceUUID: { kind: 'computed', type: 'string', sql: virtualDeviceUuidOfPort },
      connectedDevices: clientsOnPort(
        (p) => `${p}.hardware_device_id`,
        (p) => `${p}.port_number`,
      ),
      lldpNeighbor: LLDP_NEIGHBOR_OF_PORT,
      stpState: text('stp_state', true),
    },
    ConnectedDevice: {
      portNumber: integer('port_number'),
      client: { kind: 'embedded', nullWhen: () => '1 = 0' },
    },
  },
  roots: {
    uplinkPhyInterfacesForNetwork: { table: 'networks', arguments: uuidArgument('networkUUID'), where: inCompany('uuid', 'networkUUID'), list: UPLINKS_OF_NETWORK },
    phyInterfacesForVirtualDevice: {
      table: 'virtual_devices',
      arguments: uuidArgument('virtualDeviceUUID'),
      where: inCompany('uuid', 'virtualDeviceUUID'),
      list: PORTS_OF_VIRTUAL_DEVICE,
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    // an access port's one device: a port list priced at five ports, each with five clients, would price a switch's
    // ports and their clients at 132 points, and a Meter dashboard's batch of ten switches at three times the limit
    'PhyInterface.connectedDevices': () => CONNECTED_DEVICES_PER_PORT,
  },
} satisfies GraphQLFeature;
