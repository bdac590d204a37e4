import { text } from '../../engine/read.model.js';
import type { GraphQLFeature, SqlContext } from '../../engine/read.model.js';
import { MAX_EVENT_PAGE, eventPageModel, eventRowFields, eventPageRoot, eventPageSize, eventTimeRange, nonEmpty } from '../event/event.graphql.js';

/**
 * The filters of wirelessClientConnectionEventsPage for the event row
 * aliased `e`: startTime inclusive, endTime exclusive, types, access points
 * by virtual device UUID, clients by MAC address (an absent or empty list
 * filters nothing out).
 */
function eventFilters(c: SqlContext, e: string): string {
  const d = c.dialect;
  return (
    `${eventTimeRange(c, e)} ` +
    `AND (${c.value('boolean', (args) => !nonEmpty(args.typeFilter))} OR ${d.inList(`${e}.type`, c.arg('typeFilter'))}) ` +
    `AND (${c.value('boolean', (args) => !nonEmpty(args.apVirtualDeviceUUIDFilter))} OR ${e}.virtual_device_id IN ` +
    `(SELECT fv.id FROM virtual_devices fv WHERE ${d.inList('fv.uuid', c.arg('apVirtualDeviceUUIDFilter'))})) ` +
    `AND (${c.value('boolean', (args) => !nonEmpty(args.clientMacAddressFilter))} OR ${d.inList(`${e}.mac_address`, c.arg('clientMacAddressFilter'))})`
  );
}

/** Wireless clients' connection events as access points report them (docs/reports.md, `clientConnectionEvents`), newest first, paged. */
export const CONNECTION_EVENT_FEATURE = {
  sdl: /* GraphQL */ `
"""One page of a network's wireless client connection events, and how many match the filters in all."""
type WirelessClientConnectionEventsPage {
  """Every event that matches the filters, on all pages."""
  total: Int!
  """This page's events, newest first (by generatedAt, then as recorded)."""
  events: [WirelessClientConnectionEvent!]!
}

"""A wireless client's connection event, as its access point reported it."""
type WirelessClientConnectionEvent {
  eventType: WirelessClientConnectionEventType!
  """When it happened, as the access point reported it."""
  generatedAt: DateTime!
  """The client's MAC address."""
  macAddress: MacAddress!
  """Why, in the access point's words (a failure's detail, a disassociation's reason); null when it gave none."""
  reason: String
  networkUUID: UUID!
  """The access point: the virtual device its hardware was assigned to when it reported the event; null when since deleted."""
  accessPoint: VirtualDevice
}

extend type Query {
  """
  A page of the network's wireless client connection events (kept
  EVENT_RETENTION_DAYS), newest first, with the total that match. Null with
  UNAUTHORIZED for a network that is not the key's company's.
  """
  wirelessClientConnectionEventsPage(
    "The network's UUID."
    networkUUID: UUID!
    "The most events on the page, 1 to ${MAX_EVENT_PAGE}."
    limit: Int!
    "How many matching events to skip (the newest first), 0 or more."
    offset: Int = 0
    "Only events at or after this time."
    startTime: DateTime
    "Only events before this time."
    endTime: DateTime
    "Only events of these types; absent or empty: every type."
    typeFilter: [WirelessClientConnectionEventType!]
    "Only events these access points (virtual device UUIDs) reported; absent or empty: every access point."
    apVirtualDeviceUUIDFilter: [UUID!]
    "Only events of these clients; absent or empty: every client."
    clientMacAddressFilter: [MacAddress!]
  ): WirelessClientConnectionEventsPage
}
`,
  readModel: {
    WirelessClientConnectionEventsPage: eventPageModel('client_connection_events', eventFilters),
    WirelessClientConnectionEvent: {
      eventType: text('type'),
      macAddress: text('mac_address'),
      reason: text('reason', true),
      ...eventRowFields('accessPoint'),
    },
  },
  roots: {
    wirelessClientConnectionEventsPage: eventPageRoot([
      { name: 'typeFilter', type: 'textList' },
      { name: 'apVirtualDeviceUUIDFilter', type: 'uuidList' },
      { name: 'clientMacAddressFilter', type: 'textList' },
    ]),
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'WirelessClientConnectionEventsPage.events': eventPageSize,
  },
} satisfies GraphQLFeature;
