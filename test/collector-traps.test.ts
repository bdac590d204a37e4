import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { startNetgraph, stopNetgraph as stop } from './helpers/cli.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { TEST_V3_USER, buildTestNetwork, canBuildNetworks, ip, linksOf, startAgent } from './helpers/netns.js';
import type { TestAgent, TestNetwork } from './helpers/netns.js';
import { createScopedKey } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import type { WebhookReceiver } from './helpers/webhook-receiver.js';
import { createWriteKey } from './helpers/writes.js';
import { meterSignature } from '../src/features/webhook/webhook.meter.js';

// SNMP notifications (traps) from net-snmp's real agent in a network namespace
// to `netgraph collector`'s trap receiver: the agent's Event MIB watches
// ifOperStatus every second and sends linkDown/linkUp (SNMPv2c, and SNMPv3
// authPriv to a second sink), and an authenticationFailure for a request with
// a wrong community. They reach the API as the device's events at once, and
// webhook endpoints as alerts (PORT_DOWN, PORT_UP, SNMP_AUTHENTICATION_FAILURE,
// and DEVICE_BOOT for a coldStart sent with net-snmp's snmptrap).
const AVAILABLE = canBuildNetworks();
if (!AVAILABLE && process.env.CI === 'true') throw new Error('CI must run the collector tests: they need root, iproute2, snmpd and snmpget (.ci/run installs them)');

const LINK_DOWN = '.1.3.6.1.6.3.1.1.5.3';
const LINK_UP = '.1.3.6.1.6.3.1.1.5.4';
const IF_OPER_STATUS = '.1.3.6.1.2.1.2.2.1.8';
/** ifIndex, ifAdminStatus, ifOperStatus: the varbinds of linkDown and linkUp. */
const IF_COLUMNS = '.1.3.6.1.2.1.2.2.1.1 .1.3.6.1.2.1.2.2.1.7 .1.3.6.1.2.1.2.2.1.8';
const COLD_START = '1.3.6.1.6.3.1.1.5.1';
const TRAP_ALERTS = ['PORT_DOWN', 'PORT_UP', 'SNMP_AUTHENTICATION_FAILURE', 'DEVICE_BOOT'].map((alert) => ({ alert }));
const CREATE_ENDPOINT = 'mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { secret } }';

/** A UDP port free on the test's side of the management veth. */
async function freeUdpPort(address: string): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

describe.skipIf(!AVAILABLE)('netgraph collector receiving SNMP traps from a real agent', () => {
  let network: TestNetwork;
  let dir: string;
  const here = () => network.deviceAddress.replace(/\.2$/, '.1');

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-traps-'));
    network = buildTestNetwork();
  });
  afterAll(() => {
    network?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe.each(storeKinds())('reporting to netgraph on %s', (kind) => {
    let app: TestApp;
    let agent: TestAgent | undefined;
    let readKey: string;
    let ingestKey: string;
    /** Acme's endpoint (Meter's body) and globex's, both taking the trap alerts of every network. */
    let acmeHook: WebhookReceiver;
    let acmeSecret: string;
    let globexHook: WebhookReceiver;
    beforeAll(async () => {
      app = await startTestApp(kind, { data: createFixture(), env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' } });
      ingestKey = await createScopedKey(app, 'ingest');
      readKey = await app.createKey('acme');
      acmeHook = await startWebhookReceiver();
      globexHook = await startWebhookReceiver();
      const endpoint = async (company: string, url: string, payloadFormat: string) => {
        const res = await app.graphql(CREATE_ENDPOINT, { key: await createWriteKey(app, company), variables: { i: { label: 'traps', url, payloadFormat, rules: TRAP_ALERTS } } });
        expect(res.body.errors).toBeUndefined();
        return res.body.data.createWebhookEndpoint.secret as string;
      };
      acmeSecret = await endpoint('acme', acmeHook.url, 'METER');
      await endpoint('globex', globexHook.url, 'STANDARD');
    });
    afterAll(async () => {
      await agent?.stop();
      await app?.close();
      await acmeHook?.close();
      await globexHook?.close();
    });
    /** Acme's alerts so far: Meter's name and data, each delivery's X-Meter-Signature checked. */
    const alerts = async (): Promise<{ alert: string; data: JsonTree }[]> =>
      acmeHook.received.map((d) => {
        expect(d.headers['x-meter-signature']).toBe(meterSignature(acmeSecret, d.body));
        const body = JSON.parse(d.body) as { metadata: { alert_name: string }; data: JsonTree };
        return { alert: body.metadata.alert_name, data: body.data };
      });

    const events = async (): Promise<JsonTree[]> => {
      const response = await app.graphql(
        `{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 100, typeAPINameFilter: ["LINK_DOWN", "LINK_UP", "SNMP_AUTHENTICATION_FAILURE"]) { events { eventType eventTypeAPIName details } } }`,
        { key: readKey },
      );
      const page = response.body.data?.recentEventLogEventsPage as { events: JsonTree[] } | undefined;
      return (page?.events ?? []).map((e) => ({ ...e, details: JSON.parse(e.details as string) as JsonTree }));
    };
    const until = async <T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await read();
        if (check(value)) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    it('turns linkDown, linkUp (SNMPv2c and SNMPv3 authPriv) and authenticationFailure into the device\'s events at once, and polls the port down', async () => {
      const v2Port = await freeUdpPort(here());
      const v3Port = await freeUdpPort(here());
      const lan = linksOf(network.device).find((l) => l.ifname === network.lanInterface);
      const v3 = { version: '3', user: TEST_V3_USER.user, authProtocol: 'sha256', authKey: TEST_V3_USER.authKey, privProtocol: 'aes', privKey: TEST_V3_USER.privKey };
      // two collectors, one per sink, each knowing the device by one set of credentials; the poll interval is long,
      // so a port that reads down before it is over was polled because of the trap
      const config = (name: string, port: number, snmp: Record<string, unknown>) => {
        const file = path.join(dir, `${name}-${kind}.json`);
        fs.writeFileSync(
          file,
          JSON.stringify({
            server: app.url,
            apiKey: ingestKey,
            intervalSeconds: 3600,
            spoolDir: path.join(dir, `${name}-${kind}-spool`),
            traps: { port, address: here() },
            devices: [{ host: network.deviceAddress, serialNumber: SERIALS.acmeSwitch, snmp }],
          }),
        );
        return file;
      };
      let v2: ReturnType<typeof startNetgraph> | undefined;
      let v3c: ReturnType<typeof startNetgraph> | undefined;
      try {
        agent = await startAgent(network.device, network.deviceAddress, [
          `trap2sink ${here()}:${v2Port} public`,
          `trapsess -v 3 -u ${TEST_V3_USER.user} -l authPriv -a SHA-256 -A ${TEST_V3_USER.authKey} -x AES -X ${TEST_V3_USER.privKey} ${here()}:${v3Port}`,
          'authtrapenable 1',
          // linkUpDownNotifications, every second instead of every minute, in numeric OIDs (Debian ships no MIB files);
          // the Event MIB queries the agent itself as this user
          'createUser ngInternal',
          'rouser ngInternal noauth',
          'iquerySecName ngInternal',
          `notificationEvent ngLinkUp ${LINK_UP} ${IF_COLUMNS}`,
          `notificationEvent ngLinkDown ${LINK_DOWN} ${IF_COLUMNS}`,
          `monitor -r 1 -e ngLinkUp "link up" ${IF_OPER_STATUS} != 2`,
          `monitor -r 1 -e ngLinkDown "link down" ${IF_OPER_STATUS} == 2`,
        ]);
        v2 = startNetgraph(['collector', '--config', config('v2c', v2Port, { version: '2c', community: 'public' })], { LOG_LEVEL: 'info' });
        v3c = startNetgraph(['collector', '--config', config('v3', v3Port, v3)], { LOG_LEVEL: 'info' });
        // both collectors have polled once (the port is up), before the link goes down
        const isConnected = async () => {
          const response = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { portNumber isConnected } }`, { key: readKey });
          return ((response.body.data?.phyInterfacesForVirtualDevice as JsonTree[] | undefined) ?? []).find((p) => p.portNumber === lan?.ifindex)?.isConnected;
        };
        await until('the first poll', isConnected, (connected) => connected === true);

        // the agent's first evaluation sends a linkUp for every interface that is up
        const lanUps = (list: JsonTree[]) => list.filter((e) => e.eventTypeAPIName === 'LINK_UP' && (e.details as JsonTree).portNumber === lan?.ifindex).length;
        const upsBefore = lanUps(await events());
        ip('-n', network.device, 'link', 'set', network.lanInterface, 'down');
        const down = await until('two LINK_DOWN events', events, (list) => list.filter((e) => e.eventTypeAPIName === 'LINK_DOWN').length === 2);
        // one through each sink: v2c and v3 authPriv
        expect(down.filter((e) => e.eventTypeAPIName === 'LINK_DOWN')).toEqual([
          { eventType: 'UNSPECIFIED', eventTypeAPIName: 'LINK_DOWN', details: { source: 'snmp-trap', trap: 'linkDown', portNumber: lan?.ifindex, adminStatus: 'down', operStatus: 'down' } },
          { eventType: 'UNSPECIFIED', eventTypeAPIName: 'LINK_DOWN', details: { source: 'snmp-trap', trap: 'linkDown', portNumber: lan?.ifindex, adminStatus: 'down', operStatus: 'down' } },
        ]);
        // the trap made the collectors poll again, long before their hour is up
        await until('the port polled down', isConnected, (connected) => connected === false);

        ip('-n', network.device, 'link', 'set', network.lanInterface, 'up');
        const up = await until('LINK_UP events', events, (list) => lanUps(list) === upsBefore + 2);
        expect(up[0]).toEqual({ eventType: 'UNSPECIFIED', eventTypeAPIName: 'LINK_UP', details: { source: 'snmp-trap', trap: 'linkUp', portNumber: lan?.ifindex, adminStatus: 'up', operStatus: 'up' } });
        await until('the port polled up', isConnected, (connected) => connected === true);

        // a request with a wrong community: the agent sends authenticationFailure
        try {
          execFileSync('/usr/bin/snmpget', ['-v2c', '-c', 'not-the-community', '-t', '0.3', '-r', '0', network.deviceAddress, '1.3.6.1.2.1.1.5.0'], { stdio: 'ignore' });
        } catch {
          // no answer: expected
        }
        const failures = await until('SNMP_AUTHENTICATION_FAILURE events', events, (list) => list.some((e) => e.eventTypeAPIName === 'SNMP_AUTHENTICATION_FAILURE'));
        expect(failures.find((e) => e.eventTypeAPIName === 'SNMP_AUTHENTICATION_FAILURE')).toEqual({
          eventType: 'UNSPECIFIED',
          eventTypeAPIName: 'SNMP_AUTHENTICATION_FAILURE',
          details: { source: 'snmp-trap', trap: 'authenticationFailure' },
        });

        // a coldStart, sent from the device's address with net-snmp's snmptrap to the v2c collector
        ip('netns', 'exec', network.device, '/usr/bin/snmptrap', '-v', '2c', '-c', 'public', `${here()}:${v2Port}`, '', COLD_START);

        // every trap reached acme's endpoint as an alert, in Meter's body: the lan port's two linkDowns (one per sink), its linkUps,
        // the authentication failure and the boot
        const lanAlert = (name: string) => (list: { alert: string; data: JsonTree }[]) => list.filter((a) => a.alert === name && a.data.port_number === lan?.ifindex);
        const got = await until('the trap alerts', alerts, (list) => lanAlert('Port down')(list).length === 2 && list.some((a) => a.alert === 'Device boot') && list.some((a) => a.alert === 'SNMP authentication failure') && lanAlert('Port up')(list).length >= upsBefore + 2);
        const device = { device_name: 'Core switch\twith tab', device_type: 'switch', serial_number: SERIALS.acmeSwitch, virtual_device_uuid: IDS.acmeSwitch, network_uuid: IDS.acmeHq };
        expect(lanAlert('Port down')(got)).toEqual([0, 1].map(() => ({
          alert: 'Port down',
          data: { source: 'snmp-trap', trap: 'linkDown', port_number: lan?.ifindex, admin_status: 'down', oper_status: 'down', ...device, event_uuid: expect.any(String) },
        })));
        expect(got.filter((a) => a.alert === 'Device boot')).toEqual([{ alert: 'Device boot', data: { source: 'snmp-trap', trap: 'coldStart', ...device, event_uuid: expect.any(String) } }]);
        expect(got.find((a) => a.alert === 'SNMP authentication failure')).toEqual({
          alert: 'SNMP authentication failure',
          data: { source: 'snmp-trap', trap: 'authenticationFailure', ...device, event_uuid: expect.any(String) },
        });
        expect(new Set(got.map((a) => a.alert))).toEqual(new Set(['Port down', 'Port up', 'SNMP authentication failure', 'Device boot']));
        // another company's endpoint for the same alerts heard nothing of acme's device
        expect(globexHook.received).toEqual([]);
      } catch (error) {
        v2?.child.kill('SIGKILL');
        v3c?.child.kill('SIGKILL');
        throw error;
      } finally {
        await agent?.stop();
        agent = undefined;
      }
      const [v2Done, v3Done] = await Promise.all([stop(v2!.child, v2!.result), stop(v3c!.child, v3c!.result)]);
      expect([v2Done.code, v3Done.code]).toEqual([0, 0]);
      expect(v2Done.stderr).toContain('"msg":"SNMP notification"');
      for (const done of [v2Done, v3Done]) {
        expect(done.stderr).not.toContain(ingestKey);
        expect(done.stderr).not.toContain(TEST_V3_USER.privKey);
      }
    }, 90_000);
  });
});
