import { inCompany, integer } from '../../engine/read.model.js';
import type { ArgumentProblem, ArgumentValues, FieldMapping, GraphQLFeature, ReadSettings, RootArgument, TableRoot } from '../../engine/read.model.js';
import { METRICS_FILTER_ARGUMENT, checkFilter, filterOf, maxBuckets } from '../metrics/metrics.window.js';
import { COUNTERS, portRates, portTotals } from './port-stats.sql.js';

/**
 * How many ports a rate series is priced for when no portNumber is given: a
 * 48-port switch with 4 uplinks. The answer is charged for what it holds.
 */
export const RATE_PRICED_PORTS = 52;
/**
 * Values of a port rate series that count one element of the complexity
 * cost: a value is one group of the device's readings in one index range
 * per port, aggregated inside the statement, with no lookup of its own.
 * Measured at 1.4 to 1.8 times an uplink series' value (docs/benchmarks.md),
 * priced lower so that Meter's recommended call (4 hours of 5-minute buckets
 * of a 48-port switch) fits a dashboard's refresh.
 */
export const RATE_VALUES_PER_COST_ELEMENT = 50;

const DEFAULT_LOOKBACK_HOURS = 24;
const MAX_PORT_NUMBER = 65_535;

/** A portNumber outside what a report may hold (0 to 65,535), refused naming the argument. */
function checkPortNumber(args: ArgumentValues): ArgumentProblem | undefined {
  const port = args.portNumber as number | null | undefined;
  return port != null && (port < 0 || port > MAX_PORT_NUMBER)
    ? { argument: 'portNumber', message: `must be 0 to ${MAX_PORT_NUMBER}: ports are numbered as the device reports them.` }
    : undefined;
}

/** switchPortStats and controllerPortStats: a virtual device's ports' totals over the last lookbackHours. */
const TOTALS_ROOT: TableRoot = {
  table: 'virtual_devices',
  arguments: [
    { name: 'virtualDeviceUUID', type: 'uuid' },
    { name: 'portNumber', type: 'int' },
    { name: 'lookbackHours', type: 'int', default: DEFAULT_LOOKBACK_HOURS },
  ],
  check: (args, settings) => {
    const hours = (args.lookbackHours as number | null) ?? DEFAULT_LOOKBACK_HOURS;
    // the totals read the hourly and daily tiers for whole hours and days (port-stats.sql.ts), kept at least this long
    const most = settings.hourlyRetentionDays * 24;
    return hours < 1 || hours > most
      ? { argument: 'lookbackHours', message: `must be 1 to ${most} (TELEMETRY_HOURLY_RETENTION_DAYS × 24): counters are kept no longer.` }
      : checkPortNumber(args);
  },
  where: inCompany('uuid', 'virtualDeviceUUID'),
  list: { kind: 'list', table: portTotals, join: (s) => `${s}.port_number IS NOT NULL`, orderBy: (s) => `${s}.port_number` },
};

/** switchPortMetricsRate and controllerPortMetricsRate: the device's row, whose response object lists the rates. */
const RATES_ROOT: TableRoot = {
  table: 'virtual_devices',
  arguments: [{ name: 'virtualDeviceUUID', type: 'uuid' }, METRICS_FILTER_ARGUMENT, { name: 'portNumber', type: 'int' }] satisfies RootArgument[],
  check: (args: ArgumentValues, settings: ReadSettings) => checkFilter(filterOf(args), settings, 'filter', true) ?? checkPortNumber(args),
  where: inCompany('uuid', 'virtualDeviceUUID'),
};

/** The fields of a port's totals, or of its rates: one per counter. */
const COUNTER_FIELDS = (type: 'integer' | 'float'): Record<string, FieldMapping> =>
  Object.fromEntries(COUNTERS.map(([column, field]) => [field, { kind: 'scalar', column, type }]));

const TOTALS: Record<string, FieldMapping> = { portNumber: integer('port_number'), ...COUNTER_FIELDS('integer') };

const RATE_VALUE: Record<string, FieldMapping> = {
  timestamp: { kind: 'computed', type: 'datetime', sql: (t, c) => c.dialect.fromEpochSeconds(`${t}.bucket`) },
  portNumber: integer('port_number'),
  ...COUNTER_FIELDS('float'),
};

const RATE_RESPONSE: Record<string, FieldMapping> = {
  values: { kind: 'list', table: portRates, join: (r) => `${r}.port_number IS NOT NULL`, orderBy: (r) => `${r}.bucket, ${r}.port_number` },
};

/** The most values a rate series of the arguments may hold, for complexity: buckets × ports (one port with portNumber). */
const rateValues = (args: ArgumentValues | undefined): number =>
  Math.ceil((maxBuckets(args === undefined ? undefined : filterOf(args)) * (args?.portNumber == null ? RATE_PRICED_PORTS : 1)) / RATE_VALUES_PER_COST_ELEMENT);

/** What each counter field counts, by field name (COUNTERS' order). */
const COUNTER_MEANINGS: Readonly<Record<(typeof COUNTERS)[number][1], string>> = {
  totalRxBytes: 'Bytes received',
  totalTxBytes: 'Bytes sent',
  totalRxPackets: 'Packets received',
  totalTxPackets: 'Packets sent',
  errorRxPackets: 'Receive errors',
  errorTxPackets: 'Transmit errors',
};

/** The SDL of the six counter fields, each described with its meaning and `unit`. */
const counterFields = (unit: string): string =>
  COUNTERS.map(([, field]) => `  """${COUNTER_MEANINGS[field]}${unit}."""\n  ${field}: Float!`).join('\n');

/** A totals type's SDL (SwitchPortStat, ControllerPortStat). */
const totalsType = (name: string, device: string) => `
"""
What a ${device} port's counters grew over the window, counting across
reboots (a counter that drops restarts from zero). Floats: totals outgrow 32-bit Int.
"""
type ${name} {
  portNumber: Int!
${counterFields('')}
}`;

/** A rate response's SDL (SwitchPortMetricsRateResponse, ControllerPortMetricsRateResponse) with its value type. */
const ratesType = (prefix: string, device: string) => `
"""
A ${device} port's counters as rates, per bucket of the filter: for each
bucket and port with readings, the growth of each counter between
consecutive readings that end in the bucket, divided by the seconds
between those readings (docs/metrics.md). Rates are per second.
"""
type ${prefix}Value {
  """The bucket's start."""
  timestamp: DateTime!
  portNumber: Int!
${counterFields(' per second')}
}

"""A ${device}'s port rates: one value per bucket with readings and port, ordered by time, then port."""
type ${prefix}Response {
  values: [${prefix}Value!]!
}`;

/** The arguments of a totals root, in SDL. */
const TOTALS_ARGUMENTS = `
    "The virtual device's UUID."
    virtualDeviceUUID: UUID!
    "Only this port (0 to 65,535)."
    portNumber: Int
    "The window, in hours before now: 1 up to the rollup retention (2,160 by default). Within the raw retention (48 by default) every reading counts; before it, the last of each 5 minutes."
    lookbackHours: Int = ${DEFAULT_LOOKBACK_HOURS}`;

/** The arguments of a rates root, in SDL. */
const RATES_ARGUMENTS = `
    "The virtual device's UUID."
    virtualDeviceUUID: UUID!
    "The window and step: steps that are multiples of 300 s read the 5-minute rollups."
    filter: MetricsFilterInput!
    "Only this port (0 to 65,535)."
    portNumber: Int`;

const TOTALS_DESCRIPTION = `per port the device's hardware reported inside the last lookbackHours
  (also with zero growth), by port number: the sum of the increments
  between consecutive counter readings whose later one falls inside the
  window. The reading just before the window is the baseline, else the first
  inside it; after a reboot (a counter lower than the previous reading, or a
  lower uptime) the increment is the new reading itself. Null with
  UNAUTHORIZED for a virtual device that is not the key's company's; [] when
  it has no hardware.`;

const RATES_DESCRIPTION = `per bucket of the filter and port the device's latest report lists, each
  counter's rate per second: the growth between consecutive readings whose later one
  falls in the bucket (reboots counted as in switchPortStats), divided by
  the seconds between them; each port's last reading before the window
  precedes its first inside it. Only buckets with readings have values.
  Null with UNAUTHORIZED for a virtual device that is not the key's
  company's; no values when it has no hardware.`;

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** What a device's ports counted: totals over a recent window and rates per bucket, across reboots; for switches and controllers alike. */
export const PORT_STATS_FEATURE = {
  sdl: /* GraphQL */ `${totalsType('SwitchPortStat', 'switch')}
${totalsType('ControllerPortStat', 'controller')}
${ratesType('SwitchPortMetricsRate', 'switch')}
${ratesType('ControllerPortMetricsRate', 'controller')}

extend type Query {
  """
  ${capitalized(TOTALS_DESCRIPTION)}
  """
  switchPortStats(${TOTALS_ARGUMENTS}
  ): [SwitchPortStat!]

  """
  A controller's port totals, as switchPortStats counts a switch's:
  ${TOTALS_DESCRIPTION}
  """
  controllerPortStats(${TOTALS_ARGUMENTS}
  ): [ControllerPortStat!]

  """
  ${capitalized(RATES_DESCRIPTION)}
  """
  switchPortMetricsRate(${RATES_ARGUMENTS}
  ): SwitchPortMetricsRateResponse

  """
  A controller's port rates, as switchPortMetricsRate reads a switch's:
  ${RATES_DESCRIPTION}
  """
  controllerPortMetricsRate(${RATES_ARGUMENTS}
  ): ControllerPortMetricsRateResponse
}
`,
  readModel: {
    // whole numbers: printed exactly, beyond 2^53 too
    SwitchPortStat: TOTALS,
    ControllerPortStat: TOTALS,
    SwitchPortMetricsRateValue: RATE_VALUE,
    SwitchPortMetricsRateResponse: RATE_RESPONSE,
    ControllerPortMetricsRateValue: RATE_VALUE,
    ControllerPortMetricsRateResponse: RATE_RESPONSE,
  },
  roots: {
    switchPortStats: TOTALS_ROOT,
    controllerPortStats: TOTALS_ROOT,
    switchPortMetricsRate: RATES_ROOT,
    controllerPortMetricsRate: RATES_ROOT,
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'SwitchPortMetricsRateResponse.values': rateValues,
    'ControllerPortMetricsRateResponse.values': rateValues,
  },
  listItemsPerElement: {
    'SwitchPortMetricsRateResponse.values': RATE_VALUES_PER_COST_ELEMENT,
    'ControllerPortMetricsRateResponse.values': RATE_VALUES_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
