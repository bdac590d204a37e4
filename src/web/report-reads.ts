import { isUuid } from '../modules/formats/formats.js';
import type { Caller } from '../modules/api-key/api-key.service.js';
import type { ReadContext } from './reads.js';

/**
 * What the dashboard reads of the devices' reports, as GraphQL documents of
 * the public schema, run by the API's executor for the session's caller:
 * the same roots, statement and scoping an integration gets, one statement
 * per page. A root of another company's id answers null, like a missing one.
 */
const NETWORK_MONITORING = /* GraphQL */ `
  query DashboardNetworkMonitoring($network: UUID!, $window: MetricsFilterInput!) {
    uplinks: uplinkPhyInterfacesForNetwork(networkUUID: $network) { UUID label portNumber virtualDeviceUUID }
    quality: networkUplinkQuality(networkUUID: $network, filter: $window) { values { timestamp value phyInterfaceUUID } }
    throughput: networkUplinkThroughput(networkUUID: $network, filter: $window) { values { timestamp value direction phyInterfaceUUID } }
    activeClients(networkUUID: $network, filter: $window) { wired { timestamp value } wireless { timestamp value } }
    offline: recentEventLogEventsPage(networkUUID: $network, limit: 100, typeFilter: [DEVICE_OFFLINE]) {
      events { generatedAt virtualDevice { UUID } }
    }
    topology: networkTopology(networkUUID: $network) {
      virtualDevice { UUID label deviceType }
      phyInterface { portNumber label }
      neighbor { chassisID portID systemName remoteDevice { UUID label deviceType } }
    }
  }`;

const DEVICE_PAGE = /* GraphQL */ `
  query DashboardDevice($network: UUID!, $device: UUID!) {
    network(UUID: $network) { UUID label }
    device: virtualDevice(UUID: $device) {
      UUID label deviceType deviceModel isOnline networkUUID uptime cpuUsagePercent memoryUsedBytes memoryTotalBytes
      hardwareDevice { serialNumber macAddress isConnectedToBackend }
      phyInterfaces {
        UUID label portNumber portType isEnabled isConnected isTrunkPort isUplink isUplinkActive portSpeedMbps
        nativeVLAN { name vlanID }
        lldpNeighbor { chassisID portID systemName remoteDevice { UUID label } }
      }
    }
    macTable: switchMACTable(virtualDeviceUUID: $device) { macAddress vlanID portNumber updatedAt }
    portStats: switchPortStats(virtualDeviceUUID: $device, lookbackHours: 24) {
      portNumber totalRxBytes totalTxBytes totalRxPackets totalTxPackets errorRxPackets errorTxPackets
    }
    bssids: bssidsForNetwork(networkUUID: $network, includeInactive: true) { BSSID isActive radioBand accessPointSerialNumber SSID { ssid } }
    events: recentEventLogEventsPage(networkUUID: $network, limit: 20, virtualDeviceUUIDFilter: [$device]) {
      total events { eventType: eventTypeName eventTypeAPIName generatedAt details }
    }
  }`;

const EVENT_LOG = /* GraphQL */ `
  query DashboardEventLog($network: UUID!, $limit: Int!, $offset: Int!, $types: [String!], $devices: [UUID!]) {
    network(UUID: $network) { UUID label virtualDevices { UUID label } }
    page: recentEventLogEventsPage(networkUUID: $network, limit: $limit, offset: $offset, typeAPINameFilter: $types, virtualDeviceUUIDFilter: $devices) {
      total events { eventType: eventTypeName eventTypeAPIName generatedAt details virtualDevice { UUID label } }
    }
    recent: recentEventLogEventsPage(networkUUID: $network, limit: 100) { events { eventType: eventTypeName eventTypeAPIName } }
  }`;

/** The documents, for the start-up check that they are valid against the schema. */
export const REPORT_DOCUMENTS: readonly string[] = [NETWORK_MONITORING, DEVICE_PAGE, EVENT_LOG];

/** A metrics window, as MetricsFilterInput takes it. */
export interface MetricsWindow {
  readonly durationSeconds: number;
  readonly stepSeconds: number;
}

/** One bucket of a series; `phyInterfaceUUID` and `direction` where the series has them. */
export interface MetricPoint {
  readonly timestamp: string;
  readonly value: number;
  readonly phyInterfaceUUID?: string | null;
  readonly direction?: 'RX' | 'TX';
}

/** What the network page shows of the reports: the series of one window, and when its devices went offline. */
export interface NetworkMonitoring {
  readonly uplinks: readonly { readonly UUID: string; readonly label: string | null; readonly portNumber: number; readonly virtualDeviceUUID: string }[];
  readonly quality: readonly MetricPoint[];
  readonly throughput: readonly MetricPoint[];
  readonly activeClients: { readonly wired: readonly MetricPoint[]; readonly wireless: readonly MetricPoint[] };
  /** The newest DEVICE_OFFLINE of each device, by virtual device UUID. */
  readonly offlineSince: ReadonlyMap<string, string>;
  /** The network's links: each port of its devices that sees an LLDP neighbour. */
  readonly topology: readonly TopologyLinkView[];
}

/** A device as a link names it. */
export interface LinkedDevice {
  readonly UUID: string;
  readonly label: string;
  readonly deviceType: string;
}

/** One end of a link: a port of a network's device and the LLDP neighbour it sees. */
export interface TopologyLinkView {
  readonly virtualDevice: LinkedDevice;
  readonly phyInterface: { readonly portNumber: number; readonly label: string | null };
  readonly neighbor: LldpNeighborView & { readonly remoteDevice: LinkedDevice | null };
}

/** The LLDP neighbour a port sees. */
export interface LldpNeighborView {
  readonly chassisID: string;
  readonly portID: string | null;
  readonly systemName: string | null;
  readonly remoteDevice: { readonly UUID: string; readonly label: string } | null;
}

/** A port of a device, as its latest report lists it. */
export interface PortView {
  readonly UUID: string;
  readonly label: string | null;
  readonly portNumber: number;
  readonly portType: string | null;
  readonly isEnabled: boolean;
  readonly isConnected: boolean;
  readonly isTrunkPort: boolean;
  readonly isUplink: boolean;
  readonly isUplinkActive: boolean | null;
  readonly portSpeedMbps: number | null;
  readonly nativeVLAN: { readonly name: string; readonly vlanID: number } | null;
  readonly lldpNeighbor: LldpNeighborView | null;
}

/** What a port's counters grew over the last 24 hours. */
export interface PortStatView {
  readonly portNumber: number;
  readonly totalRxBytes: number;
  readonly totalTxBytes: number;
  readonly totalRxPackets: number;
  readonly totalTxPackets: number;
  readonly errorRxPackets: number;
  readonly errorTxPackets: number;
}

/** An entry of a switch's MAC table. */
export interface MacEntryView {
  readonly macAddress: string;
  readonly vlanID: number | null;
  readonly portNumber: number;
  readonly updatedAt: string;
}

/** An event of the event log. */
export interface EventView {
  readonly eventType: string;
  readonly eventTypeAPIName: string;
  readonly generatedAt: string;
  readonly details: string | null;
  readonly virtualDevice?: { readonly UUID: string; readonly label: string } | null;
}

/** Everything a device's page shows. */
export interface DeviceDetail {
  readonly network: { readonly UUID: string; readonly label: string };
  readonly device: {
    readonly UUID: string;
    readonly label: string;
    readonly deviceType: string;
    readonly deviceModel: string;
    readonly isOnline: boolean;
    readonly uptime: number | null;
    readonly cpuUsagePercent: number | null;
    readonly memoryUsedBytes: number | null;
    readonly memoryTotalBytes: number | null;
    readonly hardwareDevice: { readonly serialNumber: string; readonly macAddress: string | null; readonly isConnectedToBackend: boolean } | null;
    readonly phyInterfaces: readonly PortView[];
  };
  readonly portStats: readonly PortStatView[];
  /** The switch's MAC table, whole (at most 8,192 entries), by MAC address then VLAN. */
  readonly macTable: readonly MacEntryView[];
  /** The device's radios (for an access point), active or not. */
  readonly bssids: readonly { readonly BSSID: string; readonly isActive: boolean; readonly radioBand: string; readonly SSID: { readonly ssid: string } | null }[];
  readonly events: { readonly total: number; readonly events: readonly EventView[] };
}

/** Which events of a network the event log page asks for. */
export interface EventQuery {
  readonly limit: number;
  readonly offset: number;
  readonly type: string | null;
  readonly device: string | null;
}

/** Everything the event log page shows. */
export interface EventLog {
  readonly network: { readonly UUID: string; readonly label: string; readonly virtualDevices: readonly { readonly UUID: string; readonly label: string }[] };
  readonly total: number;
  readonly events: readonly EventView[];
  /** The types to filter by: those of the network's latest 100 events, by API name, with their readable names. */
  readonly types: ReadonlyMap<string, string>;
}

type Run = (query: string, variables: Record<string, unknown>, caller: Caller, context: ReadContext) => Promise<Record<string, unknown>>;

interface MonitoringData {
  uplinks: NetworkMonitoring['uplinks'] | null;
  quality: { values: MetricPoint[] } | null;
  throughput: { values: MetricPoint[] } | null;
  activeClients: NetworkMonitoring['activeClients'] | null;
  offline: { events: { generatedAt: string; virtualDevice: { UUID: string } | null }[] } | null;
  topology: TopologyLinkView[] | null;
}

/** The reads of report data, over `run` (reads.ts: the executor with the dashboard's document cache). */
export function createReportReads(run: Run) {
  return {
    /** A network's series over `window` and its devices' offline times; undefined when the network is not the caller's. */
    async networkMonitoring(caller: Caller, id: string, window: MetricsWindow, context: ReadContext): Promise<NetworkMonitoring | undefined> {
      if (!isUuid(id)) return undefined;
      const data = (await run(NETWORK_MONITORING, { network: id, window }, caller, context)) as unknown as MonitoringData;
      const { uplinks, quality, throughput, activeClients, offline, topology } = data;
      if (!uplinks || !quality || !throughput || !activeClients || !offline || !topology) return undefined;
      const offlineSince = new Map<string, string>();
      // newest first: the first DEVICE_OFFLINE of a device is its latest
      for (const event of offline.events) if (event.virtualDevice && !offlineSince.has(event.virtualDevice.UUID)) offlineSince.set(event.virtualDevice.UUID, event.generatedAt);
      return { uplinks, quality: quality.values, throughput: throughput.values, activeClients, offlineSince, topology };
    },

    /** A device of a network with its ports, radios and latest events; undefined when either is not the caller's, or the device is not on that network. */
    async device(caller: Caller, networkId: string, deviceId: string, context: ReadContext): Promise<DeviceDetail | undefined> {
      if (!isUuid(networkId) || !isUuid(deviceId)) return undefined;
      const data = await run(DEVICE_PAGE, { network: networkId, device: deviceId }, caller, context);
      const detail = data as unknown as Omit<DeviceDetail, 'device'> & { device: (DeviceDetail['device'] & { networkUUID: string }) | null };
      if (!detail.network || !detail.device || detail.device.networkUUID !== networkId || !detail.portStats || !detail.macTable || !detail.bssids || !detail.events) return undefined;
      const serial = detail.device.hardwareDevice?.serialNumber;
      const bssids = (detail.bssids as (DeviceDetail['bssids'][number] & { accessPointSerialNumber: string })[]).filter((b) => b.accessPointSerialNumber === serial);
      return { ...detail, device: detail.device, bssids };
    },

    /** A page of a network's events, filtered; undefined when the network is not the caller's or the filtering device not the network's. */
    async eventLog(caller: Caller, networkId: string, query: EventQuery, context: ReadContext): Promise<EventLog | undefined> {
      if (!isUuid(networkId) || (query.device !== null && !isUuid(query.device))) return undefined;
      const variables = {
        network: networkId,
        limit: query.limit,
        offset: query.offset,
        types: query.type === null ? null : [query.type],
        devices: query.device === null ? null : [query.device],
      };
      const data = (await run(EVENT_LOG, variables, caller, context)) as {
        network: EventLog['network'] | null;
        page: { total: number; events: EventView[] } | null;
        recent: { events: { eventType: string; eventTypeAPIName: string }[] } | null;
      };
      if (!data.network || !data.page || !data.recent) return undefined;
      // a device of another network (or company) matches no event of this one: not a page of this log
      if (query.device !== null && !data.network.virtualDevices.some((d) => d.UUID === query.device)) return undefined;
      const types = new Map(data.recent.events.map((e) => [e.eventTypeAPIName, e.eventType]));
      return { network: data.network, total: data.page.total, events: data.page.events, types };
    },
  };
}
