import { inCompany } from '../../engine/read.model.js';
import type { GraphQLFeature } from '../../engine/read.model.js';
import { BUCKETS_PER_COST_ELEMENT, METRICS_FILTER_ARGUMENT, checkFilter, filterAt } from '../metrics/metrics.window.js';
import { UTILIZATION_VALUE, UTILIZATION_VALUE_FIELDS, seriesSize } from './channel-utilization.graphql.js';
import { TIME_FILTER_PATH } from './channel-utilization.sql.js';
import { clientChannelSeries } from './client-channel.sql.js';

/** The channel utilization a wireless client saw: of the radios it was reported on, per bucket (docs/metrics.md). */
export const CLIENT_CHANNEL_FEATURE = {
  sdl: /* GraphQL */ `
"""
One bucket of the channel utilization a wireless client saw: each field the
average of the samples, in the bucket, of the radios (access point and band)
that reported the client in that bucket, in percent of the time; null when
none of those samples reported it.
"""
type ClientChannelUtilizationTimeseriesValue {
${UTILIZATION_VALUE_FIELDS}
}

extend type Query {
  """
  The utilization of the channel a wireless client was on, per bucket: the
  samples of the radios of the network's access points on the band the
  client's samples in that bucket name (radioBand), averaged (docs/metrics.md).
  Only buckets in which the client was reported on a radio with a total
  utilization sample, by time; [] for a client never seen in the network.
  Null with UNAUTHORIZED for a network that is not the key's company's.
  """
  channelUtilizationByClient(
    "The network's UUID."
    networkUUID: UUID!
    "The client's MAC address."
    macAddress: MacAddress!
    "The window and step (nested as timeFilter): steps that are multiples of 300 s read the 5-minute rollups."
    filter: ChannelUtilizationTimeseriesFilterInput!
  ): [ClientChannelUtilizationTimeseriesValue!]
}
`,
  readModel: {
    ClientChannelUtilizationTimeseriesValue: UTILIZATION_VALUE,
  },
  roots: {
    channelUtilizationByClient: {
      table: 'networks',
      arguments: [
        { name: 'networkUUID', type: 'uuid' },
        { name: 'macAddress', type: 'text', check: () => true, rule: 'a MAC address' },
        { name: 'filter', type: 'input', fields: [{ ...METRICS_FILTER_ARGUMENT, name: 'timeFilter' }] },
      ],
      check: (args, settings) => checkFilter(filterAt(args, TIME_FILTER_PATH), settings, TIME_FILTER_PATH, true),
      where: inCompany('uuid', 'networkUUID'),
      list: { kind: 'list', table: clientChannelSeries, join: (s) => `${s}.bucket IS NOT NULL`, orderBy: (s) => `${s}.bucket` },
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'Query.channelUtilizationByClient': seriesSize,
  },
  listItemsPerElement: {
    'Query.channelUtilizationByClient': BUCKETS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
