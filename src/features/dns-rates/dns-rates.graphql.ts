import { inCompany, text } from '../../engine/read.model.js';
import type { GraphQLFeature } from '../../engine/read.model.js';
import { BUCKETS_PER_COST_ELEMENT, METRICS_FILTER_ARGUMENT, checkFilter, filterOf, seriesCostSize } from '../metrics/metrics.window.js';
import { dnsRates } from './dns-rates.sql.js';

/** A controller's DNS request rate per bucket, from the dnsRequests counter of its reports (docs/reports.md). */
export const DNS_RATES_FEATURE = {
  sdl: /* GraphQL */ `
"""
A controller's DNS requests per second in one bucket: the growth of its
request counter between consecutive readings whose later one falls in the
bucket, divided by the seconds between them, counting across reboots
(docs/metrics.md).
"""
type ControllerDNSRequestRateValue {
  """The bucket's start."""
  timestamp: DateTime!
  """DNS requests per second."""
  value: Float!
  """The controller (virtual device) whose requests these are."""
  UUID: UUID!
}

"""A controller's DNS request rates: one value per bucket with readings, ordered by time."""
type ControllerDNSRequestRatesResponse {
  values: [ControllerDNSRequestRateValue!]!
}

extend type Query {
  """
  The DNS request rate of a controller per bucket of the filter, from the
  cumulative dnsRequests of its reports: a counter lower than the previous
  reading, or a lower uptime, is a reboot, after which the counter counts
  from zero. The last reading before the window precedes its first inside
  it; only buckets with readings have values. Null with UNAUTHORIZED for a
  virtual device that is not the key's company's; no values when it has no
  hardware or its reports carry no dnsRequests.
  """
  controllerDNSRequestRates(
    "The controller's virtual device UUID."
    virtualDeviceUUID: UUID!
    "The window and step: steps that are multiples of 300 s read the 5-minute rollups."
    filter: MetricsFilterInput!
  ): ControllerDNSRequestRatesResponse
}
`,
  readModel: {
    ControllerDNSRequestRateValue: {
      timestamp: { kind: 'computed', type: 'datetime', sql: (t, c) => c.dialect.fromEpochSeconds(`${t}.bucket`) },
      value: { kind: 'scalar', column: 'value', type: 'float' },
      UUID: text('device_uuid'),
    },
    ControllerDNSRequestRatesResponse: {
      values: { kind: 'list', table: dnsRates, join: (r) => `${r}.bucket IS NOT NULL`, orderBy: (r) => `${r}.bucket` },
    },
  },
  roots: {
    controllerDNSRequestRates: {
      table: 'virtual_devices',
      arguments: [{ name: 'virtualDeviceUUID', type: 'uuid' }, METRICS_FILTER_ARGUMENT],
      check: (args, settings) => checkFilter(filterOf(args), settings, 'filter', true),
      where: inCompany('uuid', 'virtualDeviceUUID'),
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'ControllerDNSRequestRatesResponse.values': (args) => seriesCostSize(args),
  },
  listItemsPerElement: {
    'ControllerDNSRequestRatesResponse.values': BUCKETS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
