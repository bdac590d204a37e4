import type { LldpNeighborInput as LldpNeighbor, PortInput } from '../../ingest/report.protocol.js';
import type { SimDevice } from './simulator.model.js';
import { between, unit } from './simulator.noise.js';
import { isOffline } from './simulator.schedule.js';

// LLDP neighbours and CPU/memory (issue 30): what the simulated devices'
// LLDP would see of each other, and their load, so the demo draws a topology
// and shows CPU and memory like a network the collector polls.

/** The LLDP advertisement of `device` seen from its port labelled `portLabel`. */
function advertisement(device: SimDevice, portLabel: string): LldpNeighbor {
  return { chassisID: device.macAddress, portID: portLabel, portDescription: portLabel, systemName: device.serialNumber.toLowerCase() };
}

/** The port labels of `device` by port number. */
function labelOf(device: SimDevice, portNumber: number): string {
  return device.ports.find((p) => p.portNumber === portNumber)?.label ?? `Port ${portNumber}`;
}

/**
 * The neighbours each port of `device` sees at `t`, by port number: a
 * switch sees the access points plugged into it (while they are up) and, on
 * the network's first switch, the controller on its first SFP uplink; an
 * access point sees its switch port; the controller sees the first switch on
 * LAN 1. A device that is down sends nothing, so nothing sees it.
 */
export function lldpNeighbors(device: SimDevice, t: number): Map<number, LldpNeighbor> {
  const seen = new Map<number, LldpNeighbor>();
  const network = device.network;
  const up = (d: SimDevice) => !isOffline(d.key, t);
  const firstSwitch = network.devices.find((d) => d.type === 'SWITCH');
  const controller = network.devices.find((d) => d.type === 'CONTROLLER');
  const sfp = (d: SimDevice) => d.ports.find((p) => p.label === 'SFP 1');
  if (device.type === 'SWITCH') {
    for (const { apIndex, portNumber } of device.accessPointPorts) {
      const ap = network.accessPoints[apIndex];
      if (ap !== undefined && up(ap)) seen.set(portNumber, advertisement(ap, labelOf(ap, 1)));
    }
    const uplink = sfp(device);
    if (device === firstSwitch && controller !== undefined && uplink !== undefined && up(controller)) seen.set(uplink.portNumber, advertisement(controller, 'LAN 1'));
  } else if (device.type === 'ACCESS_POINT') {
    const home = network.devices.find((d) => d.accessPointPorts.some((a) => a.apIndex === device.apIndex));
    const port = home?.accessPointPorts.find((a) => a.apIndex === device.apIndex);
    if (home !== undefined && port !== undefined && up(home)) seen.set(1, advertisement(home, labelOf(home, port.portNumber)));
  } else if (device.type === 'CONTROLLER' && firstSwitch !== undefined && up(firstSwitch)) {
    const uplink = sfp(firstSwitch);
    const lan = device.ports.find((p) => p.label === 'LAN 1');
    if (uplink !== undefined && lan !== undefined) seen.set(lan.portNumber, advertisement(firstSwitch, uplink.label));
  }
  return seen;
}

/**
 * The ports with their LLDP neighbours at `t` (null on a port that sees
 * none): the field is added to the ports given (the report's own, built for
 * it), not to copies, as a fleet's reports are many.
 */
export function withLldpNeighbors<P extends PortInput>(device: SimDevice, ports: P[], t: number): (P & { lldpNeighbor: LldpNeighbor | null })[] {
  const seen = lldpNeighbors(device, t);
  const out = ports as (P & { lldpNeighbor: LldpNeighbor | null })[];
  for (const p of out) p.lldpNeighbor = seen.get(p.portNumber) ?? null;
  return out;
}

const GIB = 1024 ** 3;
/** The simulator's CPU spikes: at most one per device in each slot of this many seconds, lasting CPU_SPIKE_LENGTH. */
const CPU_SPIKE_SLOT = 7_200;
const CPU_SPIKE_LENGTH = 300;

/**
 * The device's CPU load and memory at `t`: a load that follows the hour
 * of the day around a per-device base, and memory of 1, 2 or 4 GiB, 30 to
 * 70% in use, drifting slowly. Now and then a CPU spike: in about one
 * 2-hour slot in eight, a device runs at 92 to 99% for 5 minutes (what
 * netgraph's HIGH_CPU_USAGE alert is for). A pure function of the device and `t`.
 */
export function resourcesAt(device: SimDevice, t: number): { cpuPercent: number; memoryUsedBytes: number; memoryTotalBytes: number } {
  const base = between(3, 25, device.key, 1);
  const day = Math.sin((2 * Math.PI * (t % 86_400)) / 86_400) * 0.5 + 0.5;
  const slot = Math.floor(t / CPU_SPIKE_SLOT);
  const spikeAt = slot * CPU_SPIKE_SLOT + Math.floor(unit(device.key, 6, slot) * (CPU_SPIKE_SLOT - CPU_SPIKE_LENGTH));
  const spiking = unit(device.key, 5, slot) < 0.125 && t >= spikeAt && t < spikeAt + CPU_SPIKE_LENGTH;
  const load = spiking ? between(92, 99, device.key, 7, Math.floor(t / 30)) : base + 30 * day + 8 * unit(device.key, 2, Math.floor(t / 30));
  const cpuPercent = Math.round(Math.min(100, load) * 10) / 10;
  const memoryTotalBytes = ([1, 2, 4][Math.floor(unit(device.key, 3) * 3)] ?? 1) * GIB;
  const share = 0.3 + 0.4 * unit(device.key, 4, Math.floor(t / 600));
  return { cpuPercent, memoryUsedBytes: Math.round(memoryTotalBytes * share), memoryTotalBytes };
}
