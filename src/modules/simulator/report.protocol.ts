/**
 * The device report protocol of `POST /api/v1/reports` (docs/reports.md), as
 * the simulator sends it. A contract: fields may be added, never renamed.
 */

/** `portType` values. */
export type PortType = 'COPPER' | 'SFP' | 'CELLULAR' | 'WIRELESS';
/** `radioBand` values. */
export type RadioBand = 'BAND_2_4G' | 'BAND_5G' | 'BAND_6G';

/** Traffic counters of a port, cumulative since the device booted. */
export interface PortCounters {
  readonly rxBytes: number;
  readonly txBytes: number;
  readonly rxPackets: number;
  readonly txPackets: number;
  readonly rxErrors: number;
  readonly txErrors: number;
}

/** One port of a device, as it is at the report's `observedAt`. */
export interface PortReport {
  readonly portNumber: number;
  readonly label: string;
  readonly portType: PortType;
  readonly isEnabled: boolean;
  readonly isConnected: boolean;
  readonly isUplink: boolean;
  readonly isUplinkActive: boolean;
  readonly isTrunkPort: boolean;
  readonly portSpeedMbps: number;
  readonly nativeVLANID: number;
  readonly counters: PortCounters;
  /** Issue 30: the LLDP neighbour the port sees; null when none. */
  readonly lldpNeighbor?: LldpNeighbor | null;
}

/** Issue 30: the LLDP advertisement a port receives: the neighbour's chassis id, port id and description, system name. */
export interface LldpNeighbor {
  readonly chassisID: string;
  readonly portID: string | null;
  readonly portDescription: string | null;
  readonly systemName: string | null;
}

/** One measurement of an uplink port; latency and jitter are null while the link is down. */
export interface UplinkSample {
  readonly portNumber: number;
  readonly observedAt: string;
  readonly latencyMs: number | null;
  readonly jitterMs: number | null;
  readonly lossPercent: number;
  readonly rxBitsPerSecond: number;
  readonly txBitsPerSecond: number;
}

/** One BSSID: a band of a radio broadcasting one SSID. */
export interface RadioReport {
  readonly BSSID: string;
  readonly radioBand: RadioBand;
  readonly ssid: string;
  readonly isActive: boolean;
}

/** One client the device sees; `signal` and `ssid` are null for wired clients, `portNumber` for wireless ones. */
export interface ClientReport {
  readonly macAddress: string;
  readonly ip: string;
  readonly hostname: string;
  readonly isWireless: boolean;
  readonly signal: number | null;
  readonly vlanID: number;
  readonly ssid: string | null;
  readonly portNumber: number | null;
}

/** An entry of a switch's MAC forwarding table: frames for `macAddress` in `vlanID` (null: no VLANs) go out of `portNumber`. */
export interface MacTableEntry {
  readonly macAddress: string;
  readonly vlanID: number | null;
  readonly portNumber: number;
}

/** Something that happened on the device; `type` is an upper-case name. */
export interface EventReport {
  readonly type: string;
  readonly observedAt: string;
  readonly details: Readonly<Record<string, string | number | boolean>>;
}

/** One device at one moment. Only `reportId`, `serialNumber` and `observedAt` are required. */
export interface Report {
  readonly reportId: string;
  readonly serialNumber: string;
  readonly observedAt: string;
  readonly uptimeSeconds?: number;
  readonly macAddress?: string;
  /** Issue 30: CPU load in percent (0 to 100) and memory in bytes. */
  readonly cpuPercent?: number | null;
  readonly memoryUsedBytes?: number | null;
  readonly memoryTotalBytes?: number | null;
  readonly interfaces?: readonly PortReport[];
  readonly uplinkSamples?: readonly UplinkSample[];
  readonly radios?: readonly RadioReport[];
  readonly clients?: readonly ClientReport[];
  readonly events?: readonly EventReport[];
  /** A switch's complete MAC table at `observedAt`, replacing the one reported before. */
  readonly macTable?: readonly MacTableEntry[];
}

/** A report the server refused, with the server's reason. */
export interface RejectedReport {
  readonly reportId: string;
  readonly serialNumber: string;
  readonly code: string;
  readonly path: string;
  readonly message: string;
}

/** What the server answered for a number of reports, summed over batches. */
export interface SendResult {
  readonly accepted: number;
  readonly duplicates: number;
  readonly rejected: readonly RejectedReport[];
}

/** A time in the protocol's format: RFC 3339 in UTC, whole seconds (`2026-11-24T10:00:00Z`). */
export function formatTime(seconds: number): string {
  return new Date(Math.floor(seconds) * 1000).toISOString().replace('.000Z', 'Z');
}
