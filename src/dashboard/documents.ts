import { graphql } from './graphql.js';
import type { ResultOf, VariablesOf } from './graphql.js';

/**
 * What the dashboard's pages read: GraphQL documents of the public schema
 * (schema.graphql), typed by gql.tada, which reads.ts runs through the
 * API's executor for the session's caller. The pages and views take the
 * documents' result types (`ResultOf`), so nobody types a result by hand.
 * A root of another company's id answers null, like a missing one.
 */

/** The networks list: the caller's company's networks with their devices' online state, by label. */
export const NETWORKS = graphql(`
  query DashboardNetworks($slug: String!) {
    companyBySlug(slug: $slug) {
      networks { UUID label slug isActive mailingAddress { city subdivisionCode } virtualDevices { isOnline } }
    }
  }`);

/** A device row of the network page, with its ports and the wired clients on each. */
export const NETWORK_DEVICE = graphql(`
  fragment DashboardNetworkDevice on VirtualDevice {
    UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber isConnectedToBackend }
    phyInterfaces { portNumber label connectedDevices { client { macAddress } } }
  }`);

/** A connected client of the network page, with where it is connected. */
export const NETWORK_CLIENT = graphql(`
  fragment DashboardNetworkClient on NetworkClient {
    macAddress ip lastSeen clientName isWireless signal
    connectedVLAN { name vlanID } connectedSSID { ssid } accessPoint { UUID label }
  }`);

/**
 * A network's page (and each of its form posts): the network with its devices, VLANs and SSIDs, how many clients
 * are connected, and the page of them (`limit` from `offset`) that `search` finds.
 */
export const NETWORK_PAGE = graphql(
  `
  query DashboardNetwork($network: UUID!, $search: String, $limit: Int!, $offset: Int!) {
    network(UUID: $network) {
      UUID label slug isActive mailingAddress { line1 line2 city subdivisionCode postalCode }
      vlans { UUID name vlanID isEnabled isDefault description }
      ssids { UUID ssid isEnabled isGuest isHidden encryptionProtocol vlan { vlanID } }
      virtualDevices { ...DashboardNetworkDevice }
    }
    connected: networkClientsPage(networkUUID: $network, limit: 1) { total }
    clients: networkClientsPage(networkUUID: $network, search: $search, limit: $limit, offset: $offset) { total clients { ...DashboardNetworkClient } }
  }`,
  [NETWORK_DEVICE, NETWORK_CLIENT],
);

/** What the network page charts of the reports over one window, and when its devices went offline. */
export const NETWORK_MONITORING = graphql(`
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
  }`);

/** An event as the device page and the event log list it. */
export const EVENT = graphql(`
  fragment DashboardEvent on EventLogEvent { eventType: eventTypeName eventTypeAPIName generatedAt details }`);

/** Where a device's reports come from: a collector's latest poll, or a sender of the report protocol. */
export const DEVICE_SOURCE = graphql(`
  fragment DashboardDeviceSource on DeviceSource { kind collectorName lastPollAt lastError pollDurationMs }`);

/**
 * A device's page: the device with its ports, its 24-hour port counters, the size of its MAC table and the page of
 * it (`macLimit` from `macOffset`) that `macSearch` finds, its network's firewall rules, a PDU's outlets and 4-hour power
 * and temperature, the network's radios, the wireless clients it reported in the last 15 minutes with their metrics
 * and its clients' signal over 24 hours, its clients' latest connection events, its channels' utilization and DNS
 * request rate over `window`, and its latest events.
 */
export const DEVICE_PAGE = graphql(
  `
  query DashboardDevice($network: UUID!, $device: UUID!, $window: MetricsFilterInput!, $macSearch: String, $macLimit: Int!, $macOffset: Int!) {
    network(UUID: $network) { UUID label }
    device: virtualDevice(UUID: $device) {
      UUID label deviceType deviceModel isOnline networkUUID uptime cpuUsagePercent memoryUsedBytes memoryTotalBytes
      hardwareDevice { serialNumber macAddress isConnectedToBackend }
      source { ...DashboardDeviceSource }
      phyInterfaces {
        UUID label portNumber portType isEnabled isConnected isTrunkPort isUplink isUplinkActive portSpeedMbps
        nativeVLAN { name vlanID }
        lldpNeighbor { chassisID portID systemName remoteDevice { UUID label } }
        stpState
      }
    }
    macTableSize: switchMACTablePage(virtualDeviceUUID: $device, limit: 1) { total }
    macTable: switchMACTablePage(virtualDeviceUUID: $device, search: $macSearch, limit: $macLimit, offset: $macOffset) {
      total entries { macAddress vlanID portNumber updatedAt }
    }
    rules: firewallRulesForNetwork(networkUUID: $network) { UUID name action isEnabled srcPrefix dstPrefix priority }
    pdu: pduMetrics(virtualDeviceUUID: $device, filter: { durationSeconds: 14400, stepSeconds: 300 }) {
      outlets { outletNumber label isOn currentAmps powerWatts voltageVolts energyKWh updatedAt }
      powerWatts { values { timestamp value outletNumber label } } temperatureCelsius { values { timestamp value } }
    }
    portStats: switchPortStats(virtualDeviceUUID: $device, lookbackHours: 24) {
      portNumber totalRxBytes totalTxBytes totalRxPackets totalTxPackets errorRxPackets errorTxPackets
    }
    bssids: bssidsForNetwork(networkUUID: $network, includeInactive: true) { BSSID isActive radioBand accessPointSerialNumber SSID { ssid } }
    wirelessClients: wirelessClientMetrics(networkUUID: $network, filter: { timeFilter: { durationSeconds: 900, stepSeconds: 180 }, virtualDeviceUUIDs: [$device] }) {
      macAddress response { metadata { signal snr rxRate txRate rxBytes txBytes } values { timestamp hwMode } }
    }
    wirelessSeries: wirelessClientMetricsByAP(networkUUID: $network, apVirtualDeviceUUID: $device, filter: { timeFilter: { durationSeconds: 86400, stepSeconds: 900 } }) {
      values { timestamp clientCount signal snr }
    }
    connectionEvents: wirelessClientConnectionEventsPage(networkUUID: $network, limit: 20, apVirtualDeviceUUIDFilter: [$device]) {
      total events { eventType generatedAt macAddress reason }
    }
    channels: channelUtilizationByAP(networkUUID: $network, apVirtualDeviceUUID: $device, filter: { timeFilter: $window }) {
      band channel channelWidthMHz txPowerDbm noiseFloorDbm
      values { timestamp totalUtilization rxUtilization txUtilization obssUtilization nonWifiUtilization }
    }
    dns: controllerDNSRequestRates(virtualDeviceUUID: $device, filter: $window) { values { timestamp value } }
    events: recentEventLogEventsPage(networkUUID: $network, limit: 20, virtualDeviceUUIDFilter: [$device]) {
      total events { ...DashboardEvent }
    }
  }`,
  [EVENT, DEVICE_SOURCE],
);

/** A page of a network's event log, filtered by type and device, and the types of its latest 100 events. */
export const EVENT_LOG = graphql(
  `
  query DashboardEventLog($network: UUID!, $limit: Int!, $offset: Int!, $types: [String!], $devices: [UUID!]) {
    network(UUID: $network) { UUID label virtualDevices { UUID label } }
    page: recentEventLogEventsPage(networkUUID: $network, limit: $limit, offset: $offset, typeAPINameFilter: $types, virtualDeviceUUIDFilter: $devices) {
      total events { ...DashboardEvent virtualDevice { UUID label } }
    }
    recent: recentEventLogEventsPage(networkUUID: $network, limit: 100) { events { eventType: eventTypeName eventTypeAPIName } }
  }`,
  [EVENT],
);

/**
 * A network's security page: its IDS/IPS mode and firewall rules, a page of IDS and of IPS events of the last day,
 * and the rogue access points and honeypots heard in the last day.
 */
export const SECURITY_PAGE = graphql(`
  query DashboardSecurity($network: UUID!, $limit: Int!, $offset: Int!) {
    network(UUID: $network) { UUID label idsIPSConfig { mode } }
    rules: firewallRulesForNetwork(networkUUID: $network) { UUID name action isEnabled srcPrefix dstPrefix priority }
    ids: idsEvents(networkUUID: $network, limit: $limit, offset: $offset) { total events { ...DashboardDetection } }
    ips: ipsEvents(networkUUID: $network, limit: $limit, offset: $offset) { total events { ...DashboardDetection } }
    rogues: rogueAccessPointsObservedOnNetwork(networkUUIDs: [$network], filter: { timeFilter: { durationSeconds: 86400, stepSeconds: 300 } }, limit: 50) {
      BSSID ssid wiredMACAddress wiredPortNumber firstObservedAt lastObservedAt observers { rssi virtualDevice { UUID label } }
    }
    honeypots: honeypotSSIDsObservedOnNetwork(networkUUIDs: [$network], filter: { timeFilter: { durationSeconds: 86400, stepSeconds: 300 } }, limit: 50) {
      BSSID ssid firstObservedAt lastObservedAt observers { rssi virtualDevice { UUID label } }
    }
  }
  fragment DashboardDetection on IDSIPSEvent { observedAt srcIP dstIP protocol direction srcPort dstPort signature virtualDevice { UUID label } }`);

/**
 * An access point's health scores over 24 hours in 15-minute buckets: its page runs it after DEVICE_PAGE, which
 * gives the serial number apHealthScores takes (a second statement, for access points only).
 */
export const AP_HEALTH = graphql(`
  query DashboardApHealth($serial: String!) {
    health: apHealthScores(serialNumber: $serial, filter: { durationSeconds: 86400, stepSeconds: 900 }) {
      timestamp overallScore performanceScore rfScore systemScore cpuPercent memoryPercent
    }
  }`);

/**
 * Settings > Collectors, first: the company (its UUID names it to COLLECTOR_TARGETS) with its networks' devices, the
 * hardware each reports as and where its reports come from.
 */
export const COLLECTOR_DEVICES = graphql(
  `
  query DashboardCollectorDevices($slug: String!) {
    companyBySlug(slug: $slug) {
      uuid
      networks { UUID label virtualDevices { UUID label deviceType hardwareDevice { serialNumber } source { ...DashboardDeviceSource } } }
    }
    discovered: discoveredDevicesForCompany(companySlug: $slug) { state }
  }`,
  [DEVICE_SOURCE],
);

/** Settings > Collectors, then: the company's collector targets (never their credentials), by host. */
export const COLLECTOR_TARGETS = graphql(`
  query DashboardCollectorTargets($company: UUID!) {
    targets: collectorTargetsForCompany(companyUUID: $company) {
      UUID virtualDeviceUUID networkUUID host port snmpVersion snmpUser snmpLevel authProtocol privProtocol intervalSeconds uplinks uplinkProbes updatedAt
    }
  }`);

/** Settings > Collectors > Discovery ranges, first: the company's UUID, which names it to COLLECTOR_RANGES. */
export const COLLECTOR_COMPANY = graphql(`
  query DashboardCollectorCompany($slug: String!) {
    companyBySlug(slug: $slug) { uuid }
  }`);

/** Settings > Collectors > Discovery ranges, then: the company's discovery ranges (never their credentials), by range, and whether a collector sweeps each. */
export const COLLECTOR_RANGES = graphql(`
  query DashboardCollectorRanges($company: UUID!) {
    ranges: collectorRangesForCompany(companyUUID: $company) {
      UUID range port snmpVersion snmpUser snmpLevel authProtocol privProtocol ratePerSecond intervalSeconds collectorKeyUUID collectorKeyLabel status
    }
  }`);

/** Settings > Collectors > Discovered: the SNMP agents the company's collectors found, and the networks to adopt them into. */
export const DISCOVERED_DEVICES = graphql(`
  query DashboardDiscoveredDevices($slug: String!) {
    discovered: discoveredDevicesForCompany(companySlug: $slug) {
      UUID address snmpVersion sysName sysDescr vendor model serialNumber state virtualDeviceUUID collectorName firstSeenAt lastSeenAt
    }
    company: companyBySlug(slug: $slug) { networks { UUID label } }
  }`);

/** The documents the dashboard runs, checked against the served schema at start. */
export const DASHBOARD_DOCUMENTS = [NETWORKS, NETWORK_PAGE, NETWORK_MONITORING, DEVICE_PAGE, EVENT_LOG, AP_HEALTH, SECURITY_PAGE, COLLECTOR_DEVICES, COLLECTOR_TARGETS, COLLECTOR_COMPANY, COLLECTOR_RANGES, DISCOVERED_DEVICES] as const;

/** A result whose roots are all there: what a page shows once none of its roots answered null. */
export type Present<T> = { readonly [K in keyof T]: NonNullable<T[K]> };

/** A network as the networks list shows it. */
export type NetworkListItem = NonNullable<ResultOf<typeof NETWORKS>['companyBySlug']>['networks'][number];
/** Everything a network's page shows. */
export type NetworkDetail = Present<ResultOf<typeof NETWORK_PAGE>>;
/** A metrics window, as the network page's charts ask for it (MetricsFilterInput). */
export type MetricsWindow = VariablesOf<typeof NETWORK_MONITORING>['window'];
/** What a network's page charts. */
export type NetworkMonitoring = Present<ResultOf<typeof NETWORK_MONITORING>>;
/** One end of a link of the network's topology: a port of one of its devices and the LLDP neighbour it sees. */
export type TopologyLinkView = NetworkMonitoring['topology'][number];
/** A device as a link names it. */
export type LinkedDevice = TopologyLinkView['virtualDevice'];
/** Everything a device's page shows. */
export type DeviceDetail = Present<ResultOf<typeof DEVICE_PAGE>> & {
  /** An access point's health scores of the last 24 hours (AP_HEALTH); [] for other devices. */
  readonly health: NonNullable<ResultOf<typeof AP_HEALTH>['health']>;
};
/** Everything an event log page shows. */
export type EventLog = Present<ResultOf<typeof EVENT_LOG>>;
/** An event row: the device page's, or the event log's with its device. */
export type EventRow = ResultOf<typeof EVENT> & { readonly virtualDevice?: EventLog['page']['events'][number]['virtualDevice'] };
/** A device's source as the device page and Settings > Collectors show it. */
export type DeviceSourceView = ResultOf<typeof DEVICE_SOURCE>;
/** A network with its devices, as Settings > Collectors lists and offers them. */
export type CollectorNetwork = NonNullable<ResultOf<typeof COLLECTOR_DEVICES>['companyBySlug']>['networks'][number];
/** A discovered device as Settings > Collectors > Discovered lists it. */
export type DiscoveredDeviceItem = NonNullable<ResultOf<typeof DISCOVERED_DEVICES>['discovered']>[number];
/** A network a discovered device can be adopted into. */
export type AdoptionNetwork = NonNullable<ResultOf<typeof DISCOVERED_DEVICES>['company']>['networks'][number];
/** A discovery range as Settings > Collectors > Discovery ranges lists it. */
export type CollectorRangeItem = NonNullable<ResultOf<typeof COLLECTOR_RANGES>['ranges']>[number];
/** A collector target as Settings > Collectors lists it. */
export type CollectorTargetItem = NonNullable<ResultOf<typeof COLLECTOR_TARGETS>['targets']>[number];
/** Everything a network's security page shows. */
export type SecurityDetail = Present<ResultOf<typeof SECURITY_PAGE>>;
