import type { EventInput, MacTableEntryInput, PortInput, Report } from '../../ingest/report.protocol.js';
import type { StpState } from '../../ingest/report.limits.js';
import { formatTime } from '../../ingest/report.limits.js';
import { associatedAp, clientReport, signalAt } from './simulator.clients.js';
import type { AccessPointAir, SimulatedClient } from './simulator.clients.js';
import type { PortSpec } from './simulator.devices.js';
import type { FleetOptions, SimDevice, SimNetwork } from './simulator.model.js';
import { connectionEvents } from './simulator.connections.js';
import { resourcesAt, withLldpNeighbors } from './simulator.lldp.js';
import { uuidOf } from './simulator.noise.js';
import { dnsRequests, radioChannels } from './simulator.radio.js';
import { pduReadings } from './simulator.pdu.js';
import { foreignBssids, idsDetections, rogueMacEntries } from './simulator.security.js';
import { isOffline, isOnSite, lastBoot, stpBlockedPort } from './simulator.schedule.js';
import { isPrimaryDown, portCounters, uplinkSample, wanEvents } from './simulator.traffic.js';

/** Most uplink samples of one port in one report. */
const MAX_SAMPLES = 20;

/** The wireless clients each access point of the network sees at `t`, by access point index. */
export function wirelessByAccessPoint(network: SimNetwork, t: number): SimulatedClient[][] {
  const up = network.accessPoints.map((ap) => !isOffline(ap.key, t));
  const air: AccessPointAir[] = network.accessPoints.map((ap) => ({ key: ap.key, bands: [...new Set(ap.radios.map((r) => r.band))], bootEnd: lastBoot(ap.key, t).end }));
  const byAp: SimulatedClient[][] = network.accessPoints.map(() => []);
  for (const client of network.wireless) {
    const ap = associatedAp(client, network, up, t);
    const offer = ap === undefined ? undefined : air[ap];
    if (ap !== undefined && offer !== undefined) byAp[ap]?.push(clientReport(client, { ap: offer, signal: signalAt(client, ap, t) }, t));
  }
  return byAp;
}

function portReport(device: SimDevice, port: PortSpec, boot: number, t: number, primaryDown: boolean) {
  const linkDown = port.wan === 'primary' && primaryDown;
  const active = port.wan === 'backup' ? primaryDown : port.wan === 'primary' ? !primaryDown : port.isConnected;
  return {
    portNumber: port.portNumber,
    label: port.label,
    portType: port.portType,
    isEnabled: true,
    isConnected: port.isConnected && !linkDown,
    isUplink: port.isUplink,
    isUplinkActive: port.isUplink && active,
    isTrunkPort: port.isTrunk,
    portSpeedMbps: port.speedMbps,
    nativeVLANID: port.nativeVlanId,
    counters: portCounters(device, port, boot, t),
  } satisfies PortInput;
}

/**
 * A switch's ports with their spanning-tree state: forwarding with a link,
 * disabled without, and now and then one blocked (stpBlockedPort); other
 * devices report none. Set on the ports given (the report's own), not on copies.
 */
function withStpStates<P extends PortInput>(device: SimDevice, ports: P[], t: number): (P & Pick<PortInput, 'stpState'>)[] {
  if (device.type !== 'SWITCH') return ports;
  const blocked = stpBlockedPort(device.key, ports.filter((p) => p.isConnected === true && p.isUplink !== true).map((p) => p.portNumber), t);
  for (const p of ports as (P & { stpState: StpState })[]) p.stpState = p.portNumber === blocked ? 'BLOCKING' : p.isConnected === true ? 'FORWARDING' : 'DISABLED';
  return ports;
}

/**
 * Times of the uplink samples in a report at `t`: every 30 seconds over the
 * interval before it (at most 20, spread evenly), none before the boot.
 */
function sampleTimes(intervalSeconds: number, boot: number, t: number): number[] {
  const spacing = intervalSeconds <= 30 ? intervalSeconds : Math.max(30, Math.ceil(intervalSeconds / MAX_SAMPLES));
  const count = Math.max(1, Math.floor(intervalSeconds / spacing));
  const times: number[] = [];
  for (let k = count - 1; k >= 0; k--) if (t - k * spacing >= boot) times.push(t - k * spacing);
  return times;
}

function uplinkSamples(device: SimDevice, boot: number, t: number, intervalSeconds: number) {
  const wanPorts = device.ports.filter((p) => p.wan !== null);
  return sampleTimes(intervalSeconds, boot, t).flatMap((s) => wanPorts.map((p) => uplinkSample(device, p, s)));
}

function events(device: SimDevice, boot: { end: number; reason: string }, t: number, intervalSeconds: number): EventInput[] {
  const from = t - intervalSeconds;
  const found = wanEvents(device, from, t);
  if (from < boot.end && boot.end <= t) {
    found.unshift({ type: 'DEVICE_BOOT', observedAt: formatTime(boot.end), details: { rebootReason: boot.reason } });
  }
  return found;
}

function wiredClients(device: SimDevice, t: number): SimulatedClient[] {
  const bootEnd = lastBoot(device.key, t).end;
  return device.wiredClients.filter((c) => isOnSite(c, device.network.utcOffsetSeconds, t)).map((c) => clientReport(c, { bootEnd }, t));
}

/**
 * A switch's MAC table at `t`: its wired clients on site, on their ports and
 * VLANs; and each access point plugged into it that is up, on VLAN 1 (the
 * port's native VLAN), with the wireless clients associated with it, on
 * their VLANs, learned on the same port.
 */
function macTable(device: SimDevice, t: number, wirelessByAp: readonly (readonly SimulatedClient[])[]): MacTableEntryInput[] {
  const entries: MacTableEntryInput[] = wiredClients(device, t).map((c) => ({ macAddress: c.macAddress, vlanID: c.vlanID, portNumber: c.portNumber ?? 0 }));
  for (const { apIndex, portNumber } of device.accessPointPorts) {
    const ap = device.network.accessPoints[apIndex];
    if (ap === undefined || isOffline(ap.key, t)) continue;
    entries.push({ macAddress: ap.macAddress, vlanID: 1, portNumber });
    for (const client of wirelessByAp[apIndex] ?? []) entries.push({ macAddress: client.macAddress, vlanID: client.vlanID, portNumber });
  }
  entries.push(...rogueMacEntries(device, t));
  return entries;
}

/**
 * The report of one device that is up at `t`: ports with counters since its
 * last boot, uplink samples and radios (with their channels' utilization)
 * where it has them, a controller's DNS request counter, the clients it sees
 * (access points and switches), a switch's MAC table, a PDU's outlets and
 * temperature, each port's LLDP neighbour, CPU and memory, an access point's
 * scan of foreign BSSIDs, a controller's IDS/IPS detections, and the events
 * (the device's own and its wireless clients' connection events) of the
 * interval before `t`. `wirelessByAp`: the clients each access point of the
 * device's network sees at `t` (wirelessByAccessPoint).
 */
export function deviceReport(device: SimDevice, t: number, options: FleetOptions, wirelessByAp: readonly (readonly SimulatedClient[])[]) {
  const boot = lastBoot(device.key, t);
  const primaryDown = isPrimaryDown(device, t);
  const found = events(device, boot, t, options.intervalSeconds);
  const samples = uplinkSamples(device, boot.end, t, options.intervalSeconds);
  const joins = device.type === 'ACCESS_POINT' ? connectionEvents(device.network, device.apIndex ?? -1, t, options.intervalSeconds) : [];
  return {
    reportId: uuidOf(device.key, t),
    serialNumber: device.serialNumber,
    observedAt: formatTime(t),
    uptimeSeconds: t - boot.end,
    macAddress: device.macAddress,
    ...resourcesAt(device, t),
    interfaces: withLldpNeighbors(device, withStpStates(device, device.ports.map((p) => portReport(device, p, boot.end, t, primaryDown)), t), t),
    ...(samples.length > 0 ? { uplinkSamples: samples } : {}),
    ...(device.type === 'ACCESS_POINT' ? { radios: device.radios.map((r) => ({ BSSID: r.bssid, radioBand: r.band, ssid: r.ssid, isActive: true })) } : {}),
    ...(device.type === 'ACCESS_POINT' ? { radioChannels: radioChannels(device, t, wirelessByAp[device.apIndex ?? -1]?.length ?? 0) } : {}),
    ...(device.type === 'CONTROLLER' ? { dnsRequests: dnsRequests(device, boot.end, t) } : {}),
    ...(device.type === 'ACCESS_POINT' ? { clients: [...(wirelessByAp[device.apIndex ?? -1] ?? [])] } : device.type === 'SWITCH' ? { clients: wiredClients(device, t) } : {}),
    ...(joins.length > 0 ? { clientConnectionEvents: joins } : {}),
    ...(device.type === 'SWITCH' ? { macTable: macTable(device, t, wirelessByAp) } : {}),
    ...(device.type === 'POWER_DISTRIBUTION_UNIT' ? pduReadings(device, t) : {}),
    ...(device.type === 'ACCESS_POINT' ? { foreignBSSIDs: foreignBssids(device, t) } : {}),
    ...(device.type === 'CONTROLLER' ? detectionsOf(device, t, options.intervalSeconds) : {}),
    ...(found.length > 0 ? { events: found } : {}),
  } satisfies Report;
}

/** A controller's detections of the interval before `t` as a report section, left out when none. */
function detectionsOf(device: SimDevice, t: number, intervalSeconds: number) {
  const found = idsDetections(device, t, intervalSeconds);
  return found.length > 0 ? { idsDetections: found } : {};
}

/** A report as the simulator builds it: a `Report` of the protocol with every field the simulator fills typed as given. */
export type SimulatedReport = ReturnType<typeof deviceReport>;
