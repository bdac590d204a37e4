import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterSignature } from '../src/features/webhook/webhook.meter.js';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { ReceivedWebhook, WebhookReceiver } from './helpers/webhook-receiver.js';
import { createWriteKey } from './helpers/writes.js';

// The alerts netgraph derives itself (docs/alerts.md): HIGH_CPU_USAGE from reported CPU, rogue and honeypot
// access points from foreign BSSIDs, PORT_BLOCKED/PORT_UNBLOCKED and STP_ERROR_PORT_BLOCKED/_UNBLOCKED from ports'
// reported spanning-tree state, PORT_DOWN/PORT_UP and SNMP_AUTHENTICATION_FAILURE from trap events,
// API_KEY_EXPIRING from keys' expiry. Delivered to real receivers on 127.0.0.1 in both bodies, to an alert
// receiver's webhook, and never to another company's endpoint.
const STP_ALERTS = ['PORT_BLOCKED', 'PORT_UNBLOCKED', 'STP_ERROR_PORT_BLOCKED', 'STP_ERROR_PORT_UNBLOCKED'];
const NEW_ALERTS = ['PORT_DOWN', 'PORT_UP', 'SNMP_AUTHENTICATION_FAILURE', 'HIGH_CPU_USAGE', ...STP_ALERTS, 'ROGUE_ACCESS_POINT_DETECTED', 'HONEYPOT_ACCESS_POINT_DETECTED', 'API_KEY_EXPIRING'];
const HQ = 'HQ — Zürich';
const SWITCH = { device_name: 'Core switch\twith tab', device_type: 'switch', serial_number: SERIALS.acmeSwitch, virtual_device_uuid: IDS.acmeSwitch, network_uuid: IDS.acmeHq };
const AP = { device_name: 'AP "lobby"\n2nd line', device_type: 'access_point', serial_number: SERIALS.acmeAp, virtual_device_uuid: IDS.acmeAp, network_uuid: IDS.acmeHq };
const AP_MAC = '0c:8d:db:00:01:00';
const OWN_BSSID = '0c:8d:db:00:01:10';
const ROGUE_WIRED = 'a4:5e:60:11:22:30';
const ROGUE = 'a4:5e:60:11:22:35';
const HONEYPOT = 'de:ad:be:ef:00:01';
const CREATE_ENDPOINT = 'mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { secret endpoint { UUID } } }';

type Body = { metadata: { alert_name: string; network_name: string | null; timestamp: string }; data: Record<string, unknown> };
const bodyOf = (delivery: ReceivedWebhook) => JSON.parse(delivery.body) as Body;
/** The port a port alert's body names (netgraph's `details.portNumber`, Meter's `port_number`); 0 for other alerts. */
const portOf = (b: Body): number => Number((b.data.details as { portNumber?: number } | undefined)?.portNumber ?? b.data.port_number ?? 0);
/**
 * Deliveries by their event's time, then port, then alert name: a dispatch
 * sends the messages it claimed concurrently, so they may arrive in any order
 * (docs/webhooks.md).
 */
const inEventOrder = (bodies: readonly Body[]): Body[] =>
  [...bodies].sort((a, b) => a.metadata.timestamp.localeCompare(b.metadata.timestamp) || portOf(a) - portOf(b) || a.metadata.alert_name.localeCompare(b.metadata.alert_name));
const at = (ms: number) => new Date(ms).toISOString();

describe.each(storeKinds())('the derived alerts on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let acmeIngest: string;
  let globexIngest: string;
  let writeKey: string;
  const receivers: WebhookReceiver[] = [];
  /** Acme's endpoints: every new alert of every network in each body, and one through an alert receiver; globex's, every new alert. */
  const hooks = {} as Record<'standard' | 'meter' | 'received' | 'globex', { hook: WebhookReceiver; secret: string }>;
  const now = () => at(clock.now());
  const post = async (key: string, reports: Record<string, unknown>[]) => {
    const response = await postReports(app, key, reports);
    expect(response.body).toMatchObject({ accepted: reports.length, rejected: [] });
  };
  const endpoint = async (key: string, payloadFormat: string, rules: JsonTree[]) => {
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    const res = await app.graphql(CREATE_ENDPOINT, { key, variables: { i: { label: `${payloadFormat} hook`, url: hook.url, payloadFormat, rules } } });
    expect(res.body.errors).toBeUndefined();
    const made = res.body.data.createWebhookEndpoint as { secret: string; endpoint: { UUID: string } };
    return { hook, secret: made.secret, uuid: made.endpoint.UUID };
  };
  /** What each endpoint received since `from` (its count of deliveries before), once `count` arrived and nothing more came for a while. */
  const settle = async (name: keyof typeof hooks, from: number, count: number): Promise<Body[]> => {
    const { hook } = hooks[name];
    await hook.waitFor(from + count);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    return hook.received.slice(from).map(bodyOf);
  };
  const counts = () => Object.fromEntries(Object.entries(hooks).map(([name, { hook }]) => [name, hook.received.length])) as Record<keyof typeof hooks, number>;

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' } });
    acmeIngest = await createScopedKey(app, 'ingest');
    globexIngest = await createScopedKey(app, 'ingest', 'globex');
    writeKey = await createWriteKey(app);
    const globexWrite = await createWriteKey(app, 'globex');
    const every = NEW_ALERTS.map((alert) => ({ alert }));
    hooks.standard = await endpoint(writeKey, 'STANDARD', every);
    hooks.meter = await endpoint(writeKey, 'METER', every);
    hooks.globex = await endpoint(globexWrite, 'STANDARD', every);
    // an endpoint without rules of its own, reached through an alert receiver that takes the new alerts of HQ
    const received = await endpoint(writeKey, 'METER', [{ alert: 'WAN_UP', networkUUIDs: [IDS.acmeEmpty] }]);
    hooks.received = received;
    const res = await app.graphql('mutation ($i: CreateAlertReceiverInput!) { createAlertReceiver(input: $i) { receiver { rules { alert networkUUIDs } } } }', {
      key: writeKey,
      variables: { i: { label: 'NOC', targets: [{ type: 'WEBHOOK', webhookEndpointUUID: received.uuid }], rules: NEW_ALERTS.map((alert) => ({ alert, networkUUIDs: [IDS.acmeHq] })) } },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createAlertReceiver.receiver.rules.map((r: JsonTree) => r.alert)).toEqual([...NEW_ALERTS].sort());
  });
  afterAll(async () => {
    await app?.close();
    for (const r of receivers) await r.close();
  });

  it('HIGH_CPU_USAGE fires when a device\'s CPU crosses above 90%, not on every high report', async () => {
    const before = counts();
    const t = clock.now();
    // in one batch, out of order: 50, 95 (crossing), 97 (still high), 40, 92 (crossing again); 90 itself is not above
    await post(acmeIngest, [
      report(SERIALS.acmeSwitch, at(t + 2_000), { cpuPercent: 97 }),
      report(SERIALS.acmeSwitch, at(t), { cpuPercent: 50 }),
      report(SERIALS.acmeSwitch, at(t + 1_000), { cpuPercent: 95 }),
      report(SERIALS.acmeSwitch, at(t + 3_000), { cpuPercent: 40 }),
    ]);
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 4_000), { cpuPercent: 90 }), report(SERIALS.acmeSwitch, at(t + 5_000), { cpuPercent: 92 })]);
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 6_000), { cpuPercent: 99 }), report(SERIALS.acmeSwitch, at(t + 7_000))]);
    // globex's own device: only its endpoint hears of it
    await post(globexIngest, [report(SERIALS.globexAp, at(t + 1_000), { cpuPercent: 91 })]);

    const standard = inEventOrder(await settle('standard', before.standard, 2));
    expect(standard).toEqual([
      {
        metadata: { alert_name: 'ALERT_HIGH_CPU_USAGE', network_name: HQ, timestamp: at(t + 1_000) },
        data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch, serialNumber: SERIALS.acmeSwitch, details: { cpuPercent: 95, thresholdPercent: 90, previousCpuPercent: 50 } },
      },
      {
        metadata: { alert_name: 'ALERT_HIGH_CPU_USAGE', network_name: HQ, timestamp: at(t + 5_000) },
        data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch, serialNumber: SERIALS.acmeSwitch, details: { cpuPercent: 92, thresholdPercent: 90, previousCpuPercent: 90 } },
      },
    ]);
    const meter = inEventOrder(await settle('meter', before.meter, 2));
    expect(meter[0]).toEqual({
      metadata: { alert_name: 'High CPU usage', network_name: HQ, timestamp: at(t + 1_000) },
      data: { cpu_percent: 95, threshold_percent: 90, previous_cpu_percent: 50, ...SWITCH, event_uuid: standard[0]?.data.eventUUID },
    });
    const last = hooks.meter.hook.received.at(-1) as ReceivedWebhook;
    expect(last.headers['x-meter-signature']).toBe(meterSignature(hooks.meter.secret, last.body));
    expect(inEventOrder(await settle('received', before.received, 2)).map((b) => [b.metadata.alert_name, b.data.cpu_percent])).toEqual([['High CPU usage', 95], ['High CPU usage', 92]]);
    const globex = await settle('globex', before.globex, 1);
    expect(globex.map((b) => [b.metadata.alert_name, b.data.serialNumber])).toEqual([['ALERT_HIGH_CPU_USAGE', SERIALS.globexAp]]);
  });

  it('ROGUE_ and HONEYPOT_ACCESS_POINT_DETECTED fire when the rule first selects a BSSID, and again only after 24 quiet hours', async () => {
    const before = counts();
    // later than the switch's reports of the test before, so its MAC table is the switch's latest state
    clock.advance(60_000);
    const t = clock.now();
    const heard = (BSSID: string, ssid: string | null, rssi: number, channel: number | null = 6) => ({ BSSID, ssid, rssi, channel });
    const scan = [
      heard(ROGUE.toUpperCase(), 'FreeWiFi', -60),
      heard(HONEYPOT, 'Acme-Corp', -70, 36),
      heard('de:ad:be:ef:00:02', 'Neighbor', -80), // neither on the wire nor imitating
      heard(OWN_BSSID, 'Acme-Corp', -40), // the network's own
      heard('0c:8d:db:00:01:05', null, -50, null), // next to the AP's own wired MAC: not a rogue
    ];
    await post(acmeIngest, [
      report(SERIALS.acmeSwitch, at(t - 1_000), { macTable: [{ macAddress: AP_MAC, vlanID: 10, portNumber: 1 }, { macAddress: ROGUE_WIRED, vlanID: 10, portNumber: 12 }] }),
      report(SERIALS.acmeAp, at(t), { macAddress: AP_MAC, radios: [{ BSSID: OWN_BSSID, radioBand: 'BAND_5G', ssid: 'Acme-Corp' }], foreignBSSIDs: scan }),
    ]);
    // heard again a minute later, and an hour later: no new detection
    clock.advance(60_000);
    await post(acmeIngest, [report(SERIALS.acmeAp, now(), { foreignBSSIDs: scan })]);
    clock.advance(3_600_000 - 60_000);
    await post(acmeIngest, [report(SERIALS.acmeAp, now(), { foreignBSSIDs: scan.slice(0, 2) })]);
    await post(globexIngest, [report(SERIALS.globexAp, at(t), { foreignBSSIDs: [heard('de:ad:be:ef:00:09', 'Globex', -66)] })]);

    // one report's two detections, at one time: in alert name order (inEventOrder)
    const standard = inEventOrder(await settle('standard', before.standard, 2));
    expect(standard).toEqual([
      {
        metadata: { alert_name: 'ALERT_HONEYPOT_ACCESS_POINT_DETECTED', network_name: HQ, timestamp: at(t) },
        data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeAp, serialNumber: SERIALS.acmeAp, details: { bssid: HONEYPOT, ssid: 'Acme-Corp', rssi: -70, channel: 36 } },
      },
      {
        metadata: { alert_name: 'ALERT_ROGUE_ACCESS_POINT_DETECTED', network_name: HQ, timestamp: at(t) },
        data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeAp, serialNumber: SERIALS.acmeAp, details: { bssid: ROGUE, ssid: 'FreeWiFi', rssi: -60, channel: 6 } },
      },
    ]);
    expect(inEventOrder(await settle('meter', before.meter, 2))).toEqual([
      { metadata: { alert_name: 'Honeypot access point', network_name: HQ, timestamp: at(t) }, data: { bssid: HONEYPOT, ssid: 'Acme-Corp', rssi: -70, channel: 36, ...AP, event_uuid: standard[0]?.data.eventUUID } },
      { metadata: { alert_name: 'Rogue access point', network_name: HQ, timestamp: at(t) }, data: { bssid: ROGUE, ssid: 'FreeWiFi', rssi: -60, channel: 6, ...AP, event_uuid: standard[1]?.data.eventUUID } },
    ]);
    expect((await settle('globex', before.globex, 1)).map((b) => [b.metadata.alert_name, (b.data.details as JsonTree).ssid])).toEqual([['ALERT_HONEYPOT_ACCESS_POINT_DETECTED', 'Globex']]);

    // the event log has them under Meter's EventType names
    const log = await app.graphql(
      `{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 10, typeFilter: [ROGUE_ACCESS_POINT_DETECTED, HONEYPOT_ACCESS_POINT_DETECTED]) { events { eventType } } }`,
      { key: writeKey },
    );
    expect(log.body.data.recentEventLogEventsPage.events.map((e: JsonTree) => e.eventType).sort()).toEqual(['HONEYPOT_ACCESS_POINT_DETECTED', 'ROGUE_ACCESS_POINT_DETECTED']);

    // 23 hours after the rogue was last selected: the same detection; the honeypot, unheard for 47 hours, then is a new one
    const again = counts();
    clock.advance(23 * 3_600_000);
    await post(acmeIngest, [report(SERIALS.acmeAp, now(), { foreignBSSIDs: scan.slice(0, 1) })]);
    clock.advance(23 * 3_600_000);
    await post(acmeIngest, [report(SERIALS.acmeAp, now(), { foreignBSSIDs: scan.slice(0, 2) })]);
    expect((await settle('standard', again.standard, 1)).map((b) => [b.metadata.alert_name, b.metadata.timestamp])).toEqual([['ALERT_HONEYPOT_ACCESS_POINT_DETECTED', now()]]);
  });

  it('PORT_DOWN, PORT_UP and SNMP_AUTHENTICATION_FAILURE come from the trap receiver\'s events and devices\' own port events', async () => {
    const before = counts();
    const t = clock.now();
    // the events as `netgraph collector` posts a trap (collector.traps.ts), and a device's own PORT_UP
    const trap = (type: string, trapName: string, extra: Record<string, unknown> = {}) => ({ type, observedAt: at(t), details: { source: 'snmp-trap', trap: trapName, ...extra } });
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t), { events: [trap('LINK_DOWN', 'linkDown', { portNumber: 3, adminStatus: 'up', operStatus: 'down' })] })]);
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t), { events: [trap('SNMP_AUTHENTICATION_FAILURE', 'authenticationFailure')] })]);
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t), { events: [{ type: 'PORT_UP', observedAt: at(t), details: { portNumber: 3 } }] })]);
    // three events at one time: the one without a port first, then by alert name (inEventOrder)
    const standard = inEventOrder(await settle('standard', before.standard, 3));
    expect(standard).toEqual([
      {
        metadata: { alert_name: 'ALERT_SNMP_AUTHENTICATION_FAILURE', network_name: HQ, timestamp: at(t) },
        data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch, serialNumber: SERIALS.acmeSwitch, details: { source: 'snmp-trap', trap: 'authenticationFailure' } },
      },
      {
        metadata: { alert_name: 'ALERT_PORT_DOWN', network_name: HQ, timestamp: at(t) },
        data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch, serialNumber: SERIALS.acmeSwitch, details: { source: 'snmp-trap', trap: 'linkDown', portNumber: 3, adminStatus: 'up', operStatus: 'down' } },
      },
      {
        metadata: { alert_name: 'ALERT_PORT_UP', network_name: HQ, timestamp: at(t) },
        data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch, serialNumber: SERIALS.acmeSwitch, details: { portNumber: 3 } },
      },
    ]);
    expect(inEventOrder(await settle('meter', before.meter, 3))[1]).toEqual({
      metadata: { alert_name: 'Port down', network_name: HQ, timestamp: at(t) },
      data: { source: 'snmp-trap', trap: 'linkDown', port_number: 3, admin_status: 'up', oper_status: 'down', ...SWITCH, event_uuid: standard[1]?.data.eventUUID },
    });
    expect(inEventOrder(await settle('received', before.received, 3)).map((b) => b.metadata.alert_name)).toEqual(['SNMP authentication failure', 'Port down', 'Port up']);
    expect(counts().globex).toBe(before.globex);
  });

  it('PORT_BLOCKED, PORT_UNBLOCKED and the STP errors fire once per change of a port\'s reported spanning-tree state', async () => {
    const before = counts();
    clock.advance(60_000);
    const t = clock.now();
    const port = (portNumber: number, stpState?: string | null) => ({ portNumber, label: `ge-0/0/${portNumber}`, isConnected: true, ...(stpState === undefined ? {} : { stpState }) });
    const ports = (p1: string | null, p2: string | null) => ({ interfaces: [port(1, p1), port(2, p2), port(3)] });
    // first known states: nothing to compare with
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t), ports('FORWARDING', 'FORWARDING'))]);
    // one batch, out of order: port 1 blocked, then listening again (unblocked); port 2 broken
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 2_000), ports('LISTENING', 'BROKEN')), report(SERIALS.acmeSwitch, at(t + 1_000), ports('BLOCKING', 'FORWARDING'))]);
    // the same change posted twice at once (two reports of one poll, two senders): one event
    await Promise.all([0, 1].map(() => post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 3_000), ports('FORWARDING', 'FORWARDING'))])));
    // from LEARNING to BLOCKING blocks; from DISABLED (a port coming up) it does not; a state no longer reported is forgotten
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 4_000), ports('LEARNING', 'DISABLED'))]);
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 5_000), ports('BLOCKING', 'BLOCKING'))]);
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 6_000), ports(null, 'FORWARDING'))]);
    await post(acmeIngest, [report(SERIALS.acmeSwitch, at(t + 7_000), ports('FORWARDING', 'FORWARDING'))]);

    const standard = inEventOrder(await settle('standard', before.standard, 5));
    const event = (alert: string, ms: number, portNumber: number, stpState: string, previousStpState: string) => ({
      metadata: { alert_name: `ALERT_${alert}`, network_name: HQ, timestamp: at(t + ms) },
      data: { eventUUID: expect.any(String), networkUUID: IDS.acmeHq, virtualDeviceUUID: IDS.acmeSwitch, serialNumber: SERIALS.acmeSwitch, details: { portNumber, label: `ge-0/0/${portNumber}`, stpState, previousStpState } },
    });
    expect(standard).toEqual([
      event('PORT_BLOCKED', 1_000, 1, 'BLOCKING', 'FORWARDING'),
      event('PORT_UNBLOCKED', 2_000, 1, 'LISTENING', 'BLOCKING'),
      event('STP_ERROR_PORT_BLOCKED', 2_000, 2, 'BROKEN', 'FORWARDING'),
      event('STP_ERROR_PORT_UNBLOCKED', 3_000, 2, 'FORWARDING', 'BROKEN'),
      event('PORT_BLOCKED', 5_000, 1, 'BLOCKING', 'LEARNING'),
    ]);
    const meter = inEventOrder(await settle('meter', before.meter, 5));
    expect(meter.map((b) => b.metadata.alert_name)).toEqual(['Port blocked', 'Port unblocked', 'STP error', 'STP error cleared', 'Port blocked']);
    expect(meter[2]).toEqual({
      metadata: { alert_name: 'STP error', network_name: HQ, timestamp: at(t + 2_000) },
      data: { port_number: 2, label: 'ge-0/0/2', stp_state: 'BROKEN', previous_stp_state: 'FORWARDING', ...SWITCH, event_uuid: standard[2]?.data.eventUUID },
    });
    expect(inEventOrder(await settle('received', before.received, 5)).map((b) => b.metadata.alert_name)).toEqual(['Port blocked', 'Port unblocked', 'STP error', 'STP error cleared', 'Port blocked']);
    expect(counts().globex).toBe(before.globex);

    // the event log under Meter's EventType names, and the ports' latest state
    const log = await app.graphql(
      `{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 10, typeFilter: [PORT_BLOCKED, PORT_UNBLOCKED, STP_ERROR_PORT_BLOCKED, STP_ERROR_PORT_UNBLOCKED]) { total events { eventType eventTypeName generatedAt } } }`,
      { key: writeKey },
    );
    expect(log.body.data.recentEventLogEventsPage).toEqual({
      total: 5,
      events: [
        { eventType: 'PORT_BLOCKED', eventTypeName: 'Port blocked', generatedAt: at(t + 5_000) },
        { eventType: 'STP_ERROR_PORT_UNBLOCKED', eventTypeName: 'STP error: port unblocked', generatedAt: at(t + 3_000) },
        // at the same time: the later event first, as the log orders them
        { eventType: 'STP_ERROR_PORT_BLOCKED', eventTypeName: 'STP error: port blocked', generatedAt: at(t + 2_000) },
        { eventType: 'PORT_UNBLOCKED', eventTypeName: 'Port unblocked', generatedAt: at(t + 2_000) },
        { eventType: 'PORT_BLOCKED', eventTypeName: 'Port blocked', generatedAt: at(t + 1_000) },
      ],
    });
    const phy = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { portNumber stpState } }`, { key: writeKey });
    expect(phy.body.data.phyInterfacesForVirtualDevice).toEqual([
      { portNumber: 1, stpState: 'FORWARDING' },
      { portNumber: 2, stpState: 'FORWARDING' },
      { portNumber: 3, stpState: null },
    ]);
  });

  it('API_KEY_EXPIRING fires once per key within 7 days of its expiry, across concurrent checks, without the secret', async () => {
    const before = counts();
    // keys take their expiry from the wall clock: the alerts' clock moves to it
    clock.advance(Date.now() - clock.now());
    const keys = app.server.services.apiKeys;
    const soon = await keys.create({ companySlug: 'acme', label: 'nightly export', scope: 'read', expires: '5d' });
    const later = await keys.create({ companySlug: 'acme', label: 'quarterly', scope: 'read', expires: '8d' });
    await keys.create({ companySlug: 'acme', label: 'forever', scope: 'read' });
    const revoked = await keys.create({ companySlug: 'acme', label: 'revoked', scope: 'read', expires: '2d' });
    await keys.revoke(revoked.id);
    const globexKey = await keys.create({ companySlug: 'globex', label: 'globex export', scope: 'read', expires: '1d' });
    const dispatcher = app.server.services.webhookWork.dispatcher;
    // three processes' checks at once (and the background task's): each key is claimed by one of them
    const claimed = await Promise.all([dispatcher.checkExpiringKeys(), dispatcher.checkExpiringKeys(), dispatcher.checkExpiringKeys()]);
    expect(claimed.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2);
    const first = await settle('standard', before.standard, 1);
    expect(first).toEqual([
      { metadata: { alert_name: 'ALERT_API_KEY_EXPIRING', network_name: null, timestamp: expect.any(String) }, data: { apiKeyUUID: soon.id, prefix: soon.prefix, label: 'nightly export', expiresAt: soon.expiresAt } },
    ]);
    expect(await settle('meter', before.meter, 1)).toEqual([
      { metadata: { alert_name: 'API key expiring', network_name: null, timestamp: expect.any(String) }, data: { api_key_uuid: soon.id, prefix: soon.prefix, label: 'nightly export', expires_at: soon.expiresAt } },
    ]);
    const globex = await settle('globex', before.globex, 1);
    expect(globex.map((b) => [b.metadata.alert_name, b.data.label])).toEqual([['ALERT_API_KEY_EXPIRING', 'globex export']]);
    // the receiver's rule names a network: a company-wide alert is not that network's
    expect(counts().received).toBe(before.received);
    for (const { hook } of Object.values(hooks)) for (const d of hook.received) expect(d.body).not.toContain(soon.key.slice(-12));
    expect(globex[0]?.data.apiKeyUUID).toBe(globexKey.id);

    // a day and a half later the 8-day key is within 7 days: once
    clock.advance(36 * 3_600_000);
    await Promise.all([dispatcher.checkExpiringKeys(), dispatcher.checkExpiringKeys()]);
    expect(await dispatcher.checkExpiringKeys()).toBe(0);
    expect((await settle('standard', before.standard + 1, 1)).map((b) => [b.data.label, b.data.expiresAt])).toEqual([['quarterly', later.expiresAt]]);
    expect(hooks.standard.hook.received.length).toBe(before.standard + 2);
  });
});
