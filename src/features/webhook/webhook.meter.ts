import { createHmac } from 'node:crypto';
import type { AlertType, DispatchAuditEntry, DispatchEvent, Payload } from './webhook.alerts.js';
import { TEST_ALERT, cursorMember } from './webhook.alerts.js';

/** The bodies an endpoint can choose: `standard` (netgraph's) or `meter` (Meter's names and snake_case data, X-Meter-Signature). */
export const PAYLOAD_FORMATS = ['standard', 'meter'] as const;
/** One body format of PAYLOAD_FORMATS. */
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];

/**
 * Meter's alert name for each of netgraph's alerts, as the `meter` body's
 * `metadata.alert_name` carries it (docs/alerts.md maps the rest of Meter's
 * catalogue). DEVICE_ONLINE, PORT_DOWN/UP, PORT_UNBLOCKED, STP_ERROR_PORT_UNBLOCKED, SNMP_AUTHENTICATION_FAILURE,
 * CLIENT_COUNT_ABOVE and API_KEY_EXPIRING have no Meter alert of their own:
 * they get names in Meter's style.
 */
export const METER_ALERT_NAMES: Readonly<Record<AlertType | typeof TEST_ALERT, string>> = {
  DEVICE_OFFLINE: 'Device offline',
  DEVICE_ONLINE: 'Device online',
  DEVICE_BOOT: 'Device boot',
  WAN_DOWN: 'WAN down',
  WAN_UP: 'WAN up',
  PORT_DOWN: 'Port down',
  PORT_UP: 'Port up',
  SNMP_AUTHENTICATION_FAILURE: 'SNMP authentication failure',
  HIGH_CPU_USAGE: 'High CPU usage',
  PORT_BLOCKED: 'Port blocked',
  PORT_UNBLOCKED: 'Port unblocked',
  STP_ERROR_PORT_BLOCKED: 'STP error',
  STP_ERROR_PORT_UNBLOCKED: 'STP error cleared',
  ROGUE_ACCESS_POINT_DETECTED: 'Rogue access point',
  HONEYPOT_ACCESS_POINT_DETECTED: 'Honeypot access point',
  CLIENT_COUNT_ABOVE: 'Network client count',
  API_KEY_EXPIRING: 'API key expiring',
  AUDIT_LOG: 'Audit log',
  TEST: 'Test alert',
};

/** `networkUUID` -> `network_uuid`, `serialNumber` -> `serial_number`, `portNumber` -> `port_number`. */
export function toSnakeCase(name: string): string {
  return name
    .replace(/UUID/g, 'Uuid')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

/** An object's own keys in snake_case (one level: nested values stay as they are). */
function snakeKeys(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, v]) => [toSnakeCase(key), v]));
}

function metadata(alert: keyof typeof METER_ALERT_NAMES, networkName: string | null, timestamp: string): Payload['metadata'] {
  return { alert_name: METER_ALERT_NAMES[alert], network_name: networkName, timestamp };
}

/**
 * Meter's body of a device event: the device's name, type and serial
 * number, the ids, and the event's reported details as snake_case members
 * (a boot's `rebootReason` is `reboot_reason`), never replacing the others.
 */
export function meterEventPayload(event: DispatchEvent, alert: AlertType): Payload {
  const fixed = {
    device_name: event.deviceLabel,
    device_type: event.deviceType === null ? null : event.deviceType.toLowerCase(),
    serial_number: event.serialNumber,
    virtual_device_uuid: event.virtualDeviceUuid,
    network_uuid: event.networkUuid,
    event_uuid: event.uuid,
    ...cursorMember(event.type, 'change_cursor', event.changeCursor),
  };
  const details = event.details === null ? {} : snakeKeys(JSON.parse(event.details) as unknown);
  return { metadata: metadata(alert, event.networkLabel, event.observedAt), data: { ...details, ...fixed } };
}

/** Meter's body of an audit-log entry. */
export function meterAuditPayload(entry: DispatchAuditEntry): Payload {
  return {
    metadata: metadata('AUDIT_LOG', null, entry.occurredAt),
    data: {
      audit_entry_uuid: entry.uuid,
      action: entry.action,
      object_type: entry.objectType,
      object_id: entry.objectId,
      actor: { type: entry.actorType, id: entry.actorId, label: entry.actorLabel },
      before: entry.before === null ? null : (JSON.parse(entry.before) as unknown),
      after: entry.after === null ? null : (JSON.parse(entry.after) as unknown),
      change_cursor: entry.changeCursor,
    },
  };
}

/** Meter's body of a standard payload whose data holds only ids, counts and names (client count, expiring key, test event): the same members in snake_case. */
export function meterPayloadOf(alert: keyof typeof METER_ALERT_NAMES, payload: Payload): Payload {
  return { metadata: metadata(alert, payload.metadata.network_name, payload.metadata.timestamp), data: snakeKeys(payload.data) };
}

/**
 * The X-Meter-Signature header: the hex HMAC-SHA256 of the raw body, keyed
 * with the endpoint's secret exactly as shown to the user (the whole
 * `whsec_…` string as UTF-8, not its decoded bytes), as Meter's receivers
 * compute it: `hmac.new(secret.encode(), body, sha256).hexdigest()`.
 */
export function meterSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}
