import type { ForeignBssidInput, IdsDetectionInput, MacTableEntryInput } from '../../ingest/report.protocol.js';
import { formatTime } from '../../ingest/report.limits.js';
import type { SimDevice, SimNetwork } from './simulator.model.js';
import { between, formatMac, hash32, pick, unit } from './simulator.noise.js';

// What a network's security looks like at any time, from its key alone
// (docs/reports.md, `idsDetections` and `foreignBSSIDs`; docs/security.md):
// neighbours' access points every scan hears, a rogue access point plugged
// into a switch port now and then, a honeypot imitating one of the network's
// SSIDs now and then, and a controller's IDS/IPS matches.

/** Rogues and honeypots come and go in slots this long (2 hours): in some slots one appears for a while. */
const EPISODE_SECONDS = 2 * 3600;
/** The chance that a slot has a rogue access point, and a honeypot. */
const ROGUE_CHANCE = 0.4;
const HONEYPOT_CHANCE = 0.3;
/** A controller's detections: per minute, this chance of one. */
const DETECTION_CHANCE_PER_MINUTE = 0.08;

/** Neighbouring networks' SSIDs, heard through the walls. */
const NEIGHBOURS = ['CoffeeShop-Guest', 'NETGEAR42', 'DIRECT-7F-HP LaserJet', 'xfinitywifi'] as const;
/** What a rogue access point calls itself (null: hidden). */
const ROGUE_SSIDS = ['Linksys01234', 'TP-Link_5G_8F2A', null, 'Free-WiFi'] as const;

/** The rules controllers match: name, protocol, destination port (null: none) and direction. */
const SIGNATURES: readonly (readonly [string, string, number | null, 'RX' | 'TX'])[] = [
  ['ET SCAN Potential SSH Scan', 'TCP', 22, 'RX'],
  ['ET SCAN Suspicious inbound to mySQL port 3306', 'TCP', 3306, 'RX'],
  ['ET POLICY RDP connection attempt from outside', 'TCP', 3389, 'RX'],
  ['GPL ICMP_INFO PING *NIX', 'ICMP', null, 'RX'],
  ['ET DNS Query for .onion proxy Domain', 'UDP', 53, 'TX'],
  ['ET MALWARE Possible Cobalt Strike beacon', 'TCP', 443, 'TX'],
];

/** A window of an episode: [start, end) in seconds, or none. */
type Episode = readonly [number, number] | undefined;

/** The episode of kind `tag` in the slot holding `t`, when the slot has one: it starts 0 to 60 minutes in and lasts 20 to 60. */
function episodeAt(network: SimNetwork, tag: number, chance: number, t: number): { readonly slot: number; readonly window: Episode } {
  const slot = Math.floor(t / EPISODE_SECONDS);
  if (unit(network.key, tag, slot) >= chance) return { slot, window: undefined };
  const start = slot * EPISODE_SECONDS + Math.floor(between(0, 3600, network.key, tag, slot, 1));
  return { slot, window: [start, start + Math.floor(between(1200, 3600, network.key, tag, slot, 2))] };
}

const within = (window: Episode, t: number): boolean => window !== undefined && window[0] <= t && t < window[1];

/** The rogue access point on the wire at `t`, if any: its wired MAC address, its BSSID (the same but the last octet) and SSID. */
function rogueAt(network: SimNetwork, t: number) {
  const { slot, window } = episodeAt(network, 0x2049, ROGUE_CHANCE, t);
  if (!within(window, t)) return undefined;
  const h = hash32(network.key, 0x2049, slot, 3);
  const wired = formatMac([0xa4, 0x5e, 0x60, h >>> 16, h >>> 8, 0x10]);
  return { wired, bssid: `${wired.slice(0, 15)}15`, ssid: pick(ROGUE_SSIDS, network.key, 0x2049, slot, 4), slot };
}

/** The honeypot at `t`, if any: a locally administered BSSID broadcasting one of the network's SSIDs. */
function honeypotAt(network: SimNetwork, t: number) {
  if (network.ssids.length === 0) return undefined;
  const { slot, window } = episodeAt(network, 0x4019, HONEYPOT_CHANCE, t);
  if (!within(window, t)) return undefined;
  const h = hash32(network.key, 0x4019, slot, 3);
  return { bssid: formatMac([0x02, h >>> 24, h >>> 16, h >>> 8, h, slot]), ssid: pick(network.ssids, network.key, 0x4019, slot, 4), slot };
}

/**
 * An access point's scan at `t`: two of the neighbours' BSSIDs, the rogue
 * and the honeypot while they are there (every access point hears them, each
 * at its own strength), each with its RSSI and channel.
 */
export function foreignBssids(device: SimDevice, t: number): ForeignBssidInput[] {
  const network = device.network;
  const minute = Math.floor(t / 60);
  const rssi = (tag: number, min: number, max: number) => Math.round(between(min, max, device.key, tag, minute));
  const heard: ForeignBssidInput[] = [0, 1].map((n) => {
    const h = hash32(network.key, 0x6e, n);
    return { BSSID: formatMac([0x3c, 0x84, 0x6a, h >>> 16, h >>> 8, h]), ssid: pick(NEIGHBOURS, network.key, 0x6e, n), rssi: rssi(n, -88, -72), channel: pick([1, 6, 11, 36, 44], network.key, 0x6e, n, 1) };
  });
  const rogue = rogueAt(network, t);
  if (rogue !== undefined) heard.push({ BSSID: rogue.bssid, ssid: rogue.ssid, rssi: rssi(10 + rogue.slot, -70, -48), channel: 6 });
  const honeypot = honeypotAt(network, t);
  if (honeypot !== undefined) heard.push({ BSSID: honeypot.bssid, ssid: honeypot.ssid, rssi: rssi(20 + honeypot.slot, -78, -55), channel: 149 });
  return heard;
}

/**
 * The MAC table entry of the rogue access point while it is plugged in: on
 * the highest port that is no uplink of the network's first switch, VLAN 1.
 */
export function rogueMacEntries(device: SimDevice, t: number): MacTableEntryInput[] {
  const network = device.network;
  if (network.devices.find((d) => d.type === 'SWITCH') !== device) return [];
  const rogue = rogueAt(network, t);
  const port = Math.max(...device.ports.filter((p) => !p.isUplink).map((p) => p.portNumber));
  return rogue === undefined || !Number.isFinite(port) ? [] : [{ macAddress: rogue.wired, vlanID: 1, portNumber: port }];
}

/**
 * A controller's IDS/IPS matches in the interval before `t`: in each whole
 * minute, one with a small chance, from an outside address to a client's
 * (RX) or the other way (TX), by one of the rules.
 */
export function idsDetections(device: SimDevice, t: number, intervalSeconds: number): IdsDetectionInput[] {
  const found: IdsDetectionInput[] = [];
  for (let minute = Math.floor((t - intervalSeconds) / 60) + 1; minute * 60 <= t; minute++) {
    if (unit(device.key, 0x1d5, minute) >= DETECTION_CHANCE_PER_MINUTE) continue;
    const [signature, protocol, port, direction] = pick(SIGNATURES, device.key, 0x1d5, minute, 1);
    const outside = `${pick(['203.0.113', '198.51.100', '192.0.2'], device.key, 0x1d5, minute, 2)}.${Math.floor(between(1, 255, device.key, 0x1d5, minute, 3))}`;
    const inside = `10.0.10.${Math.floor(between(2, 250, device.key, 0x1d5, minute, 4))}`;
    const high = Math.floor(between(32768, 61000, device.key, 0x1d5, minute, 5));
    const at = minute * 60 - Math.floor(between(0, 59, device.key, 0x1d5, minute, 6));
    found.push({
      observedAt: formatTime(Math.max(at, t - intervalSeconds + 1)),
      srcIP: direction === 'RX' ? outside : inside,
      dstIP: direction === 'RX' ? inside : outside,
      protocol,
      srcPort: port === null ? null : high,
      dstPort: port,
      direction,
      signature,
    });
  }
  return found;
}
