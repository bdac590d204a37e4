import { DEFAULT_OFFLINE_AFTER_SECONDS, onlineSince } from '../kernel/online.js';
import { randomUUID } from 'node:crypto';
import type { IngestConfig } from '../config.js';
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { clientTierChanges } from './report.client-tiers.js';
import { dropPartitionsBefore, ensureDailyPartitions } from './partitions.repository.js';
import type { Store } from '../db/store.js';
import type { Caller } from '../kernel/caller.js';
import { listingsOf } from './report-clients.repository.js';
import { createReportRepository } from './report.repository.js';
import type { ReportRepository } from './report.repository.js';
import { buildSeriesRows, clientTierFolds, coarsenPresence, coarsenReportCounts, coarsenSums, eventRow, foldUplinkTier } from './report.rows.js';
import { networksWithDetections, securityRows } from './report.security.js';
import { foreignApCandidates, highCpuEvents, networksWithForeignBssids } from './report.alerts.js';
import type { FreshReport } from './report.rows.js';
import type { EventRow } from './report.repository.js';
import type { ForeignApContext } from './report-alerts.repository.js';
import type { Rejection } from './report.parse.js';
import { MAX_CLOCK_AHEAD_MS } from './report.limits.js';
import type { DeviceReport } from './report.protocol.js';
import { DAILY_SECONDS, HOURLY_SECONDS, RAW_SERIES_TABLES, RETENTION_DEFAULTS } from '../kernel/telemetry.js';
import { stpChanges } from './report.stp.js';
import { clientRounds, isFailedPoll, outletChanges, planSources, planState } from './report.state.js';
import { recordDeviceTransitions } from '../platform/changes/changes.record.js';

/** The answer to a batch of reports: how many were stored, how many were retries, and why the others were refused. */
export interface IngestResult {
  readonly accepted: number;
  readonly duplicates: number;
  readonly rejected: readonly Rejection[];
}

/**
 * The figures of one ingested batch for the metrics: the answer's counts and,
 * per accepted report, its lag (the commit's time minus its observedAt, in
 * seconds, at least 0: a clock ahead of the server's is no negative lag).
 */
export interface IngestFigures extends IngestResult {
  readonly lagSeconds: readonly number[];
}

/** What the report service needs of the configuration. */
export type ReportSettings = Pick<IngestConfig, 'offlineAfterSeconds' | 'rawRetentionHours' | 'rollupRetentionDays' | 'hourlyRetentionDays' | 'dailyRetentionDays' | 'eventRetentionDays'>;

/** The defaults of IngestConfig, for processes without a server config (the CLI, unit tests). */
export const DEFAULT_REPORT_SETTINGS: ReportSettings = { offlineAfterSeconds: DEFAULT_OFFLINE_AFTER_SECONDS, ...RETENTION_DEFAULTS };

/** How far ahead day partitions are made: a missed day or two of maintenance still finds its partition. */
const PARTITIONS_AHEAD_MS = 2 * 86_400_000;

const UNKNOWN_SERIAL = 'No hardware device with this serial number belongs to the company of this API key.';

/**
 * Device reports: ingest (docs/reports.md), the offline checker and the
 * reads the GraphQL layer publishes. `now` is the clock of every rule that
 * looks at time (the observedAt window, online and offline, retention).
 */
export function createReportService(store: Store, settings: ReportSettings, now: () => Date = () => new Date()) {
  const offlineMs = settings.offlineAfterSeconds * 1000;
  const preparePartitions = async (): Promise<void> => {
    if (!store.dialect.partitionsByTime) return;
    const at = now().getTime();
    for (const table of RAW_SERIES_TABLES) {
      await ensureDailyPartitions(store.db as Kysely<unknown>, table, at - settings.rawRetentionHours * 3_600_000, at + PARTITIONS_AHEAD_MS);
    }
  };

  return {
    /** When the latest report of any of the company's devices with these serial numbers was observed (the live demo's backfill starts there); null when none has reported. */
    async latestReportAt(companyId: number, serials: readonly string[]): Promise<string | null> {
      return createReportRepository(store, store.dialect).latestReportAt(companyId, serials);
    },

    /**
     * Validates and stores a batch for the caller's company, in one
     * transaction that resolves only once committed. Each report is stored
     * whole or refused whole; a reportId stored before is a duplicate and
     * changes nothing. `observe` gets the batch's figures once committed;
     * `refused` holds reports the transport refused already (by index), which
     * are answered as such and not read.
     */
    async ingest(
      caller: Caller,
      reports: readonly unknown[],
      observe?: (figures: IngestFigures) => void,
      refused: ReadonlyMap<number, Rejection> = new Map(),
    ): Promise<IngestResult> {
      // loaded on the first report (server.ts loads it at start): the compiled protocol check is a few hundred modules that no CLI command needs
      const { isRejection, parseReport } = await import('./report.parse.js');
      const at = now().getTime();
      const window = { earliest: at - settings.rawRetentionHours * 3_600_000, latest: at + MAX_CLOCK_AHEAD_MS };
      const rejected: Rejection[] = [];
      const valid: { index: number; report: DeviceReport }[] = [];
      reports.forEach((value, index) => {
        const parsed = refused.get(index) ?? parseReport(value, index, window);
        if (isRejection(parsed)) rejected.push(parsed);
        else valid.push({ index, report: parsed });
      });
      // read committed: the devices' rows are locked first, in id order, and every other write has its own conditions
      const outcome = await store.lockingTransaction(async (tx) => {
        const repository = createReportRepository(tx, store.dialect);
        const devices = await repository.lockDevices(caller.companyId, [...new Set(valid.map((v) => v.report.serialNumber))]);
        const bySerial = new Map(devices.map((d) => [d.serialNumber, d]));
        const known: FreshReport[] = [];
        const unknown: Rejection[] = [];
        for (const { index, report } of valid) {
          const device = bySerial.get(report.serialNumber);
          if (device === undefined) unknown.push({ index, code: 'UNAUTHORIZED', path: `reports[${index}].serialNumber`, message: UNKNOWN_SERIAL });
          else known.push({ report, device });
        }
        const fresh = await storeReceipts(repository, caller.companyId, known, new Date(at).toISOString());
        const transitions = await applyReports(repository, caller, fresh, at, offlineMs);
        // the change feed's ONLINE/OFFLINE, in the same transaction as the events (docs/changes.md)
        await recordDeviceTransitions(tx, transitions);
        return { accepted: fresh.length, duplicates: known.length - fresh.length, unknown, observedAt: fresh.map((f) => f.report.observedAt) };
      });
      rejected.push(...outcome.unknown);
      rejected.sort((a, b) => a.index - b.index);
      const result = { accepted: outcome.accepted, duplicates: outcome.duplicates, rejected };
      if (observe !== undefined) {
        const committed = now().getTime();
        observe({ ...result, lagSeconds: outcome.observedAt.map((at) => Math.max(0, (committed - Date.parse(at)) / 1000)) });
      }
      return result;
    },

    /**
     * Marks devices silent for longer than the offline window offline and
     * records DEVICE_OFFLINE for each, once across every process (on
     * PostgreSQL one runner at a time holds an advisory lock; the state
     * change is conditional, so a late second runner finds nothing).
     * Returns how many devices went offline.
     */
    async checkOffline(): Promise<number> {
      const cutoff = onlineSince(now().getTime(), offlineMs);
      return store.transaction(async (tx) => {
        const repository = createReportRepository(tx, store.dialect);
        if (!(await repository.tryCheckerLock())) return 0;
        const silent = await repository.markOffline(cutoff);
        const events = silent.map((d) =>
          eventRow(d.companyId, d, 'DEVICE_OFFLINE', new Date(Date.parse(d.lastSeenAt) + offlineMs).toISOString(), null, 'netgraph'),
        );
        await repository.insertMany('events', events);
        await recordDeviceTransitions(tx, events);
        return silent.length;
      });
    },

    /** PostgreSQL: makes the day partitions of the raw series from the retention's start to two days ahead; a no-op on SQLite. */
    preparePartitions,

    /**
     * Deletes what is past its retention, `batchSize` rows per statement,
     * each statement on its own so ingest and reads wait at most for one
     * batch. On PostgreSQL the raw series are partitioned by day: partitions
     * for the coming days are made here, and whole days past the retention
     * dropped (each counting as one); the batches then take the rest.
     * Returns how many rows (or partitions) went.
     */
    async expire(batchSize = 5_000): Promise<number> {
      const at = now().getTime();
      const raw = new Date(at - settings.rawRetentionHours * 3_600_000).toISOString();
      const rollup = Math.floor((at - settings.rollupRetentionDays * 86_400_000) / 1000);
      const history = new Date(at - settings.eventRetentionDays * 86_400_000).toISOString();
      const hourly = Math.floor((at - settings.hourlyRetentionDays * 86_400_000) / 1000);
      const daily = Math.floor((at - settings.dailyRetentionDays * 86_400_000) / 1000);
      const targets = [
        ...RAW_SERIES_TABLES.map((table) => [table, 'observed_at', raw] as const),
        ['report_receipts', 'observed_at', raw],
        // the MAC tables' intervals that ended before the raw series' start (migration 0038): no window of the scans reaches them
        ['switch_mac_history', 'gone_at', raw],
        ['uplink_rollups', 'bucket', rollup],
        ['uplink_rollups_hourly', 'bucket', hourly],
        ['uplink_rollups_daily', 'bucket', daily],
        ['client_presence_set_rollups', 'bucket', rollup],
        ['client_presence_set_rollups_hourly', 'bucket', hourly],
        ['client_presence_set_rollups_daily', 'bucket', daily],
        ['report_rollups_hourly', 'bucket', hourly],
        ['report_rollups_daily', 'bucket', daily],
        ['port_counter_rollups', 'bucket', rollup],
        ['client_metric_rollups', 'bucket', rollup],
        ['radio_rollups', 'bucket', rollup],
        ['dns_counter_rollups', 'bucket', rollup],
        ['resource_rollups', 'bucket', rollup],
        ['resource_rollups_hourly', 'bucket', hourly],
        ['resource_rollups_daily', 'bucket', daily],
        ['report_rollups', 'bucket', rollup],
        ['pdu_outlet_rollups', 'bucket', rollup],
        ['device_temperature_rollups', 'bucket', rollup],
        // the tiers of migration 0032
        ['radio_rollups_hourly', 'bucket', hourly],
        ['radio_rollups_daily', 'bucket', daily],
        ['pdu_outlet_rollups_hourly', 'bucket', hourly],
        ['pdu_outlet_rollups_daily', 'bucket', daily],
        ['device_temperature_rollups_hourly', 'bucket', hourly],
        ['device_temperature_rollups_daily', 'bucket', daily],
        // the client metric tiers of migration 0044
        ['client_snr_rollups_hourly', 'bucket', hourly],
        ['client_snr_rollups_daily', 'bucket', daily],
        ['client_band_rollups_hourly', 'bucket', hourly],
        ['client_band_rollups_daily', 'bucket', daily],
        // the counter tiers of migration 0035
        ['port_counter_rollups_hourly', 'bucket', hourly],
        ['port_counter_rollups_daily', 'bucket', daily],
        ['dns_counter_rollups_hourly', 'bucket', hourly],
        ['dns_counter_rollups_daily', 'bucket', daily],
        ['events', 'observed_at', history],
        ['client_connection_events', 'observed_at', history],
        ['changes', 'changed_at', history],
        // found by first_seen, which is never updated (migration 0045: an index on last_seen, which every report
        // updates, made every session's update a new entry in each of the table's indexes); first_seen <= last_seen
        ['client_sessions', 'last_seen', history, 'first_seen'],
      ] as const;
      const repository = createReportRepository({ db: store.db }, store.dialect);
      let deleted = 0;
      await preparePartitions();
      if (store.dialect.partitionsByTime) {
        for (const table of RAW_SERIES_TABLES) deleted += await dropPartitionsBefore(store.db as Kysely<unknown>, table, Date.parse(raw));
      }
      for (const [table, column, before, via] of targets) {
        for (;;) {
          const count = await repository.deleteBatch(table, column, before, batchSize, via);
          deleted += count;
          if (count < batchSize) break;
          // let requests waiting behind this batch run before the next
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      return deleted;
    },
  };
}

export type ReportService = ReturnType<typeof createReportService>;

/**
 * Adds a batch's client metric rollups to the 5-minute rows and to the
 * hourly and daily SNR and band tiers (migration 0044): the batch's changes
 * (clientTierChanges), read against the 5-minute rows as they were, folded
 * per tier (clientTierFolds), one upsert per table; then the band rows a
 * 5-minute row moved out of, if left empty, go (a band row stands for at
 * least one 5-minute row).
 */
async function upsertClientMetrics(repository: ReportRepository, rollups: readonly Insertable<Database['client_metric_rollups']>[]): Promise<void> {
  const stored = await repository.storedClientMetricRollups(rollups);
  const changes = clientTierChanges(rollups, stored, await repository.upsertClientMetricRollups(rollups));
  for (const [tier, seconds] of [['hourly', HOURLY_SECONDS], ['daily', DAILY_SECONDS]] as const) {
    const { snr, bands } = clientTierFolds(changes, seconds);
    await repository.upsertSumTier(`client_snr_rollups_${tier}`, snr);
    await repository.upsertSumTier(`client_band_rollups_${tier}`, bands);
    await repository.dropEmptyClientBands(`client_band_rollups_${tier}`, bands.filter((row) => row.row_count < 0));
  }
}

/**
 * Stores the receipts of the known reports and returns those that are new:
 * the first of a reportId in the batch, when no earlier request stored it.
 */
async function storeReceipts(repository: ReportRepository, companyId: number, known: readonly FreshReport[], receivedAt: string): Promise<FreshReport[]> {
  const first = new Map<string, FreshReport>();
  for (const entry of known) if (!first.has(entry.report.reportId)) first.set(entry.report.reportId, entry);
  const stored = await repository.insertReceipts(
    [...first.values()].map(({ report, device }) => ({
      company_id: companyId,
      report_id: report.reportId,
      hardware_device_id: device.id,
      observed_at: report.observedAt,
      received_at: receivedAt,
    })),
  );
  return [...first.values()].filter((entry) => stored.has(entry.report.reportId));
}

/**
 * Applies stored reports: the devices' latest and online state, then every
 * time series and event; each kind of row in one statement for the whole
 * request (clients in rounds, see clientRounds). Returns the online/offline
 * transitions recorded as events.
 */
async function applyReports(repository: ReportRepository, caller: Caller, all: readonly FreshReport[], at: number, offlineMs: number) {
  const companyId = caller.companyId;
  await repository.updateSources(planSources(all, caller.label));
  // a failed poll's report is the device's source alone: not seen, no state, no series
  const fresh = all.filter((f) => !isFailedPoll(f.report));
  const plan = planState(companyId, fresh, at, offlineMs);
  // the spanning-tree events, against the ports as stored: the devices' rows are locked, so one transaction at a time sees each change
  const stp = plan.stpPorts.length === 0 ? undefined : stpChanges(plan.stpPorts, await repository.portStpStates(plan.stpPorts.map((p) => p.deviceId)));
  await repository.replacePorts(plan.ports, randomUUID, stp?.alerts);
  await repository.replaceRadios(plan.radios);
  await repository.replaceMacTables(plan.macTables);
  const outlets = outletChanges(plan.outlets, await repository.outletStates(plan.outlets.map((o) => o.deviceId)));
  await repository.replaceOutlets(plan.outlets.map(({ deviceId, sets }) => ({ deviceId, ...(sets[sets.length - 1] as (typeof sets)[number]) })));
  const listings = listingsOf(plan.clientSets);
  for (const round of clientRounds(plan.clientSets)) await repository.mergeClientSets(round, listings);
  await repository.updateDevices(plan.updates);
  const rows = buildSeriesRows(companyId, fresh, outlets.energyUsed);
  await repository.insertMany('uplink_samples', rows.uplinkSamples);
  await repository.insertMany('port_counters', rows.portCounters);
  await repository.insertMany('client_observation_sets', rows.clientObservationSets);
  await repository.insertMany('client_connection_events', rows.connectionEvents);
  const storedUplink = await repository.upsertUplinkRollups(rows.uplinkRollups);
  // the tiers, folded here rather than by a periodic task: a report may arrive up to the raw retention late, and this costs two upserts of a few rows
  await repository.upsertUplinkTier('uplink_rollups_hourly', foldUplinkTier(rows.uplinkRollups, storedUplink, HOURLY_SECONDS));
  await repository.upsertUplinkTier('uplink_rollups_daily', foldUplinkTier(rows.uplinkRollups, storedUplink, DAILY_SECONDS));
  // the counter tiers (migration 0035): each hour and day of the 5-minute rows the batch changed folded again from the finer rows
  await repository.foldCounterTiers('port_counter_rollups', await repository.upsertCounterRollups(rows.counterRollups));
  await upsertClientMetrics(repository, rows.clientMetricRollups);
  await repository.upsertReportRollups(rows.reportRollups);
  // activeClients' tiers: distinct clients per hour and day, and the buckets with reports. A client already
  // counted in its 5-minute row is counted in its hour's row, and one counted there in its day's (the tiers were
  // filled from the 5-minute rows, and are kept longer), so only the sets that added to the finer tier go on to the next.
  const newInBucket = await repository.upsertPresence('client_presence_set_rollups', rows.clientPresence);
  const newInHour = await repository.upsertPresence('client_presence_set_rollups_hourly', coarsenPresence(newInBucket, HOURLY_SECONDS));
  await repository.upsertPresence('client_presence_set_rollups_daily', coarsenPresence(newInHour, DAILY_SECONDS));
  await repository.upsertReportRollups(coarsenReportCounts(rows.reportRollups, HOURLY_SECONDS), 'report_rollups_hourly');
  await repository.upsertReportRollups(coarsenReportCounts(rows.reportRollups, DAILY_SECONDS), 'report_rollups_daily');
  await repository.insertMany('radio_samples', rows.radioSamples);
  await repository.upsertRadioRollups(rows.radioRollups);
  // the tiers of the radio, outlet and temperature rollups (migration 0032): one upsert per tier, of the batch's rows folded
  await repository.upsertSumTier('radio_rollups_hourly', coarsenSums(rows.radioRollups, HOURLY_SECONDS));
  await repository.upsertSumTier('radio_rollups_daily', coarsenSums(rows.radioRollups, DAILY_SECONDS));
  await repository.insertMany('dns_counters', rows.dnsCounters);
  await repository.foldCounterTiers('dns_counter_rollups', await repository.upsertDnsRollups(rows.dnsRollups));
  await repository.insertMany('resource_samples', rows.resourceSamples);
  await repository.upsertResourceRollups(rows.resourceRollups);
  // the CPU and memory tiers (migration 0031), folded as the uplink ones: one upsert per tier
  await repository.upsertResourceRollups(coarsenSums(rows.resourceRollups, HOURLY_SECONDS), 'resource_rollups_hourly');
  await repository.upsertResourceRollups(coarsenSums(rows.resourceRollups, DAILY_SECONDS), 'resource_rollups_daily');
  await repository.insertMany('pdu_outlet_samples', rows.outletSamples);
  await repository.upsertSumRollups('pdu_outlet_rollups', rows.outletRollups);
  await repository.upsertSumTier('pdu_outlet_rollups_hourly', coarsenSums(rows.outletRollups, HOURLY_SECONDS));
  await repository.upsertSumTier('pdu_outlet_rollups_daily', coarsenSums(rows.outletRollups, DAILY_SECONDS));
  await repository.insertMany('device_temperature_samples', rows.temperatureSamples);
  await repository.upsertSumRollups('device_temperature_rollups', rows.temperatureRollups);
  await repository.upsertSumTier('device_temperature_rollups_hourly', coarsenSums(rows.temperatureRollups, HOURLY_SECONDS));
  await repository.upsertSumTier('device_temperature_rollups_daily', coarsenSums(rows.temperatureRollups, DAILY_SECONDS));
  const security = securityRows(fresh, await repository.idsIpsModes(networksWithDetections(fresh)));
  await repository.insertMany('ids_detections', security.idsDetections);
  await repository.insertMany('foreign_bssid_observations', security.foreignBssids);
  const devices = new Map(fresh.map(({ device }) => [device.id, device]));
  const outletEvents = outlets.switches.flatMap((o) => {
    const device = devices.get(o.deviceId);
    const details = JSON.stringify({ outletNumber: o.outletNumber, label: o.label, isOn: o.isOn });
    return device === undefined ? [] : [eventRow(companyId, device, 'PDU_OUTLET_STATUS_CHANGED', o.observedAt, details, 'netgraph')];
  });
  const stpEvents = (stp?.events ?? []).flatMap((e) => {
    const device = devices.get(e.deviceId);
    return device === undefined ? [] : [eventRow(companyId, device, e.type, e.observedAt, JSON.stringify(e.details), 'netgraph')];
  });
  const alerts = [...highCpuEvents(companyId, fresh), ...stpEvents, ...(await foreignApEvents(repository, companyId, fresh))];
  await repository.insertMany('events', [...rows.events, ...plan.transitions, ...outletEvents, ...alerts]);
  return plan.transitions;
}

/**
 * The ROGUE_ACCESS_POINT_DETECTED and HONEYPOT_ACCESS_POINT_DETECTED events
 * of the reports' foreign BSSIDs: those a rule selects that its network had
 * not had selected in the 24 hours before (claimed in the request's
 * transaction, once across processes; docs/alerts.md).
 */
async function foreignApEvents(repository: ReportRepository, companyId: number, fresh: readonly FreshReport[]): Promise<EventRow[]> {
  const networks = networksWithForeignBssids(fresh);
  if (networks.length === 0) return [];
  const contexts = new Map<number, ForeignApContext>();
  for (const networkId of networks) contexts.set(networkId, await repository.foreignApContext(networkId));
  const events: EventRow[] = [];
  for (const candidate of foreignApCandidates(companyId, fresh, contexts)) {
    if (await repository.claimForeignAp(candidate.networkId, candidate.kind, candidate.bssid, candidate.observedAt)) events.push(candidate.event);
  }
  return events;
}
