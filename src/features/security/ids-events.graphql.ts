import { dateTime, inCompany, networkUuidOf, nullable, text } from '../../engine/read.model.js';
import type { ArgumentProblem, ArgumentValues, GraphQLFeature, ReadSettings, SqlContext } from '../../engine/read.model.js';

/** The most events one page of idsEvents or ipsEvents holds. */
export const MAX_IDS_EVENT_PAGE = 500;
/** The page size when limit is left out. */
const DEFAULT_IDS_EVENT_PAGE = 50;
/** The window when durationSeconds is left out: a day. */
const DEFAULT_IDS_DURATION_SECONDS = 86_400;

/** The rule of idsEvents' and ipsEvents' arguments: a page of 1 to 500, an offset of 0 or more, a window within the raw retention. */
function checkPage(args: ArgumentValues, settings: ReadSettings): ArgumentProblem | undefined {
  const limit = args.limit as number;
  if (limit < 1 || limit > MAX_IDS_EVENT_PAGE) return { argument: 'limit', message: `must be 1 to ${MAX_IDS_EVENT_PAGE}: page through more with offset.` };
  if ((args.offset as number) < 0) return { argument: 'offset', message: 'must be 0 or more.' };
  const kept = settings.rawRetentionHours * 3_600;
  const duration = args.durationSeconds as number;
  if (duration < 1 || duration > kept) {
    return { argument: 'durationSeconds', message: `must be 1 to ${kept}: detections are kept ${settings.rawRetentionHours} hours (TELEMETRY_RAW_RETENTION_HOURS).` };
  }
  return undefined;
}

/** The detections of mode `mode` of the network aliased `n` in the window (the last durationSeconds), for the row aliased `d`. */
function detectionsOf(c: SqlContext, d: string, n: string, mode: 'IDS' | 'IPS'): string {
  const since = c.value('timestamptz', (args, now) => new Date(now.getTime() - (args.durationSeconds as number) * 1000).toISOString());
  return `${d}.network_id = ${n}.id AND ${d}.mode = '${mode}' AND ${d}.observed_at >= ${since}`;
}

/** The page type of one mode: total of the window, and the page's events newest first. */
const pageMapping = (mode: 'IDS' | 'IPS') => ({
  total: { kind: 'computed', type: 'integer', sql: (n: string, c: SqlContext) => `(SELECT count(*) FROM ids_detections td WHERE ${detectionsOf(c, 'td', n, mode)})` },
  events: {
    kind: 'list',
    table: (c: SqlContext, n: string) =>
      `(SELECT pd.* FROM ids_detections pd WHERE ${detectionsOf(c, 'pd', n, mode)} ` +
      `ORDER BY pd.observed_at DESC, pd.hardware_device_id, pd.src_ip, pd.dst_ip LIMIT ${c.arg('limit')} OFFSET ${c.arg('offset')})`,
    join: (e: string) => `${e}.network_id IS NOT NULL`,
    orderBy: (e: string) => `${e}.observed_at DESC, ${e}.hardware_device_id, ${e}.src_ip, ${e}.dst_ip`,
  },
}) as const;

const PAGE_ARGUMENTS = [
  { name: 'networkUUID', type: 'uuid' },
  { name: 'limit', type: 'int', default: DEFAULT_IDS_EVENT_PAGE },
  { name: 'offset', type: 'int', default: 0 },
  { name: 'durationSeconds', type: 'int', default: DEFAULT_IDS_DURATION_SECONDS },
] as const;

const pageRoot = {
  table: 'networks',
  arguments: PAGE_ARGUMENTS,
  check: checkPage,
  where: inCompany('uuid', 'networkUUID'),
} as const;

const PAGE_ARGUMENTS_SDL = `
    "The network's UUID."
    networkUUID: UUID!
    "The most events on the page, 1 to ${MAX_IDS_EVENT_PAGE}."
    limit: Int = ${DEFAULT_IDS_EVENT_PAGE}
    "How many events to skip (the newest first), 0 or more."
    offset: Int = 0
    "The window: the last durationSeconds before the request, 1 to the raw retention (TELEMETRY_RAW_RETENTION_HOURS)."
    durationSeconds: Int = ${DEFAULT_IDS_DURATION_SECONDS}`;

/** The SDL of the page type of one mode (IDSEventsPage, IPSEventsPage). */
const pageSdl = (mode: 'IDS' | 'IPS'): string => `"""One page of a network's ${mode} events of the window, and how many there are in all."""
type ${mode}EventsPage {
  """Every ${mode} event of the window, on all pages."""
  total: Int!
  """This page's events, newest first (then by controller, source and destination)."""
  events: [IDSIPSEvent!]!
}
`;

const pageSize = (args: ArgumentValues | undefined): number =>
  args === undefined ? MAX_IDS_EVENT_PAGE : Math.max(1, Math.min(MAX_IDS_EVENT_PAGE, (args.limit as number | undefined) ?? DEFAULT_IDS_EVENT_PAGE));

/**
 * IDS/IPS events: the detections controllers report (`idsDetections`,
 * docs/reports.md), an IDS or an IPS event by the network's IDS/IPS mode
 * when the report was ingested (docs/security.md), paged newest first.
 */
export const IDS_EVENTS_FEATURE = {
  sdl: /* GraphQL */ `
"""
Traffic a network's controller matched against its intrusion rules
(idsDetections of its reports). An IPS event when the network's IDS/IPS mode
was IPS when the report was ingested (the traffic was stopped); otherwise an
IDS event (mode IDS, or none configured: it was only reported).
"""
type IDSIPSEvent {
  """When the traffic matched (the detection's observedAt)."""
  observedAt: DateTime!
  srcIP: String!
  dstIP: String!
  """The IP protocol, upper-case: TCP, UDP, ICMP, ..."""
  protocol: String!
  """RX: traffic the controller received from its WAN (inbound); TX: traffic it sent out (outbound)."""
  direction: TrafficDirection!
  """Null for a protocol without ports."""
  srcPort: Int
  dstPort: Int
  """The rule that matched, as reported; null when the report did not say."""
  signature: String
  """IDS or IPS: which of idsEvents and ipsEvents lists it."""
  mode: IDSIPSMode!
  networkUUID: UUID!
  """The controller (its virtual device when the report came); null when since deleted."""
  virtualDevice: VirtualDevice
}

${pageSdl('IDS')}
${pageSdl('IPS')}
extend type Query {
  """
  The network's IDS events of the window: detections reported while its
  IDS/IPS mode was IDS or not configured (docs/security.md). Null with
  UNAUTHORIZED for a network that is not the key's company's.
  """
  idsEvents(${PAGE_ARGUMENTS_SDL}
  ): IDSEventsPage

  """
  The network's IPS events of the window: detections reported while its
  IDS/IPS mode was IPS, whose traffic was stopped (docs/security.md). Null with
  UNAUTHORIZED for a network that is not the key's company's.
  """
  ipsEvents(${PAGE_ARGUMENTS_SDL}
  ): IPSEventsPage
}
`,
  readModel: {
    IDSEventsPage: pageMapping('IDS'),
    IPSEventsPage: pageMapping('IPS'),
    IDSIPSEvent: {
      observedAt: dateTime('observed_at'),
      srcIP: text('src_ip'),
      dstIP: text('dst_ip'),
      protocol: text('protocol'),
      direction: text('direction'),
      srcPort: nullable('src_port', 'integer'),
      dstPort: nullable('dst_port', 'integer'),
      signature: text('signature', true),
      mode: text('mode'),
      networkUUID: { kind: 'computed', type: 'string', sql: (e) => networkUuidOf(`${e}.network_id`) },
      virtualDevice: { kind: 'object', table: 'virtual_devices', join: (v, e) => `${v}.id = ${e}.virtual_device_id` },
    },
  },
  roots: {
    idsEvents: pageRoot,
    ipsEvents: pageRoot,
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'IDSEventsPage.events': pageSize,
    'IPSEventsPage.events': pageSize,
  },
} satisfies GraphQLFeature;
