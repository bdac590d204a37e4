import { HW_MODES, MAX_WIFI_CHANNEL } from '../../ingest/report.limits.js';
import { integer, nullable, text } from '../../engine/read.model.js';
import type { ArgumentProblem, ArgumentValues, FieldMapping, GraphQLFeature, ReadSettings, RootArgument, SqlContext, ValueRoot } from '../../engine/read.model.js';
import { BUCKETS_PER_COST_ELEMENT, METRICS_FILTER_ARGUMENT, checkFilter, filterAt, maxBuckets } from '../metrics/metrics.window.js';
import { TIME_FILTER_PATH, byteSeries, clientFilterOf, clientMetrics, countedSamples, rootNetwork } from './client-metrics.sql.js';
import type { ClientSeriesKind } from './client-metrics.sql.js';

/** How many clients wirelessClientMetrics is priced for (it lists one series per client); the answer is charged for what it holds. */
export const PRICED_CLIENTS = 20;
/** A partial MAC address: hex digits and colons, as MACs are stored (lowercase). */
const PARTIAL_MAC = /^[0-9a-fA-F:]{1,17}$/;

/** What each Wi-Fi generation of the protocol's `hwMode` is: the values of the SDL enum NetworkClientHWMode. */
const HW_MODE_MEANINGS: Readonly<Record<(typeof HW_MODES)[number], string>> = {
  NA: 'Not applicable (a wired client).',
  WIFI_2: '802.11a/b/g.',
  WIFI_3: '802.11n, older naming.',
  WIFI_4: '802.11n.',
  WIFI_5: '802.11ac.',
  WIFI_6: '802.11ax.',
  WIFI_7: '802.11be.',
};

/** `filter: ClientMetricsTimeseriesFilterInput!` (the other fields are read as values, see client-metrics.sql.ts). */
const CLIENT_FILTER_ARGUMENT: RootArgument = { name: 'filter', type: 'input', fields: [{ ...METRICS_FILTER_ARGUMENT, name: 'timeFilter' }] };

/** The rule of the wireless roots' filter, before the database; the problem names the field. */
function checkClientFilter(args: ArgumentValues, settings: ReadSettings): ArgumentProblem | undefined {
  const filter = clientFilterOf(args);
  const window = checkFilter(filterAt(args, TIME_FILTER_PATH), settings, TIME_FILTER_PATH);
  if (window !== undefined) return window;
  const channel = (filter.channels ?? []).find((n) => n < 1 || n > MAX_WIFI_CHANNEL);
  if (channel !== undefined) return { argument: 'filter.channels', message: `holds ${channel}; Wi-Fi channels are 1 to ${MAX_WIFI_CHANNEL}.` };
  const partial = (filter.partialClientMacAddresses ?? []).find((p) => !PARTIAL_MAC.test(p));
  if (partial !== undefined) {
    return { argument: 'filter.partialClientMacAddresses', message: `holds ${JSON.stringify(partial)}: give 1 to 17 hex digits and colons of a MAC address, e.g. "0c:8d".` };
  }
  const { min, max } = filter.rssi ?? {};
  if (min != null && max != null && min > max) return { argument: 'filter.rssi', message: `min (${min}) is above max (${max}): give min at most max.` };
  return undefined;
}

/** A series' size for complexity: its buckets, BUCKETS_PER_COST_ELEMENT to an element. */
const bucketElements = (args: ArgumentValues | undefined): number =>
  Math.ceil(maxBuckets(args === undefined ? undefined : filterAt(args, TIME_FILTER_PATH)) / BUCKETS_PER_COST_ELEMENT);

const checkAllFilter = (args: ArgumentValues, settings: ReadSettings) => checkFilter(filterAt(args, TIME_FILTER_PATH), settings, TIME_FILTER_PATH);

/** A bucket's start (epoch seconds in `bucket`) as a DateTime. */
const bucketStart: FieldMapping = { kind: 'computed', type: 'datetime', sql: (t, c) => c.dialect.fromEpochSeconds(`${t}.bucket`) };

/** The fields of a client metrics aggregate (a bucket's, or the window's). */
const AGGREGATE: Record<string, FieldMapping> = {
  clientCount: integer('client_count'),
  signal: nullable('signal', 'float'),
  snr: nullable('snr', 'float'),
  rxBytes: { kind: 'scalar', column: 'rx_bytes', type: 'float' },
  txBytes: { kind: 'scalar', column: 'tx_bytes', type: 'float' },
  rxRate: nullable('rx_rate', 'float'),
  txRate: nullable('tx_rate', 'float'),
};

/** The response below a series row (its `mac`: one client, or NULL for all): the window's aggregate and the buckets'. */
const responseOf = (kind: ClientSeriesKind): Record<string, FieldMapping> => ({
  metadata: { kind: 'object', table: (c, p) => clientMetrics(c, `${p}.mac`, kind, false), join: () => '1 = 1' },
  values: { kind: 'list', table: (c, p) => clientMetrics(c, `${p}.mac`, kind, true), join: (v) => `${v}.bucket IS NOT NULL`, orderBy: (v) => `${v}.bucket` },
});

/** One direction of the byte series below a series row. */
const bytesOf = (direction: 'rx' | 'tx'): FieldMapping => ({
  kind: 'object',
  table: (_c, p) => `(SELECT ${p}.mac AS mac, '${direction}' AS direction)`,
  join: () => '1 = 1',
});

/**
 * A root answering one response over the series row `(SELECT <mac> AS mac)`
 * when `known` holds (the network, and the AP or VLAN it names, are the
 * caller's), else null (UNAUTHORIZED).
 */
const seriesRoot = (
  args: readonly RootArgument[],
  check: ValueRoot['check'],
  mac: (c: SqlContext) => string,
  known: (c: SqlContext) => string,
): ValueRoot => ({
  kind: 'value',
  arguments: [{ name: 'networkUUID', type: 'uuid' }, ...args],
  ...(check === undefined ? {} : { check }),
  json: (c, selection) => {
    // in text order: the condition, the object, the row
    const condition = known(c);
    const object = c.object(selection, 'cm');
    return `(SELECT CASE WHEN ${condition} THEN ${object} END FROM (SELECT ${mac(c)} AS mac) cm)`;
  },
});

const networkKnown = (c: SqlContext): string => `${rootNetwork(c)} IS NOT NULL`;
const noClient = (): string => 'CAST(NULL AS text)';
const theClient = (c: SqlContext): string => c.arg('macAddress');

/** What a bucket's and the window's aggregates mean, for the SDL. */
const AGGREGATE_FIELDS = `  """Distinct clients (by MAC address) with samples."""
  clientCount: Int!
  """The average signal strength of the samples, in dBm; null when none reported one."""
  signal: Float
  """The average signal-to-noise ratio of the samples, in dB; null when none reported one."""
  snr: Float
  """Bytes the device received from the clients: the growth of their counters (restarts counted from zero)."""
  rxBytes: Float!
  """Bytes the device sent to the clients, likewise."""
  txBytes: Float!
  """The average receive link rate of the samples, in Mbit/s; null when none reported one."""
  rxRate: Float
  """The average transmit link rate of the samples, in Mbit/s; null when none reported one."""
  txRate: Float`;

const WIRELESS_ARGUMENTS = `
    "The network's UUID."
    networkUUID: UUID!`;

/** Client metrics over time from the clients the devices report (docs/metrics.md, "Client metrics"). */
export const CLIENT_METRICS_FEATURE = {
  sdl: /* GraphQL */ `
"""A wireless client's Wi-Fi generation (802.11 standard), as reports give it (\`hwMode\`)."""
enum NetworkClientHWMode {
${HW_MODES.map((mode) => `  """${HW_MODE_MEANINGS[mode]}"""\n  ${mode}`).join('\n')}
}

"""
A wireless client's connection event, as access points report them
(\`clientConnectionEvents\`, docs/reports.md): associated (CONNECTED), got
an address (DHCP_OK) or none (DHCP_FAILED), its gateway answered ARP late
(ARP_LATE) or not at all (ARP_FAILED), left (DISASSOCIATED), or failed to
connect (FAILED).
"""
enum WirelessClientConnectionEventType {
  ARP_FAILED
  ARP_LATE
  CONNECTED
  DHCP_FAILED
  DHCP_OK
  DISASSOCIATED
  FAILED
}

"""An inclusive range of whole numbers; an absent end is open."""
input NumberRangeInput {
  min: Int
  max: Int
}

"""
Which wireless client samples a client metrics series counts: those in the
window of timeFilter that match every other field given (null or an empty
list: no restriction).
"""
input ClientMetricsTimeseriesFilterInput {
  "The window and step."
  timeFilter: MetricsFilterInput!
  "Only samples on these bands."
  bands: [RadioBand!]
  "Only samples on these channels (1 to ${MAX_WIFI_CHANNEL})."
  channels: [Int!]
  "Only these clients."
  clientMacAddresses: [MacAddress!]
  "Only samples of clients that had a connection event of this type on the sample's access point, inside the window and in the sample's bucket (docs/metrics.md)."
  eventType: WirelessClientConnectionEventType
  "As eventType, any of these types (with eventType: any of them all)."
  eventTypes: [WirelessClientConnectionEventType!]
  "Leave out samples reported by devices of type OBSERVER."
  excludeObservers: Boolean
  "Only clients whose MAC address contains one of these (hex digits and colons, any case), e.g. \\"0c:8d\\"."
  partialClientMacAddresses: [String!]
  "Only samples whose signal (dBm) lies in the range; a 5-minute rollup's average signal is compared. Samples without a signal are left out when given."
  rssi: NumberRangeInput
  "Only samples on the network's SSIDs with these UUIDs."
  ssidUUIDs: [UUID!]
  "Only samples reported by these devices (virtual device UUIDs of the key's company)."
  virtualDeviceUUIDs: [UUID!]
}

"""The window of an all-clients metrics series."""
input AllClientMetricsTimeseriesFilterInput {
  "The window and step."
  timeFilter: MetricsFilterInput!
}

"""A client metrics aggregate over the whole window."""
type ClientMetricsMetadata {
${AGGREGATE_FIELDS}
}

"""A client metrics aggregate over one bucket."""
type ClientMetricsTimeseriesValue {
  """The bucket's start."""
  timestamp: DateTime!
${AGGREGATE_FIELDS}
  """The Wi-Fi generation every sample of the bucket reported; null when they differ or none did."""
  hwMode: NetworkClientHWMode
}

"""Client metrics: over the whole window, and per bucket with samples, ordered by time."""
type ClientMetricsTimeseriesResponse {
  metadata: ClientMetricsMetadata!
  values: [ClientMetricsTimeseriesValue!]!
}

"""One wireless client's metrics."""
type WirelessClientMetricsResponse {
  macAddress: MacAddress!
  response: ClientMetricsTimeseriesResponse!
}

"""One bucket of a byte series."""
type ClientBytesValue {
  """The bucket's start."""
  timestamp: DateTime!
  """The bytes the clients' counters grew in the bucket."""
  value: Float!
}

"""A byte series: per bucket with samples, ordered by time; metadata the smallest and largest value."""
type ClientBytesSeries {
  metadata: MetricsMetadata!
  values: [ClientBytesValue!]!
}

"""The bytes clients received and sent over time, wired and wireless."""
type AllClientMetricsTimeseriesResponse {
  """Bytes the devices received from the clients."""
  rxBytes: ClientBytesSeries!
  """Bytes the devices sent to the clients."""
  txBytes: ClientBytesSeries!
}

extend type Query {
  """
  Per wireless client of the network with samples in the window that the
  filter selects, by MAC address: its metrics (docs/metrics.md). Null with
  UNAUTHORIZED for a network that is not the key's company's.
  """
  wirelessClientMetrics(${WIRELESS_ARGUMENTS}
    "The window and which samples count."
    filter: ClientMetricsTimeseriesFilterInput!
  ): [WirelessClientMetricsResponse!]

  """
  The metrics of the wireless clients of one access point, together. Null
  with UNAUTHORIZED when the network, or the access point in it, is not the
  key's company's.
  """
  wirelessClientMetricsByAP(${WIRELESS_ARGUMENTS}
    "The access point's virtual device UUID, in the network."
    apVirtualDeviceUUID: UUID!
    "The window and which samples count."
    filter: ClientMetricsTimeseriesFilterInput!
  ): ClientMetricsTimeseriesResponse

  """
  One wireless client's metrics in the network, from every access point that
  reported it. A client never seen answers no values. Null with UNAUTHORIZED
  for a network that is not the key's company's.
  """
  wirelessClientMetricsByClient(${WIRELESS_ARGUMENTS}
    "The client's MAC address."
    macAddress: MacAddress!
    "The window and which samples count."
    filter: ClientMetricsTimeseriesFilterInput!
  ): ClientMetricsTimeseriesResponse

  """
  One client's bytes over time, wired or wireless, from every device that
  reported it. Null with UNAUTHORIZED for a network that is not the key's company's.
  """
  allClientMetricsByClient(${WIRELESS_ARGUMENTS}
    "The client's MAC address."
    macAddress: MacAddress!
    "The window."
    filter: AllClientMetricsTimeseriesFilterInput!
  ): AllClientMetricsTimeseriesResponse

  """
  The bytes of the clients on one VLAN (by the VLAN number each sample
  reported), wired and wireless, over time. Null with UNAUTHORIZED when the
  network, or the VLAN in it, is not the key's company's.
  """
  allClientMetricsByVLAN(${WIRELESS_ARGUMENTS}
    "The VLAN's UUID, in the network."
    vlanUUID: UUID!
    "The window."
    filter: AllClientMetricsTimeseriesFilterInput!
  ): AllClientMetricsTimeseriesResponse
}
`,
  readModel: {
    ClientMetricsMetadata: AGGREGATE,
    ClientMetricsTimeseriesValue: { timestamp: bucketStart, ...AGGREGATE, hwMode: text('hw_mode', true) },
    ClientMetricsTimeseriesResponse: responseOf('wireless'),
    WirelessClientMetricsResponse: { macAddress: text('mac'), response: { kind: 'embedded', nullWhen: () => '1 = 0' } },
    ClientBytesValue: { timestamp: bucketStart, value: { kind: 'scalar', column: 'value', type: 'float' } },
    ClientBytesSeries: {
      metadata: { kind: 'object', table: (c, p) => `(SELECT min(s.value) AS min_value, max(s.value) AS max_value FROM ${byteSeries(c, p)} s)`, join: () => '1 = 1' },
      values: { kind: 'list', table: (c, p) => byteSeries(c, p), join: (v) => `${v}.bucket IS NOT NULL`, orderBy: (v) => `${v}.bucket` },
    },
    AllClientMetricsTimeseriesResponse: { rxBytes: bytesOf('rx'), txBytes: bytesOf('tx') },
  },
  roots: {
    wirelessClientMetrics: {
      kind: 'value',
      arguments: [{ name: 'networkUUID', type: 'uuid' }, CLIENT_FILTER_ARGUMENT],
      check: checkClientFilter,
      json: (c, selection) => {
        const condition = networkKnown(c);
        const w = c.alias();
        const element = c.object(selection, w);
        const clients = `(SELECT DISTINCT s.mac_address AS mac FROM ${countedSamples(c, 'CAST(NULL AS text)', 'wireless')} s)`;
        return `(SELECT CASE WHEN ${condition} THEN coalesce(${c.dialect.jsonArray(element, `${clients} ${w}`, `${w}.mac`)}, '[]') END)`;
      },
    },
    wirelessClientMetricsByAP: seriesRoot(
      [{ name: 'apVirtualDeviceUUID', type: 'uuid' }, CLIENT_FILTER_ARGUMENT],
      checkClientFilter,
      noClient,
      (c) =>
        `EXISTS (SELECT 1 FROM virtual_devices kv WHERE kv.uuid = ${c.arg('apVirtualDeviceUUID')} AND kv.company_id = ${c.company()} AND kv.network_id = ${rootNetwork(c)})`,
    ),
    wirelessClientMetricsByClient: seriesRoot([{ name: 'macAddress', type: 'text', check: () => true, rule: 'a MAC address' }, CLIENT_FILTER_ARGUMENT], checkClientFilter, theClient, networkKnown),
    allClientMetricsByClient: seriesRoot([{ name: 'macAddress', type: 'text', check: () => true, rule: 'a MAC address' }, CLIENT_FILTER_ARGUMENT], checkAllFilter, theClient, networkKnown),
    allClientMetricsByVLAN: seriesRoot(
      [{ name: 'vlanUUID', type: 'uuid' }, CLIENT_FILTER_ARGUMENT],
      checkAllFilter,
      noClient,
      (c) => `EXISTS (SELECT 1 FROM vlans kl WHERE kl.uuid = ${c.arg('vlanUUID')} AND kl.network_id = ${rootNetwork(c)})`,
    ),
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'Query.wirelessClientMetrics': () => PRICED_CLIENTS,
    'ClientMetricsTimeseriesResponse.values': bucketElements,
    'ClientBytesSeries.values': bucketElements,
  },
  listItemsPerElement: {
    'ClientMetricsTimeseriesResponse.values': BUCKETS_PER_COST_ELEMENT,
    'ClientBytesSeries.values': BUCKETS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
