import { MAX_MAC_TABLE_ENTRIES } from '../../ingest/report.limits.js';
import { dateTime, inCompany, integer, text, uuidArgument } from '../../engine/read.model.js';
import type { FieldMapping, GraphQLFeature, ListMapping, SqlContext } from '../../engine/read.model.js';
import { MAX_SEARCH_LENGTH, MAX_SEARCH_PAGE, SEARCH_PAGE_ARGUMENTS, checkSearchPage, macMatches, noSearch, searchPageSize, searchText } from '../client/client.search.js';

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

/** The number a search of switchMACTablePage names (1 to 5 digits): a port or VLAN; -1 for any other search. */
const searchNumber = (args: Readonly<Record<string, unknown>>): number => {
  const text = searchText(args);
  return /^\d{1,5}$/.test(text) && Number(text) >= 1 ? Number(text) : -1;
};

/**
 * The entries of the switch (virtual device row `v`) that the search of
 * switchMACTablePage finds, as the row `m`: none, a number (the entries on
 * that port or in that VLAN), or else the hex digits of a MAC address.
 */
function searchedEntries(c: SqlContext, v: string, m: string): string {
  // one parameter per use, in the order of the text (client.search.ts)
  const switchRow = `${m}.hardware_device_id = (SELECT sh.id FROM hardware_devices sh WHERE sh.virtual_device_id = ${v}.id)`;
  const none = noSearch(c);
  const byNumber = `(${c.value('integer', searchNumber)} >= 0 AND (${m}.port_number = ${c.value('integer', searchNumber)} OR ${m}.vlan_id = ${c.value('integer', searchNumber)}))`;
  const byMac = `(${c.value('integer', searchNumber)} < 0 AND ${macMatches(c, `${m}.mac_address`)})`;
  return `${switchRow} AND (${none} OR ${byNumber} OR ${byMac})`;
}

/** A page of a switch's MAC table that the search finds: `total`, and `entries` by MAC address, then VLAN. */
const MAC_TABLE_PAGE: Record<string, FieldMapping> = {
  total: { kind: 'computed', type: 'integer', sql: (v, c) => `(SELECT count(*) FROM switch_mac_entries tm WHERE ${searchedEntries(c, v, 'tm')})` },
  entries: {
    kind: 'list',
    table: (c, v) =>
      `(SELECT pm.* FROM switch_mac_entries pm WHERE ${searchedEntries(c, v, 'pm')} ORDER BY pm.mac_address, pm.vlan_id LIMIT ${c.arg('limit')} OFFSET ${c.arg('offset')})`,
    join: (m) => `${m}.hardware_device_id IS NOT NULL`,
    orderBy: (m) => `${m}.mac_address, ${m}.vlan_id`,
  },
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

"""One page of a switch's MAC table that a search finds, and how many entries it finds in all."""
type SwitchMACTablePage {
  """Every entry the search finds, on all pages."""
  total: Int!
  """This page's entries, by MAC address, then VLAN (no VLAN first)."""
  entries: [SwitchMACTableEntry!]!
}

extend type Query {
  """
  The MAC forwarding table of a switch, from its hardware's latest report
  with one, ordered by MAC address, then VLAN (no VLAN first); empty when
  it has reported none.
  """
  switchMACTable("The switch's virtual device UUID." virtualDeviceUUID: UUID!): [SwitchMACTableEntry!]

  """
  A page of a switch's MAC table (as switchMACTable) that a search finds,
  with how many entries it finds in all: the dashboard's MAC table. Null
  with UNAUTHORIZED for a device that is not the key's company's.
  """
  switchMACTablePage(
    "The switch's virtual device UUID."
    virtualDeviceUUID: UUID!
    "Up to ${MAX_SEARCH_LENGTH} characters: 1 to 5 digits find the entries on that port or in that VLAN; anything else, the entries whose MAC address holds its hex digits (any case, with colons, hyphens, dots or nothing between them). Absent or blank: every entry."
    search: String
    "The most entries on the page, 1 to ${MAX_SEARCH_PAGE}."
    limit: Int!
    "How many of the entries found to skip, 0 or more."
    offset: Int = 0
  ): SwitchMACTablePage
}
`,
  readModel: {
    SwitchMACTablePage: MAC_TABLE_PAGE,
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
    switchMACTablePage: {
      table: 'virtual_devices',
      arguments: [...uuidArgument('virtualDeviceUUID'), ...SEARCH_PAGE_ARGUMENTS],
      check: checkSearchPage,
      where: inCompany('uuid', 'virtualDeviceUUID'),
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'SwitchMACTablePage.entries': (args) => Math.ceil(searchPageSize(args) / MAC_ENTRIES_PER_COST_ELEMENT),
    'Query.switchMACTable': () => Math.ceil(MAX_MAC_TABLE_ENTRIES / MAC_ENTRIES_PER_COST_ELEMENT),
  },
  // a page's entries count like the table's: MAC_ENTRIES_PER_COST_ELEMENT to an element
  listItemsPerElement: {
    'SwitchMACTablePage.entries': MAC_ENTRIES_PER_COST_ELEMENT,
    'Query.switchMACTable': MAC_ENTRIES_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
