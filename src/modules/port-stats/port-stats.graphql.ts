import { inCompany, integer } from '../read/read.model.js';
import type { GraphQLFeature, SqlContext } from '../read/read.model.js';

/** A port's six cumulative counters: the columns of port_counters and port_counter_rollups, and the SwitchPortStat field each sums. */
const COUNTERS = [
  ['rx_bytes', 'totalRxBytes'],
  ['tx_bytes', 'totalTxBytes'],
  ['rx_packets', 'totalRxPackets'],
  ['tx_packets', 'totalTxPackets'],
  ['rx_errors', 'errorRxPackets'],
  ['tx_errors', 'errorTxPackets'],
] as const;

const COLUMNS = `pr.port_number, pr.observed_at, pr.uptime_seconds, ${COUNTERS.map(([column]) => `pr.${column}`).join(', ')}`;

/** The start of the window: lookbackHours before the request. */
const windowStart = (c: SqlContext): string => c.value('timestamptz', (args, now) => new Date(now.getTime() - (args.lookbackHours as number) * 3_600_000));

/**
 * The counter readings of `table` of the hardware assigned to the virtual
 * device aliased `v`, before the request's time, from each port's last
 * reading before the window (its baseline) on; `also` narrows them.
 */
function readings(c: SqlContext, v: string, table: string, also: string): string {
  return (
    `SELECT ${COLUMNS} FROM ${table} pr WHERE pr.hardware_device_id = (SELECT ph.id FROM hardware_devices ph WHERE ph.virtual_device_id = ${v}.id) ` +
    `AND (${c.arg('portNumber')} IS NULL OR pr.port_number = ${c.arg('portNumber')}) AND pr.observed_at < ${c.now()} ` +
    `AND pr.observed_at >= coalesce((SELECT max(pb.observed_at) FROM ${table} pb WHERE pb.hardware_device_id = pr.hardware_device_id ` +
    `AND pb.port_number = pr.port_number AND pb.observed_at < ${windowStart(c)}), ${windowStart(c)})${also}`
  );
}

/**
 * Per port with a reading inside the window, the growth of each counter: the
 * sum of the increments between consecutive readings whose later one is
 * inside the window. A reading after a reboot (any counter lower than the
 * port's previous reading, or a lower uptime) counts whole. The readings are
 * every raw reading kept (TELEMETRY_RAW_RETENTION_HOURS) and, before the
 * port's oldest raw reading, the last reading of each 5-minute bucket.
 */
function portTotals(c: SqlContext, v: string): string {
  const lags = COUNTERS.map(([column]) => `lag(w.${column}) OVER o AS p_${column}`).join(', ');
  const rebooted = [...COUNTERS.map(([column]) => `x.${column} < x.p_${column}`), 'x.uptime_seconds < x.p_uptime'].join(' OR ');
  const increments = COUNTERS.map(
    ([column]) => `CASE WHEN x.p_${column} IS NULL THEN 0 WHEN ${rebooted} THEN x.${column} ELSE x.${column} - x.p_${column} END AS ${column}`,
  ).join(', ');
  const sums = COUNTERS.map(([column]) => `sum(i.${column}) AS ${column}`).join(', ');
  const olderThanRaw =
    ' AND NOT EXISTS (SELECT 1 FROM port_counters pm WHERE pm.hardware_device_id = pr.hardware_device_id ' +
    'AND pm.port_number = pr.port_number AND pm.observed_at <= pr.observed_at)';
  return (
    `(SELECT i.port_number, ${sums} FROM (SELECT x.port_number, ${increments} FROM ` +
    `(SELECT w.*, lag(w.uptime_seconds) OVER o AS p_uptime, ${lags} FROM (${readings(c, v, 'port_counters', '')} UNION ALL ` +
    `${readings(c, v, 'port_counter_rollups', olderThanRaw)}) w WINDOW o AS (PARTITION BY w.port_number ORDER BY w.observed_at)) x ` +
    `WHERE x.observed_at >= ${windowStart(c)}) i GROUP BY i.port_number)`
  );
}

/** What a switch's ports counted over a recent window, across reboots. */
export const PORT_STATS_FEATURE = {
  sdl: /* GraphQL */ `
"""
What a port's counters grew over the window, counting across reboots (a
counter that drops restarts from zero). Floats: totals outgrow 32-bit Int.
"""
type SwitchPortStat {
  portNumber: Int!
  totalRxBytes: Float!
  totalTxBytes: Float!
  totalRxPackets: Float!
  totalTxPackets: Float!
  errorRxPackets: Float!
  errorTxPackets: Float!
}

extend type Query {
  """
  Per port the device's hardware reported inside the last lookbackHours
  (also with zero growth), by port number: the sum of the increments
  between consecutive counter readings whose later one falls inside the
  window. The reading just before the window is the baseline, else the first
  inside it; after a reboot (a counter lower than the previous reading, or a
  lower uptime) the increment is the new reading itself. Null with
  UNAUTHORIZED for a virtual device that is not the key's company's; [] when
  it has no hardware.
  """
  switchPortStats(
    "The virtual device's UUID."
    virtualDeviceUUID: UUID!
    "Only this port."
    portNumber: Int
    "The window, in hours before now: 1 up to the rollup retention (2,160 by default). Within the raw retention (48 by default) every reading counts; before it, the last of each 5 minutes."
    lookbackHours: Int = 24
  ): [SwitchPortStat!]
}
`,
  readModel: {
    SwitchPortStat: {
      portNumber: integer('port_number'),
      // whole numbers: printed exactly, beyond 2^53 too
      ...Object.fromEntries(COUNTERS.map(([column, field]) => [field, integer(column)])),
    },
  },
  roots: {
    switchPortStats: {
      table: 'virtual_devices',
      arguments: [
        { name: 'virtualDeviceUUID', type: 'uuid' },
        { name: 'portNumber', type: 'int' },
        { name: 'lookbackHours', type: 'int', default: 24 },
      ],
      check: (args, settings) => {
        const hours = (args.lookbackHours as number | null) ?? 24;
        const most = settings.rollupRetentionDays * 24;
        return hours < 1 || hours > most
          ? { argument: 'lookbackHours', message: `must be 1 to ${most} (TELEMETRY_ROLLUP_RETENTION_DAYS × 24): counters are kept no longer.` }
          : undefined;
      },
      where: inCompany('uuid', 'virtualDeviceUUID'),
      list: { kind: 'list', table: portTotals, join: (s) => `${s}.port_number IS NOT NULL`, orderBy: (s) => `${s}.port_number` },
    },
  },
  internalRoots: {},
  mutations: {},
} satisfies GraphQLFeature;
