#!/usr/bin/env python3
"""Calls every query method of the public Python SDK for Meter's API against netgraph, unchanged.

The SDK is not part of netgraph: get `old_scripts/meter_sdk.py` of github.com/Francisco-1088/meterApiDemo
(commit 2adc000), save it as e.g. /tmp/meter_sdk.py, and pass its folder. For each of its 43 query methods this prints ok or FAIL, whether the
answer held any data, and how long it waited when netgraph answered 429 (the SDK raises on 429; this script
waits as Retry-After says and tries again, up to five times).

    python3 examples/meter_sdk_sweep.py SDK_DIR URL KEY COMPANY_SLUG [NETWORK_LABEL]

e.g. against `npm start` (the demo company acme, its network Headquarters), once the demo's day of history is
written (the log's `demo simulator: backfill .../... reports (100%)`; until then the current clients and BSSIDs
are still empty):

    python3 examples/meter_sdk_sweep.py /tmp http://127.0.0.1:8080/api/v1/graphql ngk_... acme Headquarters

Exits 1 when a method failed. Standard library only, besides the SDK (which needs `requests`).
"""
import sys, time
if len(sys.argv) < 5:
    sys.exit(__doc__)
sys.path.insert(0, sys.argv[1])
import meter_sdk as m
url, key, slug = sys.argv[2], sys.argv[3], sys.argv[4]
network_label = sys.argv[5] if len(sys.argv) > 5 else 'Headquarters'
c = m.MeterClient(key, api_url=url)
F = m.MetricsFilter(duration_seconds=14400, step_seconds=300)
def nonempty(v):
    if v is None: return False
    if isinstance(v, list): return any(nonempty(x) for x in v) if v else False
    if isinstance(v, dict): return any(nonempty(x) for x in v.values())
    return True
company = c.get_company(slug)['companyBySlug']
nets = c.get_networks(slug)['networksForCompany']
hq = next(n for n in nets if n['label'] == network_label); net = hq['UUID']
devs = c.get_virtual_devices(net)['virtualDevicesForNetwork']
def dev(t): return next(d for d in devs if d['deviceType'] == t)
def serial(d): return c.execute_raw('{ virtualDevice(UUID: "%s") { hardwareDevice { serialNumber } } }' % d['UUID'])['virtualDevice']['hardwareDevice']['serialNumber']
ap, sw, ct = dev('ACCESS_POINT'), dev('SWITCH'), dev('CONTROLLER')
pdus = [d for n in nets for d in c.get_virtual_devices(n['UUID'])['virtualDevicesForNetwork'] if d['deviceType'] == 'POWER_DISTRIBUTION_UNIT']
pdu_net = next(n['UUID'] for n in nets if any(d['deviceType'] == 'POWER_DISTRIBUTION_UNIT' for d in c.get_virtual_devices(n['UUID'])['virtualDevicesForNetwork']))
clients = c.get_network_clients(net)['networkClients']
wireless = next((x for x in clients if x.get('isWireless')), None) or {'macAddress': c.execute_raw('{ wirelessClientMetrics(networkUUID: "%s", filter: { timeFilter: { durationSeconds: 14400, stepSeconds: 300 } }) { macAddress } }' % net)['wirelessClientMetrics'][0]['macAddress']}
vlans = c.get_vlans(net)['vlans']; ssids = c.get_ssids(net)['ssidsForNetwork']
receivers = c.get_alert_receivers(company['uuid'])['alertReceiversForCompany']
cmf = m.ClientMetricsFilter(time_filter=F)
calls = {
 'get_company': lambda: c.get_company(slug), 'get_networks': lambda: c.get_networks(slug), 'get_network': lambda: c.get_network(net),
 'get_network_by_slug': lambda: c.get_network_by_slug(slug, hq['slug']), 'get_network_clients': lambda: c.get_network_clients(net),
 'get_networks_clients': lambda: c.get_networks_clients(company['uuid'], [net]), 'get_blocked_clients': lambda: c.get_blocked_clients(net),
 'get_active_clients': lambda: c.get_active_clients(F, network_uuid=net), 'get_virtual_device': lambda: c.get_virtual_device(ap['UUID']),
 'get_virtual_devices': lambda: c.get_virtual_devices(net), 'get_hardware_device': lambda: c.get_hardware_device(serial(ap)),
 'get_spare_hardware_devices': lambda: c.get_spare_hardware_devices(net), 'get_phy_interfaces': lambda: c.get_phy_interfaces(sw['UUID']),
 'get_uplink_interfaces': lambda: c.get_uplink_interfaces(net), 'get_switch_port_stats': lambda: c.get_switch_port_stats(sw['UUID']),
 'get_switch_mac_table': lambda: c.get_switch_mac_table(sw['UUID']), 'get_switch_port_metrics_rate': lambda: c.get_switch_port_metrics_rate(sw['UUID'], F),
 'get_controller_port_stats': lambda: c.get_controller_port_stats(ct['UUID']), 'get_controller_port_metrics_rate': lambda: c.get_controller_port_metrics_rate(ct['UUID'], F),
 'get_controller_dns_request_rates': lambda: c.get_controller_dns_request_rates(ct['UUID'], F), 'get_ssid': lambda: c.get_ssid(ssids[0]['UUID']),
 'get_ssids': lambda: c.get_ssids(net), 'get_vlan': lambda: c.get_vlan(vlans[0]['UUID']), 'get_vlans': lambda: c.get_vlans(net),
 'get_bssids': lambda: c.get_bssids(net), 'get_inter_vlan_pairs': lambda: c.get_inter_vlan_pairs(net),
 'get_uplink_quality': lambda: c.get_uplink_quality(F, network_uuid=net), 'get_uplink_throughput': lambda: c.get_uplink_throughput(F, network_uuid=net),
 'get_networks_uplink_qualities': lambda: c.get_networks_uplink_qualities([net], F), 'get_wireless_client_metrics': lambda: c.get_wireless_client_metrics(net, cmf),
 'get_wireless_client_metrics_by_ap': lambda: c.get_wireless_client_metrics_by_ap(net, ap['UUID'], cmf),
 'get_wireless_client_metrics_by_client': lambda: c.get_wireless_client_metrics_by_client(net, wireless['macAddress'], cmf),
 'get_channel_utilization_by_network': lambda: c.get_channel_utilization_by_network(net, m.ChannelUtilizationFilter(time_filter=F)),
 'get_channel_utilization_by_ap': lambda: c.get_channel_utilization_by_ap(net, ap['UUID'], m.ChannelUtilizationFilter(time_filter=F)),
 'get_channel_utilization_by_client': lambda: c.get_channel_utilization_by_client(net, wireless['macAddress'], m.ChannelUtilizationFilter(time_filter=F)),
 'get_all_client_metrics_by_client': lambda: c.get_all_client_metrics_by_client(net, wireless['macAddress'], m.AllClientMetricsFilter(time_filter=F)),
 'get_all_client_metrics_by_vlan': lambda: c.get_all_client_metrics_by_vlan(net, vlans[0]['UUID'], m.AllClientMetricsFilter(time_filter=F)),
 'get_ap_health_scores': lambda: c.get_ap_health_scores(serial(ap), F), 'get_event_log': lambda: c.get_event_log(net),
 'get_alert_receiver': lambda: c.get_alert_receiver(receivers[0]['UUID']) if receivers else {'none': None},
 'get_alert_receivers': lambda: c.get_alert_receivers(company['uuid']),
 'get_pdu_metrics': lambda: c.get_pdu_metrics(pdus[0]['UUID'], F), 'get_pdus_metrics': lambda: c.get_pdus_metrics([p['UUID'] for p in pdus], F),
}
failed = 0
for name, call in calls.items():
    try:
        waited = 0
        for attempt in range(5):
            try:
                r = call(); break
            except m.MeterRateLimitError as e:
                w = max(0.5, c.rate_limit.seconds_until_retry()); waited += w; time.sleep(w)
        else:
            raise RuntimeError('still throttled')
        print(f"{name:42s} ok   data={'yes' if nonempty(r) else 'EMPTY'}" + (f"  (waited {waited:.1f} s for THROTTLED)" if waited else ""))
    except Exception as e:
        failed += 1; print(f"{name:42s} FAIL {type(e).__name__}: {str(e)[:160]}")
    time.sleep(0.15)
print(f"{len(calls)} methods, {failed} failed")
sys.exit(1 if failed else 0)
