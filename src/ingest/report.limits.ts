/**
 * The report protocol's limits and value lists (docs/reports.md), without
 * its schema: what the API, the collector and the simulator need of the
 * protocol at run time. report.protocol.ts builds the schema from them with
 * typebox, which takes half a second to load; a CLI command or a worker that
 * never parses a report does not load it.
 */

/** The most reports one request may carry. */
export const MAX_REPORTS_PER_REQUEST = 500;
/** How far ahead of the server's clock an observedAt may be. */
export const MAX_CLOCK_AHEAD_MS = 5 * 60_000;
/** The most entries a switch's `macTable` may hold (the API prices switchMACTable from it). */
export const MAX_MAC_TABLE_ENTRIES = 8192;
/** The most clients one report's `clients` may hold. */
export const MAX_CLIENTS = 5000;
/** The most outlets a PDU's `outlets` may hold, and the highest outlet number. */
export const MAX_OUTLETS = 1024;
/** Event types only netgraph records; a device may not report them. */
export const NETGRAPH_EVENT_TYPES = ['DEVICE_ONLINE', 'DEVICE_OFFLINE'] as const;
/** The most bytes an event's `details` may take as JSON text. */
export const MAX_DETAILS_BYTES = 8 * 1024;

/** `clientConnectionEvents[].events[].type` values: Meter's WirelessClientConnectionEventType. */
export const CLIENT_CONNECTION_EVENT_TYPES = ['ARP_FAILED', 'ARP_LATE', 'CONNECTED', 'DHCP_FAILED', 'DHCP_OK', 'DISASSOCIATED', 'FAILED'] as const;
/** The most connection events one client may have in one report (a client flapping faster is summarised by its sender). */
export const MAX_CONNECTION_EVENTS_PER_CLIENT = 32;
/** The most clients with connection events one report may carry (as many as `clients`). */
export const MAX_CONNECTION_EVENT_CLIENTS = 5000;

/** `portType` values. */
export const PORT_TYPES = ['COPPER', 'SFP', 'CELLULAR', 'WIRELESS'] as const;
/** `radioBand` values. */
export const RADIO_BANDS = ['BAND_2_4G', 'BAND_5G', 'BAND_6G'] as const;
/** `hwMode` values: a wireless client's Wi-Fi generation, as Meter's NetworkClientHWMode names them (NA: not applicable). */
export const HW_MODES = ['NA', 'WIFI_2', 'WIFI_3', 'WIFI_4', 'WIFI_5', 'WIFI_6', 'WIFI_7'] as const;
/** The highest Wi-Fi channel number (6 GHz channels run to 233). */
export const MAX_WIFI_CHANNEL = 233;
/** `radioChannels[].channelWidthMHz` values. */
export const CHANNEL_WIDTHS_MHZ = [20, 40, 80, 160, 320] as const;
/** `portType` values. */
export type PortType = (typeof PORT_TYPES)[number];
/** A port's spanning-tree state: BRIDGE-MIB's dot1dStpPortState values by name (docs/reports.md). */
export const STP_STATES = ['DISABLED', 'BLOCKING', 'LISTENING', 'LEARNING', 'FORWARDING', 'BROKEN'] as const;
/** One of STP_STATES. */
export type StpState = (typeof STP_STATES)[number];
/** `radioBand` values. */
export type RadioBand = (typeof RADIO_BANDS)[number];
/** The longest poll error a report may carry. */
export const MAX_POLL_ERROR = 500;

/** A time in the protocol's format: RFC 3339 in UTC, whole seconds (`2026-11-24T10:00:00Z`). */
export function formatTime(seconds: number): string {
  return new Date(Math.floor(seconds) * 1000).toISOString().replace('.000Z', 'Z');
}
