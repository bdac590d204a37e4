import { MAX_MAC_TABLE_ENTRIES } from '../../ingest/report.protocol.js';
import { dateTime, inCompany, integer, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping } from '../../engine/read.model.js';

/**
 * Entries of a MAC table count one element of the complexity cost per this
 * many: an entry is one row of one index range, with no lookup of its own.
 */
const MAC_ENTRIES_PER_COST_ELEMENT = 100;

/** The MAC table of the virtual device aliased `v` (its hardware's latest report with `macTable`), by MAC address, then VLAN. */
const MAC_TABLE_OF_VIRTUAL_DEVICE: ListMapping = {
  kind: 'list',
  table: 'switch_mac_entries',
  join: (m, v) => `${m}.hardware_device_id = (SELECT mh.id FROM hardware_devices mh WHERE mh.virtual_device_id = ${v}.id)`,
  orderBy: (m) => `${m}.mac_address, ${m}.vlan_id`,
};

/** Switches' MAC forwarding tables, as their latest reports with `macTable` listed them (docs/reports.md). */
export const MAC_TABLE_FEATURE = {
  sdl: /* GraphQL */ `
"""
An entry of a switch's MAC forwarding table: the switch forwards frames for
\`macAddress\` in \`vlanID\` out of port \`portNumber\`. From the switch's
latest report with a MAC table (docs/reports.md).
"""
type SwitchMACTableEntry {
  """The switch (virtual device) whose table holds the entry."""
  virtualDeviceUUID: UUID!
  macAddress: MacAddress!
  """The VLAN the address was learned in; null when the switch's table has no VLANs (a bridge that is not VLAN-aware)."""
  vlanID: Int
  """The port the address was learned on, as the switch numbers its ports (PhyInterface.portNumber)."""
  portNumber: Int!
  """When the entry last changed: the observedAt of the first report that listed it on this port."""
  updatedAt: DateTime!
}

extend type Query {
  """
  The MAC forwarding table of a switch, from its hardware's latest report
  with one, ordered by MAC address, then VLAN (no VLAN first); empty when
  it has reported none.
  """
  switchMACTable("The switch's virtual device UUID." virtualDeviceUUID: UUID!): [SwitchMACTableEntry!]
}
`,
  readModel: {
    SwitchMACTableEntry: {
      virtualDeviceUUID: {
        kind: 'computed',
        type: 'string',
        sql: (m) => `(SELECT mv.uuid FROM hardware_devices mvh JOIN virtual_devices mv ON mv.id = mvh.virtual_device_id WHERE mvh.id = ${m}.hardware_device_id)`,
      },
      macAddress: text('mac_address'),
      vlanID: { kind: 'computed', type: 'integer', nullable: true, sql: (m) => `NULLIF(${m}.vlan_id, 0)` },
      portNumber: integer('port_number'),
      updatedAt: dateTime('updated_at'),
    },
  },
  roots: {
    switchMACTable: {
      table: 'virtual_devices',
      arguments: uuidArgument('virtualDeviceUUID'),
      where: inCompany('uuid', 'virtualDeviceUUID'),
      list: MAC_TABLE_OF_VIRTUAL_DEVICE,
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'Query.switchMACTable': () => Math.ceil(MAX_MAC_TABLE_ENTRIES / MAC_ENTRIES_PER_COST_ELEMENT),
  },
  listItemsPerElement: {
    'Query.switchMACTable': MAC_ENTRIES_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
