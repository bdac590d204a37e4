import { MAX_OUTLETS } from '../../ingest/report.limits.js';
import { dateTime, inCompany, integer, nullable } from '../../engine/read.model.js';
import type { ArgumentValues, FieldMapping, GraphQLFeature, ListMapping, ReadSettings, RootArgument } from '../../engine/read.model.js';
import { BUCKETS_PER_COST_ELEMENT, METRICS_FILTER_ARGUMENT, checkFilter, filterOf, maxBuckets, seriesCostSize } from '../metrics/metrics.window.js';
import { allDevicesInCompany, hardwareOf, outletSeries, seriesObject, temperatureSeries } from './pdu.sql.js';
import type { OutletMetric } from '../../kernel/telemetry.js';

/** The most PDUs pdusMetrics takes (its complexity prices this many when they are variables), as networksUplinkQualities' networks. */
export const MAX_PDUS = 50;
/**
 * How many outlets an outlet series is priced for: a 24-outlet PDU. The
 * answer is charged for what it holds.
 */
export const PRICED_OUTLETS = 24;
/**
 * Values of an outlet series that count one element of the complexity cost:
 * a value is one group of one outlet's rows in the device's index range,
 * aggregated inside the statement with no lookup of its own, as a port rate's
 * (port-stats.graphql.ts).
 */
export const OUTLET_VALUES_PER_COST_ELEMENT = 50;
/** Outlets of a PDU's list that count one element: a row of one index range each, as a MAC table's entries. */
const OUTLETS_PER_COST_ELEMENT = 100;

const ARGUMENT: readonly RootArgument[] = [{ name: 'virtualDeviceUUID', type: 'uuid' }, METRICS_FILTER_ARGUMENT];
/** The outlet and temperature series read the tiers (docs/metrics.md, "Tiers"): a step of whole hours or days reaches back as far as its tier is kept. */
const checkSeries = (args: ArgumentValues, settings: ReadSettings) => checkFilter(filterOf(args), settings, 'filter', true);

/** A series' bucket start as a DateTime. */
const bucketStart: FieldMapping = { kind: 'computed', type: 'datetime', sql: (t, c) => c.dialect.fromEpochSeconds(`${t}.bucket`) };

/** An outlet metric's series object below a virtual device row. */
const outletMetric = (metric: OutletMetric): FieldMapping => ({
  kind: 'object',
  table: (c, v) => seriesObject(c, v, outletSeries, metric),
  join: () => '1 = 1',
});

const OUTLETS: ListMapping = {
  kind: 'list',
  table: 'pdu_outlets',
  join: (o, v) => `${o}.hardware_device_id = ${hardwareOf(v)}`,
  orderBy: (o) => `${o}.outlet_number`,
};

/** The response's fields over a virtual device row (id, uuid). */
const RESPONSE: Record<string, FieldMapping> = {
  virtualDeviceUUID: { kind: 'scalar', column: 'uuid', type: 'string' },
  temperatureCelsius: { kind: 'object', table: (c, v) => seriesObject(c, v, temperatureSeries), join: () => '1 = 1' },
  currentAmps: outletMetric('current_amps'),
  powerWatts: outletMetric('power_watts'),
  voltageVolts: outletMetric('voltage_volts'),
  energyKWh: outletMetric('energy_used_kwh'),
  outlets: OUTLETS,
};

/** The most values an outlet series of the arguments may hold, for complexity: buckets × PRICED_OUTLETS. */
const outletValues = (args: ArgumentValues | undefined): number =>
  Math.ceil((maxBuckets(args === undefined ? undefined : filterOf(args)) * PRICED_OUTLETS) / OUTLET_VALUES_PER_COST_ELEMENT);

const pduCount = (args: ArgumentValues | undefined): number =>
  args === undefined ? MAX_PDUS : Math.min(MAX_PDUS, (args.virtualDeviceUUIDs as readonly string[]).length);

/** PDUs' outlets (their latest state) and series of their outlets' current, power and voltage and of their temperature (docs/metrics.md). */
export const PDU_FEATURE = {
  sdl: /* GraphQL */ `
"""One bucket of a PDU's device-level series (its temperature)."""
type PDUMetricValue {
  """The bucket's start."""
  timestamp: DateTime!
  """The average of the bucket's samples."""
  value: Float!
}

"""A device-level series of a PDU: one value per bucket with samples, ordered by time."""
type PDUMetricsSeries {
  metadata: MetricsMetadata!
  values: [PDUMetricValue!]!
}

"""One bucket of an outlet's series."""
type PDUOutletMetricValue {
  """The bucket's start."""
  timestamp: DateTime!
  """The bucket's value for the outlet: the average of its readings in the bucket, or for energyKWh their sum."""
  value: Float!
  """The outlet, as the PDU numbers its outlets (PDUOutlet.outletNumber)."""
  outletNumber: Int!
  """The outlet's label as the PDU's latest report with outlets gives it; null when it gives none or no longer lists the outlet."""
  label: String
}

"""One metric of every outlet of a PDU: one value per bucket and outlet with readings, ordered by time, then outlet number."""
type PDUOutletMetricsSeries {
  metadata: MetricsMetadata!
  values: [PDUOutletMetricValue!]!
}

"""An outlet of a PDU, as the PDU's latest report with outlets listed it (docs/reports.md)."""
type PDUOutlet {
  outletNumber: Int!
  label: String
  """Whether the outlet is switched on; null when the PDU does not say."""
  isOn: Boolean
  """The current the outlet drew, in amperes."""
  currentAmps: Float
  """The real power the outlet delivered, in watts."""
  powerWatts: Float
  """The voltage at the outlet, in volts."""
  voltageVolts: Float
  """The energy the outlet delivered since its counter was last reset, in kWh."""
  energyKWh: Float
  """The observedAt of the report these values come from."""
  updatedAt: DateTime!
}

"""
A PDU's series over the filter's window (docs/metrics.md): its temperature,
and per outlet its current, power and voltage, each bucket the average of
the readings in it; and its outlets as they are now. Meter's SDK names the
per-outlet metrics currentAmps, powerWatts and voltageVolts without their
shape: netgraph answers each as one series over all the PDU's outlets (as
the uplink series cover all ports), every value naming its outlet
(outletNumber, and label as the latest report gives it). netgraph adds
energyKWh, the energy used per bucket, from the outlets' energy counters.
"""
type PDUMetricsTimeseriesResponse {
  virtualDeviceUUID: UUID!
  """The device's temperature, in °C."""
  temperatureCelsius: PDUMetricsSeries!
  """Each outlet's current, in amperes."""
  currentAmps: PDUOutletMetricsSeries!
  """Each outlet's real power, in watts."""
  powerWatts: PDUOutletMetricsSeries!
  """Each outlet's voltage, in volts."""
  voltageVolts: PDUOutletMetricsSeries!
  """
  The energy each outlet delivered in the bucket, in kWh: the growth of its
  energy counter from each reading to the next, summed over the readings in
  the bucket; after a reset (a lower counter) the reading counts whole.
  """
  energyKWh: PDUOutletMetricsSeries!
  """The outlets as the PDU's latest report with outlets listed them, by outlet number."""
  outlets: [PDUOutlet!]!
}

extend type Query {
  """
  A PDU's metrics over the filter's window: per outlet its current, power
  and voltage, and the device's temperature, from its hardware's reports;
  and its outlets now. Any virtual device answers (one that reports no
  outlets has empty outlet series). Null with UNAUTHORIZED for a virtual
  device that is not the key's company's.
  """
  pduMetrics(
    "The PDU's virtual device UUID."
    virtualDeviceUUID: UUID!
    "The window and step: steps that are multiples of 300 s read the 5-minute rollups."
    filter: MetricsFilterInput!
  ): PDUMetricsTimeseriesResponse

  """
  pduMetrics for several PDUs: one response per element of
  virtualDeviceUUIDs, in its order. Null with UNAUTHORIZED when any is not
  the key's company's.
  """
  pdusMetrics(
    "At most ${MAX_PDUS} virtual devices."
    virtualDeviceUUIDs: [UUID!]!
    "The window and step."
    filter: MetricsFilterInput!
  ): [PDUMetricsTimeseriesResponse!]
}
`,
  readModel: {
    PDUMetricValue: { timestamp: bucketStart, value: { kind: 'scalar', column: 'value', type: 'float' } },
    PDUMetricsSeries: {
      metadata: { kind: 'embedded', nullWhen: () => '1 = 0' },
      values: { kind: 'list', table: temperatureSeries, join: (t) => `${t}.value IS NOT NULL`, orderBy: (t) => `${t}.bucket` },
    },
    PDUOutletMetricValue: {
      timestamp: bucketStart,
      value: { kind: 'scalar', column: 'value', type: 'float' },
      outletNumber: integer('outlet_number'),
      label: {
        kind: 'computed',
        type: 'string',
        nullable: true,
        sql: (t) => `(SELECT lo.label FROM pdu_outlets lo WHERE lo.hardware_device_id = ${t}.hardware_device_id AND lo.outlet_number = ${t}.outlet_number)`,
      },
    },
    PDUOutletMetricsSeries: {
      metadata: { kind: 'embedded', nullWhen: () => '1 = 0' },
      values: { kind: 'list', table: outletSeries, join: (t) => `${t}.value IS NOT NULL`, orderBy: (t) => `${t}.bucket, ${t}.outlet_number` },
    },
    PDUOutlet: {
      outletNumber: integer('outlet_number'),
      label: nullable('label', 'string'),
      isOn: nullable('is_on', 'boolean'),
      currentAmps: nullable('current_amps', 'float'),
      powerWatts: nullable('power_watts', 'float'),
      voltageVolts: nullable('voltage_volts', 'float'),
      energyKWh: nullable('energy_kwh', 'float'),
      updatedAt: dateTime('observed_at'),
    },
    PDUMetricsTimeseriesResponse: RESPONSE,
  },
  roots: {
    pduMetrics: {
      table: 'virtual_devices',
      arguments: ARGUMENT,
      check: checkSeries,
      where: inCompany('uuid', 'virtualDeviceUUID'),
    },
    pdusMetrics: {
      kind: 'value',
      arguments: [{ name: 'virtualDeviceUUIDs', type: 'uuidList' }, METRICS_FILTER_ARGUMENT],
      check: (args, settings) => {
        const count = (args.virtualDeviceUUIDs as readonly string[]).length;
        return count > MAX_PDUS ? { argument: 'virtualDeviceUUIDs', message: `names ${count} devices; at most ${MAX_PDUS}: ask in several requests.` } : checkSeries(args, settings);
      },
      json: (c, selection) => {
        // in text order: the condition, the element, the rows
        const callers = allDevicesInCompany(c, 'virtualDeviceUUIDs');
        const p = c.alias();
        const element = c.object(selection, p);
        // each device looked up by its UUID (a join may hash every virtual device); all are the caller's when the array is read
        const rows =
          `(SELECT (SELECT v.id FROM virtual_devices v WHERE v.uuid = l.value AND v.company_id = ${c.company()}) AS id, l.value AS uuid, l.position ` +
          `FROM ${c.dialect.orderedListRows(c.arg('virtualDeviceUUIDs'), 'l')}) ${p}`;
        return `(SELECT CASE WHEN ${callers} THEN coalesce(${c.dialect.jsonArray(element, rows, `${p}.position`)}, '[]') END)`;
      },
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'PDUMetricsSeries.values': (args) => seriesCostSize(args),
    'PDUOutletMetricsSeries.values': outletValues,
    'PDUMetricsTimeseriesResponse.outlets': () => Math.ceil(MAX_OUTLETS / OUTLETS_PER_COST_ELEMENT),
    'Query.pdusMetrics': pduCount,
  },
  listItemsPerElement: {
    'PDUMetricsSeries.values': BUCKETS_PER_COST_ELEMENT,
    'PDUOutletMetricsSeries.values': OUTLET_VALUES_PER_COST_ELEMENT,
    'PDUMetricsTimeseriesResponse.outlets': OUTLETS_PER_COST_ELEMENT,
  },
} satisfies GraphQLFeature;
