import { RETENTION_DEFAULTS, ROLLUP_SECONDS } from '../../kernel/telemetry.js';
import { integer, text } from '../../engine/read.model.js';
import type { ArgumentValues, FieldMapping, GraphQLFeature, ListMapping, ReadSettings, RootArgument, SqlContext } from '../../engine/read.model.js';
import { clientCounts, isNamed, namedNetworks, namedNetworksAreCallers, qualitySeries, seriesNetworks, seriesRows, throughputSeries } from './metrics.sql.js';
import { BUCKETS_PER_COST_ELEMENT, METRICS_FILTER_ARGUMENT as FILTER_ARGUMENT, MIN_STEP_SECONDS, checkFilter, filterOf, seriesCostSize } from './metrics.window.js';

/** The most networks networksUplinkQualities takes (its complexity prices this many when they are variables). */
export const MAX_SERIES_NETWORKS = 50;

/** The uplink series and activeClients read the tiers (docs/metrics.md, "Tiers"): a step of whole hours or days reaches back as far as its tier is kept. */
const checkTieredSeries = (args: ArgumentValues, settings: ReadSettings) => checkFilter(filterOf(args), settings, 'filter', true);

/** A series' values (bucket, port, value) below the series row, ordered by time, then port. */
const seriesValues = (series: (c: SqlContext, p: string) => string, extraOrder = ''): ListMapping => ({
  kind: 'list',
  table: series,
  join: (v) => `${v}.value IS NOT NULL`,
  orderBy: (v) => `${v}.bucket, ${v}.hardware_device_id, ${v}.port_number${extraOrder === '' ? '' : `, ${v}.${extraOrder}`}`,
});

/** A bucket's start (epoch seconds in `bucket`) as a DateTime. */
const bucketStart: FieldMapping = { kind: 'computed', type: 'datetime', sql: (t, c) => c.dialect.fromEpochSeconds(`${t}.bucket`) };

/** The mappings every value of an uplink series has. */
const UPLINK_VALUE = {
  timestamp: bucketStart,
  value: { kind: 'scalar', column: 'value', type: 'float' },
  phyInterfaceUUID: {
    kind: 'computed',
    type: 'string',
    nullable: true,
    sql: (v) => `(SELECT dp.uuid FROM device_ports dp WHERE dp.hardware_device_id = ${v}.hardware_device_id AND dp.port_number = ${v}.port_number)`,
  },
  networkUUID: { kind: 'computed', type: 'string', sql: (v) => `(SELECT mn.uuid FROM networks mn WHERE mn.id = ${v}.network_id)` },
} satisfies Record<string, FieldMapping>;

/**
 * The series row of networkUplinkQuality and networkUplinkThroughput:
 * network_id NULL (the series read the networks of `seriesNetworks`), the
 * port named by phyInterfaceUUID among those networks' ports, and the
 * hardware of the device named by virtualDeviceUUID in the caller's company.
 */
function namedSeriesRow(c: SqlContext): string {
  const phyGiven = c.value('boolean', (args) => args.phyInterfaceUUID != null);
  const vdGiven = c.value('boolean', (args) => args.virtualDeviceUUID != null);
  return (
    `(SELECT CAST(NULL AS bigint) AS network_id, ${phyGiven} AS phy_given, dp.hardware_device_id AS port_device, dp.port_number AS port_number, ` +
    `${vdGiven} AS vd_given, vv.id AS vd_id, (SELECT vh.id FROM hardware_devices vh WHERE vh.virtual_device_id = vv.id) AS vd_device FROM (SELECT 1 AS one) o ` +
    `LEFT JOIN device_ports dp ON dp.uuid = ${c.arg('phyInterfaceUUID')} AND dp.hardware_device_id IN ` +
    `(SELECT h.id FROM hardware_devices h JOIN virtual_devices hv ON hv.id = h.virtual_device_id WHERE hv.network_id IN ${seriesNetworks(c)}) ` +
    `LEFT JOIN virtual_devices vv ON vv.uuid = ${c.arg('virtualDeviceUUID')} AND vv.company_id = ${c.company()})`
  );
}

/** True when every network named (networkUUID, networkUUIDs) is the caller's (none named holds). */
function namedAreCallers(c: SqlContext): string {
  return `(SELECT count(*) FROM networks an WHERE an.company_id = ${c.company()} AND ${isNamed(c, 'an.uuid')}) = ${c.value('integer', (args) => namedNetworks(args).length)}`;
}

/**
 * A root answering one series over the networks named, or the network of a
 * virtual device, optionally one port or one device's ports; null
 * (UNAUTHORIZED) when a network or the device is not the caller's, or no
 * port of the networks is phyInterfaceUUID.
 */
const namedSeries = (series: (c: SqlContext, p: string) => string) => ({
  kind: 'value' as const,
  arguments: [
    { name: 'networkUUID', type: 'uuid' },
    { name: 'networkUUIDs', type: 'uuidList' },
    FILTER_ARGUMENT,
    { name: 'phyInterfaceUUID', type: 'uuid' },
    { name: 'virtualDeviceUUID', type: 'uuid' },
  ] satisfies RootArgument[],
  check: (args: ArgumentValues, settings: ReadSettings) => {
    if (namedNetworks(args).length === 0 && args.virtualDeviceUUID == null) {
      return { argument: 'networkUUID', message: 'give networkUUID, a non-empty networkUUIDs or virtualDeviceUUID: the networks to read.' };
    }
    if (namedNetworks(args).length > MAX_SERIES_NETWORKS) {
      return { argument: 'networkUUIDs', message: `names ${namedNetworks(args).length} networks; at most ${MAX_SERIES_NETWORKS}: ask in several requests.` };
    }
    return checkTieredSeries(args, settings);
  },
  json: (c: SqlContext, selection: Parameters<SqlContext['object']>[0]) => {
    const p = c.alias();
    // in text order: the condition, the object, the rows
    const callers = namedAreCallers(c);
    const object = c.object(selection, p);
    const rows = seriesRows(c, () => namedSeriesRow(c), series);
    return (
      `(SELECT CASE WHEN (NOT ${p}.phy_given OR ${p}.port_device IS NOT NULL) AND (NOT ${p}.vd_given OR ${p}.vd_id IS NOT NULL) ` +
      `AND ${callers} THEN ${object} END FROM ${rows} ${p})`
    );
  },
});

/** The arguments of the named series roots, in SDL. */
const NAMED_SERIES_ARGUMENTS = `    "A network to read."
    networkUUID: UUID
    "Networks to read, together (with networkUUID: all of them); at most 50."
    networkUUIDs: [UUID!]
    "The window and step."
    filter: MetricsFilterInput!
    "Only this uplink port (PhyInterface.UUID) of the networks; null with UNAUTHORIZED when no port of the networks has it."
    phyInterfaceUUID: UUID
    "Only the uplink ports of this virtual device's hardware; without networkUUID and networkUUIDs, the networks read are its network. Null with UNAUTHORIZED when it is not the key's company's."
    virtualDeviceUUID: UUID`;

/** One kind of ActiveClientsMetrics' counts, by bucket. */
const clientCountsOf = (wireless: boolean): ListMapping => ({
  kind: 'list',
  table: (c) => clientCounts(c, wireless),
  join: (b) => `${b}.bucket IS NOT NULL`,
  orderBy: (b) => `${b}.bucket`,
});

/** Uplink quality and throughput, and active clients, over time: series of buckets read from the device reports' samples and rollups. */
export const METRICS_FEATURE = {
  sdl: /* GraphQL */ `
"""
The window of a series: it ends at \`endTime\` and spans \`durationSeconds\`,
cut into buckets \`stepSeconds\` wide, aligned to multiples of \`stepSeconds\`
since the Unix epoch (UTC). Only data inside the window counts, so the first
and last bucket may be partial.
"""
input MetricsFilterInput {
  """How far back from endTime the window reaches; at most 1,000 steps, and within the retention of what the step reads."""
  durationSeconds: Int!
  """The width of a bucket, at least ${MIN_STEP_SECONDS}. A multiple of 86400 reads the daily rollups (kept ${RETENTION_DEFAULTS.dailyRetentionDays} days by default), another multiple of 3600 the hourly rollups (${RETENTION_DEFAULTS.hourlyRetentionDays} days), another multiple of ${ROLLUP_SECONDS} the 5-minute rollups (${RETENTION_DEFAULTS.rollupRetentionDays} days; the client metrics series read these for any such step); any other step the raw samples (kept ${RETENTION_DEFAULTS.rawRetentionHours} hours). docs/metrics.md, "Tiers"."""
  stepSeconds: Int!
  """The end of the window (exclusive); the time of the request when absent."""
  endTime: DateTime
}

"""The smallest and largest value a series returned; both null when it returned none."""
type MetricsMetadata {
  minValue: Float
  maxValue: Float
}

"""One bucket of a series, for one uplink port."""
type MetricValue {
  """The bucket's start."""
  timestamp: DateTime!
  """The bucket's value: see the series' root."""
  value: Float!
  """The port (PhyInterface.UUID) the value is for; null when the device no longer reports the port."""
  phyInterfaceUUID: UUID
  networkUUID: UUID!
}

"""A series of values: one per bucket with data and port, ordered by time, then port."""
type MetricsSeries {
  metadata: MetricsMetadata!
  values: [MetricValue!]!
}

"""The direction of traffic on an uplink: received (RX) or sent (TX)."""
enum TrafficDirection {
  RX
  TX
}

"""One bucket of a throughput series, for one uplink port and direction."""
type ThroughputValue {
  """The bucket's start."""
  timestamp: DateTime!
  """The average throughput in the bucket, in bits per second."""
  value: Float!
  direction: TrafficDirection!
  """The port (PhyInterface.UUID) the value is for; null when the device no longer reports the port."""
  phyInterfaceUUID: UUID
  networkUUID: UUID!
}

"""A throughput series: one value per bucket with data, port and direction, ordered by time, then port, then direction."""
type ThroughputSeries {
  metadata: MetricsMetadata!
  values: [ThroughputValue!]!
}

"""What activeClients counts besides the clients."""
input ActiveClientsInput {
  "Also count clients whose MAC address is one of the company's hardware devices' (as they report it): an access point on a switch port, say. Absent, null or false: leave them out."
  includeMeterHardware: Boolean
}

"""A count in one bucket."""
type CountValue {
  """The bucket's start."""
  timestamp: DateTime!
  value: Int!
}

"""
Distinct clients per bucket, by kind. Both lists hold the same buckets: each
bucket in which a device of the networks reported, with 0 where it listed none of that kind.
"""
type ActiveClientsMetrics {
  wired: [CountValue!]!
  wireless: [CountValue!]!
}

extend type Query {
  """
  Distinct clients (by MAC address) the devices of the networks listed in
  their reports, per bucket, wired and wireless apart; the company's own
  hardware (by its reported MAC address) left out unless
  input.includeMeterHardware. Takes networkUUID or networkUUIDs (both: all
  the networks named); null with UNAUTHORIZED when any network named is not
  the key's company's.
  """
  activeClients(
    "A network to count over."
    networkUUID: UUID
    "Networks to count over, together."
    networkUUIDs: [UUID!]
    "The window and step."
    filter: MetricsFilterInput!
    "Whether to count the company's own hardware as clients."
    input: ActiveClientsInput
  ): ActiveClientsMetrics

  """
  The uplink quality of the networks named (networkUUID, networkUUIDs, else
  the network of virtualDeviceUUID): per bucket and uplink port, the share of
  probes that got through, 1 - lossPercent / 100, averaged over the bucket's
  samples (between 0 and 1). Null with UNAUTHORIZED when a network or the
  device named is not the key's company's.
  """
  networkUplinkQuality(
${NAMED_SERIES_ARGUMENTS}
  ): MetricsSeries

  """
  The uplink throughput of the networks named (as networkUplinkQuality): per
  bucket, uplink port and direction, the average bits per second.
  """
  networkUplinkThroughput(
${NAMED_SERIES_ARGUMENTS}
  ): ThroughputSeries

  """
  networkUplinkQuality for several networks: one series per element of
  networkUUIDs, in its order. Null with UNAUTHORIZED when any is not the key's company's.
  """
  networksUplinkQualities(
    "At most 50 networks."
    networkUUIDs: [UUID!]!
    "The window and step."
    filter: MetricsFilterInput!
  ): [MetricsSeries!]
}
`,
  readModel: {
    MetricsMetadata: {
      minValue: { kind: 'scalar', column: 'min_value', type: 'float', nullable: true },
      maxValue: { kind: 'scalar', column: 'max_value', type: 'float', nullable: true },
    },
    MetricValue: UPLINK_VALUE,
    MetricsSeries: { metadata: { kind: 'embedded', nullWhen: () => '1 = 0' }, values: seriesValues(qualitySeries) },
    ThroughputValue: { ...UPLINK_VALUE, direction: text('direction') },
    ThroughputSeries: { metadata: { kind: 'embedded', nullWhen: () => '1 = 0' }, values: seriesValues(throughputSeries, 'direction') },
    CountValue: { timestamp: bucketStart, value: integer('value') },
    ActiveClientsMetrics: {
      wired: clientCountsOf(false),
      wireless: clientCountsOf(true),
    },
  },
  roots: {
    activeClients: {
      kind: 'value',
      arguments: [
        { name: 'networkUUID', type: 'uuid' },
        { name: 'networkUUIDs', type: 'uuidList' },
        FILTER_ARGUMENT,
        { name: 'input', type: 'input', fields: [{ name: 'includeMeterHardware', type: 'boolean' }] },
      ],
      check: (args, settings) => {
        const list = args.networkUUIDs as readonly string[] | null | undefined;
        if (args.networkUUID == null && (list == null || list.length === 0)) {
          return { argument: 'networkUUID', message: 'give networkUUID or a non-empty networkUUIDs: the networks to count over.' };
        }
        return checkTieredSeries(args, settings);
      },
      json: (c, selection) => {
        const callers = namedNetworksAreCallers(c, 'networkUUID', 'networkUUIDs');
        return `(SELECT CASE WHEN ${callers} THEN ${c.object(selection, 'ac')} END FROM (SELECT 1 AS one) ac)`;
      },
    },
    networkUplinkQuality: namedSeries(qualitySeries),
    networkUplinkThroughput: namedSeries(throughputSeries),
    networksUplinkQualities: {
      kind: 'value',
      arguments: [{ name: 'networkUUIDs', type: 'uuidList' }, FILTER_ARGUMENT],
      check: (args, settings) =>
        (args.networkUUIDs as readonly string[]).length > MAX_SERIES_NETWORKS
          ? { argument: 'networkUUIDs', message: `names ${(args.networkUUIDs as readonly string[]).length} networks; at most ${MAX_SERIES_NETWORKS}: ask in several requests.` }
          : checkTieredSeries(args, settings),
      json: (c, selection) => {
        const callers = namedNetworksAreCallers(c, undefined, 'networkUUIDs');
        const p = c.alias();
        const element = c.object(selection, p);
        const base = () =>
          `(SELECT n.id AS network_id, l.position AS position, FALSE AS phy_given, CAST(NULL AS bigint) AS port_device, CAST(NULL AS integer) AS port_number, ` +
          'FALSE AS vd_given, CAST(NULL AS bigint) AS vd_id, CAST(NULL AS bigint) AS vd_device ' +
          `FROM ${c.dialect.orderedListRows(c.arg('networkUUIDs'), 'l')} JOIN networks n ON n.uuid = l.value WHERE n.company_id = ${c.company()})`;
        const array = c.dialect.jsonArray(element, `${seriesRows(c, base, qualitySeries)} ${p}`, `${p}.position`);
        return `(SELECT CASE WHEN ${callers} THEN coalesce(${array}, '[]') END)`;
      },
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'MetricsSeries.values': (args) => seriesCostSize(args),
    'ThroughputSeries.values': (args) => seriesCostSize(args, 2),
    'ActiveClientsMetrics.wired': (args) => seriesCostSize(args),
    'ActiveClientsMetrics.wireless': (args) => seriesCostSize(args),
    'Query.networksUplinkQualities': (args) =>
      args === undefined ? MAX_SERIES_NETWORKS : Math.min(MAX_SERIES_NETWORKS, (args.networkUUIDs as readonly string[]).length),
  },
  // a throughput series has two values per bucket, and its size counts them: ten values to an element, as for the others
  listItemsPerElement: {
    'MetricsSeries.values': BUCKETS_PER_COST_ELEMENT,
    'ThroughputSeries.values': BUCKETS_PER_COST_ELEMENT,
    'ActiveClientsMetrics.wired': BUCKETS_PER_COST_ELEMENT,
    'ActiveClientsMetrics.wireless': BUCKETS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
