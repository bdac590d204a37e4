import type { ImportCompany } from '../../platform/import/import.schema.js';
import { createWirelessClients, createWiredClients } from './simulator.clients.js';
import type { SimClient, SimVlan } from './simulator.clients.js';
import {
  HARDWARE_TYPES,
  accessPointPorts,
  accessPointRadios,
  cellularPorts,
  controllerPorts,
  deviceMac,
  pduPorts,
  switchPortCount,
  switchPorts,
} from './simulator.devices.js';
import type { HardwareType, PortContext, PortSpec } from './simulator.devices.js';
import { hash32, hashString } from './simulator.noise.js';
import type { AccessPointPort, FleetOptions, SimDevice, SimNetwork } from './simulator.model.js';
import { deviceReport, wirelessByAccessPoint } from './simulator.report.js';
import type { SimulatedReport } from './simulator.report.js';
import { isOffline } from './simulator.schedule.js';

/** A hardware device to simulate. Types other than the five hardware types are left out. */
export interface FleetDeviceInput {
  readonly serialNumber: string;
  readonly deviceType: string;
  /** Sizes switches (`SW-24P`: 24 ports) and access points' bands (`…6E`, `…7`: 6 GHz too). */
  readonly deviceModel?: string;
}

/** A network to simulate: its hardware devices, VLANs and (enabled) SSID names. */
export interface FleetNetworkInput {
  /** Any id stable for the network (its UUID); it keys the network's clients. */
  readonly id: string;
  /** The network's offset from UTC, for its office hours; UTC when absent. */
  readonly utcOffsetMinutes?: number;
  readonly vlans: readonly SimVlan[];
  readonly ssids: readonly string[];
  readonly devices: readonly FleetDeviceInput[];
}

/** A fleet: the reports of all its devices at any time. */
export interface Fleet {
  readonly intervalSeconds: number;
  /** Serial numbers of the simulated devices, in input order. */
  readonly serialNumbers: readonly string[];
  /**
   * The report of every device that is up at `t` (Unix seconds, truncated to
   * whole seconds), in input order; a pure function of the seed, the input and `t`.
   */
  reportsAt(t: number): SimulatedReport[];
  /**
   * The same reports as `reportsAt(t)`, in the same order, built network by
   * network as the caller takes them: each chunk holds whole networks and at
   * least `size` reports (the last one fewer), so a large fleet is never held
   * or built at once.
   */
  reportChunksAt(t: number, size: number): Iterable<SimulatedReport[]>;
  /** How many reports `reportsAt(t)` returns, without building them. */
  reportCountAt(t: number): number;
}

/**
 * A company's networks (in the import format, as `imports.export()` gives
 * them) as the fleet takes them: enabled VLANs and SSIDs, and the hardware
 * of virtual devices (spare hardware does not report).
 */
export function fleetNetworksOf(company: ImportCompany): FleetNetworkInput[] {
  return company.networks.map((n) => ({
    id: n.UUID,
    vlans: n.vlans.filter((v) => v.isEnabled).map((v) => ({ vlanID: v.vlanID, name: v.name })),
    ssids: n.ssids.filter((s) => s.isEnabled).map((s) => s.ssid),
    devices: n.virtualDevices.flatMap((d) =>
      d.hardwareDevice ? [{ serialNumber: d.hardwareDevice.serialNumber, deviceType: d.hardwareDevice.deviceType, deviceModel: d.hardwareDevice.deviceModel }] : [],
    ),
  }));
}

function isHardwareType(type: string): type is HardwareType {
  return (HARDWARE_TYPES as readonly string[]).includes(type);
}

function portsFor(type: HardwareType, context: PortContext, input: FleetDeviceInput, wired: readonly SimClient[], aps: readonly AccessPointPort[]): PortSpec[] {
  switch (type) {
    case 'ACCESS_POINT':
      return accessPointPorts(context);
    case 'SWITCH': {
      const clientPorts = new Map(wired.map((c) => [c.wiredPort ?? 0, c.vlanID]));
      return switchPorts(context, switchPortCount(input.deviceModel, context.key), clientPorts, new Set(aps.map((a) => a.portNumber)));
    }
    case 'CONTROLLER':
      return controllerPorts(context);
    case 'CELLULAR_GATEWAY':
      return cellularPorts(context);
    case 'POWER_DISTRIBUTION_UNIT':
      return pduPorts(context);
  }
}

/**
 * Plugs the network's access points (in input order) into its switches'
 * free access ports, the first after each switch's wired clients, one
 * switch after the other in turn; an access point finds no port when every
 * switch is full (or there is none). By switch input index.
 */
function attachAccessPoints(switches: readonly { index: number; firstFree: number; lastFree: number }[], apCount: number): Map<number, AccessPointPort[]> {
  const attached = new Map<number, AccessPointPort[]>(switches.map((s) => [s.index, []]));
  let next = 0;
  for (let apIndex = 0; apIndex < apCount; apIndex++) {
    for (let tried = 0; tried < switches.length; tried++) {
      const position = (next + tried) % switches.length;
      const target = switches[position]!;
      const ports = attached.get(target.index)!;
      const portNumber = target.firstFree + ports.length;
      if (portNumber > target.lastFree) continue;
      ports.push({ apIndex, portNumber });
      next = position + 1;
      break;
    }
  }
  return attached;
}

/** Each switch's wired clients (client indices in input order, from 0), by input index. */
function wiredClientsOf(network: SimNetwork, input: FleetNetworkInput, seed: number): Map<number, SimClient[]> {
  const wired = new Map<number, SimClient[]>();
  let clientIndex = 0;
  input.devices.forEach((d, i) => {
    if (d.deviceType !== 'SWITCH') return;
    const key = hash32(hashString(d.serialNumber), seed);
    const clients = createWiredClients(network, key, switchPortCount(d.deviceModel, key), clientIndex);
    clientIndex += clients.length;
    wired.set(i, clients);
  });
  return wired;
}

function buildNetwork(input: FleetNetworkInput, seed: number): SimNetwork {
  const utcOffsetSeconds = (input.utcOffsetMinutes ?? 0) * 60;
  const network: SimNetwork = {
    key: hash32(hashString(input.id), seed),
    vlans: input.vlans,
    ssids: input.ssids,
    utcOffsetSeconds,
    devices: [],
    accessPoints: [],
    wireless: [],
  };
  // office hours peak at 14:00 local time
  const peakSecond = (((14 * 3600 - utcOffsetSeconds) % 86_400) + 86_400) % 86_400;
  const wired = wiredClientsOf(network, input, seed);
  const switches = [...wired].map(([index, clients]) => {
    const d = input.devices[index]!;
    return { index, firstFree: clients.length + 1, lastFree: switchPortCount(d.deviceModel, hash32(hashString(d.serialNumber), seed)) - 2 };
  });
  const attached = attachAccessPoints(switches, input.devices.filter((d) => d.deviceType === 'ACCESS_POINT').length);
  input.devices.forEach((deviceInput, index) => {
    const type = deviceInput.deviceType;
    if (!isHardwareType(type)) return;
    const key = hash32(hashString(deviceInput.serialNumber), seed);
    const wiredClients = wired.get(index) ?? [];
    const accessPointPorts = attached.get(index) ?? [];
    const device: SimDevice = {
      key,
      serialNumber: deviceInput.serialNumber,
      type,
      macAddress: deviceMac(deviceInput.serialNumber),
      ports: portsFor(type, { key, peakSecond }, deviceInput, wiredClients, accessPointPorts),
      cellular: type === 'CELLULAR_GATEWAY',
      radios: type === 'ACCESS_POINT' ? accessPointRadios(deviceInput.serialNumber, deviceInput.deviceModel, input.ssids) : [],
      network,
      apIndex: type === 'ACCESS_POINT' ? network.accessPoints.length : null,
      wiredClients,
      accessPointPorts,
    };
    network.devices.push(device);
    if (type === 'ACCESS_POINT') network.accessPoints.push(device);
  });
  const clientCount = [...wired.values()].reduce((n, clients) => n + clients.length, 0);
  network.wireless.push(...createWirelessClients(network, network.accessPoints.length, clientCount));
  return network;
}

/**
 * Builds a simulated fleet from networks with their hardware devices. Nothing
 * is random at run time: a device's state at any time follows from the seed,
 * its serial number and network, so a backfill followed by live reporting is
 * one continuous history, and the same seed gives byte-identical reports.
 */
export function createFleet(networks: readonly FleetNetworkInput[], options: FleetOptions): Fleet {
  const built = networks.map((n) => buildNetwork(n, options.seed));
  const devices = built.flatMap((n) => n.devices);
  const networkReportsAt = (network: SimNetwork, t: number) => {
    const up = network.devices.filter((d) => !isOffline(d.key, t));
    if (up.length === 0) return [];
    const wireless = wirelessByAccessPoint(network, t);
    return up.map((d) => deviceReport(d, t, options, wireless));
  };
  function* reportChunksAt(time: number, size: number): Generator<SimulatedReport[]> {
    const t = Math.floor(time);
    let chunk: SimulatedReport[] = [];
    for (const network of built) {
      for (const report of networkReportsAt(network, t)) chunk.push(report);
      if (chunk.length >= size) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length > 0) yield chunk;
  }
  return {
    intervalSeconds: options.intervalSeconds,
    serialNumbers: devices.map((d) => d.serialNumber),
    reportsAt: (time) => [...reportChunksAt(time, Infinity)].flat(),
    reportChunksAt,
    reportCountAt(time) {
      const t = Math.floor(time);
      return devices.reduce((count, d) => count + (isOffline(d.key, t) ? 0 : 1), 0);
    },
  };
}
