import { isOnlineAt } from '../kernel/online.js';
import type { ClientSet } from './report-clients.repository.js';
import type { DeviceList, DeviceSource, DeviceUpdate, OutletState } from './report-state.repository.js';
import type { DeviceRow, EventRow } from './report.repository.js';
import { eventRow, readingKey } from './report.rows.js';
import type { FreshReport } from './report.rows.js';
import type { MacTableSets } from './report.mac-table.js';
import type { DeviceReport, OutletReport, PortReport, RadioReport } from './report.protocol.js';
import type { PortSets } from './report.stp.js';

/** What one request's stored reports change of their devices' latest state, to be written table by table. */
export interface StatePlan {
  readonly updates: { readonly id: number; readonly update: DeviceUpdate }[];
  readonly ports: DeviceList<PortReport>[];
  readonly radios: DeviceList<RadioReport>[];
  readonly clientSets: ClientSet[];
  /** Switches' MAC forwarding tables: every newer report's table in observedAt order, the last of which the switch keeps. */
  readonly macTables: MacTableSets[];
  /** PDUs' outlets: every newer report's set in observedAt order, the last of which the device keeps. */
  readonly outlets: OutletSets[];
  /** Ports with a spanning-tree state: every newer report's list in observedAt order (report.stp.ts compares them). */
  readonly stpPorts: PortSets[];
  /** DEVICE_ONLINE and DEVICE_OFFLINE events of the transitions these reports make. */
  readonly transitions: EventRow[];
}

/**
 * Works out, device by device in id order, the devices' latest state and
 * online state after these reports (`at` is now, in ms).
 */
export function planState(companyId: number, fresh: readonly FreshReport[], at: number, offlineMs: number): StatePlan {
  const byDevice = new Map<number, { device: DeviceRow; reports: DeviceReport[] }>();
  for (const { report, device } of fresh) {
    const group = byDevice.get(device.id) ?? { device, reports: [] };
    group.reports.push(report);
    byDevice.set(device.id, group);
  }
  const plan: StatePlan = { updates: [], ports: [], radios: [], clientSets: [], macTables: [], outlets: [], stpPorts: [], transitions: [] };
  for (const { device, reports } of [...byDevice.values()].sort((a, b) => a.device.id - b.device.id)) {
    reports.sort((a, b) => (a.observedAt < b.observedAt ? -1 : a.observedAt > b.observedAt ? 1 : 0));
    const update: DeviceUpdate = { ...onlineUpdate(companyId, device, reports, at, offlineMs, plan.transitions), ...latestState(device, reports, plan) };
    if (Object.values(update).some((value) => value !== undefined)) plan.updates.push({ id: device.id, update });
  }
  return plan;
}

/** A PDU's outlet sets of one request, each complete at its observedAt, oldest first. */
export interface OutletSets {
  readonly deviceId: number;
  readonly sets: readonly { readonly observedAt: string; readonly items: readonly OutletReport[] }[];
}

/** An outlet switched on or off between two of its PDU's reports. */
export interface OutletSwitch {
  readonly deviceId: number;
  readonly outletNumber: number;
  readonly label: string | null;
  readonly isOn: boolean;
  readonly observedAt: string;
}

/** What consecutive outlet sets of PDUs tell: the outlets switched, and the energy each reading's outlet used since the one before. */
export interface OutletChanges {
  readonly switches: OutletSwitch[];
  /** kWh by readingKey: the counter's growth since the outlet's previous reading, the reading whole after a reset (a lower value). */
  readonly energyUsed: Map<string, number>;
}

/**
 * Compares consecutive sets of each PDU, the first with what is stored
 * (`stored`: by device id, each outlet's state by its number). An outlet is
 * switched only when both sets say whether it is on: a new outlet, or one
 * whose state is unknown on either side, switched nothing; likewise energy
 * is used only between two readings that both have the counter.
 */
export function outletChanges(lists: readonly OutletSets[], stored: ReadonlyMap<number, ReadonlyMap<number, OutletState>>): OutletChanges {
  const changes: OutletChanges = { switches: [], energyUsed: new Map() };
  for (const { deviceId, sets } of lists) {
    let known: ReadonlyMap<number, OutletState> = stored.get(deviceId) ?? new Map();
    for (const { observedAt, items } of sets) {
      const next = new Map<number, OutletState>();
      for (const o of items) {
        const before = known.get(o.outletNumber);
        if (o.isOn !== null && typeof before?.isOn === 'boolean' && before.isOn !== o.isOn) {
          changes.switches.push({ deviceId, outletNumber: o.outletNumber, label: o.label, isOn: o.isOn, observedAt });
        }
        if (o.energyKWh !== null && typeof before?.energyKWh === 'number') {
          changes.energyUsed.set(readingKey(deviceId, observedAt, o.outletNumber), o.energyKWh >= before.energyKWh ? o.energyKWh - before.energyKWh : o.energyKWh);
        }
        next.set(o.outletNumber, { isOn: o.isOn, energyKWh: o.energyKWh });
      }
      known = next;
    }
  }
  return changes;
}

/**
 * Splits client sets into rounds to merge one after the other: a set goes
 * one round after the last round holding a client it lists, so two sets
 * listing one client merge in id order, as if one device at a time; sets
 * that share no client merge together. Usually one round.
 */
export function clientRounds(sets: readonly ClientSet[]): ClientSet[][] {
  const lastRound = new Map<string, number>();
  const rounds: ClientSet[][] = [];
  for (const set of sets) {
    let round = 0;
    for (const c of set.items) round = Math.max(round, (lastRound.get(`${set.networkId}/${c.macAddress}`) ?? -1) + 1);
    for (const c of set.items) lastRound.set(`${set.networkId}/${c.macAddress}`, round);
    (rounds[round] ??= []).push(set);
  }
  return rounds;
}

/**
 * The device's last-seen time and online state after these reports (sorted
 * by observedAt). A report inside the offline window brings an offline
 * device online with DEVICE_ONLINE; a device imported online records
 * nothing; a stale report changes no online state. When the checker has not
 * yet recorded that the device fell silent, its DEVICE_OFFLINE comes first.
 */
function onlineUpdate(companyId: number, device: DeviceRow, reports: readonly DeviceReport[], at: number, offlineMs: number, events: EventRow[]): DeviceUpdate {
  const newest = reports[reports.length - 1]?.observedAt;
  if (newest === undefined) return {};
  const lastSeenAt = device.lastSeenAt !== null && device.lastSeenAt > newest ? device.lastSeenAt : newest;
  // stale: no online state changes, so a device that never reported keeps its imported state (last_seen_at stays NULL)
  if (!isOnlineAt(newest, at, offlineMs)) return device.lastSeenAt === null ? {} : { lastSeenAt };
  const marked = device.reportedOnline ?? device.isConnectedToBackend;
  const silent = device.lastSeenAt !== null && !isOnlineAt(device.lastSeenAt, at, offlineMs);
  if (marked && !silent) return { lastSeenAt, reportedOnline: true };
  if (marked && device.lastSeenAt !== null) {
    const fellSilentAt = new Date(Date.parse(device.lastSeenAt) + offlineMs).toISOString();
    events.push(eventRow(companyId, device, 'DEVICE_OFFLINE', fellSilentAt, null, 'netgraph'));
  }
  events.push(eventRow(companyId, device, 'DEVICE_ONLINE', newest, null, 'netgraph'));
  return { lastSeenAt, reportedOnline: true };
}

/**
 * The reports newer than the device's stored state decide it: each section
 * ends as the newest report that has it says; older reports change none of
 * it. Adds the device's lists to `plan` and returns its row's columns.
 */
function latestState(device: DeviceRow, reports: readonly DeviceReport[], plan: StatePlan): DeviceUpdate {
  const newer = reports.filter((r) => device.stateObservedAt === null || r.observedAt > device.stateObservedAt);
  const newest = newer[newer.length - 1];
  if (newest === undefined) return {};
  const latest = <K extends keyof DeviceReport>(key: K): DeviceReport | undefined => newer.findLast((r) => r[key] !== undefined);
  const ports = latest('interfaces');
  if (ports?.interfaces) plan.ports.push({ deviceId: device.id, observedAt: ports.observedAt, items: ports.interfaces });
  const radios = latest('radios');
  if (radios?.radios) plan.radios.push({ deviceId: device.id, observedAt: radios.observedAt, items: radios.radios });
  const clients = latest('clients');
  if (clients?.clients && device.networkId !== null) {
    plan.clientSets.push({ networkId: device.networkId, deviceId: device.id, observedAt: clients.observedAt, items: clients.clients });
  }
  const macSets = newer.flatMap((r) => (r.macTable == null ? [] : [{ observedAt: r.observedAt, items: r.macTable }]));
  if (macSets.length > 0) plan.macTables.push({ deviceId: device.id, sets: macSets });
  const outletSets = newer.flatMap((r) => (r.outlets === undefined ? [] : [{ observedAt: r.observedAt, items: r.outlets }]));
  if (outletSets.length > 0) plan.outlets.push({ deviceId: device.id, sets: outletSets });
  const portSets = newer.flatMap((r) => (r.interfaces === undefined ? [] : [{ observedAt: r.observedAt, items: r.interfaces }]));
  if (portSets.some((set) => set.items.some((p) => p.stpState !== null))) plan.stpPorts.push({ deviceId: device.id, sets: portSets });
  const uptime = latest('uptimeSeconds');
  const mac = latest('macAddress');
  const cpu = latest('cpuPercent');
  const memoryUsed = latest('memoryUsedBytes');
  const memoryTotal = latest('memoryTotalBytes');
  return {
    stateObservedAt: newest.observedAt,
    ...(uptime ? { uptimeSeconds: uptime.uptimeSeconds ?? null } : {}),
    ...(mac ? { macAddress: mac.macAddress ?? null } : {}),
    ...(cpu ? { cpuPercent: cpu.cpuPercent ?? null } : {}),
    ...(memoryUsed ? { memoryUsedBytes: memoryUsed.memoryUsedBytes ?? null } : {}),
    ...(memoryTotal ? { memoryTotalBytes: memoryTotal.memoryTotalBytes ?? null } : {}),
  };
}

/** True for a collector's report of a poll that failed: it says nothing of the device but why it could not be read. */
export function isFailedPoll(report: DeviceReport): boolean {
  return report.poll != null && report.poll.error !== null;
}

/** Each device's source from its newest report of the request: COLLECTOR with the poll's outcome, or REPORTS; `name` the posting key's label. */
export function planSources(fresh: readonly FreshReport[], name: string): DeviceSource[] {
  const newest = new Map<number, DeviceReport>();
  for (const { report, device } of fresh) {
    const other = newest.get(device.id);
    if (other === undefined || report.observedAt >= other.observedAt) newest.set(device.id, report);
  }
  return [...newest].map(([id, report]) => ({
    id,
    kind: report.poll == null ? 'REPORTS' : 'COLLECTOR',
    name,
    observedAt: report.observedAt,
    pollError: report.poll?.error ?? null,
    pollMs: report.poll?.durationMs ?? null,
  }));
}
