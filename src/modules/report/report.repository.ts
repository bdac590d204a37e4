import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { SqlDialect } from '../../db/dialect.js';
import type { SqlContext } from '../../db/store.js';
import { chunks } from './report.rows.js';
import type { Database, EventTable } from '../../db/tables.js';
import { createReportClientRepository } from './report-clients.repository.js';
import type { PortReport, RadioReport } from './report.schema.js';

/** A reporting device as ingest sees it, with the network of the virtual device it is assigned to. */
export interface DeviceRow {
  readonly id: number;
  readonly serialNumber: string;
  readonly virtualDeviceId: number | null;
  readonly networkId: number | null;
  readonly lastSeenAt: string | null;
  readonly reportedOnline: boolean | null;
  readonly isConnectedToBackend: boolean;
  readonly stateObservedAt: string | null;
}

/** What a device's newest report changes of the device row; undefined leaves a column as it is. */
export interface DeviceUpdate {
  readonly lastSeenAt?: string;
  readonly reportedOnline?: boolean;
  readonly uptimeSeconds?: number | null;
  readonly macAddress?: string | null;
  readonly stateObservedAt?: string;
}

/** Tables ingest appends to in bulk. */
type BulkTable = 'uplink_samples' | 'port_counters' | 'client_observations' | 'client_presence_rollups' | 'events' | 'report_receipts';

const bool = (value: unknown): boolean => value === true || value === 1;

/** The SQL of device reports: the write side of ingest, the offline checker and retention. */
export function createReportRepository({ db }: SqlContext, dialect: SqlDialect) {
  return {
    ...createReportClientRepository({ db }),

    /**
     * The company's devices with these serial numbers, in id order; on
     * PostgreSQL their rows stay locked until the transaction ends, always
     * taken in that order so concurrent batches cannot deadlock.
     */
    async lockDevices(companyId: number, serials: readonly string[]): Promise<DeviceRow[]> {
      if (serials.length === 0) return [];
      let query = db
        .selectFrom('hardware_devices as h')
        .leftJoin('virtual_devices as v', 'v.id', 'h.virtual_device_id')
        .select([
          'h.id',
          'h.serial_number as serialNumber',
          'h.virtual_device_id as virtualDeviceId',
          'v.network_id as networkId',
          'h.last_seen_at as lastSeenAt',
          'h.reported_online as reportedOnline',
          'h.is_connected_to_backend as isConnectedToBackend',
          'h.state_observed_at as stateObservedAt',
        ])
        .where('h.company_id', '=', companyId)
        .where('h.serial_number', 'in', serials)
        .orderBy('h.id');
      if (dialect.rowLocks) query = query.forUpdate('h');
      const rows = await query.execute();
      return rows.map((row) => ({
        ...row,
        reportedOnline: row.reportedOnline === null ? null : bool(row.reportedOnline),
        isConnectedToBackend: bool(row.isConnectedToBackend),
      }));
    },

    /** Stores receipts; returns the report ids that were new (the others are duplicates of stored reports). */
    async insertReceipts(rows: readonly Insertable<Database['report_receipts']>[]): Promise<Set<string>> {
      const stored = new Set<string>();
      for (const chunk of chunks(rows, 6)) {
        const inserted = await db
          .insertInto('report_receipts')
          .values(chunk)
          .onConflict((oc) => oc.columns(['company_id', 'report_id']).doNothing())
          .returning('report_id')
          .execute();
        for (const row of inserted) stored.add(row.report_id);
      }
      return stored;
    },

    async updateDevice(id: number, update: DeviceUpdate): Promise<void> {
      const set = {
        ...(update.lastSeenAt !== undefined ? { last_seen_at: update.lastSeenAt } : {}),
        ...(update.reportedOnline !== undefined ? { reported_online: update.reportedOnline } : {}),
        ...(update.uptimeSeconds !== undefined ? { uptime_seconds: update.uptimeSeconds } : {}),
        ...(update.macAddress !== undefined ? { mac_address: update.macAddress } : {}),
        ...(update.stateObservedAt !== undefined ? { state_observed_at: update.stateObservedAt } : {}),
      };
      if (Object.keys(set).length > 0) await db.updateTable('hardware_devices').set(set).where('id', '=', id).execute();
    },

    /** Makes the device's ports exactly `ports`; a port it keeps reporting keeps its UUID. */
    async replacePorts(deviceId: number, ports: readonly PortReport[], observedAt: string, newUuid: () => string): Promise<void> {
      let remove = db.deleteFrom('device_ports').where('hardware_device_id', '=', deviceId);
      if (ports.length > 0) remove = remove.where('port_number', 'not in', ports.map((p) => p.portNumber));
      await remove.execute();
      const rows = ports.map((p) => ({
        uuid: newUuid(),
        hardware_device_id: deviceId,
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
        observed_at: observedAt,
      }));
      for (const chunk of chunks(rows, 14)) {
        await db
          .insertInto('device_ports')
          .values(chunk)
          .onConflict((oc) =>
            oc.columns(['hardware_device_id', 'port_number']).doUpdateSet((eb) => ({
              label: eb.ref('excluded.label'),
              port_type: eb.ref('excluded.port_type'),
              is_enabled: eb.ref('excluded.is_enabled'),
              is_connected: eb.ref('excluded.is_connected'),
              is_uplink: eb.ref('excluded.is_uplink'),
              is_uplink_active: eb.ref('excluded.is_uplink_active'),
              is_trunk_port: eb.ref('excluded.is_trunk_port'),
              port_speed_mbps: eb.ref('excluded.port_speed_mbps'),
              native_vlan_id: eb.ref('excluded.native_vlan_id'),
              observed_at: eb.ref('excluded.observed_at'),
            })),
          )
          .execute();
      }
    },

    /** Makes the device's radios exactly `radios`. */
    async replaceRadios(deviceId: number, radios: readonly RadioReport[], observedAt: string): Promise<void> {
      await db.deleteFrom('device_radios').where('hardware_device_id', '=', deviceId).execute();
      if (radios.length === 0) return;
      await db
        .insertInto('device_radios')
        .values(
          radios.map((r) => ({
            hardware_device_id: deviceId,
            bssid: r.bssid,
            radio_band: r.radioBand,
            ssid: r.ssid,
            is_active: r.isActive,
            observed_at: observedAt,
          })),
        )
        .execute();
    },

    /** Appends rows, several per statement. */
    async insertMany<T extends BulkTable>(table: T, rows: readonly Insertable<Database[T]>[]): Promise<void> {
      if (rows.length === 0) return;
      const width = Object.keys(rows[0] as object).length;
      for (const chunk of chunks(rows, width)) {
        let insert = db.insertInto(table).values(chunk as never);
        // a client already counted in its bucket
        if (table === 'client_presence_rollups') insert = insert.onConflict((oc) => oc.doNothing());
        await insert.execute();
      }
    },

    /** Adds samples to their 5-minute rollups: counts and sums add up, min and max widen. */
    async upsertUplinkRollups(rows: readonly Insertable<Database['uplink_rollups']>[]): Promise<void> {
      for (const chunk of chunks(rows, 24)) {
        await db
          .insertInto('uplink_rollups')
          .values(chunk)
          .onConflict((oc) =>
            oc.columns(['hardware_device_id', 'port_number', 'bucket']).doUpdateSet(() => {
              const set: Record<string, unknown> = {};
              for (const metric of ['latency_ms', 'jitter_ms', 'loss_percent', 'rx_bps', 'tx_bps']) {
                set[`${metric}_count`] = sql.raw(`uplink_rollups.${metric}_count + excluded.${metric}_count`);
                set[`${metric}_sum`] = sql.raw(`uplink_rollups.${metric}_sum + excluded.${metric}_sum`);
                set[`${metric}_min`] = sql.raw(dialect.least(`uplink_rollups.${metric}_min`, `excluded.${metric}_min`));
                set[`${metric}_max`] = sql.raw(dialect.greatest(`uplink_rollups.${metric}_max`, `excluded.${metric}_max`));
              }
              return set as never;
            }),
          )
          .execute();
      }
    },

    /** Keeps each port's last counter reading per bucket. */
    async upsertCounterRollups(rows: readonly Insertable<Database['port_counter_rollups']>[]): Promise<void> {
      for (const chunk of chunks(rows, 11)) {
        await db
          .insertInto('port_counter_rollups')
          .values(chunk)
          .onConflict((oc) =>
            oc
              .columns(['hardware_device_id', 'port_number', 'bucket'])
              .doUpdateSet((eb) => ({
                observed_at: eb.ref('excluded.observed_at'),
                uptime_seconds: eb.ref('excluded.uptime_seconds'),
                rx_bytes: eb.ref('excluded.rx_bytes'),
                tx_bytes: eb.ref('excluded.tx_bytes'),
                rx_packets: eb.ref('excluded.rx_packets'),
                tx_packets: eb.ref('excluded.tx_packets'),
                rx_errors: eb.ref('excluded.rx_errors'),
                tx_errors: eb.ref('excluded.tx_errors'),
              }))
              .where('port_counter_rollups.observed_at', '<', (eb) => eb.ref('excluded.observed_at')),
          )
          .execute();
      }
    },

    /** Adds to the networks' report counts per bucket. */
    async upsertReportRollups(rows: readonly { network_id: number; bucket: number; report_count: number }[]): Promise<void> {
      for (const chunk of chunks(rows, 3)) {
        await db
          .insertInto('report_rollups')
          .values(chunk)
          .onConflict((oc) =>
            oc.columns(['network_id', 'bucket']).doUpdateSet({
              report_count: sql`report_rollups.report_count + excluded.report_count`,
            }),
          )
          .execute();
      }
    },

    /**
     * Marks the devices silent since before `cutoff` offline, and returns
     * them. The UPDATE's own condition makes this exactly once: a second
     * runner, or one after a report arrived, finds nothing to change.
     */
    async markOffline(cutoff: string): Promise<OfflineRow[]> {
      const rows = await db
        .updateTable('hardware_devices')
        .set({ reported_online: false })
        .where(sql<boolean>`coalesce(reported_online, is_connected_to_backend)`, '=', true)
        .where('last_seen_at', '<', cutoff)
        .returning(['id', 'company_id as companyId', 'virtual_device_id as virtualDeviceId', 'last_seen_at as lastSeenAt'])
        .execute();
      if (rows.length === 0) return [];
      const networks = await db
        .selectFrom('virtual_devices')
        .select(['id', 'network_id'])
        .where('id', 'in', rows.flatMap((r) => (r.virtualDeviceId === null ? [] : [r.virtualDeviceId])).concat([-1]))
        .execute();
      const networkOf = new Map(networks.map((n) => [n.id, n.network_id]));
      return rows.map((r) => ({
        ...r,
        lastSeenAt: r.lastSeenAt ?? cutoff,
        networkId: r.virtualDeviceId === null ? null : (networkOf.get(r.virtualDeviceId) ?? null),
      }));
    },

    /**
     * True when this transaction holds the offline checker's lock (PostgreSQL:
     * an advisory lock released at commit); SQLite's single writer is lock enough.
     */
    async tryCheckerLock(): Promise<boolean> {
      if (!dialect.rowLocks) return true;
      const result = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${OFFLINE_CHECK_LOCK}) AS locked`.execute(db);
      return result.rows[0]?.locked === true;
    },

    /** Deletes up to `limit` rows whose `column` is below `before`; returns how many went. */
    async deleteBatch(table: keyof Database, column: string, before: string | number, limit: number): Promise<number> {
      const locator = sql.raw(dialect.rowLocator);
      const result = await sql`DELETE FROM ${sql.table(table)} WHERE (${locator}) IN (SELECT ${locator} FROM ${sql.table(table)} WHERE ${sql.ref(column)} < ${before} LIMIT ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

/** The advisory lock key of the offline checker: any fixed number no other code uses. */
const OFFLINE_CHECK_LOCK = 4_815_162_342;

/** A device the offline checker found silent. */
export interface OfflineRow {
  readonly id: number;
  readonly companyId: number;
  readonly virtualDeviceId: number | null;
  readonly networkId: number | null;
  readonly lastSeenAt: string;
}

/** An event row ready to insert. */
export type EventRow = Insertable<EventTable>;

export type ReportRepository = ReturnType<typeof createReportRepository>;
