import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ClientReport, PortReport, RadioReport } from '../../ingest/report.protocol.js';

/** A device's latest state from its reports. */
export interface DeviceState {
  readonly serialNumber: string;
  /** True while the last report is younger than the offline window; the imported value until the first report. */
  readonly isConnectedToBackend: boolean;
  readonly lastSeenAt: string | null;
  readonly stateObservedAt: string | null;
  readonly uptimeSeconds: number | null;
  readonly macAddress: string | null;
  /** The ports of its latest report with interfaces, as reported but for the counters. */
  readonly ports: readonly (Omit<PortReport, 'counters'> & { readonly uuid: string; readonly observedAt: string })[];
  readonly radios: readonly RadioReport[];
}

/** A client a network shows as connected: as its latest report listed it. */
export interface ConnectedClient extends ClientReport {
  readonly lastSeen: string;
  /** The device whose report listed it last; null for an imported client. */
  readonly serialNumber: string | null;
}

/** Filters of an event page; `startTime` inclusive, `endTime` exclusive. */
export interface EventFilter {
  readonly limit: number;
  readonly offset?: number;
  readonly types?: readonly string[];
  readonly startTime?: string;
  readonly endTime?: string;
}

const bool = (value: unknown): boolean => value === true || value === 1;
const optionalBool = (value: unknown): boolean | null => (value === null ? null : bool(value));

/**
 * The reads of reported data, each scoped to the caller's company: an id of
 * another company reads like one that does not exist. Online is derived from
 * the time of the last report against `now`, so it is right on every
 * process without a cache.
 */
export function createReportReads(db: Kysely<Database>, offlineMs: number, now: () => Date) {
  const onlineSince = () => new Date(now().getTime() - offlineMs).toISOString();
  const network = (companyId: number, networkUUID: string) =>
    db.selectFrom('networks').select('id').where('company_id', '=', companyId).where('uuid', '=', networkUUID);
  const device = (companyId: number, serial: string) =>
    db.selectFrom('hardware_devices').select('id').where('company_id', '=', companyId).where('serial_number', '=', serial);

  return {
    /** The device's reported state; undefined for a serial number the company does not have. */
    async deviceState(companyId: number, serialNumber: string): Promise<DeviceState | undefined> {
      const row = await db
        .selectFrom('hardware_devices')
        .select(['id', 'serial_number', 'is_connected_to_backend', 'last_seen_at', 'state_observed_at', 'uptime_seconds', 'mac_address'])
        .where('company_id', '=', companyId)
        .where('serial_number', '=', serialNumber)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const ports = await db.selectFrom('device_ports').selectAll().where('hardware_device_id', '=', row.id).orderBy('port_number').execute();
      const radios = await db.selectFrom('device_radios').selectAll().where('hardware_device_id', '=', row.id).orderBy('bssid').execute();
      return {
        serialNumber: row.serial_number,
        isConnectedToBackend: row.last_seen_at === null ? bool(row.is_connected_to_backend) : row.last_seen_at >= onlineSince(),
        lastSeenAt: row.last_seen_at,
        stateObservedAt: row.state_observed_at,
        uptimeSeconds: row.uptime_seconds === null ? null : Number(row.uptime_seconds),
        macAddress: row.mac_address,
        ports: ports.map((p) => ({
          uuid: p.uuid,
          portNumber: p.port_number,
          label: p.label,
          portType: p.port_type,
          isEnabled: bool(p.is_enabled),
          isConnected: bool(p.is_connected),
          isUplink: bool(p.is_uplink),
          isUplinkActive: optionalBool(p.is_uplink_active),
          isTrunkPort: bool(p.is_trunk_port),
          portSpeedMbps: p.port_speed_mbps,
          nativeVLANID: p.native_vlan_id,
          observedAt: p.observed_at,
        })),
        radios: radios.map((r) => ({ bssid: r.bssid, radioBand: r.radio_band, ssid: r.ssid, isActive: bool(r.is_active) })),
      };
    },

    /**
     * The network's connected clients: imported ones still marked connected,
     * and reported ones whose reporting device is online, by MAC address.
     */
    async connectedClients(companyId: number, networkUUID: string): Promise<ConnectedClient[]> {
      const rows = await db
        .selectFrom('network_clients as c')
        .leftJoin('hardware_devices as h', 'h.id', 'c.hardware_device_id')
        .select(['c.mac_address', 'c.ip', 'c.hostname', 'c.is_wireless', 'c.signal', 'c.vlan_id', 'c.ssid', 'c.port_number', 'c.last_seen', 'h.serial_number'])
        .where('c.network_id', '=', network(companyId, networkUUID))
        .where('c.is_connected', '=', true)
        .where((eb) => eb.or([eb('c.hardware_device_id', 'is', null), eb('h.last_seen_at', '>=', onlineSince())]))
        .orderBy('c.mac_address')
        .execute();
      return rows.map((r) => ({
        macAddress: r.mac_address,
        ip: r.ip,
        hostname: r.hostname,
        isWireless: bool(r.is_wireless),
        signal: r.signal,
        vlanID: r.vlan_id,
        ssid: r.ssid,
        portNumber: r.port_number,
        lastSeen: r.last_seen,
        serialNumber: r.serial_number,
      }));
    },

    /** The network's client history, oldest first. */
    async clientSessions(companyId: number, networkUUID: string) {
      return db
        .selectFrom('client_sessions as s')
        .leftJoin('hardware_devices as h', 'h.id', 's.hardware_device_id')
        .select(['s.mac_address as macAddress', 'h.serial_number as serialNumber', 's.ssid', 's.vlan_id as vlanID', 's.signal', 's.ip', 's.hostname', 's.first_seen as firstSeen', 's.last_seen as lastSeen', 's.ended_at as endedAt'])
        .where('s.network_id', '=', network(companyId, networkUUID))
        .orderBy('s.first_seen')
        .orderBy('s.mac_address')
        .orderBy('s.id')
        .execute();
    },

    /** A page of the network's event log, newest first, and how many events match. */
    async events(companyId: number, networkUUID: string, filter: EventFilter) {
      let query = db.selectFrom('events as e').where('e.network_id', '=', network(companyId, networkUUID));
      if (filter.types !== undefined && filter.types.length > 0) query = query.where('e.type', 'in', filter.types);
      if (filter.startTime !== undefined) query = query.where('e.observed_at', '>=', filter.startTime);
      if (filter.endTime !== undefined) query = query.where('e.observed_at', '<', filter.endTime);
      const total = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      const events = await query
        .leftJoin('hardware_devices as h', 'h.id', 'e.hardware_device_id')
        .leftJoin('virtual_devices as v', 'v.id', 'e.virtual_device_id')
        .select(['e.uuid', 'e.type', 'e.observed_at as observedAt', 'e.details', 'e.source', 'h.serial_number as serialNumber', 'v.uuid as virtualDeviceUUID'])
        .orderBy('e.observed_at', 'desc')
        .orderBy('e.id', 'desc')
        .limit(filter.limit)
        .offset(filter.offset ?? 0)
        .execute();
      return { total: Number(total?.n ?? 0), events };
    },

    /** The network's raw series and rollups, oldest first: what the metrics roots read. */
    async networkTelemetry(companyId: number, networkUUID: string) {
      const id = network(companyId, networkUUID);
      return {
        uplinkSamples: await db.selectFrom('uplink_samples').selectAll().where('network_id', '=', id).orderBy('observed_at').orderBy('port_number').execute(),
        uplinkRollups: await db.selectFrom('uplink_rollups').selectAll().where('network_id', '=', id).orderBy('bucket').orderBy('port_number').execute(),
        clientObservations: await db.selectFrom('client_observations').selectAll().where('network_id', '=', id).orderBy('observed_at').orderBy('mac_address').execute(),
        clientPresence: await db.selectFrom('client_presence_rollups').selectAll().where('network_id', '=', id).orderBy('bucket').orderBy('mac_address').execute(),
        reportCounts: await db.selectFrom('report_rollups').selectAll().where('network_id', '=', id).orderBy('bucket').execute(),
      };
    },

    /** The device's port counter readings and their 5-minute rollups, oldest first. */
    async deviceTelemetry(companyId: number, serialNumber: string) {
      const id = device(companyId, serialNumber);
      return {
        portCounters: await db.selectFrom('port_counters').selectAll().where('hardware_device_id', '=', id).orderBy('observed_at').orderBy('port_number').execute(),
        counterRollups: await db.selectFrom('port_counter_rollups').selectAll().where('hardware_device_id', '=', id).orderBy('bucket').orderBy('port_number').execute(),
      };
    },
  };
}
