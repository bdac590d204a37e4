import type { CountersInput, EventInput, UplinkSampleInput } from '../../ingest/report.protocol.js';
import { formatTime } from '../../ingest/report.limits.js';
import { between, unit, waveAt, waveIntegral } from './simulator.noise.js';
import type { PortSpec } from './simulator.devices.js';
import { incidentAt, incidentInSlot, slotOf } from './simulator.schedule.js';
import type { Incident } from './simulator.schedule.js';

/** What traffic is computed from: the device's key and ports, and its cellular nature. */
export interface TrafficDevice {
  readonly key: number;
  readonly ports: readonly PortSpec[];
  readonly cellular: boolean;
}

const BYTES_PER_PACKET = { rx: 720, tx: 480 } as const;
const ZERO: CountersInput = { rxBytes: 0, txBytes: 0, rxPackets: 0, txPackets: 0, rxErrors: 0, txErrors: 0 };

/** The primary WAN port's link-down incidents that overlap [from, to). */
function downIncidents(device: TrafficDevice, from: number, to: number): { port: PortSpec; incident: Incident }[] {
  const primary = device.ports.find((p) => p.wan === 'primary');
  if (primary === undefined || to <= from) return [];
  const found: { port: PortSpec; incident: Incident }[] = [];
  for (let slot = slotOf(from); slot <= slotOf(to); slot++) {
    const incident = incidentInSlot(device.key, primary.portNumber, slot);
    if (incident?.kind === 'down' && incident.start < to && from < incident.end) found.push({ port: primary, incident });
  }
  return found;
}

/** Bytes of one direction moved on a port in [boot, t): the link-down time of a primary WAN moves to the backup. */
function bytesSinceBoot(device: TrafficDevice, port: PortSpec, direction: 'rx' | 'tx', boot: number, t: number): number {
  const wave = port[direction];
  if (wave === undefined) return 0;
  let bytes = waveIntegral(wave, boot, t);
  if (port.wan !== null) {
    for (const { port: primary, incident } of downIncidents(device, boot, t)) {
      const missed = waveIntegral(primary[direction] ?? wave, Math.max(boot, incident.start), Math.min(t, incident.end));
      bytes += port.wan === 'primary' ? -missed : missed;
    }
  }
  return Math.max(0, Math.floor(bytes));
}

/** A port's counters at `t`, cumulative since the boot at `boot`. */
export function portCounters(device: TrafficDevice, port: PortSpec, boot: number, t: number): CountersInput {
  if (!port.isConnected) return ZERO;
  const rxBytes = bytesSinceBoot(device, port, 'rx', boot, t);
  const txBytes = bytesSinceBoot(device, port, 'tx', boot, t);
  const rxPackets = Math.floor(rxBytes / BYTES_PER_PACKET.rx);
  const txPackets = Math.floor(txBytes / BYTES_PER_PACKET.tx);
  return { rxBytes, txBytes, rxPackets, txPackets, rxErrors: Math.floor(rxPackets * port.errorRate), txErrors: Math.floor(txPackets * port.errorRate) };
}

/** True while the device's primary WAN link is down at `t`. */
export function isPrimaryDown(device: TrafficDevice, t: number): boolean {
  const primary = device.ports.find((p) => p.wan === 'primary');
  return primary !== undefined && incidentAt(device.key, primary.portNumber, t)?.kind === 'down';
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** A WAN port's measurement at `s`: latency by load, occasional loss, the link's throughput. */
export function uplinkSample(device: TrafficDevice, port: PortSpec, s: number) {
  const primaryDown = isPrimaryDown(device, s);
  const observedAt = formatTime(s);
  if (port.wan === 'primary' && primaryDown) {
    return { portNumber: port.portNumber, observedAt, latencyMs: null, jitterMs: null, lossPercent: 100, rxBitsPerSecond: 0, txBitsPerSecond: 0 } satisfies UplinkSampleInput;
  }
  const carrier = port.wan === 'backup' && primaryDown ? (device.ports.find((p) => p.wan === 'primary') ?? port) : port;
  const load = carrier.rx === undefined ? 0 : waveAt(carrier.rx, s) / carrier.rx.base;
  const base = device.cellular ? between(30, 60, device.key, 70, port.portNumber) : between(6, 25, device.key, 70, port.portNumber);
  const noise = unit(device.key, 71, port.portNumber, s);
  const spike = incidentAt(device.key, port.portNumber, s);
  const loss = spike?.kind === 'loss' ? spike.lossPercent * (0.6 + 0.8 * noise) : noise < 0.05 ? noise * 10 : 0;
  return {
    portNumber: port.portNumber,
    observedAt,
    latencyMs: round(base * (0.8 + 0.25 * load) + 3 * noise + (spike ? 20 * noise : 0), 1),
    jitterMs: round((device.cellular ? 3 : 0.4) + 2 * unit(device.key, 72, port.portNumber, s), 1),
    lossPercent: round(loss, 2),
    rxBitsPerSecond: Math.round((carrier.rx === undefined ? 0 : waveAt(carrier.rx, s)) * 8),
    txBitsPerSecond: Math.round((carrier.tx === undefined ? 0 : waveAt(carrier.tx, s)) * 8),
  } satisfies UplinkSampleInput;
}

/** WAN_DOWN and WAN_UP events of the primary WAN port in (from, to]. */
export function wanEvents(device: TrafficDevice, from: number, to: number): EventInput[] {
  const events: { at: number; event: EventInput }[] = [];
  for (const { port, incident } of downIncidents(device, from, to + 1)) {
    if (from < incident.start && incident.start <= to) {
      events.push({ at: incident.start, event: { type: 'WAN_DOWN', observedAt: formatTime(incident.start), details: { portNumber: port.portNumber, label: port.label } } });
    }
    if (from < incident.end && incident.end <= to) {
      const details = { portNumber: port.portNumber, label: port.label, downSeconds: incident.end - incident.start };
      events.push({ at: incident.end, event: { type: 'WAN_UP', observedAt: formatTime(incident.end), details } });
    }
  }
  return events.sort((a, b) => a.at - b.at).map((e) => e.event);
}
