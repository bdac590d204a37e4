import { SERIAL_RULE, isSerialNumber } from '../../kernel/rules.js';
import type { FieldMapping, GraphQLFeature } from '../../engine/read.model.js';
import { BUCKETS_PER_COST_ELEMENT, METRICS_FILTER_ARGUMENT, checkFilter, filterOf, seriesCostSize } from '../metrics/metrics.window.js';
import { healthSeries } from './ap-health.sql.js';

/** A score or percentage of a bucket; null where docs/metrics.md says. */
const score = (column: string, nullable = true): FieldMapping => ({ kind: 'scalar', column, type: 'float', nullable });

/** An access point's health scores over time, from its radios, its wireless clients and its CPU and memory (docs/metrics.md). */
export const AP_HEALTH_FEATURE = {
  sdl: /* GraphQL */ `
"""
An access point's health in one bucket, each score from 0 (bad) to 100
(good), by the formulas of docs/metrics.md: rfScore from its radios'
utilization, performanceScore from its wireless clients' SNR, systemScore
from its CPU and memory. A score is null when the bucket has none of its data.
"""
type AccessPointHealthScores {
  """The bucket's start."""
  timestamp: DateTime!
  """The mean of the scores of the bucket that are not null."""
  overallScore: Float!
  """clamp((average SNR of its wireless clients' samples, in dB, - 10) * 100 / 30, 0, 100): 10 dB or less 0, 40 dB or more 100; null without client SNR."""
  performanceScore: Float
  """100 - the average total utilization (percent) of its radios' samples; null without radio samples."""
  rfScore: Float
  """100 - the larger of cpuPercent and memoryPercent; null when neither is known."""
  systemScore: Float
  """The average CPU load of its reports in the bucket, in percent; null when none carried one."""
  cpuPercent: Float
  """The average memory use of its reports in the bucket (memoryUsedBytes / memoryTotalBytes of a report carrying both), in percent; null when none did."""
  memoryPercent: Float
}

extend type Query {
  """
  An access point's health scores per bucket of the filter (docs/metrics.md):
  only buckets with radio utilization, client SNR, CPU or memory samples,
  by time. Null with UNAUTHORIZED for a serial number that is not a hardware
  device of the key's company, or not an access point, as hardwareDevice
  answers a missing one.
  """
  apHealthScores(
    "The access point's serial number: letters, digits, \`.\`, \`_\` and \`-\`, 1 to 64 characters; anything else is BAD_USER_INPUT."
    serialNumber: String!
    "The window and step: steps that are multiples of 300 s read the 5-minute rollups."
    filter: MetricsFilterInput!
  ): [AccessPointHealthScores!]
}
`,
  readModel: {
    AccessPointHealthScores: {
      timestamp: { kind: 'computed', type: 'datetime', sql: (t, c) => c.dialect.fromEpochSeconds(`${t}.bucket`) },
      overallScore: score('overall_score', false),
      performanceScore: score('performance_score'),
      rfScore: score('rf_score'),
      systemScore: score('system_score'),
      cpuPercent: score('cpu_percent'),
      memoryPercent: score('memory_percent'),
    },
  },
  roots: {
    apHealthScores: {
      table: 'hardware_devices',
      arguments: [{ name: 'serialNumber', type: 'text', check: isSerialNumber, rule: SERIAL_RULE }, METRICS_FILTER_ARGUMENT],
      check: (args, settings) => checkFilter(filterOf(args), settings, 'filter', true),
      where: (t, c) => `${t}.serial_number = ${c.arg('serialNumber')} AND ${t}.company_id = ${c.company()} AND ${t}.device_type = 'ACCESS_POINT'`,
      list: { kind: 'list', table: healthSeries, join: (s) => `${s}.bucket IS NOT NULL`, orderBy: (s) => `${s}.bucket` },
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'Query.apHealthScores': (args) => seriesCostSize(args),
  },
  listItemsPerElement: {
    'Query.apHealthScores': BUCKETS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
