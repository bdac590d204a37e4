import type { ClientConnectionEventInput, ClientConnectionEventsInput } from '../../ingest/report.protocol.js';
import { formatTime } from '../../ingest/report.limits.js';
import { associatedAp } from './simulator.clients.js';
import type { SimClient } from './simulator.clients.js';
import type { SimNetwork } from './simulator.model.js';
import { unit } from './simulator.noise.js';
import { isOffline } from './simulator.schedule.js';

/** How often a joining client's first DHCP attempt fails, and a staying client's gateway answers ARP late, per report. */
const DHCP_FAILURE_SHARE = 0.1;
const ARP_LATE_SHARE = 0.02;

/** Which of the network's access points are up at `t`. */
const upAt = (network: SimNetwork, t: number): boolean[] => network.accessPoints.map((ap) => !isOffline(ap.key, t));

/** A time in (from, to], from the client's key and `salt`, at least `room` seconds before `to`. */
function timeIn(client: SimClient, from: number, to: number, salt: number, room: number): number {
  const span = Math.max(1, to - from - room);
  return Math.min(to, from + 1 + Math.floor(unit(client.key, salt, to) * span));
}

/** What one client did at the access point `apIndex` in (from, to]: joined, left, or stayed (with an occasional late ARP). */
function eventsOf(client: SimClient, network: SimNetwork, up: { readonly from: boolean[]; readonly to: boolean[] }, apIndex: number, from: number, to: number): ClientConnectionEventInput[] {
  const [before, now] = [associatedAp(client, network, up.from, from), associatedAp(client, network, up.to, to)];
  const event = (type: ClientConnectionEventInput['type'], at: number, reason: string | null = null): ClientConnectionEventInput => ({ type, observedAt: formatTime(at), reason });
  if (before === apIndex && now === apIndex) {
    return unit(client.key, 82, to) < ARP_LATE_SHARE ? [event('ARP_LATE', timeIn(client, from, to, 83, 0), 'gateway answered ARP after 1.5 s')] : [];
  }
  if (before === apIndex) return [event('DISASSOCIATED', timeIn(client, from, to, 84, 0), now === undefined ? 'left' : 'roamed')];
  if (now !== apIndex) return [];
  const joined = timeIn(client, from, to, 85, 6);
  if (unit(client.key, 86, to) >= DHCP_FAILURE_SHARE) return [event('CONNECTED', joined), event('DHCP_OK', joined + 1)];
  return [event('CONNECTED', joined), event('DHCP_FAILED', joined + 3, 'no DHCP offer'), event('DHCP_OK', joined + 6)];
}

/**
 * The connection events of the access point `apIndex`'s wireless clients in
 * the interval before `t` (clientConnectionEvents): CONNECTED and DHCP_OK for
 * a client that joined it (now and then a DHCP_FAILED before the DHCP_OK),
 * DISASSOCIATED for one that left or roamed away, and now and then an
 * ARP_LATE for one that stayed.
 */
export function connectionEvents(network: SimNetwork, apIndex: number, t: number, intervalSeconds: number): ClientConnectionEventsInput[] {
  const up = { from: upAt(network, t - intervalSeconds), to: upAt(network, t) };
  return network.wireless.flatMap((client) => {
    const events = eventsOf(client, network, up, apIndex, t - intervalSeconds, t);
    return events.length === 0 ? [] : [{ macAddress: client.macAddress, events }];
  });
}
