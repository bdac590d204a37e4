/**
 * The short human-readable names of the event types netgraph knows
 * (EventLogEvent.eventType), by their stable API name (eventTypeAPIName):
 * netgraph's own (DEVICE_ONLINE, DEVICE_OFFLINE) and the device events of
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
