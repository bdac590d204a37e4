import type { QueryRootName } from '../../src/engine/features.js';

// One query of every Query root, shared by the statement counts (statements.test.ts) and the query plans
// (query-plans.test.ts); $SLUG, $NETWORK, $DEVICE and the like are filled in by each test.

/** The spec's nested companyBySlug query. */
export const NESTED_COMPANY_QUERY = `{ companyBySlug(slug: "$SLUG") { name networks { UUID label isActive mailingAddress { city subdivisionCode }
  virtualDevices { label deviceType hardwareDevice { serialNumber isConnectedToBackend } } vlans { name vlanID isEnabled } ssids { ssid isEnabled } } } }`;

/** A query of every root: the six of the spec with the selections the spec shows, and the Meter API's with their fields. */
export const ROOT_QUERIES: Readonly<Record<QueryRootName, string>> = {
  virtualDevice: '{ virtualDevice(UUID: "$DEVICE") { UUID label isOnline } }',
  hardwareDevice: '{ hardwareDevice(serialNumber: "$SERIAL") { serialNumber deviceType deviceModel isConnectedToBackend } }',
  networksForCompany: '{ networksForCompany(companySlug: "$SLUG") { UUID label slug } }',
  virtualDevicesForNetwork: '{ virtualDevicesForNetwork(networkUUID: "$NETWORK") { UUID label deviceType deviceModel isOnline } }',
  networkClients: '{ networkClients(networkUUID: "$NETWORK") { macAddress ip lastSeen } }',
  networkClientsPage: '{ networkClientsPage(networkUUID: "$NETWORK", search: "a", limit: 50) { total clients { macAddress ip clientName lastSeen } } }',
  companyBySlug: NESTED_COMPANY_QUERY,
  network: '{ network(UUID: "$NETWORK") { UUID label slug companySlug isActive idsIPSConfig { UUID networkUUID mode } } }',
  networkBySlug: '{ networkBySlug(companySlug: "$SLUG", networkSlug: "$NETSLUG") { UUID label } }',
  vlans: '{ vlans(networkUUID: "$NETWORK") { UUID name vlanID isDefault description networkUUID } }',
  vlan: '{ vlan(UUID: "$VLAN") { UUID name vlanID isDefault } }',
  ssidsForNetwork: '{ ssidsForNetwork(networkUUID: "$NETWORK") { UUID ssid isGuest isHidden encryptionProtocol vlan { vlanID } networkUUID } }',
  ssid: '{ ssid(UUID: "$SSID") { UUID ssid isEnabled } }',
  networksClients:
    '{ networksClients(companyUUID: "$COMPANY", networkUUIDs: ["$NETWORK"]) { macAddress ip clientName isWireless signal connectedVLAN { name } connectedSSID { ssid } accessPoint { UUID } networkUUID } }',
  uplinkPhyInterfacesForNetwork: '{ uplinkPhyInterfacesForNetwork(networkUUID: "$NETWORK") { UUID portNumber isUplink isUplinkActive portSpeedMbps virtualDeviceUUID } }',
  phyInterfacesForVirtualDevice:
    '{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "$DEVICE") { UUID portNumber isEnabled isConnected nativeVLAN { vlanID } connectedDevices { portNumber client { macAddress } } } }',
  bssidsForNetwork: '{ bssidsForNetwork(networkUUID: "$NETWORK", includeInactive: true) { BSSID isActive radioBand accessPointSerialNumber SSID { ssid } } }',
  activeClients: '{ activeClients(networkUUID: "$NETWORK", filter: { durationSeconds: 86400, stepSeconds: 300 }) { wired { timestamp value } wireless { timestamp value } } }',
  networkUplinkQuality:
    '{ networkUplinkQuality(networkUUID: "$NETWORK", filter: { durationSeconds: 3600, stepSeconds: 60 }) { metadata { minValue maxValue } values { timestamp value phyInterfaceUUID networkUUID } } }',
  networkUplinkThroughput:
    '{ networkUplinkThroughput(networkUUID: "$NETWORK", filter: { durationSeconds: 86400, stepSeconds: 900 }) { metadata { maxValue } values { timestamp value direction phyInterfaceUUID } } }',
  networksUplinkQualities: '{ networksUplinkQualities(networkUUIDs: ["$NETWORK"], filter: { durationSeconds: 300000, stepSeconds: 300 }) { values { timestamp value } } }',
  switchPortStats: '{ switchPortStats(virtualDeviceUUID: "$DEVICE") { portNumber totalRxBytes totalTxBytes errorRxPackets } }',
  controllerPortStats: '{ controllerPortStats(virtualDeviceUUID: "$DEVICE", lookbackHours: 2) { portNumber totalRxBytes totalTxBytes totalRxPackets totalTxPackets } }',
  switchPortMetricsRate:
    '{ switchPortMetricsRate(virtualDeviceUUID: "$DEVICE", filter: { durationSeconds: 14400, stepSeconds: 300 }) { values { portNumber timestamp totalRxBytes totalTxBytes } } }',
  controllerPortMetricsRate:
    '{ controllerPortMetricsRate(virtualDeviceUUID: "$DEVICE", filter: { durationSeconds: 3600, stepSeconds: 60 }, portNumber: 1) { values { portNumber timestamp totalRxBytes totalTxBytes } } }',
  wirelessClientMetrics:
    '{ wirelessClientMetrics(networkUUID: "$NETWORK", filter: { timeFilter: { durationSeconds: 14400, stepSeconds: 300 }, bands: [BAND_5G] }) { macAddress response { metadata { clientCount signal snr rxBytes txBytes rxRate txRate } } } }',
  wirelessClientMetricsByAP:
    '{ wirelessClientMetricsByAP(networkUUID: "$NETWORK", apVirtualDeviceUUID: "$DEVICE", filter: { timeFilter: { durationSeconds: 14400, stepSeconds: 300 } }) { metadata { clientCount signal snr } values { timestamp clientCount signal snr } } }',
  wirelessClientMetricsByClient:
    '{ wirelessClientMetricsByClient(networkUUID: "$NETWORK", macAddress: "0c:8d:db:12:34:56", filter: { timeFilter: { durationSeconds: 3600, stepSeconds: 60 } }) { metadata { clientCount signal snr rxBytes txBytes } values { timestamp clientCount signal snr hwMode } } }',
  allClientMetricsByClient:
    '{ allClientMetricsByClient(networkUUID: "$NETWORK", macAddress: "0c:8d:db:12:34:56", filter: { timeFilter: { durationSeconds: 14400, stepSeconds: 300 } }) { rxBytes { metadata { minValue maxValue } values { timestamp value } } txBytes { metadata { minValue maxValue } values { timestamp value } } } }',
  allClientMetricsByVLAN:
    '{ allClientMetricsByVLAN(networkUUID: "$NETWORK", vlanUUID: "$VLAN", filter: { timeFilter: { durationSeconds: 14400, stepSeconds: 300 } }) { rxBytes { metadata { minValue maxValue } values { timestamp value } } txBytes { metadata { minValue maxValue } values { timestamp value } } } }',
  channelUtilizationByNetwork:
    '{ channelUtilizationByNetwork(networkUUID: "$NETWORK", filter: { timeFilter: { durationSeconds: 14400, stepSeconds: 300 } }) { band virtualDeviceUUID channel values { timestamp totalUtilization rxUtilization txUtilization } } }',
  channelUtilizationByAP:
    '{ channelUtilizationByAP(networkUUID: "$NETWORK", apVirtualDeviceUUID: "$DEVICE", filter: { timeFilter: { durationSeconds: 3600, stepSeconds: 60 } }, band: BAND_5G) { band channelWidthMHz txPowerDbm values { timestamp totalUtilization selfUtilization obssUtilization nonWifiUtilization } } }',
  channelUtilizationByClient:
    '{ channelUtilizationByClient(networkUUID: "$NETWORK", macAddress: "0c:8d:db:12:34:56", filter: { timeFilter: { durationSeconds: 14400, stepSeconds: 300 } }) { timestamp totalUtilization rxUtilization txUtilization selfUtilization } }',
  controllerDNSRequestRates: '{ controllerDNSRequestRates(virtualDeviceUUID: "$DEVICE", filter: { durationSeconds: 14400, stepSeconds: 300 }) { values { timestamp value UUID } } }',
  apHealthScores:
    '{ apHealthScores(serialNumber: "$SERIAL", filter: { durationSeconds: 86400, stepSeconds: 3600 }) { timestamp overallScore performanceScore rfScore systemScore cpuPercent memoryPercent } }',
  switchMACTable: '{ switchMACTable(virtualDeviceUUID: "$DEVICE") { virtualDeviceUUID macAddress vlanID portNumber updatedAt } }',
  switchMACTablePage: '{ switchMACTablePage(virtualDeviceUUID: "$DEVICE", search: "12", limit: 50, offset: 50) { total entries { macAddress vlanID portNumber updatedAt } } }',
  pduMetrics:
    '{ pduMetrics(virtualDeviceUUID: "$DEVICE", filter: { durationSeconds: 14400, stepSeconds: 300 }) { virtualDeviceUUID temperatureCelsius { metadata { minValue maxValue } values { timestamp value } } powerWatts { values { timestamp value outletNumber label } } outlets { outletNumber label isOn powerWatts } } }',
  pdusMetrics:
    '{ pdusMetrics(virtualDeviceUUIDs: ["$DEVICE"], filter: { durationSeconds: 3600, stepSeconds: 60 }) { virtualDeviceUUID temperatureCelsius { values { timestamp value } } currentAmps { metadata { maxValue } values { timestamp value outletNumber } } } }',
  networkTopology:
    '{ networkTopology(networkUUID: "$NETWORK") { virtualDevice { UUID label } phyInterface { portNumber label } neighbor { chassisID portID systemName remoteDevice { UUID label } remotePhyInterface { portNumber } } } }',
  wirelessClientConnectionEventsPage:
    '{ wirelessClientConnectionEventsPage(networkUUID: "$NETWORK", limit: 20, typeFilter: [CONNECTED]) { total events { eventType generatedAt macAddress reason networkUUID accessPoint { UUID } } } }',
  recentEventLogEventsPage:
    '{ recentEventLogEventsPage(networkUUID: "$NETWORK", limit: 20, typeFilter: [DEVICE_BOOT]) { total events { eventType eventTypeAPIName generatedAt networkUUID virtualDevice { UUID } details } } }',
  blockedClientsForNetwork: '{ blockedClientsForNetwork(networkUUID: "$NETWORK") { UUID macAddress createdAt networkUUID reason } }',
  firewallRulesForNetwork: '{ firewallRulesForNetwork(networkUUID: "$NETWORK") { UUID name description action isEnabled srcPrefix dstPrefix priority } }',
  interVLANCommunicationPermittedPairs: '{ interVLANCommunicationPermittedPairs(networkUUID: "$NETWORK") { UUID networkUUID leftVLAN { vlanID } rightVLAN { vlanID } } }',
  idsEvents:
    '{ idsEvents(networkUUID: "$NETWORK", limit: 50, durationSeconds: 86400) { total events { observedAt srcIP dstIP protocol direction srcPort dstPort signature mode networkUUID virtualDevice { UUID label } } } }',
  ipsEvents: '{ ipsEvents(networkUUID: "$NETWORK", limit: 50, durationSeconds: 86400) { events { observedAt srcIP dstIP protocol direction srcPort dstPort virtualDevice { UUID label } } total } }',
  rogueAccessPointsObservedOnNetwork:
    '{ rogueAccessPointsObservedOnNetwork(networkUUIDs: ["$NETWORK"], filter: { timeFilter: { durationSeconds: 86400, stepSeconds: 300 } }, limit: 50, offset: 0) { networkUUID BSSID ssid wiredMACAddress wiredPortNumber firstObservedAt lastObservedAt observers { ssid rssi channel observedAt virtualDevice { UUID } } } }',
  honeypotSSIDsObservedOnNetwork:
    '{ honeypotSSIDsObservedOnNetwork(networkUUIDs: ["$NETWORK"], filter: { timeFilter: { durationSeconds: 86400, stepSeconds: 300 } }, limit: 50, offset: 0) { networkUUID ssid BSSID lastObservedAt observers { rssi observedAt } } }',
  spareHardwareDevicesForNetwork:
    '{ spareHardwareDevicesForNetwork(networkUUID: "$NETWORK", filter: { deviceType: SWITCH, limit: 10 }) { serialNumber deviceType deviceModel isConnectedToBackend macAddress } }',
  webhookEndpoints: '{ webhookEndpoints { UUID label isEnabled rules { alert networkUUIDs } } }',
  webhookDeliveries: '{ webhookDeliveries(limit: 10) { messageId alert lastAttempt { status } } }',
  alertReceiver: '{ alertReceiver(UUID: "$RECEIVER") { UUID companyUUID label createdAt updatedAt targets { UUID type } } }',
  collectorTarget: '{ collectorTarget(UUID: "$TARGET") { UUID host port snmpVersion uplinks uplinkProbes } }',
  collectorTargetsForCompany: '{ collectorTargetsForCompany(companyUUID: "$COMPANY") { UUID virtualDeviceUUID networkUUID host snmpVersion intervalSeconds } }',
  collectorRange: '{ collectorRange(UUID: "$RANGE") { UUID range port snmpVersion ratePerSecond intervalSeconds collectorKeyUUID collectorKeyLabel } }',
  collectorRangesForCompany: '{ collectorRangesForCompany(companyUUID: "$COMPANY") { UUID range snmpVersion ratePerSecond intervalSeconds collectorKeyUUID } }',
  discoveredDevicesForCompany: '{ discoveredDevicesForCompany(companySlug: "$SLUG") { UUID address sysName vendor model serialNumber state virtualDeviceUUID lastSeenAt } }',
  alertReceiversForCompany: '{ alertReceiversForCompany(companyUUID: "$COMPANY") { UUID label createdAt targets { UUID type } rules { alert networkUUIDs } } }',
  changes: '{ changes(limit: 20) { changes { cursor objectType objectUUID kind at fields } endCursor hasMore } }',
};

/** A network's links with every field of both ends, for the LLDP tests ($network: the network's UUID). */
export const TOPOLOGY_QUERY = /* GraphQL */ `
  query ($network: UUID!) {
    networkTopology(networkUUID: $network) {
      virtualDevice { UUID }
      phyInterface { portNumber label }
      neighbor { chassisID portID portDescription systemName remoteDevice { UUID } remotePhyInterface { portNumber virtualDeviceUUID } }
    }
  }
`;
