import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { runNetgraph, startNetgraph, stopNetgraph as stop } from './helpers/cli.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { TEST_V3_USER, buildTestNetwork, canBuildNetworks, linksOf, startAgent, waitForAgentCounter } from './helpers/netns.js';
import type { TestAgent, TestNetwork } from './helpers/netns.js';
import { createScopedKey } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// The collector against net-snmp's real agent (snmpd) in a network namespace of
// the test's own (test/helpers/netns.ts). CI installs snmpd and runs as root;
// elsewhere, without them, the file is skipped, and in CI that is a failure.
const AVAILABLE = canBuildNetworks();
if (!AVAILABLE && process.env.CI === 'true') throw new Error('CI must run the collector tests: they need root, iproute2, snmpd and snmpget (.ci/run installs them)');

interface PortReport {
  portNumber: number;
  label: string;
  isConnected: boolean;
  isUplink: boolean;
  counters: { rxBytes: number; txBytes: number; rxPackets: number; txPackets: number };
}

describe.skipIf(!AVAILABLE)('netgraph collector against a real SNMP agent', () => {
  let network: TestNetwork;
  let agent: TestAgent;
  let dir: string;
  const v2c = { version: '2c', community: 'public' };
  const v3 = { version: '3', user: TEST_V3_USER.user, authProtocol: 'sha256', authKey: TEST_V3_USER.authKey, privProtocol: 'aes', privKey: TEST_V3_USER.privKey };
  const writeConfig = (name: string, config: Record<string, unknown>) => {
    const file = path.join(dir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify({ server: 'http://127.0.0.1:1', apiKey: 'unused', spoolDir: path.join(dir, `${name}-spool`), ...config }));
    return file;
  };
  const device = (serialNumber: string, snmp: Record<string, unknown>) => ({ host: network.deviceAddress, serialNumber, uplinks: [], snmp });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-collector-'));
    network = buildTestNetwork();
    agent = await startAgent(network.device, network.deviceAddress);
    await network.sendClientTraffic();
    const lan = linksOf(network.device).find((l) => l.ifname === network.lanInterface);
    await waitForAgentCounter(network.deviceAddress, lan?.ifindex ?? 0, 20_000);
  });
  afterAll(async () => {
    await agent?.stop();
    network?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('polls once and prints the ports, counters, wired clients and uptime it read, over SNMPv2c and SNMPv3 authPriv', async () => {
    const file = writeConfig('once', {
      devices: [device('M1A3-SW00-0001', v2c), device('M1A3-SW00-0002', v3), device('M1A3-SW00-0003', { ...v3, authKey: 'not-the-key' })],
    });
    const result = await runNetgraph(['collector', '--config', file, '--once', '--json'], {});
    const after = linksOf(network.device);
    // one device could not be polled: exit 1, and the others still printed
    expect(result.code).toBe(1);
    const outcomes = (JSON.parse(result.stdout) as { devices: { serialNumber: string; error: string | null; report: JsonTree | null }[] }).devices;
    expect(outcomes.map((o) => o.serialNumber)).toEqual(['M1A3-SW00-0001', 'M1A3-SW00-0002', 'M1A3-SW00-0003']);
    expect(outcomes[2]).toMatchObject({ report: null, error: expect.stringMatching(/^198\.18\.\d+\.2:161 refused the SNMPv3 credentials: Wrong Digest/) });

    const lan = after.find((l) => l.ifname === network.lanInterface);
    for (const outcome of outcomes.slice(0, 2)) {
      expect(outcome.error).toBeNull();
      const report = outcome.report as JsonTree;
      expect(report.serialNumber).toBe(outcome.serialNumber);
      expect(report.uptimeSeconds).toBeGreaterThanOrEqual(0);
      const ports = report.interfaces as PortReport[];
      // every interface but the loopback, with its ifIndex as the port number
      expect(ports.map((p) => [p.portNumber, p.label]).sort()).toEqual(after.filter((l) => l.ifname !== 'lo').map((l) => [l.ifindex, l.ifname]).sort());
      const lanPort = ports.find((p) => p.portNumber === lan?.ifindex) as PortReport;
      expect(lanPort.isConnected).toBe(true);
      // 20 datagrams of 1,000 bytes reached it before the poll; snmpd's counters never run ahead of the kernel's
      expect(lanPort.counters.rxBytes).toBeGreaterThanOrEqual(20_000);
      expect(lanPort.counters.rxBytes).toBeLessThanOrEqual(lan?.stats64.rx.bytes ?? 0);
      expect(report.clients).toContainEqual({ macAddress: network.clientMac, ip: network.clientAddress, hostname: null, isWireless: false, portNumber: lan?.ifindex });
    }
  });

  it('measures each uplink with TCP probes: an answer (accepted or refused) is a round trip, silence is loss', async () => {
    const listener = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const open = (listener.address() as net.AddressInfo).port;
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    // an address of the management subnet that no host has: nothing ever answers it
    const silent = network.deviceAddress.replace(/\.2$/, '.77');
    const probed = (serialNumber: string, target: string) => ({ ...device(serialNumber, v2c), uplinks: [network.lanInterface], uplinkProbes: [{ uplink: network.lanInterface, target }] });
    const file = writeConfig('probes', {
      probeCount: 3,
      probeTimeoutMs: 300,
      devices: [probed('M1A3-SW00-0001', `127.0.0.1:${open}`), probed('M1A3-SW00-0002', `127.0.0.1:${closed}`), probed('M1A3-SW00-0003', `${silent}:9`)],
    });
    try {
      const result = await runNetgraph(['collector', '--config', file, '--once', '--json'], {});
      expect(result.code).toBe(0);
      const lan = linksOf(network.device).find((l) => l.ifname === network.lanInterface);
      const samples = (JSON.parse(result.stdout) as { devices: { report: { observedAt: string; uplinkSamples: JsonTree[] } }[] }).devices.map((d) => d.report);
      for (const [k, report] of samples.entries()) {
        expect(report.uplinkSamples).toHaveLength(1);
        const sample = report.uplinkSamples[0] as JsonTree;
        // a first poll has no earlier counters: no throughput yet
        expect(sample).toMatchObject({ portNumber: lan?.ifindex, observedAt: report.observedAt, rxBitsPerSecond: null, txBitsPerSecond: null });
        if (k < 2) {
          expect(sample.lossPercent).toBe(0);
          expect(sample.latencyMs).toBeGreaterThan(0);
          expect(sample.latencyMs).toBeLessThan(300);
          expect(sample.jitterMs).toBeGreaterThanOrEqual(0);
        } else {
          expect(sample).toMatchObject({ latencyMs: null, jitterMs: null, lossPercent: 100 });
        }
      }
    } finally {
      listener.close();
    }
  });

  it('refuses a configuration file with every problem named at its path, and no secret in the message', async () => {
    const file = writeConfig('bad', {
      intervalSeconds: 1,
      devices: [
        {
          host: '',
          serialNumber: 'X',
          uplinks: ['eth0'],
          uplinkProbes: [{ uplink: 'eth9', target: '198.51.100.1' }, { uplink: 'eth0', target: '198.51.100.1:443' }, { uplink: 'eth0', target: '[2001:db8::1]:443' }],
          snmp: { version: '3', user: 'u', authKey: 'short', privKey: 'leaked-secret-value', authProtocol: 'md4' },
        },
      ],
    });
    const result = await runNetgraph(['collector', '--config', file, '--once'], {});
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('has 7 problems');
    for (const problem of [
      '$.intervalSeconds: must be a whole number from 10 to 86400',
      '$.devices[0].host: must be a non-empty string',
      '$.devices[0].snmp.authProtocol: must be one of sha, sha224, sha256, sha384, sha512',
      '$.devices[0].snmp.authKey: must be a string of 8 to 255 characters',
      "$.devices[0].uplinkProbes[0].uplink: must be one of the device's uplinks (eth0)",
      '$.devices[0].uplinkProbes[0].target: must be host:port of a TCP service, e.g. 198.51.100.1:443 or [2001:db8::1]:443',
      '$.devices[0].uplinkProbes[2].uplink: repeats eth0: one target per uplink',
    ]) {
      expect(result.stderr).toContain(problem);
    }
    expect(result.stderr).not.toContain('leaked-secret-value');
  });

  describe.each(storeKinds())('reporting to netgraph on %s', (kind) => {
    let app: TestApp;
    let ingestKey: string;
    let readKey: string;
    beforeAll(async () => {
      app = await startTestApp(kind, { data: createFixture() });
      ingestKey = await createScopedKey(app, 'ingest');
      readKey = await app.createKey('acme');
    });
    afterAll(async () => {
      await app?.close();
    });

    const ports = async (): Promise<JsonTree[]> => {
      const response = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { portNumber label isConnected } }`, { key: readKey });
      return (response.body.data?.phyInterfacesForVirtualDevice as JsonTree[] | undefined) ?? [];
    };
    const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const spooled = (spoolDir: string) => (fs.existsSync(spoolDir) ? fs.readdirSync(spoolDir).filter((n) => n.endsWith('.json')) : []);

    it('posts the device\'s ports and wired clients, which the API answers', async () => {
      const file = writeConfig(`live-${kind}`, { server: app.url, apiKey: ingestKey, devices: [{ ...device(SERIALS.acmeSwitch, v2c), uplinks: [network.lanInterface] }] });
      const { child, result } = startNetgraph(['collector', '--config', file], { LOG_LEVEL: 'info' });
      const lan = linksOf(network.device).find((l) => l.ifname === network.lanInterface);
      try {
        await until('the reported ports', async () => (await ports()).some((p) => p.portNumber === lan?.ifindex));
        expect(await ports()).toContainEqual({ portNumber: lan?.ifindex, label: network.lanInterface, isConnected: true });
        const clients = await app.graphql(`{ networkClients(networkUUID: "${IDS.acmeHq}") { macAddress ip } }`, { key: readKey });
        expect(clients.body.data.networkClients).toContainEqual({ macAddress: network.clientMac, ip: network.clientAddress });
      } catch (error) {
        child.kill('SIGKILL');
        throw error;
      }
      const finished = await stop(child, result);
      expect(finished.code).toBe(0);
      expect(finished.stderr).toContain('"msg":"polled"');
      expect(finished.stderr).not.toContain(ingestKey);
    }, 60_000);

    it('keeps what it polled while the server is away, through a SIGKILL, and then delivers each report once', async () => {
      const closedPort = await new Promise<number>((resolve) => {
        const server = net.createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as net.AddressInfo;
          server.close(() => resolve(port));
        });
      });
      const spoolDir = path.join(dir, `away-${kind}-spool`);
      const devices = [device(SERIALS.acmeSwitch, v2c)];
      const away = writeConfig(`away-${kind}`, { server: `http://127.0.0.1:${closedPort}`, apiKey: ingestKey, spoolDir, devices });
      const first = startNetgraph(['collector', '--config', away], {});
      await until('a spooled batch', async () => spooled(spoolDir).length > 0);
      first.child.kill('SIGKILL');
      await first.result;
      const reportIds = spooled(spoolDir).flatMap((name) => (JSON.parse(fs.readFileSync(path.join(spoolDir, name), 'utf8')) as { reportId: string }[]).map((r) => r.reportId));
      expect(reportIds.length).toBeGreaterThan(0);

      const back = writeConfig(`back-${kind}`, { server: app.url, apiKey: ingestKey, spoolDir, devices });
      const second = startNetgraph(['collector', '--config', back], {});
      await until('the spool to empty', async () => spooled(spoolDir).length === 0);
      expect((await stop(second.child, second.result)).code).toBe(0);
      const receipts = await app.server.store.db.selectFrom('report_receipts').select('report_id').where('report_id', 'in', reportIds).execute();
      expect(receipts.map((r) => r.report_id).sort()).toEqual([...reportIds].sort());
    }, 60_000);
  });
});
