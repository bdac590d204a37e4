import type { PortType, RadioBand } from '../../ingest/report.limits.js';
import { between, createWave, formatMac, hash32, hashString, pick, unit } from './simulator.noise.js';
import type { Wave } from './simulator.noise.js';

/** The hardware device types the simulator knows. */
export const HARDWARE_TYPES = ['ACCESS_POINT', 'CELLULAR_GATEWAY', 'CONTROLLER', 'POWER_DISTRIBUTION_UNIT', 'SWITCH'] as const;
/** One of HARDWARE_TYPES. */
export type HardwareType = (typeof HARDWARE_TYPES)[number];

/** A port as built: fixed facts plus its traffic rates (bytes per second; undefined when nothing is plugged in). */
export interface PortSpec {
  readonly portNumber: number;
  readonly label: string;
  readonly portType: PortType;
  readonly speedMbps: number;
  readonly nativeVlanId: number;
  readonly isUplink: boolean;
  readonly isTrunk: boolean;
  readonly isConnected: boolean;
  /** 'primary' WAN ports carry the traffic, a 'backup' one only while the primary is down. */
  readonly wan: 'primary' | 'backup' | null;
  readonly rx: Wave | undefined;
  readonly tx: Wave | undefined;
  /** Errors per packet: zero on most ports. */
  readonly errorRate: number;
}

/** One BSSID an access point broadcasts. */
export interface RadioSpec {
  readonly bssid: string;
  readonly band: RadioBand;
  readonly ssid: string;
}

/** What a port builder needs to know of the device and its site. */
export interface PortContext {
  readonly key: number;
  /** The UTC second of the day when the site is busiest. */
  readonly peakSecond: number;
}

/** A port's traffic rates: `base` bytes per second received, a fraction of it sent. */
function traffic(context: PortContext, portNumber: number, base: number, txShare: number, daily = 0.6): Pick<PortSpec, 'rx' | 'tx'> {
  const scale = between(0.5, 1.5, context.key, 40, portNumber);
  return {
    rx: createWave(base * scale, daily, context.peakSecond, 0.3, hash32(context.key, 41, portNumber)),
    tx: createWave(base * scale * txShare, daily, context.peakSecond, 0.3, hash32(context.key, 42, portNumber)),
  };
}

function port(
  context: PortContext,
  fields: Omit<PortSpec, 'rx' | 'tx' | 'errorRate' | 'wan' | 'isTrunk' | 'nativeVlanId'> & Partial<Pick<PortSpec, 'wan' | 'isTrunk' | 'nativeVlanId'>>,
  base: number,
  txShare: number,
): PortSpec {
  const rates = fields.isConnected ? traffic(context, fields.portNumber, base, txShare) : { rx: undefined, tx: undefined };
  const errorRate = unit(context.key, 43, fields.portNumber) < 0.1 ? 2e-6 : 0;
  return { wan: null, isTrunk: false, nativeVlanId: 1, ...fields, ...rates, errorRate };
}

/** An access point's one uplink. */
export function accessPointPorts(context: PortContext): PortSpec[] {
  return [
    port(context, { portNumber: 1, label: 'Uplink', portType: 'COPPER', speedMbps: 2500, isUplink: true, isConnected: true, isTrunk: true }, 2e6, 0.3),
  ];
}

/**
 * A switch's ports: access ports 1..n-2 (those listed in `clientPorts`
 * connected, on that client's VLAN; those in `apPorts` connected to an access
 * point, trunks with native VLAN 1), and two SFP uplinks, the first active.
 */
export function switchPorts(context: PortContext, portCount: number, clientPorts: ReadonlyMap<number, number>, apPorts: ReadonlySet<number> = new Set()): PortSpec[] {
  const ports: PortSpec[] = [];
  for (let n = 1; n <= portCount - 2; n++) {
    const vlan = clientPorts.get(n);
    const ap = apPorts.has(n);
    ports.push(
      port(
        context,
        { portNumber: n, label: `Port ${n}`, portType: 'COPPER', speedMbps: 1000, isUplink: false, isConnected: vlan !== undefined || ap, isTrunk: ap, nativeVlanId: vlan ?? 1 },
        ap ? 2e6 : 1.5e5,
        0.4,
      ),
    );
  }
  ports.push(port(context, { portNumber: portCount - 1, label: 'SFP 1', portType: 'SFP', speedMbps: 10_000, isUplink: true, isConnected: true, isTrunk: true }, 4e6, 0.4));
  ports.push(port(context, { portNumber: portCount, label: 'SFP 2', portType: 'SFP', speedMbps: 10_000, isUplink: true, isConnected: false, isTrunk: true }, 0, 0));
  return ports;
}

/** A controller: two WAN ports (the second a backup) and four LAN ports, the first to the core switch. */
export function controllerPorts(context: PortContext): PortSpec[] {
  const wan = (portNumber: number, role: 'primary' | 'backup') =>
    port(context, { portNumber, label: `WAN ${portNumber}`, portType: 'COPPER', speedMbps: 1000, isUplink: true, isConnected: true, wan: role }, role === 'primary' ? 6e6 : 2e3, 0.25);
  const lan = (n: number) =>
    port(context, { portNumber: n + 2, label: `LAN ${n}`, portType: 'COPPER', speedMbps: 1000, isUplink: false, isConnected: n === 1, isTrunk: true }, 6e6, 0.25);
  return [wan(1, 'primary'), wan(2, 'backup'), lan(1), lan(2), lan(3), lan(4)];
}

/** A cellular gateway: its cellular uplink and one LAN port. */
export function cellularPorts(context: PortContext): PortSpec[] {
  return [
    port(context, { portNumber: 1, label: 'Cellular', portType: 'CELLULAR', speedMbps: 300, isUplink: true, isConnected: true, wan: 'primary' }, 1e6, 0.25),
    port(context, { portNumber: 2, label: 'LAN', portType: 'COPPER', speedMbps: 1000, isUplink: false, isConnected: true }, 1e6, 0.25),
  ];
}

/** A power distribution unit's management port. */
export function pduPorts(context: PortContext): PortSpec[] {
  return [port(context, { portNumber: 1, label: 'Management', portType: 'COPPER', speedMbps: 100, isUplink: true, isConnected: true }, 200, 1)];
}

const SWITCH_SIZES = [8, 16, 24, 48] as const;

/** A switch's port count: the number in its model name when it is 8 to 48, else 8, 16, 24 or 48 by its key. */
export function switchPortCount(deviceModel: string | undefined, key: number): number {
  const named = Number(/(\d+)/.exec(deviceModel ?? '')?.[1]);
  if (Number.isInteger(named) && named >= 8 && named <= 48) return named;
  return pick(SWITCH_SIZES, key, 44);
}

/** The device's MAC address, from its serial number alone (Meter's OUI). */
export function deviceMac(serialNumber: string): string {
  const h = hashString(serialNumber);
  return formatMac([0x0c, 0x8d, 0xdb, h >>> 16, h >>> 8, h]);
}

const BANDS: readonly RadioBand[] = ['BAND_2_4G', 'BAND_5G', 'BAND_6G'];

/** The channels an access point picks from, per band (non-overlapping 2.4 GHz ones; 20 MHz 5 GHz ones; 6 GHz preferred scanning channels). */
const CHANNELS: Readonly<Record<RadioBand, readonly number[]>> = {
  BAND_2_4G: [1, 6, 11],
  BAND_5G: [36, 40, 44, 48, 149, 153, 157, 161],
  BAND_6G: [5, 21, 37, 53, 69, 85],
};

/** The channel an access point (by its key) uses on a band: fixed per access point and band. */
export function radioChannel(apKey: number, band: RadioBand): number {
  return pick(CHANNELS[band], apKey, 45, BANDS.indexOf(band));
}

/**
 * An access point's BSSIDs: one per band and SSID, derived from the serial
 * number (locally administered, last byte band × 16 + SSID index). Models
 * named like Wi-Fi 6E or 7 also have a 6 GHz radio.
 */
export function accessPointRadios(serialNumber: string, deviceModel: string | undefined, ssids: readonly string[]): RadioSpec[] {
  const h = hash32(hashString(serialNumber), 7);
  const bands = /6E|7/i.test(deviceModel ?? '') ? BANDS : BANDS.slice(0, 2);
  return bands.flatMap((band, b) =>
    ssids.slice(0, 16).map((ssid, s) => ({ bssid: formatMac([0x0e, h >>> 24, h >>> 16, h >>> 8, h, (b << 4) | s]), band, ssid })),
  );
}
