import type { ClientInput } from '../../ingest/report.protocol.js';
import { between, formatMac, hash32, pick, unit } from './simulator.noise.js';
import { isOnSite } from './simulator.schedule.js';

/** A network's VLAN, as the simulator uses it. */
export interface SimVlan {
  readonly vlanID: number;
  readonly name: string;
}

/** A client of a simulated network: who it is, and where it connects. */
export interface SimClient {
  readonly key: number;
  readonly macAddress: string;
  readonly ip: string;
  readonly hostname: string;
  readonly vlanID: number;
  /** Present day and night (printers, cameras, sensors) rather than office hours. */
  readonly alwaysOn: boolean;
  readonly wireless: { readonly ssid: string; readonly homeAp: number; readonly roamSeconds: number } | null;
  readonly wiredPort: number | null;
}

const OUIS = [
  [0x3c, 0x22, 0xfb],
  [0xa4, 0x83, 0xe7],
  [0xf8, 0xbc, 0x12],
  [0x3c, 0xd9, 0x2b],
  [0x8c, 0x8d, 0x28],
  [0x5c, 0xe8, 0xeb],
  [0x00, 0x1b, 0x54],
  [0xdc, 0xa6, 0x32],
] as const;
const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'yara'];
const PERSONAL = { wireless: ['laptop', 'phone', 'macbook', 'ipad'], wired: ['desktop', 'workstation'] } as const;
const ALWAYS_ON = { wireless: ['sensor', 'display', 'thermostat'], wired: ['printer', 'camera', 'nas', 'voip'] } as const;

/** What a network's clients are made from: its key, VLANs and SSIDs. */
export interface ClientSite {
  readonly key: number;
  readonly vlans: readonly SimVlan[];
  readonly ssids: readonly string[];
  readonly utcOffsetSeconds: number;
}

/** The `index`-th client of a site (unique MAC per site) connected by `medium`. */
function createClient(site: ClientSite, index: number, medium: 'wireless' | 'wired', connection: Pick<SimClient, 'wireless' | 'wiredPort'>): SimClient {
  const key = hash32(site.key, 50, index);
  const alwaysOn = unit(key, 1) < (medium === 'wired' ? 0.3 : 0.12);
  const low = (hash32(site.key, 51) + index) & 0xffffff;
  const vlanID = site.vlans.length === 0 ? 1 : pick(site.vlans, key, 2).vlanID;
  const host = index + 10;
  const person = `${NAMES[index % NAMES.length]}${index >= NAMES.length ? Math.floor(index / NAMES.length) : ''}`;
  return {
    key,
    macAddress: formatMac([...pick(OUIS, key, 3), low >>> 16, low >>> 8, low]),
    ip: `10.${vlanID & 0xff}.${(host >>> 8) & 0xff}.${host & 0xff}`,
    hostname: alwaysOn ? `${pick(ALWAYS_ON[medium], key, 4)}-${index}` : `${person}-${pick(PERSONAL[medium], key, 4)}`,
    vlanID,
    alwaysOn,
    ...connection,
  };
}

/** A site's wireless clients: 8 to 16 per access point, none without access points or SSIDs. */
export function createWirelessClients(site: ClientSite, apCount: number, firstIndex: number): SimClient[] {
  if (apCount === 0 || site.ssids.length === 0) return [];
  const count = Math.round(apCount * between(8, 16, site.key, 52));
  return Array.from({ length: count }, (_, i) => {
    const key = hash32(site.key, 53, i);
    const wireless = { ssid: pick(site.ssids, key, 1), homeAp: Math.floor(unit(key, 2) * apCount), roamSeconds: Math.floor(between(900, 2700, key, 3)) };
    return createClient(site, firstIndex + i, 'wireless', { wireless, wiredPort: null });
  });
}

/** A switch's wired clients: on 30% to 70% of its access ports, from port 1 up. */
export function createWiredClients(site: ClientSite, switchKey: number, portCount: number, firstIndex: number): SimClient[] {
  const count = Math.round((portCount - 2) * between(0.3, 0.7, switchKey, 54));
  return Array.from({ length: count }, (_, i) => createClient(site, firstIndex + i, 'wired', { wireless: null, wiredPort: i + 1 }));
}

/**
 * The access point (index among the site's) a wireless client is associated
 * with at `t`, or undefined when it is away or no access point is up. It
 * stays on one for 15 to 45 minutes, mostly its home one; when that one is
 * down it moves to the next that is up.
 */
export function associatedAp(client: SimClient, site: ClientSite, apsUp: readonly boolean[], t: number): number | undefined {
  if (client.wireless === null || !isOnSite(client, site.utcOffsetSeconds, t)) return undefined;
  const segment = Math.floor(t / client.wireless.roamSeconds);
  const wanted = unit(client.key, 60, segment) < 0.7 ? client.wireless.homeAp : Math.floor(unit(client.key, 61, segment) * apsUp.length);
  for (let step = 0; step < apsUp.length; step++) {
    const ap = (wanted + step) % apsUp.length;
    if (apsUp[ap]) return ap;
  }
  return undefined;
}

/** The signal (dBm, -90 to -30) of a client at an access point: a level per visit, wavering by a few dB. */
export function signalAt(client: SimClient, ap: number, t: number): number {
  const segment = Math.floor(t / (client.wireless?.roamSeconds ?? 1));
  const home = ap === client.wireless?.homeAp;
  const level = home ? between(-66, -40, client.key, 62, segment, ap) : between(-80, -55, client.key, 62, segment, ap);
  const phase = 2 * Math.PI * unit(client.key, 63);
  const waver = 4 * Math.sin((2 * Math.PI * t) / 37 + phase) + 2 * Math.sin((2 * Math.PI * t) / 151 + 2 * phase);
  return Math.max(-90, Math.min(-30, Math.round(level + waver)));
}

/** A client as the simulator reports it: every field of the protocol's, given. */
export type SimulatedClient = ReturnType<typeof clientReport>;

/** The protocol's view of a client at an access point (signal given) or on a switch port (signal null). */
export function clientReport(client: SimClient, signal: number | null) {
  return {
    macAddress: client.macAddress,
    ip: client.ip,
    hostname: client.hostname,
    isWireless: client.wireless !== null,
    signal,
    vlanID: client.vlanID,
    ssid: client.wireless?.ssid ?? null,
    portNumber: client.wiredPort,
  } satisfies ClientInput;
}
