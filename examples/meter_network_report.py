#!/usr/bin/env python3
"""A network report, written the way scripts for the public Meter API are.

It uses only the standard library and the Meter API's documented queries and
fields; nothing in it is specific to netgraph. Point it at netgraph by
changing the URL and the key:

    METER_API_URL=http://127.0.0.1:4000/api/v1/graphql METER_API_KEY=ngk_... \
        python3 examples/meter_network_report.py acme hq

It prints the network's uplinks and their quality over the last hour, who is
connected, the BSSIDs on the air, active clients over the last day, each
device's port totals and the latest events. Exit status 1 on any API error.
"""

import json
import os
import sys
import urllib.error
import urllib.request

API_URL = os.environ.get("METER_API_URL", "https://api.meter.com/api/v1/graphql")
API_KEY = os.environ["METER_API_KEY"]


def graphql(query, variables=None):
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(
        API_URL,
        data=body,
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            payload = json.load(response)
    except urllib.error.HTTPError as error:
        sys.exit(f"HTTP {error.code}: {error.read().decode()}")
    if payload.get("errors"):
        sys.exit(f"GraphQL errors: {json.dumps(payload['errors'])}")
    return payload["data"]


NETWORK = """
query Network($company: String!, $network: String!) {
  networkBySlug(companySlug: $company, networkSlug: $network) {
    UUID label companySlug
    virtualDevices { UUID label deviceType isOnline uptime networkUUID }
  }
}
"""

DETAILS = """
query Details($network: UUID!, $company: UUID!, $hour: MetricsFilterInput!, $day: MetricsFilterInput!) {
  uplinks: uplinkPhyInterfacesForNetwork(networkUUID: $network) {
    UUID label portNumber portType isUplinkActive portSpeedMbps virtualDeviceUUID
  }
  quality: networkUplinkQuality(networkUUID: $network, filter: $hour) {
    metadata { minValue maxValue }
    values { timestamp value phyInterfaceUUID networkUUID }
  }
  throughput: networkUplinkThroughput(networkUUID: $network, filter: $hour) {
    metadata { maxValue }
    values { timestamp value direction phyInterfaceUUID }
  }
  clients: networksClients(companyUUID: $company, networkUUIDs: [$network]) {
    macAddress ip clientName isWireless signal lastSeen
    connectedVLAN { name vlanID } connectedSSID { ssid } accessPoint { label }
  }
  bssids: bssidsForNetwork(networkUUID: $network, includeInactive: true) {
    BSSID isActive radioBand accessPointSerialNumber SSID { ssid }
  }
  active: activeClients(networkUUID: $network, filter: $day) {
    wired { timestamp value } wireless { timestamp value }
  }
  events: recentEventLogEventsPage(networkUUID: $network, limit: 10) {
    total
    events { eventType eventTypeAPIName generatedAt details virtualDevice { label } }
  }
}
"""

PORTS = """
query Ports($device: UUID!) {
  ports: phyInterfacesForVirtualDevice(virtualDeviceUUID: $device) { portNumber label isConnected isUplink }
  stats: switchPortStats(virtualDeviceUUID: $device, lookbackHours: 24) { portNumber totalRxBytes totalTxBytes errorRxPackets }
}
"""

COMPANY = """
query Company($company: String!) { companyBySlug(slug: $company) { uuid name isCustomer websiteDomain } }
"""


def main(company_slug, network_slug):
    company = graphql(COMPANY, {"company": company_slug})["companyBySlug"]
    network = graphql(NETWORK, {"company": company_slug, "network": network_slug})["networkBySlug"]
    print(f"{company['name']} / {network['label']} ({network['UUID']})")
    details = graphql(
        DETAILS,
        {
            "network": network["UUID"],
            "company": company["uuid"],
            "hour": {"durationSeconds": 3600, "stepSeconds": 300},
            "day": {"durationSeconds": 86400, "stepSeconds": 3600},
        },
    )
    print(f"uplinks: {len(details['uplinks'])}")
    for uplink in details["uplinks"]:
        print(f"  port {uplink['portNumber']} {uplink['label']}: active={uplink['isUplinkActive']} {uplink['portSpeedMbps']} Mbit/s")
    quality = details["quality"]
    print(f"uplink quality, last hour: {len(quality['values'])} values, min {quality['metadata']['minValue']}")
    print(f"throughput values, last hour: {len(details['throughput']['values'])}")
    print(f"clients: {len(details['clients'])}")
    for client in details["clients"]:
        where = client["connectedSSID"]["ssid"] if client["connectedSSID"] else "wired"
        ap = client["accessPoint"]["label"] if client["accessPoint"] else "-"
        print(f"  {client['macAddress']} {client['clientName']} {client['ip']} {where} signal={client['signal']} ap={ap}")
    print(f"bssids: {len(details['bssids'])}")
    wireless = sum(point["value"] for point in details["active"]["wireless"])
    print(f"active wireless client-hours, last day: {wireless}")
    print(f"events: {details['events']['total']}")
    for event in details["events"]["events"]:
        print(f"  {event['generatedAt']} {event['eventTypeAPIName']} {event['eventType']}")
    for device in network["virtualDevices"]:
        ports = graphql(PORTS, {"device": device["UUID"]})
        received = sum(stat["totalRxBytes"] for stat in ports["stats"])
        print(f"device {device['label']}: online={device['isOnline']} ports={len(ports['ports'])} received={received:.0f} bytes")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: meter_network_report.py COMPANY_SLUG NETWORK_SLUG")
    main(sys.argv[1], sys.argv[2])
