import { RADIO_BANDS } from '../../ingest/report.limits.js';
import { inCompany, text } from '../../engine/read.model.js';
import type { ArgumentValues, FieldMapping, GraphQLFeature, ListMapping, ReadSettings, RootArgument, TableRoot } from '../../engine/read.model.js';
import { BUCKETS_PER_COST_ELEMENT, METRICS_FILTER_ARGUMENT, checkFilter, filterAt, maxBuckets } from '../metrics/metrics.window.js';
import { TIME_FILTER_PATH, latestSample, networkRadios, radioSeries } from './channel-utilization.sql.js';

/**
 * How many radios (access point and band) channelUtilizationByNetwork is
 * priced for: four tri-band access points. A network with more is charged
 * at most what was requested (docs/limits.md).
 */
export const PRICED_NETWORK_RADIOS = 12;

const isRadioBand = (value: string): boolean => (RADIO_BANDS as readonly string[]).includes(value);

/** The arguments every channel utilization root takes besides its device: Meter's nested filter and the band. */
const SERIES_ARGUMENTS: RootArgument[] = [
  { name: 'filter', type: 'input', fields: [{ ...METRICS_FILTER_ARGUMENT, name: 'timeFilter' }] },
  { name: 'band', type: 'text', check: isRadioBand, rule: 'a RadioBand' },
];

/** The radio series read the tiers (docs/metrics.md, "Tiers"): a step of whole hours or days reaches back as far as its tier is kept. */
const checkTimeFilter = (args: ArgumentValues, settings: ReadSettings) => checkFilter(filterAt(args, TIME_FILTER_PATH), settings, TIME_FILTER_PATH, true);

/** The radios below a network row, ordered by access point, then band. */
const radiosOf = (oneDevice: boolean): ListMapping => ({
  kind: 'list',
  table: (c, n) => networkRadios(c, n, oneDevice),
  join: (e) => `${e}.hardware_device_id IS NOT NULL`,
  orderBy: (e) => `${e}.virtual_device_uuid, ${e}.radio_band`,
});

/** A root over the radios of a network of the caller's company (null, UNAUTHORIZED, for another company's). */
const utilizationRoot = (oneDevice: boolean): TableRoot => ({
  table: 'networks',
  arguments: [{ name: 'networkUUID', type: 'uuid' }, ...(oneDevice ? [{ name: 'apVirtualDeviceUUID', type: 'uuid' } as const] : []), ...SERIES_ARGUMENTS],
  check: checkTimeFilter,
  where: inCompany('uuid', 'networkUUID'),
  list: radiosOf(oneDevice),
});

/** A utilization of a value, from the column of the same name; null when the bucket's samples did not report it. */
const percent = (column: string, nullable: boolean): FieldMapping => ({ kind: 'scalar', column, type: 'float', nullable });

/** The fields of a bucket of utilization (ChannelUtilizationTimeseriesValue, ClientChannelUtilizationTimeseriesValue), from its averages' columns. */
export const UTILIZATION_VALUE: Readonly<Record<string, FieldMapping>> = {
  timestamp: { kind: 'computed', type: 'datetime', sql: (t, c) => c.dialect.fromEpochSeconds(`${t}.bucket`) },
  totalUtilization: percent('total_utilization', false),
  rxUtilization: percent('rx_utilization', true),
  txUtilization: percent('tx_utilization', true),
  selfUtilization: percent('self_utilization', true),
  obssUtilization: percent('obss_utilization', true),
  nonWifiUtilization: percent('non_wifi_utilization', true),
};

/** The SDL of UTILIZATION_VALUE's fields. */
export const UTILIZATION_VALUE_FIELDS = `  """The bucket's start."""
  timestamp: DateTime!
  """Percent of the time the channel was busy, from anyone."""
  totalUtilization: Float!
  """Percent of the time the radio was receiving."""
  rxUtilization: Float
  """Percent of the time the radio was transmitting."""
  txUtilization: Float
  """Percent of the time busy with the radio's own BSSs (its SSIDs and their clients)."""
  selfUtilization: Float
  """Percent of the time busy with other BSSs on the channel (neighbouring networks)."""
  obssUtilization: Float
  """Percent of the time busy with energy that is not Wi-Fi."""
  nonWifiUtilization: Float`;

/** A field of the radio's latest sample before the window's end. */
const latest = (column: string, type: 'integer' | 'float'): FieldMapping => ({ kind: 'computed', type, nullable: true, sql: (e, c) => latestSample(c, e, column) });

/** The values a utilization series may hold, for complexity: ten buckets to an element. */
export const seriesSize = (args: ArgumentValues | undefined): number =>
  Math.ceil(maxBuckets(args === undefined ? undefined : filterAt(args, TIME_FILTER_PATH)) / BUCKETS_PER_COST_ELEMENT);

const SERIES_ARGUMENTS_SDL = `
    "The window and step (Meter's filter nests MetricsFilterInput as timeFilter): steps that are multiples of 300 s read the 5-minute rollups."
    filter: ChannelUtilizationTimeseriesFilterInput!
    "Only this band."
    band: RadioBand`;

const ROOT_RULES = `Each element is one radio (an access point's band)
  with a total utilization sample in the window, ordered by the access
  point's virtual device UUID, then band; each value is a bucket of the
  filter with the weighted average of the samples in it (docs/metrics.md).
  Null with UNAUTHORIZED for a network that is not the key's company's.`;

/** Channel utilization of access points' radios over time, from the radioChannels of their reports (docs/reports.md). */
export const CHANNEL_UTILIZATION_FEATURE = {
  sdl: /* GraphQL */ `
"""Meter's filter of a channel utilization series: the window and step, nested."""
input ChannelUtilizationTimeseriesFilterInput {
  timeFilter: MetricsFilterInput!
}

"""
One bucket of a radio's channel utilization: each field the average of the
radio's samples in the bucket (each sample weighs alike), in percent of the
time. Only buckets with a total utilization sample have a value; another
field is null when no sample of the bucket reported it.
"""
type ChannelUtilizationTimeseriesValue {
${UTILIZATION_VALUE_FIELDS}
}

"""
One radio of an access point (one band) and its channel utilization over
the window. The channel, width, power and noise floor are those of the
radio's latest sample before the window's end (raw samples, kept 48 hours
by default); null when none is kept or it did not say.
"""
type ChannelUtilizationResponseV2 {
  band: RadioBand!
  """The access point (virtual device) the radio belongs to."""
  virtualDeviceUUID: UUID!
  """The primary channel number."""
  channel: Int
  """The channel width in MHz: 20, 40, 80, 160 or 320."""
  channelWidthMHz: Int
  """Transmit power in dBm."""
  txPowerDbm: Float
  """The noise floor the radio measures, in dBm."""
  noiseFloorDbm: Float
  """Per bucket with samples, ordered by time."""
  values: [ChannelUtilizationTimeseriesValue!]!
}

extend type Query {
  """
  The channel utilization of every access point radio of a network. ${ROOT_RULES}
  """
  channelUtilizationByNetwork(
    "The network's UUID."
    networkUUID: UUID!${SERIES_ARGUMENTS_SDL}
  ): [ChannelUtilizationResponseV2!]

  """
  The channel utilization of one access point's radios: as
  channelUtilizationByNetwork, for the access point apVirtualDeviceUUID of
  the network only ([] when the network has no such device). ${ROOT_RULES}
  """
  channelUtilizationByAP(
    "The network's UUID."
    networkUUID: UUID!
    "The access point's virtual device UUID."
    apVirtualDeviceUUID: UUID!${SERIES_ARGUMENTS_SDL}
  ): [ChannelUtilizationResponseV2!]
}
`,
  readModel: {
    ChannelUtilizationTimeseriesValue: UTILIZATION_VALUE,
    ChannelUtilizationResponseV2: {
      band: text('radio_band'),
      virtualDeviceUUID: text('virtual_device_uuid'),
      channel: latest('channel', 'integer'),
      channelWidthMHz: latest('channel_width_mhz', 'integer'),
      txPowerDbm: latest('tx_power_dbm', 'float'),
      noiseFloorDbm: latest('noise_floor_dbm', 'float'),
      values: { kind: 'list', table: radioSeries, join: (s) => `${s}.bucket IS NOT NULL`, orderBy: (s) => `${s}.bucket` },
    },
  },
  roots: {
    channelUtilizationByNetwork: utilizationRoot(false),
    channelUtilizationByAP: utilizationRoot(true),
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'Query.channelUtilizationByNetwork': (args) => (args?.band == null ? PRICED_NETWORK_RADIOS : PRICED_NETWORK_RADIOS / RADIO_BANDS.length),
    'Query.channelUtilizationByAP': (args) => (args?.band == null ? RADIO_BANDS.length : 1),
    'ChannelUtilizationResponseV2.values': seriesSize,
  },
  listItemsPerElement: {
    'ChannelUtilizationResponseV2.values': BUCKETS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
