import type { Insertable } from 'kysely';
import type { Database } from '../db/tables.js';
import type { FreshReport } from './report.rows.js';

/** The rows of the security series (migration 0021) from the reports stored by one request. */
export interface SecurityRows {
  readonly idsDetections: Insertable<Database['ids_detections']>[];
  readonly foreignBssids: Insertable<Database['foreign_bssid_observations']>[];
}

/**
 * The networks whose devices' reports carry IDS/IPS detections: the ones
 * whose IDS/IPS mode ingest looks up (securityRows' `idsIpsModes`).
 */
export const networksWithDetections = (fresh: readonly FreshReport[]): number[] => [
  ...new Set(fresh.flatMap(({ report, device }) => ((report.idsDetections?.length ?? 0) > 0 && device.networkId !== null ? [device.networkId] : []))),
];

/**
 * Each detection and each foreign BSSID of a report as a row of its network
 * and virtual device (the reporter's when the report came). A detection is
 * an IPS event when its network's IDS/IPS mode (`idsIpsModes`, by network
 * id, read in the request's transaction) is IPS, else an IDS event: with
 * mode IDS, or none configured, nothing stopped the traffic (docs/security.md).
 * A device assigned to no network has nowhere to show them: they are not kept.
 */
export function securityRows(fresh: readonly FreshReport[], idsIpsModes: ReadonlyMap<number, string>): SecurityRows {
  const rows: SecurityRows = { idsDetections: [], foreignBssids: [] };
  for (const { report, device } of fresh) {
    const networkId = device.networkId;
    if (networkId === null) continue;
    const of = { network_id: networkId, hardware_device_id: device.id, virtual_device_id: device.virtualDeviceId };
    const mode = idsIpsModes.get(networkId) === 'IPS' ? 'IPS' : 'IDS';
    for (const d of report.idsDetections ?? []) {
      rows.idsDetections.push({
        ...of,
        observed_at: d.observedAt,
        mode,
        src_ip: d.srcIP,
        dst_ip: d.dstIP,
        protocol: d.protocol,
        src_port: d.srcPort,
        dst_port: d.dstPort,
        direction: d.direction,
        signature: d.signature,
      });
    }
    for (const b of report.foreignBSSIDs ?? []) {
      rows.foreignBssids.push({ ...of, observed_at: report.observedAt, bssid: b.bssid, ssid: b.ssid, rssi: b.rssi, channel: b.channel });
    }
  }
  return rows;
}
