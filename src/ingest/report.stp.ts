import type { PortReport } from './report.protocol.js';
import type { StpState } from './report.limits.js';

/** The block alert a port has open: BLOCKED after PORT_BLOCKED, STP_ERROR after STP_ERROR_PORT_BLOCKED. */
export type StpAlert = 'BLOCKED' | 'STP_ERROR';

/** A port's stored spanning-tree state and its open block alert (device_ports.stp_state, stp_alert). */
export interface PortStp {
  readonly state: StpState | null;
  readonly alert: StpAlert | null;
}

/** One device's port lists of one request, each complete at its observedAt, oldest first. */
export interface PortSets {
  readonly deviceId: number;
  readonly sets: readonly { readonly observedAt: string; readonly items: readonly PortReport[] }[];
}

/** A port's spanning-tree change that is an event (Meter's EventType names). */
export interface StpEvent {
  readonly deviceId: number;
  readonly type: 'PORT_BLOCKED' | 'PORT_UNBLOCKED' | 'STP_ERROR_PORT_BLOCKED' | 'STP_ERROR_PORT_UNBLOCKED';
  readonly observedAt: string;
  readonly details: { readonly portNumber: number; readonly label: string | null; readonly stpState: StpState; readonly previousStpState: StpState | null };
}

/** What the request's port lists change: the events, and each listed port's open alert after them, by stpKey. */
export interface StpChanges {
  readonly events: StpEvent[];
  readonly alerts: Map<string, StpAlert | null>;
}

/** The states in which a port takes part in the active topology (802.1D): leaving BLOCKING for one unblocks it. */
const ACTIVE: ReadonlySet<StpState> = new Set(['LISTENING', 'LEARNING', 'FORWARDING']);

/** The key of a device's port in StpChanges.alerts. */
export const stpKey = (deviceId: number, portNumber: number): string => `${deviceId}/${portNumber}`;

/**
 * The spanning-tree events of consecutive port lists of each device, the
 * first compared with what is stored (docs/alerts.md has the rule):
 * PORT_BLOCKED when a port goes to BLOCKING from LISTENING, LEARNING or
 * FORWARDING; PORT_UNBLOCKED when a port so blocked goes back to one of
 * them; STP_ERROR_PORT_BLOCKED when a port goes to BROKEN;
 * STP_ERROR_PORT_UNBLOCKED when it leaves BROKEN. Each unblocking follows
 * exactly one blocking: the open alert is kept with the port. A port whose
 * state is not reported (null), or that leaves the list, forgets both.
 */
export function stpChanges(lists: readonly PortSets[], stored: ReadonlyMap<string, PortStp>): StpChanges {
  const changes: StpChanges = { events: [], alerts: new Map() };
  // the stored states by device, in one pass (a batch's devices times their ports, not one pass per device)
  const storedByDevice = new Map<number, Map<number, PortStp>>();
  for (const [key, value] of stored) {
    const slash = key.indexOf('/');
    const deviceId = Number(key.slice(0, slash));
    let ports = storedByDevice.get(deviceId);
    if (ports === undefined) storedByDevice.set(deviceId, (ports = new Map()));
    ports.set(Number(key.slice(slash + 1)), value);
  }
  for (const { deviceId, sets } of lists) {
    let known: ReadonlyMap<number, PortStp> = storedByDevice.get(deviceId) ?? new Map<number, PortStp>();
    for (const { observedAt, items } of sets) {
      const next = new Map<number, PortStp>();
      for (const port of items) {
        const before = known.get(port.portNumber) ?? { state: null, alert: null };
        const after = stepPort(before, port, (type) =>
          changes.events.push({ deviceId, type, observedAt, details: { portNumber: port.portNumber, label: port.label, stpState: port.stpState as StpState, previousStpState: before.state } }),
        );
        next.set(port.portNumber, after);
      }
      known = next;
    }
    for (const [portNumber, { alert }] of known) changes.alerts.set(stpKey(deviceId, portNumber), alert);
  }
  return changes;
}

/** One port's state after one report, calling `emit` for each event the change makes. */
function stepPort(before: PortStp, port: PortReport, emit: (type: StpEvent['type']) => void): PortStp {
  const state = port.stpState;
  if (state === null) return { state: null, alert: null };
  let alert = before.alert;
  if (alert === 'STP_ERROR' && state !== 'BROKEN') {
    emit('STP_ERROR_PORT_UNBLOCKED');
    alert = null;
  }
  if (alert === 'BLOCKED' && ACTIVE.has(state)) {
    emit('PORT_UNBLOCKED');
    alert = null;
  }
  if (state === 'BROKEN' && alert !== 'STP_ERROR') {
    emit('STP_ERROR_PORT_BLOCKED');
    alert = 'STP_ERROR';
  }
  if (state === 'BLOCKING' && alert === null && before.state !== null && ACTIVE.has(before.state)) {
    emit('PORT_BLOCKED');
    alert = 'BLOCKED';
  }
  return { state, alert };
}
