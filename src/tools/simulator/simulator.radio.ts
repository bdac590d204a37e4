import type { RadioChannelInput } from '../../ingest/report.protocol.js';
import type { RadioBand } from '../../ingest/report.limits.js';

/** A channel width the protocol takes. */
type Width = NonNullable<RadioChannelInput['channelWidthMHz']>;
import { radioChannel } from './simulator.devices.js';
import type { SimDevice } from './simulator.model.js';
import { between, createWave, hash32, unit, waveIntegral } from './simulator.noise.js';

// Channel utilization and DNS requests (issue 32): what an access point's
// radios measure of their channels, and a controller's DNS request counter,
// so the demo has busy and quiet channels and a DNS rate that follows the
// network's clients. Pure functions of the device and the time.

/** Per band: the channels an access point picks from, its width, its power range and the share of its clients on the band. */
const BAND_PLAN: Readonly<Record<RadioBand, { width: Width; power: readonly [number, number]; clients: number }>> = {
  BAND_2_4G: { width: 20, power: [12, 18], clients: 0.3 },
  BAND_5G: { width: 80, power: [17, 23], clients: 0.6 },
  BAND_6G: { width: 160, power: [18, 24], clients: 0.1 },
};

/**
 * How much of the channel other networks and non-Wi-Fi energy take, per
 * band: a range the access point's neighbourhood is fixed in (some are busy,
 * most quiet), which then wobbles minute by minute. 2.4 GHz is crowded and
 * hears microwave ovens; 6 GHz is nearly empty.
 */
const NEIGHBOURS: Readonly<Record<RadioBand, { obss: readonly [number, number]; nonWifi: readonly [number, number] }>> = {
  BAND_2_4G: { obss: [4, 40], nonWifi: [0.5, 5] },
  BAND_5G: { obss: [1, 18], nonWifi: [0, 1.5] },
  BAND_6G: { obss: [0, 3], nonWifi: [0, 0.3] },
};

/** Airtime one associated client takes of its band, in percent, on average. */
const PERCENT_PER_CLIENT = 3;

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * An access point's radios at `t`, one per band it broadcasts on, with
 * `clients` associated: the channel, width and power it settled on, the
 * noise floor, and the utilization over the minute before `t`. Its own BSSs
 * take airtime with its clients (a share of them per band) and its beacons;
 * other networks and non-Wi-Fi energy take what its neighbourhood does.
 * Receive and transmit split its own airtime, so they never exceed the total.
 */
export function radioChannels(device: SimDevice, t: number, clients: number) {
  const bands = [...new Set(device.radios.map((r) => r.band))];
  const ssids = new Set(device.radios.map((r) => r.ssid)).size;
  const minute = Math.floor(t / 60);
  return bands.map((band, b) => {
    const plan = BAND_PLAN[band];
    const neighbours = NEIGHBOURS[band];
    const key = hash32(device.key, 60, b);
    const share = plan.clients / bands.reduce((sum, other) => sum + BAND_PLAN[other].clients, 0);
    const own = clients * share * PERCENT_PER_CLIENT * (0.6 + 0.8 * unit(key, 1, minute)) + 0.4 * ssids;
    const selfUtilization = round1(Math.min(70, own));
    const obssUtilization = round1(between(neighbours.obss[0], neighbours.obss[1], key, 2) * (0.7 + 0.6 * unit(key, 3, minute)));
    const nonWifiUtilization = round1(between(neighbours.nonWifi[0], neighbours.nonWifi[1], key, 4) * (0.5 + unit(key, 5, minute)));
    const rxUtilization = round1(selfUtilization * between(0.35, 0.55, key, 6, minute));
    const txUtilization = round1(selfUtilization - rxUtilization);
    return {
      radioBand: band,
      // the channel its clients report too (simulator.clients.ts), so channelUtilizationByClient finds the client's channel
      channel: radioChannel(device.key, band),
      channelWidthMHz: band === 'BAND_5G' && unit(key, 8) < 0.25 ? 40 : plan.width,
      txPowerDbm: Math.round(between(plan.power[0], plan.power[1], key, 9)),
      noiseFloorDbm: Math.round(between(-97, -90, key, 10, Math.floor(t / 300))),
      totalUtilization: Math.min(100, round1(Math.max(selfUtilization + obssUtilization + nonWifiUtilization, rxUtilization + txUtilization))),
      rxUtilization,
      txUtilization,
      selfUtilization,
      obssUtilization,
      nonWifiUtilization,
    } satisfies RadioChannelInput;
  });
}

/** DNS requests per second one client of the network makes at the daily average. */
const DNS_PER_CLIENT_PER_SECOND = 0.02;

/**
 * A controller's DNS requests since its boot at `boot`, counted at `t`: its
 * network's clients (wireless and wired) each asking DNS_PER_CLIENT_PER_SECOND,
 * more in the working day (the daily cycle peaks at 13:00 local time). The
 * counter restarts from zero at each boot.
 */
export function dnsRequests(device: SimDevice, boot: number, t: number): number {
  const network = device.network;
  const clients = network.wireless.length + network.devices.reduce((sum, d) => sum + d.wiredClients.length, 0);
  const peak = (((13 * 3600 - network.utcOffsetSeconds) % 86_400) + 86_400) % 86_400;
  const wave = createWave(clients * DNS_PER_CLIENT_PER_SECOND, 0.6, peak, 0.2, hash32(device.key, 61));
  return Math.max(0, Math.floor(waveIntegral(wave, boot, t)));
}
