import type { ClientSite, SimClient } from './simulator.clients.js';
import type { HardwareType, RadioSpec } from './simulator.devices.js';
import type { TrafficDevice } from './simulator.traffic.js';

// The simulated fleet's devices and networks, which the fleet builds
// (simulator.fleet.ts) and the reports read (simulator.report.ts).

/** The seed (same seed, same fleet) and the time between two reports of a device. */
export interface FleetOptions {
  readonly seed: number;
  readonly intervalSeconds: number;
}

/** A simulated device: its traffic model, and where it sits. */
export interface SimDevice extends TrafficDevice {
  readonly serialNumber: string;
  readonly type: HardwareType;
  readonly macAddress: string;
  readonly radios: readonly RadioSpec[];
  readonly network: SimNetwork;
  /** Its index among its network's access points; null for other types. */
  readonly apIndex: number | null;
  readonly wiredClients: readonly SimClient[];
  /** A switch's access points (by index among the network's) and the ports they hang off; [] for other types. */
  readonly accessPointPorts: readonly AccessPointPort[];
}

/** An access point plugged into a switch port. */
export interface AccessPointPort {
  readonly apIndex: number;
  readonly portNumber: number;
}

/** A simulated network: the site its clients come from, its devices and wireless clients. */
export interface SimNetwork extends ClientSite {
  readonly devices: SimDevice[];
  readonly accessPoints: SimDevice[];
  readonly wireless: SimClient[];
}
