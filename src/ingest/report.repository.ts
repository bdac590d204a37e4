import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { RowColumn, SqlDialect } from '../db/dialect.js';
import type { SqlContext } from '../db/store.js';
import type { Database } from '../db/tables.js';
import type { EventTable } from '../features/event/event.tables.js';
import { createReportClientRepository } from './report-clients.repository.js';
import { createRowWriter, takeExcluded } from './report-rows.repository.js';
import type { RowValues } from './report-rows.repository.js';
import { createReportStateRepository } from './report-state.repository.js';
import { createReportAlertRepository } from './report-alerts.repository.js';
import { createCounterTierRepository } from './counter-tiers.repository.js';
import type { CounterRollupKey } from './counter-tiers.repository.js';
import { CLIENT_AVERAGED_METRICS, RADIO_UTILIZATION_METRICS, UPLINK_METRICS } from '../kernel/telemetry.js';
import type { ClientBandChange, ClientTierPlace, StoredClientRollup } from './report.client-tiers.js';
import { BULK_COLUMNS, CLIENT_BAND_TIER, CLIENT_METRIC_ROLLUPS, CLIENT_ROLLUP_SPAN, CLIENT_SNR_TIER, COUNTER_ROLLUPS, DNS_COUNTER_ROLLUPS, OUTLET_ROLLUPS, RADIO_ROLLUPS, RECEIPTS, REPORT_ROLLUPS, RESOURCE_ROLLUPS, TEMPERATURE_ROLLUPS, UPLINK_ROLLUPS } from './report.columns.js';

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
  /** The CPU load the device's reports left (HIGH_CPU_USAGE compares with it); null when none. */
  readonly cpuPercent: number | null;
}

/**
 * The tiers of counts and sums (migrations 0032 and 0044), named
 * `<base>_hourly` and `<base>_daily`, with their columns: the 5-minute
 * rollups' own, and the client metric rollups' SNR and band tiers.
 */
type SumTiered = 'radio_rollups' | 'pdu_outlet_rollups' | 'device_temperature_rollups' | 'client_snr_rollups' | 'client_band_rollups';
const SUM_TIERED_COLUMNS: Readonly<Record<SumTiered, readonly RowColumn[]>> = {
  radio_rollups: RADIO_ROLLUPS,
  pdu_outlet_rollups: OUTLET_ROLLUPS,
  device_temperature_rollups: TEMPERATURE_ROLLUPS,
  client_snr_rollups: CLIENT_SNR_TIER,
  client_band_rollups: CLIENT_BAND_TIER,
};

/** The columns of a client metric rollup that place it in a tier row (migration 0036). */
const CLIENT_TIER_PLACE = 'hardware_device_id, mac_address, bucket, network_id, is_wireless, radio_band';

/**
 * The clients one device listed in one bucket of a network, by kind: a row
 * of a presence tier (migration 0043), its MAC addresses as sets.
 */
export interface PresenceSet {
  readonly network_id: number;
  readonly bucket: number;
  readonly hardware_device_id: number;
  readonly wireless: Set<string>;
  readonly wired: Set<string>;
}

/** The client presence rollups and their tiers (migration 0043). */
type PresenceTable = 'client_presence_set_rollups' | 'client_presence_set_rollups_hourly' | 'client_presence_set_rollups_daily';

/** Tables ingest appends to in bulk. */
type BulkTable = keyof typeof BULK_COLUMNS;

const bool = (value: unknown): boolean => value === true || value === 1;

/** The keys of counter rollups an upsert returned, as numbers (the store may return ids and buckets as text). */
const changedKeys = (returned: readonly Record<string, unknown>[]): CounterRollupKey[] =>
  returned.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, Number(value)])) as CounterRollupKey);

/** The SQL of device reports: the write side of ingest, the offline checker and retention. */
export function createReportRepository({ db }: SqlContext, dialect: SqlDialect) {
  /** The SET of an uplink rollup upsert into `table`: counts and sums add up, min and max widen. */
  const uplinkSums = (table: string) =>
    sql.raw(
      UPLINK_METRICS.flatMap((m) => [
        `${m}_count = ${table}.${m}_count + excluded.${m}_count`,
        `${m}_sum = ${table}.${m}_sum + excluded.${m}_sum`,
        `${m}_min = ${dialect.least(`${table}.${m}_min`, `excluded.${m}_min`)}`,
        `${m}_max = ${dialect.greatest(`${table}.${m}_max`, `excluded.${m}_max`)}`,
      ]).join(', '),
    );

  const rows = createRowWriter(db, dialect);
  /** Upserts rows of counts and sums into `table` of `columns` (the key columns, then the counts and sums, which add up). */
  const addSums = async (table: keyof Database, columns: readonly RowColumn[], values: readonly RowValues[]) => {
    const keys = columns.filter(([name]) => !name.endsWith('_count') && !name.endsWith('_sum')).map(([name]) => name);
    const set = columns.filter(([name]) => !keys.includes(name)).map(([name]) => `${name} = ${table}.${name} + excluded.${name}`);
    const tail = sql`ON CONFLICT (${sql.raw(keys.join(', '))}) DO UPDATE SET ${sql.raw(set.join(', '))}`;
    await rows.insert(table, columns, values, tail);
  };
  return {
    ...createReportClientRepository(db, dialect),
    ...createReportStateRepository(db, dialect),
    ...createReportAlertRepository(db),
    ...createCounterTierRepository(db, dialect),

    /** When the latest report of any of the company's devices with these serial numbers was observed; null when none has reported. */
    async latestReportAt(companyId: number, serials: readonly string[]): Promise<string | null> {
      if (serials.length === 0) return null;
      const row = await db
        .selectFrom('hardware_devices')
        .select((eb) => eb.fn.max('last_seen_at').as('latest'))
        .where('company_id', '=', companyId)
        .where('serial_number', 'in', serials)
        .executeTakeFirst();
      return row?.latest ?? null;
    },

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
          'h.cpu_percent as cpuPercent',
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
        cpuPercent: row.cpuPercent === null ? null : Number(row.cpuPercent),
      }));
    },

    /** Stores receipts; returns the report ids that were new (the others are duplicates of stored reports). */
    async insertReceipts(receipts: readonly Insertable<Database['report_receipts']>[]): Promise<Set<string>> {
      const tail = sql`ON CONFLICT (company_id, report_id) DO NOTHING RETURNING report_id`;
      const inserted = await rows.insert<{ report_id: string }>('report_receipts', RECEIPTS, receipts, tail);
      return new Set(inserted.map((row) => row.report_id));
    },

    /** The IDS/IPS mode of each of these networks that has one configured (IDS or IPS), by network id. */
    async idsIpsModes(networkIds: readonly number[]): Promise<Map<number, string>> {
      if (networkIds.length === 0) return new Map();
      const found = await db.selectFrom('ids_ips_configs').select(['network_id', 'mode']).where('network_id', 'in', networkIds).execute();
      return new Map(found.map((row) => [row.network_id, row.mode]));
    },

    /** Appends rows, all in one statement. */
    async insertMany<T extends Exclude<BulkTable, 'client_presence_set_rollups'>>(table: T, values: readonly Insertable<Database[T]>[]): Promise<void> {
      await rows.insert(table, BULK_COLUMNS[table], values as readonly RowValues[]);
    },

    /**
     * Adds samples to their 5-minute rollups: counts and sums add up, min and
     * max widen. Returns each row's key with the network its stored row holds
     * (that of the bucket's first sample), which the tiers fold under.
     */
    async upsertUplinkRollups(values: readonly Insertable<Database['uplink_rollups']>[]): Promise<StoredUplinkRollup[]> {
      const tail = sql`ON CONFLICT (hardware_device_id, port_number, bucket) DO UPDATE SET ${uplinkSums('uplink_rollups')}
        RETURNING network_id, hardware_device_id, port_number, bucket`;
      return rows.insert<StoredUplinkRollup>('uplink_rollups', UPLINK_ROLLUPS, values as readonly RowValues[], tail);
    },

    /** Adds 5-minute rollups folded by foldUplinkTier to the rows of their hourly or daily tier (migration 0030), as upsertUplinkRollups does. */
    async upsertUplinkTier(table: 'uplink_rollups_hourly' | 'uplink_rollups_daily', values: readonly Insertable<Database['uplink_rollups']>[]): Promise<void> {
      const tail = sql`ON CONFLICT (hardware_device_id, port_number, bucket, network_id) DO UPDATE SET ${uplinkSums(table)}`;
      await rows.insert(table, UPLINK_ROLLUPS, values as readonly RowValues[], tail);
    },

    /**
     * Adds samples to the sums and counts of their 5-minute rollups
     * (pdu_outlet_rollups, device_temperature_rollups): `columns` are the
     * key columns, then the count and sum columns, which add up.
     */
    async upsertSumRollups(table: 'pdu_outlet_rollups' | 'device_temperature_rollups', values: readonly RowValues[]): Promise<void> {
      await addSums(table, table === 'pdu_outlet_rollups' ? OUTLET_ROLLUPS : TEMPERATURE_ROLLUPS, values);
    },

    /**
     * Adds 5-minute rows folded by coarsenSums to the rows of their hourly or
     * daily tier (migrations 0032 and 0044): counts and sums add up.
     */
    async upsertSumTier(table: `${SumTiered}_${'hourly' | 'daily'}`, values: readonly RowValues[]): Promise<void> {
      const base = table.replace(/_(hourly|daily)$/, '') as SumTiered;
      await addSums(table, SUM_TIERED_COLUMNS[base], values);
    },

    /**
     * Keeps each port's last counter reading per bucket. Returns the keys of
     * the rows it added or changed: a reading no later than its bucket's
     * changes nothing, nor the tiers folded from the bucket.
     */
    async upsertCounterRollups(values: readonly Insertable<Database['port_counter_rollups']>[]): Promise<CounterRollupKey[]> {
      const tail = sql`ON CONFLICT (hardware_device_id, port_number, bucket) DO UPDATE SET ${takeExcluded(COUNTER_ROLLUPS.slice(3).map(([n]) => n))}
        WHERE port_counter_rollups.observed_at < excluded.observed_at RETURNING hardware_device_id, port_number, bucket`;
      return changedKeys(await rows.insert('port_counter_rollups', COUNTER_ROLLUPS, values as readonly RowValues[], tail));
    },

    /**
     * Adds client samples to their 5-minute rollups: sums and counts add up, the later sample's last values win, the
     * earlier first sample stays first, and the byte growth adds up (report.rows.ts folds a request's samples alike).
     */
    async upsertClientMetricRollups(values: readonly Insertable<Database['client_metric_rollups']>[]): Promise<ClientTierPlace[]> {
      const t = 'client_metric_rollups';
      const later = `excluded.observed_at >= ${t}.observed_at`;
      const span = new Set(CLIENT_ROLLUP_SPAN.map(([column]) => column));
      const set = CLIENT_METRIC_ROLLUPS.slice(3)
        .filter(([column]) => !span.has(column))
        .map(([column]) =>
          column.endsWith('_sum') || column.endsWith('_count')
            ? `${column} = ${t}.${column} + excluded.${column}`
            : `${column} = CASE WHEN ${later} THEN excluded.${column} ELSE ${t}.${column} END`,
        );
      // the growth of both spans, and between them when one follows the other (samples of the two interleaved: not)
      const between = (from: string, fromFirst: boolean, to: string, toFirst: boolean, counter: 'rx' | 'tx') => {
        const at = (row: string, first: boolean, c: 'rx' | 'tx') => `${row}.${first ? 'first_' : ''}${c}_bytes`;
        return (
          `CASE WHEN ${at(to, toFirst, counter)} IS NULL OR ${at(from, fromFirst, counter)} IS NULL THEN 0 ` +
          `WHEN ${at(to, toFirst, 'rx')} < ${at(from, fromFirst, 'rx')} OR ${at(to, toFirst, 'tx')} < ${at(from, fromFirst, 'tx')} THEN ${at(to, toFirst, counter)} ` +
          `ELSE ${at(to, toFirst, counter)} - ${at(from, fromFirst, counter)} END`
        );
      };
      for (const counter of ['rx', 'tx'] as const) {
        set.push(
          `${counter}_growth = ${t}.${counter}_growth + excluded.${counter}_growth + CASE WHEN excluded.first_observed_at >= ${t}.observed_at ` +
            `THEN ${between(t, false, 'excluded', true, counter)} WHEN excluded.observed_at <= ${t}.first_observed_at ` +
            `THEN ${between('excluded', false, t, true, counter)} ELSE 0 END`,
        );
      }
      for (const column of ['first_observed_at', 'first_rx_bytes', 'first_tx_bytes']) {
        set.push(`${column} = CASE WHEN excluded.first_observed_at < ${t}.first_observed_at THEN excluded.${column} ELSE ${t}.${column} END`);
      }
      const tail = sql`ON CONFLICT (hardware_device_id, mac_address, bucket) DO UPDATE SET ${sql.raw(set.join(', '))} RETURNING ${sql.raw(CLIENT_TIER_PLACE)}`;
      return rows.insert<ClientTierPlace>(t, CLIENT_METRIC_ROLLUPS, values as readonly RowValues[], tail);
    },

    /**
     * The stored 5-minute client metric rollups of these rows' devices and
     * buckets (a superset of their keys), with what places them in a tier
     * and their counts and sums: read before upsertClientMetricRollups, so
     * the tiers can move a row whose last sample changed its place. The
     * devices' rows are locked (lockDevices), so nothing changes in between.
     */
    async storedClientMetricRollups(values: readonly Insertable<Database['client_metric_rollups']>[]): Promise<StoredClientRollup[]> {
      if (values.length === 0) return [];
      const sums = CLIENT_AVERAGED_METRICS.flatMap((m) => [`${m}_count`, `${m}_sum`]).join(', ');
      const devices = [...new Set(values.map((v) => v.hardware_device_id))];
      const buckets = [...new Set(values.map((v) => v.bucket))];
      const found = await sql<StoredClientRollup>`SELECT ${sql.raw(`${CLIENT_TIER_PLACE}, ${sums}`)} FROM client_metric_rollups
        WHERE ${dialect.inValues('hardware_device_id', 'bigint', devices)} AND ${dialect.inValues('bucket', 'bigint', buckets)}`.execute(db);
      return found.rows;
    },

    /**
     * Deletes the rows of a client band tier (migration 0044) that no
     * 5-minute row is left in, among those of these networks, clients and
     * buckets (a row moved out of each): a superset of the rows changed, but
     * every other row holds at least one.
     */
    async dropEmptyClientBands(table: 'client_band_rollups_hourly' | 'client_band_rollups_daily', left: readonly ClientBandChange[]): Promise<void> {
      if (left.length === 0) return;
      const distinct = <T>(values: T[]) => [...new Set(values)];
      await sql`DELETE FROM ${sql.table(table)} WHERE ${dialect.inValues('network_id', 'bigint', distinct(left.map((row) => row.network_id)))}
        AND ${dialect.inValues('mac_address', 'text', distinct(left.map((row) => row.mac_address)))}
        AND ${dialect.inValues('bucket', 'bigint', distinct(left.map((row) => row.bucket)))} AND row_count <= 0`.execute(db);
    },

    /** Adds radio samples to their 5-minute rollups: counts and sums add up. */
    async upsertRadioRollups(values: readonly Insertable<Database['radio_rollups']>[]): Promise<void> {
      const set = RADIO_UTILIZATION_METRICS.flatMap((m) => [
        `${m}_count = radio_rollups.${m}_count + excluded.${m}_count`,
        `${m}_sum = radio_rollups.${m}_sum + excluded.${m}_sum`,
      ]);
      const tail = sql`ON CONFLICT (hardware_device_id, radio_band, bucket) DO UPDATE SET ${sql.raw(set.join(', '))}`;
      await rows.insert('radio_rollups', RADIO_ROLLUPS, values as readonly RowValues[], tail);
    },

    /** Keeps each controller's last DNS counter reading per bucket. */
    async upsertDnsRollups(values: readonly Insertable<Database['dns_counter_rollups']>[]): Promise<CounterRollupKey[]> {
      const tail = sql`ON CONFLICT (hardware_device_id, bucket) DO UPDATE SET ${takeExcluded(DNS_COUNTER_ROLLUPS.slice(2).map(([n]) => n))}
        WHERE dns_counter_rollups.observed_at < excluded.observed_at RETURNING hardware_device_id, bucket`;
      return changedKeys(await rows.insert('dns_counter_rollups', DNS_COUNTER_ROLLUPS, values as readonly RowValues[], tail));
    },

    /** Adds resource samples to their 5-minute rollups, or those folded by coarsenSums to their hourly or daily tier (migration 0031): counts and sums add up. */
    async upsertResourceRollups(
      values: readonly Insertable<Database['resource_rollups']>[],
      table: 'resource_rollups' | 'resource_rollups_hourly' | 'resource_rollups_daily' = 'resource_rollups',
    ): Promise<void> {
      await addSums(table, RESOURCE_ROLLUPS, values as readonly RowValues[]);
    },

    /** Adds to the networks' report counts per bucket. */
    async upsertReportRollups(
      values: readonly { network_id: number; bucket: number; report_count: number }[],
      table: 'report_rollups' | 'report_rollups_hourly' | 'report_rollups_daily' = 'report_rollups',
    ): Promise<void> {
      const tail = sql`ON CONFLICT (network_id, bucket) DO UPDATE SET report_count = ${sql.raw(table)}.report_count + excluded.report_count`;
      await rows.insert(table, REPORT_ROLLUPS, values, tail);
    },

    /**
     * Adds the clients of presence sets to the 5-minute rows or their hourly
     * or daily tier (migration 0043): a row takes the union of its MAC
     * addresses and the set's, and is left as it is when it holds them all.
     * Returns the sets that were new or added to their row, for the next
     * tier: a client already in its row is in its coarser rows.
     */
    async upsertPresence(table: PresenceTable, sets: readonly PresenceSet[]): Promise<PresenceSet[]> {
      const elements = (json: string, alias: string) => dialect.jsonTextRows(json, alias);
      const union = (column: string) =>
        `${column} = coalesce(${dialect.jsonArray(dialect.jsonString('u.value'), `(SELECT o.value FROM ${elements(`${table}.${column}`, 'o')} UNION SELECT n.value FROM ${elements(`excluded.${column}`, 'n')}) u`, 'u.value')}, '[]')`;
      const holds = (column: string) =>
        `NOT EXISTS (SELECT 1 FROM ${elements(`excluded.${column}`, 'n')} WHERE n.value NOT IN (SELECT o.value FROM ${elements(`${table}.${column}`, 'o')}))`;
      const tail = sql.raw(
        `ON CONFLICT (network_id, bucket, hardware_device_id) DO UPDATE SET ${union('wireless_macs')}, ${union('wired_macs')} ` +
          `WHERE NOT (${holds('wireless_macs')} AND ${holds('wired_macs')}) RETURNING network_id, bucket, hardware_device_id`,
      );
      const values = sets.map((set) => ({
        network_id: set.network_id,
        bucket: set.bucket,
        hardware_device_id: set.hardware_device_id,
        wireless_macs: JSON.stringify([...set.wireless].sort()),
        wired_macs: JSON.stringify([...set.wired].sort()),
      }));
      const changed = await rows.insert<{ network_id: unknown; bucket: unknown; hardware_device_id: unknown }>(table, BULK_COLUMNS.client_presence_set_rollups, values, tail);
      // ids and buckets may come back as text
      const keys = new Set(changed.map((row) => `${Number(row.network_id)}/${Number(row.bucket)}/${Number(row.hardware_device_id)}`));
      return sets.filter((set) => keys.has(`${set.network_id}/${set.bucket}/${set.hardware_device_id}`));
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

    /**
     * Deletes up to `limit` rows whose `column` is below `before`; returns how
     * many went. `via`: an indexed column never above `column`, whose index
     * finds the candidates where `column` has none.
     */
    async deleteBatch(table: keyof Database, column: string, before: string | number, limit: number, via?: string): Promise<number> {
      const locator = sql.raw(dialect.rowLocator);
      const also = via === undefined ? sql`` : sql`${sql.ref(via)} < ${before} AND `;
      const result = await sql`DELETE FROM ${sql.table(table)} WHERE (${locator}) IN (SELECT ${locator} FROM ${sql.table(table)} WHERE ${also}${sql.ref(column)} < ${before} LIMIT ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

/** The stored network of a 5-minute uplink rollup row, as its upsert returns it: the network of the row's first sample. */
export interface StoredUplinkRollup {
  readonly network_id: number | string | null;
  readonly hardware_device_id: number | string;
  readonly port_number: number;
  readonly bucket: number | string;
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
