/**
 * The short human-readable names of the event types netgraph knows
 * (EventLogEvent.eventType), by their stable API name (eventTypeAPIName):
 * netgraph's own (DEVICE_ONLINE, DEVICE_OFFLINE, PDU_OUTLET_STATUS_CHANGED) and the device events of
 * docs/reports.md and the fleet simulator. Documented in docs/schema.md's
 * introduction; a type not listed gets a name derived from its API name
 * (eventTypeName).
 */
export const EVENT_TYPE_NAMES: Readonly<Record<string, string>> = {
  DEVICE_ONLINE: 'Device online',
  DEVICE_OFFLINE: 'Device offline',
  DEVICE_BOOT: 'Device booted',
  WAN_DOWN: 'WAN down',
  WAN_UP: 'WAN up',
  WAN_FAILOVER: 'WAN failover',
  PORT_UP: 'Port up',
  PORT_DOWN: 'Port down',
  CLIENT_CONNECTED: 'Client connected',
  CLIENT_DISCONNECTED: 'Client disconnected',
  DHCP_LEASE_EXHAUSTED: 'DHCP pool exhausted',
  CONFIG_CHANGED: 'Configuration changed',
  FIRMWARE_UPDATED: 'Firmware updated',
  PDU_OUTLET_STATUS_CHANGED: 'PDU outlet switched',
  LINK_DOWN: 'Link down (SNMP trap)',
  LINK_UP: 'Link up (SNMP trap)',
  SNMP_AUTHENTICATION_FAILURE: 'SNMP authentication failure',
  HIGH_CPU_USAGE: 'High CPU usage',
  PORT_BLOCKED: 'Port blocked',
  PORT_UNBLOCKED: 'Port unblocked',
  STP_ERROR_PORT_BLOCKED: 'STP error: port blocked',
  STP_ERROR_PORT_UNBLOCKED: 'STP error: port unblocked',
  ROGUE_ACCESS_POINT_DETECTED: 'Rogue access point detected',
  HONEYPOT_ACCESS_POINT_DETECTED: 'Honeypot access point detected',
};

/**
 * The name of any event type: the listed name, or one derived from the API
 * name, its first letter kept and the rest in lower case, underscores as
 * spaces (`TEST_EVENT` -> `Test event`). The SQL of EventLogEvent.eventType
 * computes the same (event.graphql.ts); a unit test holds them together.
 */
export function eventTypeName(type: string): string {
  return EVENT_TYPE_NAMES[type] ?? `${type.slice(0, 1)}${type.slice(1).toLowerCase().replaceAll('_', ' ')}`;
}

/** SQL of eventTypeName for the event type column `column`: the listed names, else the derived one. */
export function eventTypeNameSql(column: string): string {
  const cases = Object.entries(EVENT_TYPE_NAMES)
    // the names and types are constants of this file, without quotes
    .map(([type, name]) => `WHEN '${type}' THEN '${name}'`)
    .join(' ');
  return `(CASE ${column} ${cases} ELSE substr(${column}, 1, 1) || replace(lower(substr(${column}, 2)), '_', ' ') END)`;
}

/**
 * Meter's EventType values (EventLogEvent.eventType, typeFilter), UNSPECIFIED
 * aside: an event whose API name is one of these answers it as its
 * eventType; any other answers UNSPECIFIED (its own name stays in eventTypeAPIName).
 */
export const METER_EVENT_TYPES = [
  'ACCESS_POINT_CONNECTION',
  'ACCESS_POINT_DFS_CHANNEL_RESET',
  'ACCESS_POINT_INVALID_VLAN_CONNECTION',
  'ACCESS_POINT_RADAR_HIT_DETECTED',
  'CALIBRATION_JOB_CHANNEL_RESET_FAILED',
  'CALIBRATION_JOB_COMPLETED',
  'COS_HA_FAILOVER',
  'COS_HA_MULTIPLE_ACTIVE',
  'COS_HA_RECOVERY',
  'DEVICE_BOOT',
  'DEVICE_OFFLINE',
  'DEVICE_ONLINE',
  'FIRMWARE_UPGRADE_COMPLETED',
  'FIRMWARE_UPGRADE_PENDING',
  'FIRMWARE_UPGRADE_SCHEDULED',
  'HONEYPOT_ACCESS_POINT_DETECTED',
  'HONEYPOT_ACCESS_POINT_NO_LONGER_DETECTED',
  'IPSEC_TUNNEL_STATUS_CHANGE',
  'MANAGEMENT_CONNECTION_STATUS_CHANGED',
  'PDU_OUTLET_STATUS_CHANGED',
  'PORT_BLOCKED',
  'PORT_UNBLOCKED',
  'ROGUE_ACCESS_POINT_DETECTED',
  'ROGUE_ACCESS_POINT_NO_LONGER_DETECTED',
  'STP_ERROR_PORT_BLOCKED',
  'STP_ERROR_PORT_UNBLOCKED',
  'WAN_DOWN',
  'WAN_STATUS_CHANGE',
  'WAN_UP',
] as const;

/** SQL of an event's EventType for the API name column `column`: the name when it is one of Meter's, else UNSPECIFIED. */
export function meterEventTypeSql(column: string): string {
  // constants of this file, without quotes
  return `(CASE WHEN ${column} IN (${METER_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}) THEN ${column} ELSE 'UNSPECIFIED' END)`;
}
