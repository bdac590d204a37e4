import { allNetworksInCompany, dateTime, integer, networkUuidOf, nullable, text } from '../../engine/read.model.js';
import type { ArgumentProblem, ArgumentValues, FieldMapping, GraphQLFeature, ListMapping, ReadSettings, RootArgument, ValueRoot } from '../../engine/read.model.js';
import { METRICS_FILTER_ARGUMENT, filterAt } from '../metrics/metrics.window.js';
import { FOREIGN_TIME_FILTER_PATH, foreignAccessPoints, observersOf, wiredEntries } from './foreign-ap.sql.js';
import type { ForeignRule } from './foreign-ap.sql.js';

/** The most access points one page holds. */
export const MAX_FOREIGN_AP_PAGE = 500;
/** The page size when limit is left out. */
const DEFAULT_FOREIGN_AP_PAGE = 50;

/**
 * Foreign access points of a page count one element of the complexity cost
 * per this many: each is one group of an index range of the scans, with a
 * few index lookups of its own (own BSSIDs, the wire, the SSIDs).
 */
const APS_PER_COST_ELEMENT = 10;

/** A page's size in cost elements: its limit (the most, when unknown) over APS_PER_COST_ELEMENT, rounded up. */
const pageCost = (args: ArgumentValues | undefined): number =>
  Math.ceil(Math.max(1, Math.min(MAX_FOREIGN_AP_PAGE, args === undefined ? MAX_FOREIGN_AP_PAGE : ((args.limit as number | undefined) ?? DEFAULT_FOREIGN_AP_PAGE))) / APS_PER_COST_ELEMENT);

const ARGUMENTS: readonly RootArgument[] = [
  { name: 'networkUUIDs', type: 'uuidList' },
  { name: 'filter', type: 'input', fields: [{ ...METRICS_FILTER_ARGUMENT, name: 'timeFilter' }] },
  { name: 'limit', type: 'int', default: DEFAULT_FOREIGN_AP_PAGE },
  { name: 'offset', type: 'int', default: 0 },
];

/** The rule of both roots' arguments: a window within the raw retention, a page of 1 to 500, an offset of 0 or more. */
function checkArguments(args: ArgumentValues, settings: ReadSettings): ArgumentProblem | undefined {
  const { durationSeconds } = filterAt(args, FOREIGN_TIME_FILTER_PATH);
  const kept = settings.rawRetentionHours * 3_600;
  if (durationSeconds < 1 || durationSeconds > kept) {
    return {
      argument: `${FOREIGN_TIME_FILTER_PATH}.durationSeconds`,
      message: `must be 1 to ${kept}: the access points' scans are kept ${settings.rawRetentionHours} hours (TELEMETRY_RAW_RETENTION_HOURS).`,
    };
  }
  const limit = args.limit as number;
  if (limit < 1 || limit > MAX_FOREIGN_AP_PAGE) return { argument: 'limit', message: `must be 1 to ${MAX_FOREIGN_AP_PAGE}: page through more with offset.` };
  if ((args.offset as number) < 0) return { argument: 'offset', message: 'must be 0 or more.' };
  return undefined;
}

/** A root over the networks' foreign access points the rule selects: NULL (UNAUTHORIZED) unless every network is the caller's company's. */
const foreignRoot = (rule: ForeignRule): ValueRoot => {
  const page: ListMapping = {
    kind: 'list',
    table: (c) => foreignAccessPoints(c, rule),
    join: (f) => `${f}.bssid IS NOT NULL`,
    orderBy: (f) => `${f}.last_observed_at DESC, ${f}.network_id, ${f}.bssid${rule === 'honeypot' ? `, ${f}.ssid` : ''}`,
  };
  return {
    kind: 'value',
    arguments: ARGUMENTS,
    check: checkArguments,
    json: (c, selection) => `(CASE WHEN ${allNetworksInCompany('networkUUIDs', c)} THEN ${c.list(page, selection, '')} END)`,
  };
};

/** The observers of a foreign access point. */
const observers = (rule: ForeignRule): FieldMapping => ({
  kind: 'list',
  table: (c, f) => observersOf(c, f, rule),
  join: (o) => `${o}.bssid IS NOT NULL`,
  orderBy: (o) => `${o}.rssi DESC, ${o}.hardware_device_id`,
});

/** The fields both kinds of foreign access point share. */
const SHARED: Readonly<Record<string, FieldMapping>> = {
  networkUUID: { kind: 'computed', type: 'string', sql: (f) => networkUuidOf(`${f}.network_id`) },
  BSSID: text('bssid'),
  firstObservedAt: dateTime('first_observed_at'),
  lastObservedAt: dateTime('last_observed_at'),
};

const ARGUMENTS_SDL = `
    "The networks' UUIDs; every one must be the key's company's."
    networkUUIDs: [UUID!]!
    "The window (timeFilter: endTime - durationSeconds to endTime, within the raw retention); stepSeconds is not used."
    filter: ObservedAccessPointsFilterInput!
    "The most access points on the page, 1 to ${MAX_FOREIGN_AP_PAGE}."
    limit: Int = ${DEFAULT_FOREIGN_AP_PAGE}
    "How many to skip (the most recently heard first), 0 or more."
    offset: Int = 0`;

/**
 * Rogue access points and honeypot SSIDs: foreign BSSIDs the networks'
 * access points hear (`foreignBSSIDs` of their reports, docs/reports.md),
 * selected by the rules of docs/security.md.
 */
export const FOREIGN_AP_FEATURE = {
  sdl: /* GraphQL */ `
"""Which foreign access points to list: those heard in the window of timeFilter."""
input ObservedAccessPointsFilterInput {
  "The window; stepSeconds is not used (no buckets)."
  timeFilter: MetricsFilterInput!
}

"""One access point of the network hearing a foreign BSSID: its latest scan of it in the window."""
type ForeignBSSIDObserver {
  """The SSID the BSSID broadcast; null for a hidden one."""
  ssid: String
  """How strongly the access point heard it, in dBm."""
  rssi: Int!
  """The channel it was heard on; null when the scan did not say."""
  channel: Int
  """The time of the scan (its report's observedAt)."""
  observedAt: DateTime!
  """The access point that heard it (its virtual device when the report came); null when since deleted."""
  virtualDevice: VirtualDevice
}

"""
A rogue access point: a BSSID none of the network's access points broadcasts,
heard by one of them in the window, that was on the network's wire during
the window: a MAC address its switches' MAC tables held on a port at some
time of the window (their history, not only the latest tables) agrees with
the BSSID in its first five octets and is none of the network's own devices'
addresses (docs/security.md).
"""
type RogueAccessPoint {
  networkUUID: UUID!
  BSSID: MacAddress!
  """The SSID it broadcast when last heard; null for a hidden one."""
  ssid: String
  """The wired MAC address that put it on the wire during the window (the lowest, when several did)."""
  wiredMACAddress: MacAddress!
  """
  The switch port it was on: that MAC address's port during the window, as
  switchMACTable numbers it (the lowest switch's; the latest, when it moved).
  """
  wiredPortNumber: Int!
  firstObservedAt: DateTime!
  lastObservedAt: DateTime!
  """Each access point that heard it, strongest first."""
  observers: [ForeignBSSIDObserver!]!
}

"""
A honeypot: a BSSID none of the network's access points broadcasts,
heard by one of them in the window, broadcasting the name of one of the
network's SSIDs (docs/security.md). One per BSSID and SSID.
"""
type HoneypotSSID {
  networkUUID: UUID!
  BSSID: MacAddress!
  """The network's SSID name it imitates."""
  ssid: String!
  firstObservedAt: DateTime!
  lastObservedAt: DateTime!
  """Each access point that heard it, strongest first."""
  observers: [ForeignBSSIDObserver!]!
}

extend type Query {
  """
  The rogue access points the networks' access points heard in the window
  (RogueAccessPoint says the rule), the most recently heard first. Null with
  UNAUTHORIZED when any of the networks is not the key's company's.
  """
  rogueAccessPointsObservedOnNetwork(${ARGUMENTS_SDL}
  ): [RogueAccessPoint!]

  """
  The honeypots the networks' access points heard in the window (HoneypotSSID
  says the rule), the most recently heard first. Null with UNAUTHORIZED when
  any of the networks is not the key's company's.
  """
  honeypotSSIDsObservedOnNetwork(${ARGUMENTS_SDL}
  ): [HoneypotSSID!]
}
`,
  readModel: {
    ForeignBSSIDObserver: {
      ssid: text('ssid', true),
      rssi: integer('rssi'),
      channel: nullable('channel', 'integer'),
      observedAt: dateTime('observed_at'),
      virtualDevice: { kind: 'object', table: 'virtual_devices', join: (v, o) => `${v}.id = ${o}.virtual_device_id` },
    },
    RogueAccessPoint: {
      ...SHARED,
      ssid: {
        kind: 'computed',
        type: 'string',
        nullable: true,
        sql: (f) =>
          `(SELECT max(ls.ssid) FROM foreign_bssid_observations ls WHERE ls.network_id = ${f}.network_id AND ls.bssid = ${f}.bssid AND ls.observed_at = ${f}.last_observed_at)`,
      },
      wiredMACAddress: {
        kind: 'computed',
        type: 'string',
        sql: (f, c) => `(SELECT min(wm.mac_address) FROM networks wn, ${wiredEntries(c, 'wm', 'wn', `${f}.bssid`)} AND wn.id = ${f}.network_id)`,
      },
      wiredPortNumber: {
        kind: 'computed',
        type: 'integer',
        sql: (f, c) =>
          `(SELECT wp.port_number FROM networks wpn, ${wiredEntries(c, 'wp', 'wpn', `${f}.bssid`)} AND wpn.id = ${f}.network_id ` +
          `ORDER BY wp.mac_address, wp.hardware_device_id, wp.first_seen_at DESC, wp.port_number LIMIT 1)`,
      },
      observers: observers('rogue'),
    },
    HoneypotSSID: {
      ...SHARED,
      ssid: text('ssid'),
      observers: observers('honeypot'),
    },
  },
  roots: {
    rogueAccessPointsObservedOnNetwork: foreignRoot('rogue'),
    honeypotSSIDsObservedOnNetwork: foreignRoot('honeypot'),
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'Query.rogueAccessPointsObservedOnNetwork': pageCost,
    'Query.honeypotSSIDsObservedOnNetwork': pageCost,
  },
  listItemsPerElement: {
    'Query.rogueAccessPointsObservedOnNetwork': APS_PER_COST_ELEMENT,
    'Query.honeypotSSIDsObservedOnNetwork': APS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
