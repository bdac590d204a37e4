import { dateTime, inCompany, text } from '../../engine/read.model.js';
import type { ArgumentProblem, ArgumentValues, FieldMapping, GraphQLFeature, RootArgument, SqlContext } from '../../engine/read.model.js';
import { METER_EVENT_TYPES, eventTypeNameSql, meterEventTypeSql } from './event-types.js';

/** The most events one page holds. */
export const MAX_EVENT_PAGE = 100;

/** True for a list argument that names something (absent or empty: no restriction). */
export const nonEmpty = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/** The arguments an event page root starts with: the network, the page, the time range. */
const EVENT_PAGE_ARGUMENTS: readonly RootArgument[] = [
  { name: 'networkUUID', type: 'uuid' },
  { name: 'limit', type: 'int' },
  { name: 'offset', type: 'int', default: 0 },
  { name: 'startTime', type: 'datetime' },
  { name: 'endTime', type: 'datetime' },
];

/** The rule of an event page: limit 1 to MAX_EVENT_PAGE, offset 0 or more. */
function checkEventPage(args: ArgumentValues): ArgumentProblem | undefined {
  const limit = args.limit as number;
  if (limit < 1 || limit > MAX_EVENT_PAGE) return { argument: 'limit', message: `must be 1 to ${MAX_EVENT_PAGE}: page through more with offset.` };
  if ((args.offset as number | null) !== null && (args.offset as number) < 0) return { argument: 'offset', message: 'must be 0 or more.' };
  return undefined;
}

/** An event page's size for complexity: its limit (the most a page may hold when unknown). */
export const eventPageSize = (args: ArgumentValues | undefined): number => (args === undefined ? MAX_EVENT_PAGE : Math.max(1, Math.min(MAX_EVENT_PAGE, args.limit as number)));

/**
 * A root answering a page of the network networkUUID names (of the caller's
 * company) with the page's arguments, then `filters`.
 */
export const eventPageRoot = (filters: readonly RootArgument[]) => ({
  table: 'networks',
  arguments: [...EVENT_PAGE_ARGUMENTS, ...filters],
  check: checkEventPage,
  where: inCompany('uuid', 'networkUUID'),
});

/**
 * The read model of a page of the event rows of `table` (with network_id,
 * observed_at and id) under the network row: `total` and `events`, newest
 * first, by the row `e`'s `filters`.
 */
export const eventPageModel = (table: string, filters: (c: SqlContext, e: string) => string): Record<string, FieldMapping> => ({
  total: { kind: 'computed', type: 'integer', sql: (n, c) => `(SELECT count(*) FROM ${table} ce WHERE ce.network_id = ${n}.id AND ${filters(c, 'ce')})` },
  events: {
    kind: 'list',
    table: (c, n) =>
      `(SELECT pe.* FROM ${table} pe WHERE pe.network_id = ${n}.id AND ${filters(c, 'pe')} ` +
      `ORDER BY pe.observed_at DESC, pe.id DESC LIMIT ${c.arg('limit')} OFFSET ${c.arg('offset')})`,
    join: (e) => `${e}.id IS NOT NULL`,
    orderBy: (e) => `${e}.observed_at DESC, ${e}.id DESC`,
  },
});

/** startTime (inclusive) and endTime (exclusive) of an event page, over the event row `e`. */
/**
 * The fields every event row answers alike, whichever table holds it: when it
 * was generated, its network's UUID, and the virtual device it happened on
 * (under the name the event type gives it).
 */
export const eventRowFields = (deviceField: string): Record<string, FieldMapping> => ({
  generatedAt: dateTime('observed_at'),
  networkUUID: { kind: 'computed', type: 'string', sql: (e) => `(SELECT en.uuid FROM networks en WHERE en.id = ${e}.network_id)` },
  [deviceField]: { kind: 'object', table: 'virtual_devices', join: (v, e) => `${v}.id = ${e}.virtual_device_id` },
});

export function eventTimeRange(c: SqlContext, e: string): string {
  return `(${c.arg('startTime')} IS NULL OR ${e}.observed_at >= ${c.arg('startTime')}) AND (${c.arg('endTime')} IS NULL OR ${e}.observed_at < ${c.arg('endTime')})`;
}

/**
 * The filters of recentEventLogEventsPage for the event row aliased `e`:
 * startTime inclusive, endTime exclusive, types by EventType and by API
 * name, virtual devices by UUID (an absent or empty list filters nothing out).
 */
function eventFilters(c: SqlContext, e: string): string {
  const d = c.dialect;
  return (
    `${eventTimeRange(c, e)} ` +
    `AND (${c.value('boolean', (args) => !nonEmpty(args.typeFilter))} OR ${d.inList(meterEventTypeSql(`${e}.type`), c.arg('typeFilter'))}) ` +
    (c.mayBeGiven('typeAPINameFilter') ? `AND (${c.value('boolean', (args) => !nonEmpty(args.typeAPINameFilter))} OR ${d.inList(`${e}.type`, c.arg('typeAPINameFilter'))}) ` : '') +
    `AND (${c.value('boolean', (args) => !nonEmpty(args.virtualDeviceUUIDFilter))} OR ${e}.virtual_device_id IN ` +
    `(SELECT fv.id FROM virtual_devices fv WHERE ${d.inList('fv.uuid', c.arg('virtualDeviceUUIDFilter'))}))`
  );
}

/** The event log: what devices report and what netgraph records about them, newest first, paged. */
export const EVENT_FEATURE = {
  sdl: /* GraphQL */ `
"""One page of a network's event log, and how many events match the filters in all."""
type EventLogPage {
  """Every event that matches the filters, on all pages."""
  total: Int!
  """This page's events, newest first (by generatedAt, then as recorded)."""
  events: [EventLogEvent!]!
}

"""
The type of an event of the log, as Meter names it. An event whose
eventTypeAPIName is one of these values has it as its eventType; any other
(e.g. \`WAN_FAILOVER\`, \`PORT_DOWN\`, a device's own type) has UNSPECIFIED.
"""
enum EventType {
${['UNSPECIFIED', ...METER_EVENT_TYPES].sort().map((t) => `  ${t}`).join('\n')}
}

"""An event of a network's log: reported by a device, or recorded by netgraph (DEVICE_ONLINE, DEVICE_OFFLINE)."""
type EventLogEvent {
  """The type as Meter names it: eventTypeAPIName when that is one of EventType's values, else UNSPECIFIED. What typeFilter matches."""
  eventType: EventType!
  """The type's stable upper-case name as reported or recorded, e.g. \`DEVICE_BOOT\` or \`WAN_FAILOVER\`: what typeAPINameFilter matches."""
  eventTypeAPIName: String!
  """A short human-readable name of the type, e.g. \`Device booted\` (docs/schema.md lists them; other types: derived from the API name, \`TEST_EVENT\` -> \`Test event\`)."""
  eventTypeName: String!
  """When the event happened (the device's observedAt)."""
  generatedAt: DateTime!
  networkUUID: UUID!
  """The virtual device its hardware was assigned to when it happened; null when none, or since deleted."""
  virtualDevice: VirtualDevice
  """The event's details as JSON text; null when it has none."""
  details: String
}

extend type Query {
  """
  A page of the network's event log, newest first, with the total of the
  events that match. Null with UNAUTHORIZED for a network that is not the key's company's.
  """
  recentEventLogEventsPage(
    "The network's UUID."
    networkUUID: UUID!
    "The most events on the page, 1 to 100."
    limit: Int!
    "How many matching events to skip (the newest first), 0 or more."
    offset: Int = 0
    "Only events at or after this time."
    startTime: DateTime
    "Only events before this time."
    endTime: DateTime
    "Only events of these types (eventType: UNSPECIFIED matches every type Meter does not name); absent or empty: every type."
    typeFilter: [EventType!]
    "Only events of these virtual devices; absent or empty: every event."
    virtualDeviceUUIDFilter: [UUID!]
    "Only events with these API names (eventTypeAPIName), e.g. \`WAN_FAILOVER\`; absent or empty: every type. With typeFilter, an event must match both."
    typeAPINameFilter: [String!]
  ): EventLogPage
}
`,
  readModel: {
    EventLogPage: eventPageModel('events', eventFilters),
    EventLogEvent: {
      eventType: { kind: 'computed', type: 'string', sql: (e) => meterEventTypeSql(`${e}.type`) },
      eventTypeAPIName: text('type'),
      eventTypeName: { kind: 'computed', type: 'string', sql: (e) => eventTypeNameSql(`${e}.type`) },
      ...eventRowFields('virtualDevice'),
      details: text('details', true),
    },
  },
  roots: {
    recentEventLogEventsPage: eventPageRoot([
      { name: 'typeFilter', type: 'textList' },
      { name: 'virtualDeviceUUIDFilter', type: 'uuidList' },
      { name: 'typeAPINameFilter', type: 'textList' },
    ]),
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'EventLogPage.events': eventPageSize,
  },
} satisfies GraphQLFeature;
