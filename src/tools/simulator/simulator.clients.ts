import type { ClientInput } from '../../ingest/report.protocol.js';
import type { RadioBand } from '../../ingest/report.limits.js';
import { radioChannel } from './simulator.devices.js';
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

/** The Wi-Fi generations of simulated wireless clients, newer ones more often; with the top link rate of each (Mbit/s, two streams). */
const GENERATIONS = [
  ['WIFI_4', 300],
  ['WIFI_5', 867],
  ['WIFI_5', 867],
  ['WIFI_6', 1201],
  ['WIFI_6', 1201],
  ['WIFI_7', 2882],
] as const;
/** The noise floor at an access point, in dBm: SNR is the signal above it. */
const NOISE_FLOOR = -95;

/** What an access point offers a client: its bands, its key (for its channels), and when its current boot began. */
export interface AccessPointAir {
  readonly key: number;
  readonly bands: readonly RadioBand[];
  readonly bootEnd: number;
}

/**
 * A wireless client's radio metrics at an access point at `t`, from its
 * signal: a band the AP has (2.4 GHz for a quarter of visits; 6 GHz only
 * for Wi-Fi 6 and 7 clients), the AP's channel on it, SNR above the noise
 * floor, link rates falling with SNR (Wi-Fi 4 clients and 2.4 GHz slower),
 * and byte counters of the visit (since the roaming segment or the AP's
 * boot began) growing at the client's own pace.
 */
function radioMetrics(client: SimClient, ap: AccessPointAir, signal: number, t: number) {
  const roam = client.wireless?.roamSeconds ?? 1;
  const segment = Math.floor(t / roam);
  const [hwMode, topRate] = pick(GENERATIONS, client.key, 70);
  const modern = hwMode === 'WIFI_6' || hwMode === 'WIFI_7';
  const bands = ap.bands.filter((b) => b !== 'BAND_6G' || modern);
  const wanted = unit(client.key, 71, segment) < 0.25 ? 'BAND_2_4G' : modern && bands.includes('BAND_6G') ? 'BAND_6G' : 'BAND_5G';
  const radioBand = bands.includes(wanted) ? wanted : (bands[0] ?? 'BAND_2_4G');
  const snr = Math.max(0, Math.min(100, signal - NOISE_FLOOR - Math.round(between(0, 4, client.key, 72, segment))));
  const bandRate = radioBand === 'BAND_2_4G' ? Math.min(topRate, 144) : topRate;
  const rate = (share: number) => Math.round(bandRate * share * Math.min(1, Math.max(0.05, (snr - 5) / 35)) * 10) / 10;
  const since = Math.max(segment * roam, ap.bootEnd);
  const bytesPerSecond = between(2_000, 250_000, client.key, 73);
  return {
    radioBand,
    channel: radioChannel(ap.key, radioBand),
    snr,
    rxRateMbps: rate(0.8),
    txRateMbps: rate(1),
    rxBytes: Math.round(bytesPerSecond * 0.3 * Math.max(0, t - since)),
    txBytes: Math.round(bytesPerSecond * Math.max(0, t - since)),
    hwMode,
  };
}

/** A client as the simulator reports it: every field of the protocol's, given. */
export type SimulatedClient = ReturnType<typeof clientReport>;

/**
 * The protocol's view of a client at an access point (`at`: the AP and the
 * signal) or on a switch port (`at.bootEnd`: when its switch booted,
 * from which its byte counters grow).
 */
export function clientReport(client: SimClient, at: { readonly ap: AccessPointAir; readonly signal: number } | { readonly bootEnd: number }, t: number) {
  const wired = 'bootEnd' in at;
  const bytesPerSecond = wired ? between(500, 50_000, client.key, 74) : 0;
  const since = wired ? Math.max(0, t - at.bootEnd) : 0;
  const radio = wired ? null : radioMetrics(client, at.ap, at.signal, t);
  return {
    macAddress: client.macAddress,
    ip: client.ip,
    hostname: client.hostname,
    isWireless: client.wireless !== null,
    signal: wired ? null : at.signal,
    vlanID: client.vlanID,
    ssid: client.wireless?.ssid ?? null,
    portNumber: client.wiredPort,
    radioBand: radio?.radioBand ?? null,
    channel: radio?.channel ?? null,
    snr: radio?.snr ?? null,
    rxRateMbps: radio?.rxRateMbps ?? null,
    txRateMbps: radio?.txRateMbps ?? null,
    rxBytes: radio?.rxBytes ?? Math.round(bytesPerSecond * since),
    txBytes: radio?.txBytes ?? Math.round(bytesPerSecond * 0.4 * since),
    hwMode: radio?.hwMode ?? null,
  } satisfies ClientInput;
}
