import type { NewAuditRow } from '../../platform/audit/audit.service.js';

/** The alerts a rule can ask for (docs/webhooks.md and docs/alerts.md have a payload of each and the rule that fires it). */
export const ALERT_TYPES = [
  'DEVICE_OFFLINE', 'DEVICE_ONLINE', 'DEVICE_BOOT', 'WAN_DOWN', 'WAN_UP', 'PORT_DOWN', 'PORT_UP', 'SNMP_AUTHENTICATION_FAILURE', 'HIGH_CPU_USAGE',
  'PORT_BLOCKED', 'PORT_UNBLOCKED', 'STP_ERROR_PORT_BLOCKED', 'STP_ERROR_PORT_UNBLOCKED', 'ROGUE_ACCESS_POINT_DETECTED', 'HONEYPOT_ACCESS_POINT_DETECTED', 'CLIENT_COUNT_ABOVE', 'API_KEY_EXPIRING', 'AUDIT_LOG',
] as const;
/** One alert a rule can ask for. */
export type AlertType = (typeof ALERT_TYPES)[number];
/**
 * The alert each type of event of the event log is: netgraph's own
 * (DEVICE_ONLINE/OFFLINE, HIGH_CPU_USAGE, the spanning-tree ones, ROGUE_/HONEYPOT_ACCESS_POINT_DETECTED),
 * devices' reported ones, and those of SNMP traps (LINK_DOWN and LINK_UP are
 * ports going down and up as much as a device's reported PORT_DOWN/PORT_UP).
 * Events of other types are no alert.
 */
export const EVENT_ALERT_OF: Readonly<Record<string, AlertType>> = {
  DEVICE_OFFLINE: 'DEVICE_OFFLINE',
  DEVICE_ONLINE: 'DEVICE_ONLINE',
  DEVICE_BOOT: 'DEVICE_BOOT',
  WAN_DOWN: 'WAN_DOWN',
  WAN_UP: 'WAN_UP',
  PORT_DOWN: 'PORT_DOWN',
  LINK_DOWN: 'PORT_DOWN',
  PORT_UP: 'PORT_UP',
  LINK_UP: 'PORT_UP',
  SNMP_AUTHENTICATION_FAILURE: 'SNMP_AUTHENTICATION_FAILURE',
  HIGH_CPU_USAGE: 'HIGH_CPU_USAGE',
  PORT_BLOCKED: 'PORT_BLOCKED',
  PORT_UNBLOCKED: 'PORT_UNBLOCKED',
  STP_ERROR_PORT_BLOCKED: 'STP_ERROR_PORT_BLOCKED',
  STP_ERROR_PORT_UNBLOCKED: 'STP_ERROR_PORT_UNBLOCKED',
  ROGUE_ACCESS_POINT_DETECTED: 'ROGUE_ACCESS_POINT_DETECTED',
  HONEYPOT_ACCESS_POINT_DETECTED: 'HONEYPOT_ACCESS_POINT_DETECTED',
};
/** The alerts that are events of the event log. */
export const EVENT_ALERTS: readonly AlertType[] = [...new Set(Object.values(EVENT_ALERT_OF))];
/** The alert name of the "send test event" message: no rule asks for it. */
export const TEST_ALERT = 'TEST';

/** The largest body a delivery sends; larger audit details are left out (`truncated: true`). */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** A delivery's body: Meter's shape, with ids in `data`. */
export interface Payload {
  readonly metadata: { readonly alert_name: string; readonly network_name: string | null; readonly timestamp: string };
  readonly data: Readonly<Record<string, unknown>>;
}

/** An event of the event log, with what its payload names. */
export interface DispatchEvent {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly networkId: number | null;
  readonly networkUuid: string | null;
  readonly networkLabel: string | null;
  readonly virtualDeviceUuid: string | null;
  /** The virtual device's label and type (e.g. SWITCH), for Meter's body. */
  readonly deviceLabel: string | null;
  readonly deviceType: string | null;
  readonly serialNumber: string | null;
  readonly type: string;
  readonly observedAt: string;
  /** JSON text or null. */
  readonly details: string | null;
  /** The change feed's cursor of the changes the event wrote (DEVICE_ONLINE, DEVICE_OFFLINE); null when it wrote none. */
  readonly changeCursor: string | null;
}

/** An entry of the audit log as the dispatcher takes it. */
export interface DispatchAuditEntry extends NewAuditRow {
  readonly id: number;
  /** The change feed's cursor of the entry's last change; null when the feed lists none of it (docs/changes.md). */
  readonly changeCursor: string | null;
}

/** The alerts whose deliveries carry the change feed's cursor: the events and entries that write changes. */
const FEED_ALERTS: ReadonlySet<string> = new Set(['DEVICE_ONLINE', 'DEVICE_OFFLINE', 'AUDIT_LOG']);

/** `{ [name]: cursor }` for an alert that writes changes, `{}` for the others: the member a delivery of it carries. */
export function cursorMember(alertType: string, name: 'changeCursor' | 'change_cursor', cursor: string | null): Record<string, string | null> {
  return FEED_ALERTS.has(alertType) ? { [name]: cursor } : {};
}

function alertName(type: string): string {
  return `ALERT_${type}`;
}

/** The payload of an event of the event log as the alert `alert` (EVENT_ALERT_OF of its type). */
export function eventPayload(event: DispatchEvent, alert: AlertType): Payload {
  return {
    metadata: { alert_name: alertName(alert), network_name: event.networkLabel, timestamp: event.observedAt },
    data: {
      eventUUID: event.uuid,
      networkUUID: event.networkUuid,
      virtualDeviceUUID: event.virtualDeviceUuid,
      serialNumber: event.serialNumber,
      details: event.details === null ? null : (JSON.parse(event.details) as unknown),
      ...cursorMember(event.type, 'changeCursor', event.changeCursor),
    },
  };
}

/** The payload of an audit-log entry; `before` and `after` are the entry's. */
export function auditPayload(entry: DispatchAuditEntry): Payload {
  return {
    metadata: { alert_name: alertName('AUDIT_LOG'), network_name: null, timestamp: entry.occurredAt },
    data: {
      auditEntryUUID: entry.uuid,
      action: entry.action,
      objectType: entry.objectType,
      objectId: entry.objectId,
      actor: { type: entry.actorType, id: entry.actorId, label: entry.actorLabel },
      before: entry.before === null ? null : (JSON.parse(entry.before) as unknown),
      after: entry.after === null ? null : (JSON.parse(entry.after) as unknown),
      changeCursor: entry.changeCursor,
    },
  };
}

/** The payload of a network whose connected clients went above a threshold. */
export function clientCountPayload(network: { uuid: string; label: string }, clientCount: number, threshold: number, at: string): Payload {
  return {
    metadata: { alert_name: alertName('CLIENT_COUNT_ABOVE'), network_name: network.label, timestamp: at },
    data: { networkUUID: network.uuid, clientCount, threshold },
  };
}

/** An API key whose expiry is near, as API_KEY_EXPIRING names it: never its secret. */
export interface ExpiringKey {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly prefix: string;
  readonly label: string;
  readonly expiresAt: string;
}

/** The payload of an API key that expires within API_KEY_EXPIRING's warning period. */
export function expiringKeyPayload(key: ExpiringKey, at: string): Payload {
  return {
    metadata: { alert_name: alertName('API_KEY_EXPIRING'), network_name: null, timestamp: at },
    data: { apiKeyUUID: key.uuid, prefix: key.prefix, label: key.label, expiresAt: key.expiresAt },
  };
}

/** The payload of "send test event". */
export function testPayload(endpointUuid: string, at: string): Payload {
  return {
    metadata: { alert_name: alertName(TEST_ALERT), network_name: null, timestamp: at },
    data: { endpointUUID: endpointUuid, message: 'A test event from netgraph: this endpoint receives and verifies deliveries.' },
  };
}

/**
 * The body of a payload, at most MAX_PAYLOAD_BYTES: when larger, the bulky
 * members of `data` (an audit entry's before and after, an event's details)
 * are left out and `truncated: true` says so; the ids always stay.
 */
export function serializePayload(payload: Payload): string {
  const body = JSON.stringify(payload);
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES) return body;
  const { before: _before, after: _after, details: _details, ...ids } = payload.data;
  return JSON.stringify({ metadata: payload.metadata, data: { ...ids, truncated: true } });
}
