import { between, pick, unit } from './simulator.noise.js';

/**
 * When things happen: device outages and reboots, WAN incidents, and when
 * clients are on site. Each is drawn per fixed time slot from a hash of the
 * entity's key and the slot, so it is known for any time without history.
 */

/** Length of the slots outages and incidents are drawn in (seconds). */
export const SLOT_SECONDS = 6 * 3600;
/** Every device reboots for a firmware update at least once in this many slots (a week). */
const FIRMWARE_EVERY_SLOTS = 28;
const OUTAGE_CHANCE = 0.12;
/** Events start early enough in their slot to end inside it. */
const LATEST_START = SLOT_SECONDS - 1800;

const SALT = { outage: 1, outageAt: 2, outageLength: 3, reason: 4, incident: 5, incidentAt: 6, incidentLength: 7, loss: 8, stp: 9, stpAt: 10, stpLength: 11, stpPort: 12 } as const;

/** A time a device sends nothing, ending in a boot (DEVICE_BOOT at `end`). */
export interface Outage {
  readonly start: number;
  readonly end: number;
  readonly reason: 'power' | 'watchdog' | 'firmware_update';
}

/** A WAN port's incident: the link down, or heavy packet loss. */
export interface Incident {
  readonly kind: 'down' | 'loss';
  readonly start: number;
  readonly end: number;
  readonly lossPercent: number;
}

/** The slot that holds time `t`. */
export function slotOf(t: number): number {
  return Math.floor(t / SLOT_SECONDS);
}

/** The device's outage in a slot, if it has one. */
export function outageInSlot(deviceKey: number, slot: number): Outage | undefined {
  const firmware = (slot + deviceKey) % FIRMWARE_EVERY_SLOTS === 0;
  if (!firmware && unit(deviceKey, SALT.outage, slot) >= OUTAGE_CHANCE) return undefined;
  const start = slot * SLOT_SECONDS + Math.floor(between(0, LATEST_START, deviceKey, SALT.outageAt, slot));
  const length = firmware ? between(60, 150, deviceKey, SALT.outageLength, slot) : between(180, 720, deviceKey, SALT.outageLength, slot);
  const reason = firmware ? 'firmware_update' : pick(['power', 'watchdog'] as const, deviceKey, SALT.reason, slot);
  return { start, end: start + Math.floor(length), reason };
}

/** True while the device is in an outage at `t`: it sends nothing. */
export function isOffline(deviceKey: number, t: number): boolean {
  const outage = outageInSlot(deviceKey, slotOf(t));
  return outage !== undefined && outage.start <= t && t < outage.end;
}

/** The outage whose end is the device's latest boot at or before `t`. */
export function lastBoot(deviceKey: number, t: number): Outage {
  for (let slot = slotOf(t); ; slot--) {
    const outage = outageInSlot(deviceKey, slot);
    if (outage !== undefined && outage.end <= t) return outage;
  }
}

/**
 * The incident of one WAN port in a slot, if any: about one slot in eight has
 * the link down for 2 to 8 minutes, one in four a loss spike of 5 to 20
 * minutes. None while the device itself is out.
 */
export function incidentInSlot(deviceKey: number, portNumber: number, slot: number): Incident | undefined {
  const draw = unit(deviceKey, SALT.incident, portNumber, slot);
  if (draw >= 0.375) return undefined;
  const kind = draw < 0.125 ? 'down' : 'loss';
  const start = slot * SLOT_SECONDS + Math.floor(between(0, LATEST_START, deviceKey, SALT.incidentAt, portNumber, slot));
  const length = kind === 'down' ? between(120, 480, deviceKey, SALT.incidentLength, portNumber, slot) : between(300, 1200, deviceKey, SALT.incidentLength, portNumber, slot);
  const end = start + Math.floor(length);
  const outage = outageInSlot(deviceKey, slot);
  if (outage !== undefined && outage.start < end && start < outage.end) return undefined;
  const lossPercent = kind === 'down' ? 100 : Math.round(between(3, 25, deviceKey, SALT.loss, portNumber, slot) * 10) / 10;
  return { kind, start, end, lossPercent };
}

/** The port's incident in progress at `t`, if any. */
export function incidentAt(deviceKey: number, portNumber: number, t: number): Incident | undefined {
  const incident = incidentInSlot(deviceKey, portNumber, slotOf(t));
  return incident !== undefined && incident.start <= t && t < incident.end ? incident : undefined;
}

/** The chance that a switch has a port blocked by spanning tree in a slot. */
const STP_BLOCK_CHANCE = 0.1;

/**
 * The one port of `ports` (a switch's connected ports) that spanning tree
 * blocks at `t`, if any: in about one slot in ten a switch has a redundant
 * link blocked for 3 to 10 minutes (PORT_BLOCKED, then PORT_UNBLOCKED).
 */
export function stpBlockedPort(deviceKey: number, ports: readonly number[], t: number): number | undefined {
  const slot = slotOf(t);
  if (ports.length === 0 || unit(deviceKey, SALT.stp, slot) >= STP_BLOCK_CHANCE) return undefined;
  const start = slot * SLOT_SECONDS + Math.floor(between(0, LATEST_START, deviceKey, SALT.stpAt, slot));
  const end = start + Math.floor(between(180, 600, deviceKey, SALT.stpLength, slot));
  return start <= t && t < end ? pick(ports, deviceKey, SALT.stpPort, slot) : undefined;
}

const DAY = 86_400;

/** Who a client is, for its schedule: its key, and whether it stays on day and night (phones, printers, cameras). */
export interface ScheduledClient {
  readonly key: number;
  readonly alwaysOn: boolean;
}

/**
 * True while the client is on site at `t`. People arrive between 7:00 and
 * 10:00 and leave between 16:00 and 19:00 of the network's local day, on most
 * weekdays and few weekend days; always-on clients never leave.
 */
export function isOnSite(client: ScheduledClient, utcOffsetSeconds: number, t: number): boolean {
  if (client.alwaysOn) return true;
  const local = t + utcOffsetSeconds;
  const day = Math.floor(local / DAY);
  const weekday = (day + 4) % 7; // 1970-01-01 was a Thursday; 0 is Sunday
  const attends = weekday === 0 || weekday === 6 ? 0.15 : 0.9;
  if (unit(client.key, 1, day) >= attends) return false;
  const secondOfDay = local - day * DAY;
  const arrives = between(7 * 3600, 10 * 3600, client.key, 2, day);
  const leaves = between(16 * 3600, 19 * 3600, client.key, 3, day);
  return arrives <= secondOfDay && secondOfDay < leaves;
}
