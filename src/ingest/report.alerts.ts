import type { EventRow } from './report.repository.js';
import { eventRow } from './report.rows.js';
import type { FreshReport } from './report.rows.js';
import type { ForeignApContext, ForeignApKind } from './report-alerts.repository.js';

/** HIGH_CPU_USAGE fires when a device's reported CPU goes above this many percent (docs/alerts.md). */
export const HIGH_CPU_PERCENT = 90;

/** The reports of a batch in the order they were observed (then as sent). */
const byObservedAt = (fresh: readonly FreshReport[]): FreshReport[] =>
  fresh.map((f, i) => ({ f, i })).sort((a, b) => a.f.report.observedAt.localeCompare(b.f.report.observedAt) || a.i - b.i).map(({ f }) => f);

/**
 * A HIGH_CPU_USAGE event for each report whose `cpuPercent` is above
 * HIGH_CPU_PERCENT when the device's value before it (stored before the
 * batch, then each earlier report of the batch in observedAt order) was not:
 * once per crossing, not on every report while it stays high. A report
 * without `cpuPercent` changes nothing; null clears the value (the next high
 * one fires again).
 */
export function highCpuEvents(companyId: number, fresh: readonly FreshReport[]): EventRow[] {
  const previous = new Map<number, number | null>();
  const events: EventRow[] = [];
  for (const { report, device } of byObservedAt(fresh)) {
    const cpu = report.cpuPercent;
    if (cpu === undefined) continue;
    const before = previous.has(device.id) ? (previous.get(device.id) ?? null) : device.cpuPercent;
    previous.set(device.id, cpu);
    if (cpu === null || cpu <= HIGH_CPU_PERCENT || (before !== null && before > HIGH_CPU_PERCENT)) continue;
    const details = JSON.stringify({ cpuPercent: cpu, thresholdPercent: HIGH_CPU_PERCENT, previousCpuPercent: before });
    events.push(eventRow(companyId, device, 'HIGH_CPU_USAGE', report.observedAt, details, 'netgraph'));
  }
  return events;
}

/** A foreign BSSID heard in a report that a rule selects, and the event it becomes when it is a new detection. */
export interface ForeignApCandidate {
  readonly networkId: number;
  readonly kind: ForeignApKind;
  readonly bssid: string;
  readonly observedAt: string;
  readonly event: EventRow;
}

/** The event type of each rule's detection (Meter's EventType names). */
const DETECTED: Readonly<Record<ForeignApKind, string>> = { ROGUE: 'ROGUE_ACCESS_POINT_DETECTED', HONEYPOT: 'HONEYPOT_ACCESS_POINT_DETECTED' };

/** The networks whose devices' reports carry foreign BSSIDs. */
export const networksWithForeignBssids = (fresh: readonly FreshReport[]): number[] => [
  ...new Set(fresh.flatMap(({ report, device }) => ((report.foreignBSSIDs?.length ?? 0) > 0 && device.networkId !== null ? [device.networkId] : []))),
];

/**
 * The foreign BSSIDs of the reports that the rules of docs/security.md
 * select, in observedAt order, each as the event of the reporting access
 * point it becomes if new: not one of the network's own BSSIDs, and either
 * on the wire (ROGUE: a MAC address the network's switches learned, none of
 * its devices', agrees with it in the first five octets) or named like one
 * of the network's SSIDs (HONEYPOT). A BSSID may be both.
 */
export function foreignApCandidates(companyId: number, fresh: readonly FreshReport[], contexts: ReadonlyMap<number, ForeignApContext>): ForeignApCandidate[] {
  const out: ForeignApCandidate[] = [];
  for (const { report, device } of byObservedAt(fresh)) {
    const context = device.networkId === null ? undefined : contexts.get(device.networkId);
    if (context === undefined || device.networkId === null) continue;
    for (const heard of report.foreignBSSIDs ?? []) {
      if (context.ownBssids.has(heard.bssid)) continue;
      const kinds: ForeignApKind[] = [];
      if (context.wiredMacs.some((mac) => mac.slice(0, 14) === heard.bssid.slice(0, 14))) kinds.push('ROGUE');
      if (heard.ssid !== null && context.ssids.has(heard.ssid)) kinds.push('HONEYPOT');
      for (const kind of kinds) {
        const details = JSON.stringify({ bssid: heard.bssid, ssid: heard.ssid, rssi: heard.rssi, channel: heard.channel });
        out.push({ networkId: device.networkId, kind, bssid: heard.bssid, observedAt: report.observedAt, event: eventRow(companyId, device, DETECTED[kind], report.observedAt, details, 'netgraph') });
      }
    }
  }
  return out;
}
