import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { RowColumn, SqlDialect } from '../db/dialect.js';
import type { Database } from '../db/tables.js';
import { createRowWriter, takeExcluded } from './report-rows.repository.js';
import { macTableChanges } from './report.mac-table.js';
import type { MacTableSets, StoredMacEntry } from './report.mac-table.js';
import type { OutletReport, PortReport, RadioReport } from './report.protocol.js';
import type { StpState } from './report.limits.js';
import { stpKey } from './report.stp.js';
import type { PortStp, StpAlert } from './report.stp.js';

/** What a device's newest reports change of its row; undefined leaves a column as it is. */
export interface DeviceUpdate {
  readonly lastSeenAt?: string;
  readonly reportedOnline?: boolean;
  readonly uptimeSeconds?: number | null;
  readonly macAddress?: string | null;
  readonly stateObservedAt?: string;
  /** CPU and memory (issue 30): the newest report with each decides it. */
  readonly cpuPercent?: number | null;
  readonly memoryUsedBytes?: number | null;
  readonly memoryTotalBytes?: number | null;
}

/** What is known of a PDU's outlet between two of its sets: whether it is on, and its energy counter. */
export interface OutletState {
  readonly isOn: boolean | null;
  readonly energyKWh: number | null;
}

/** A device's reported list of some kind (ports, radios), complete at `observedAt`. */
export interface DeviceList<T> {
  readonly deviceId: number;
  readonly observedAt: string;
  readonly items: readonly T[];
}

const DEVICE_UPDATE: readonly RowColumn[] = [
  ['id', 'bigint'],
  ['last_seen_at', 'timestamptz'],
  ['reported_online', 'boolean'],
  ['state_observed_at', 'timestamptz'],
  ['has_uptime', 'boolean'],
  ['uptime_seconds', 'bigint'],
  ['has_mac', 'boolean'],
  ['mac_address', 'text'],
  ['has_cpu', 'boolean'],
  ['cpu_percent', 'float'],
  ['has_memory_used', 'boolean'],
  ['memory_used_bytes', 'bigint'],
  ['has_memory_total', 'boolean'],
  ['memory_total_bytes', 'bigint'],
];

/** Where a device's latest report came from (hardware_devices.source_*). */
export interface DeviceSource {
  readonly id: number;
  /** COLLECTOR for a report with `poll`, REPORTS for any other. */
  readonly kind: 'COLLECTOR' | 'REPORTS';
  /** The label of the key that posted it. */
  readonly name: string;
  readonly observedAt: string;
  readonly pollError: string | null;
  readonly pollMs: number | null;
}

const DEVICE_SOURCE: readonly RowColumn[] = [
  ['id', 'bigint'],
  ['source_kind', 'text'],
  ['source_name', 'text'],
  ['source_at', 'timestamptz'],
  ['source_poll_error', 'text'],
  ['source_poll_ms', 'float'],
];

const PORT_KEYS: readonly RowColumn[] = [
  ['device_id', 'bigint'],
  ['port_number', 'integer'],
];

const PORTS: readonly RowColumn[] = [
  ['uuid', 'uuid'],
  ['hardware_device_id', 'bigint'],
  ['port_number', 'integer'],
  ['label', 'text'],
  ['port_type', 'text'],
  ['is_enabled', 'boolean'],
  ['is_connected', 'boolean'],
  ['is_uplink', 'boolean'],
  ['is_uplink_active', 'boolean'],
  ['is_trunk_port', 'boolean'],
  ['port_speed_mbps', 'integer'],
  ['native_vlan_id', 'integer'],
  ['observed_at', 'timestamptz'],
  ['lldp_chassis_id', 'text'],
  ['lldp_port_id', 'text'],
  ['lldp_port_description', 'text'],
  ['lldp_system_name', 'text'],
  ['stp_state', 'text'],
  ['stp_alert', 'text'],
];

/** What a report sets of a port it lists again: all but its identity (uuid, device, number). */
const PORT_COLUMNS = PORTS.slice(3).map(([name]) => name);
const PORT_UPDATE = takeExcluded(PORT_COLUMNS);
/** Its state: what it sets but the time of the report. */
const PORT_STATE = PORT_COLUMNS.filter((name) => name !== 'observed_at');

const RADIOS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['bssid', 'text'],
  ['radio_band', 'text'],
  ['ssid', 'text'],
  ['is_active', 'boolean'],
  ['observed_at', 'timestamptz'],
];

const MAC_ENTRIES: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['mac_address', 'text'],
  ['vlan_id', 'integer'],
  ['port_number', 'integer'],
  ['updated_at', 'timestamptz'],
];

const MAC_HISTORY: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['mac_address', 'text'],
  ['vlan_id', 'integer'],
  ['port_number', 'integer'],
  ['first_seen_at', 'timestamptz'],
  ['gone_at', 'timestamptz'],
];

const OUTLETS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['outlet_number', 'integer'],
  ['label', 'text'],
  ['is_on', 'boolean'],
  ['current_amps', 'float'],
  ['power_watts', 'float'],
  ['voltage_volts', 'float'],
  ['energy_kwh', 'float'],
  ['observed_at', 'timestamptz'],
];

/** The SQL of devices' latest state (their row, ports and radios), for many devices per statement. */
export function createReportStateRepository(db: Kysely<Database>, dialect: SqlDialect) {
  const rows = createRowWriter(db, dialect);
  // a port listed as it was is not written: no new row version (observed_at is when its state last changed)
  const portChanged = sql.raw(PORT_STATE.map((name) => dialect.differs(`device_ports.${name}`, `excluded.${name}`)).join(' OR '));

  /**
   * Makes each device's rows of `table` exactly its list, as of the list's
   * `observedAt`: the devices' rows are deleted and the list inserted, each
   * item as `toRow` gives it plus its device and time.
   */
  async function replaceDeviceRows<T>(table: keyof Database & string, columns: readonly RowColumn[], lists: readonly DeviceList<T>[], toRow: (item: T) => Record<string, unknown>): Promise<void> {
    if (lists.length === 0) return;
    await sql`DELETE FROM ${sql.table(table)} WHERE ${dialect.inValues('hardware_device_id', 'bigint', lists.map((l) => l.deviceId))}`.execute(db);
    const items = lists.flatMap((l) => l.items.map((item) => ({ ...toRow(item), hardware_device_id: l.deviceId, observed_at: l.observedAt })));
    await rows.insert(table, columns, items);
  }

  return {
    /** Applies each device's update in one statement; a column an update leaves undefined keeps its value. */
    async updateDevices(updates: readonly { readonly id: number; readonly update: DeviceUpdate }[]): Promise<void> {
      if (updates.length === 0) return;
      const values = updates.map(({ id, update }) => ({
        id,
        last_seen_at: update.lastSeenAt ?? null,
        reported_online: update.reportedOnline ?? null,
        state_observed_at: update.stateObservedAt ?? null,
        has_uptime: update.uptimeSeconds !== undefined,
        uptime_seconds: update.uptimeSeconds ?? null,
        has_mac: update.macAddress !== undefined,
        mac_address: update.macAddress ?? null,
        has_cpu: update.cpuPercent !== undefined,
        cpu_percent: update.cpuPercent ?? null,
        has_memory_used: update.memoryUsedBytes !== undefined,
        memory_used_bytes: update.memoryUsedBytes ?? null,
        has_memory_total: update.memoryTotalBytes !== undefined,
        memory_total_bytes: update.memoryTotalBytes ?? null,
      }));
      // the three coalesced columns are never set to NULL by a report; uptime and MAC may be
      await sql`UPDATE hardware_devices SET
          last_seen_at = coalesce(u.last_seen_at, hardware_devices.last_seen_at),
          reported_online = coalesce(u.reported_online, hardware_devices.reported_online),
          state_observed_at = coalesce(u.state_observed_at, hardware_devices.state_observed_at),
          uptime_seconds = CASE WHEN u.has_uptime THEN u.uptime_seconds ELSE hardware_devices.uptime_seconds END,
          mac_address = CASE WHEN u.has_mac THEN u.mac_address ELSE hardware_devices.mac_address END,
          cpu_percent = CASE WHEN u.has_cpu THEN u.cpu_percent ELSE hardware_devices.cpu_percent END,
          memory_used_bytes = CASE WHEN u.has_memory_used THEN u.memory_used_bytes ELSE hardware_devices.memory_used_bytes END,
          memory_total_bytes = CASE WHEN u.has_memory_total THEN u.memory_total_bytes ELSE hardware_devices.memory_total_bytes END
        FROM ${rows.source('u', DEVICE_UPDATE, values)} WHERE hardware_devices.id = u.id`.execute(db);
    },

    /** Records where each device's report came from, unless the device has one from a later report already. */
    async updateSources(sources: readonly DeviceSource[]): Promise<void> {
      if (sources.length === 0) return;
      const values = sources.map((v) => ({
        id: v.id,
        source_kind: v.kind,
        source_name: v.name,
        source_at: v.observedAt,
        source_poll_error: v.pollError,
        source_poll_ms: v.pollMs,
      }));
      await sql`UPDATE hardware_devices SET
          source_kind = u.source_kind, source_name = u.source_name, source_at = u.source_at,
          source_poll_error = u.source_poll_error, source_poll_ms = u.source_poll_ms
        FROM ${rows.source('u', DEVICE_SOURCE, values)}
        WHERE hardware_devices.id = u.id AND (hardware_devices.source_at IS NULL OR hardware_devices.source_at <= u.source_at)`.execute(db);
    },

    /**
     * Makes each device's ports exactly its list; a port a device keeps
     * reporting keeps its UUID; `stpAlerts` (by stpKey) is each port's open
     * spanning-tree alert, none when left out. A port listed exactly as
     * stored is left as it is (observed_at: the report that set its state).
     * (NOT IN, not a correlated NOT EXISTS: SQLite evaluates the list once,
     * where it would scan it for every row.)
     */
    async replacePorts(lists: readonly DeviceList<PortReport>[], newUuid: () => string, stpAlerts: ReadonlyMap<string, StpAlert | null> = new Map()): Promise<void> {
      if (lists.length === 0) return;
      const keep = lists.flatMap((l) => l.items.map((p) => ({ device_id: l.deviceId, port_number: p.portNumber })));
      await sql`DELETE FROM device_ports
        WHERE ${dialect.inValues('hardware_device_id', 'bigint', lists.map((l) => l.deviceId))}
          AND (hardware_device_id, port_number) NOT IN (SELECT device_id, port_number FROM ${rows.source('k', PORT_KEYS, keep)})`.execute(db);
      const ports = lists.flatMap((l) =>
        l.items.map((p) => ({
          uuid: newUuid(),
          hardware_device_id: l.deviceId,
          port_number: p.portNumber,
          label: p.label,
          port_type: p.portType,
          is_enabled: p.isEnabled,
          is_connected: p.isConnected,
          is_uplink: p.isUplink,
          is_uplink_active: p.isUplinkActive,
          is_trunk_port: p.isTrunkPort,
          port_speed_mbps: p.portSpeedMbps,
          native_vlan_id: p.nativeVLANID,
          observed_at: l.observedAt,
          lldp_chassis_id: p.lldpNeighbor?.chassisID ?? null,
          lldp_port_id: p.lldpNeighbor?.portID ?? null,
          lldp_port_description: p.lldpNeighbor?.portDescription ?? null,
          lldp_system_name: p.lldpNeighbor?.systemName ?? null,
          stp_state: p.stpState,
          stp_alert: stpAlerts.get(stpKey(l.deviceId, p.portNumber)) ?? null,
        })),
      );
      await rows.insert('device_ports', PORTS, ports, sql`ON CONFLICT (hardware_device_id, port_number) DO UPDATE SET ${PORT_UPDATE} WHERE ${portChanged}`);
    },

    /** Makes each device's radios exactly its list. */
    async replaceRadios(lists: readonly DeviceList<RadioReport>[]): Promise<void> {
      await replaceDeviceRows('device_radios', RADIOS, lists, (r) => ({ bssid: r.bssid, radio_band: r.radioBand, ssid: r.ssid, is_active: r.isActive }));
    },

    /** The spanning-tree state and open alert of these devices' stored ports that have a state, by stpKey. */
    async portStpStates(deviceIds: readonly number[]): Promise<Map<string, PortStp>> {
      const states = new Map<string, PortStp>();
      if (deviceIds.length === 0) return states;
      const stored = await sql<{ hardware_device_id: number | string; port_number: number; stp_state: StpState; stp_alert: StpAlert | null }>`
        SELECT hardware_device_id, port_number, stp_state, stp_alert FROM device_ports
        WHERE ${dialect.inValues('hardware_device_id', 'bigint', deviceIds)} AND stp_state IS NOT NULL`.execute(db);
      for (const row of stored.rows) states.set(stpKey(Number(row.hardware_device_id), row.port_number), { state: row.stp_state, alert: row.stp_alert });
      return states;
    },

    /** Each of these devices' stored outlets: on or off and the energy counter, by outlet number. */
    async outletStates(deviceIds: readonly number[]): Promise<Map<number, Map<number, OutletState>>> {
      const states = new Map<number, Map<number, OutletState>>();
      if (deviceIds.length === 0) return states;
      const stored = await sql<{ hardware_device_id: number | string; outlet_number: number; is_on: boolean | number | null; energy_kwh: number | null }>`
        SELECT hardware_device_id, outlet_number, is_on, energy_kwh FROM pdu_outlets WHERE ${dialect.inValues('hardware_device_id', 'bigint', deviceIds)}`.execute(db);
      for (const row of stored.rows) {
        const device = Number(row.hardware_device_id);
        const outlets = states.get(device) ?? new Map<number, OutletState>();
        outlets.set(row.outlet_number, { isOn: row.is_on === null ? null : row.is_on === true || row.is_on === 1, energyKWh: row.energy_kwh === null ? null : Number(row.energy_kwh) });
        states.set(device, outlets);
      }
      return states;
    },

    /** Makes each PDU's outlets exactly its list, as of `observedAt`. */
    async replaceOutlets(lists: readonly DeviceList<OutletReport>[]): Promise<void> {
      await replaceDeviceRows('pdu_outlets', OUTLETS, lists, (o) => ({
        outlet_number: o.outletNumber,
        label: o.label,
        is_on: o.isOn,
        current_amps: o.currentAmps,
        power_watts: o.powerWatts,
        voltage_volts: o.voltageVolts,
        energy_kwh: o.energyKWh,
      }));
    },

    /**
     * Makes each switch's MAC table its request's latest list and records
     * the intervals its entries were on their ports (switch_mac_history),
     * writing only what changed (report.mac-table.ts steps through every
     * list of the request): the stored tables are read (one indexed
     * statement), entries no longer listed are deleted, new ones inserted
     * with the time of the list that first had them, and one that moved to
     * another port takes the new port and time; an entry that stays where it
     * was keeps its row and its updated_at. The history gets one upsert: the
     * intervals opened, and those closed (found by the key they opened with).
     * A table is up to thousands of rows that rarely change, reported every
     * half minute: an unchanged one costs the read alone. (The devices' rows
     * are locked by ingest first, so nothing writes their tables between
     * read and write.)
     */
    async replaceMacTables(lists: readonly MacTableSets[]): Promise<void> {
      if (lists.length === 0) return;
      // updated_at as the store's text: it only names the interval to close (cast back by the upsert), and PostgreSQL's
      // timestamps as ISO strings cost a parse each, thousands of them per unchanged table
      const stored = await sql<StoredMacEntry>`
        SELECT hardware_device_id, mac_address, vlan_id, port_number, CAST(updated_at AS text) AS updated_at FROM switch_mac_entries
        WHERE ${dialect.inValues('hardware_device_id', 'bigint', lists.map((l) => l.deviceId))}`.execute(db);
      const { changed, gone, history } = macTableChanges(lists, stored.rows);
      if (gone.length > 0) {
        await sql`DELETE FROM switch_mac_entries
          WHERE ${dialect.inValues('hardware_device_id', 'bigint', [...new Set(gone.map((r) => Number(r.hardware_device_id)))])}
            AND (hardware_device_id, mac_address, vlan_id) IN (SELECT hardware_device_id, mac_address, vlan_id FROM ${rows.source('g', MAC_ENTRIES.slice(0, 3), gone)})`.execute(db);
      }
      await rows.insert('switch_mac_entries', MAC_ENTRIES, changed, sql`ON CONFLICT (hardware_device_id, mac_address, vlan_id) DO UPDATE SET ${takeExcluded(['port_number', 'updated_at'])}`);
      await rows.insert(
        'switch_mac_history',
        MAC_HISTORY,
        history,
        sql`ON CONFLICT (hardware_device_id, mac_address, vlan_id, first_seen_at) DO UPDATE SET ${takeExcluded(['port_number', 'gone_at'])}`,
      );
    },
  };
}
