import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { startNetgraph, stopNetgraph as stop } from './helpers/cli.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { TEST_V3_USER, buildTestNetwork, canBuildNetworks, linksOf, startAgent } from './helpers/netns.js';
import type { TestAgent, TestNetwork } from './helpers/netns.js';
import { createScopedKey } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// Targets configured in netgraph (docs/collector.md#targets-in-netgraph): made by mutation,
// fetched by a collector process that has only its ingest key, polled against net-snmp's real
// agent in a network namespace (test/helpers/netns.ts), their results in the API.
const AVAILABLE = canBuildNetworks();
if (!AVAILABLE && process.env.CI === 'true') throw new Error('CI must run the collector tests: they need root, iproute2, snmpd and snmpget (.ci/run installs them)');

const WRONG_KEY = 'wrong-auth-password-77';
const SECRETS = [TEST_V3_USER.authKey, TEST_V3_USER.privKey, WRONG_KEY, 'public'];
const TARGET_FIELDS = 'UUID companyUUID virtualDeviceUUID networkUUID host port snmpVersion snmpUser snmpLevel authProtocol privProtocol intervalSeconds uplinks uplinkProbes createdAt updatedAt';
const CREATE = `mutation ($i: CreateCollectorTargetInput!) { createCollectorTarget(input: $i) { target { ${TARGET_FIELDS} } } }`;
const SOURCE = (uuid: string) => `{ virtualDevice(UUID: "${uuid}") { UUID source { kind collectorName lastPollAt lastError pollDurationMs } } }`;

/** True when no secret of the test appears anywhere in the text. */
const holdsNoSecret = (text: string) => SECRETS.filter((secret) => text.includes(secret));

describe.skipIf(!AVAILABLE)('collector targets configured in netgraph, polled by a collector with only its key', () => {
  let network: TestNetwork;
  let agent: TestAgent;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-targets-'));
    network = buildTestNetwork();
    agent = await startAgent(network.device, network.deviceAddress);
  });
  afterAll(async () => {
    await agent?.stop();
    network?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe.each(storeKinds())('on %s', (kind) => {
    let app: TestApp;
    let writeKey: string;
    let readKey: string;
    let ingestKey: string;
    let otherIngestKey: string;
    beforeAll(async () => {
      app = await startTestApp(kind, { data: createFixture() });
      writeKey = await createScopedKey(app, 'read_write');
      readKey = await app.createKey('acme');
      ingestKey = await createScopedKey(app, 'ingest');
      otherIngestKey = await createScopedKey(app, 'ingest', 'globex');
    });
    afterAll(async () => {
      await app?.close();
    });
    const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const fetchTargets = (key: string) => app.request('/api/v1/collector/targets', { headers: { authorization: `Bearer ${key}` } });
    const v3 = (authKey: string) => ({ version: '3', user: TEST_V3_USER.user, authProtocol: 'sha256', authKey, privProtocol: 'aes', privKey: TEST_V3_USER.privKey });

    it('stores targets made by mutation without ever answering their credentials, and hands them to that company\'s collector key only', async () => {
      const lan = network.lanInterface;
      const good = await app.graphql(CREATE, {
        key: writeKey,
        variables: { i: { virtualDeviceUUID: IDS.acmeSwitch, host: network.deviceAddress, snmp: v3(TEST_V3_USER.authKey), intervalSeconds: 10, uplinks: [lan], uplinkProbes: [`${lan}=127.0.0.1:9`] } },
      });
      expect(good.body.errors).toBeUndefined();
      expect(good.body.data.createCollectorTarget.target).toMatchObject({
        virtualDeviceUUID: IDS.acmeSwitch, networkUUID: IDS.acmeHq, host: network.deviceAddress, port: 161, snmpVersion: '3', snmpUser: TEST_V3_USER.user,
        snmpLevel: 'authPriv', authProtocol: 'sha256', privProtocol: 'aes', intervalSeconds: 10, uplinks: [lan], uplinkProbes: [`${lan}=127.0.0.1:9`],
      });
      const wrong = await app.graphql(CREATE, { key: writeKey, variables: { i: { virtualDeviceUUID: IDS.acmeAp, host: network.deviceAddress, snmp: v3(WRONG_KEY), intervalSeconds: 10 } } });
      expect(wrong.body.errors).toBeUndefined();

      // refusals name the field and never repeat a credential
      const bad = await app.graphql(CREATE, { key: writeKey, variables: { i: { virtualDeviceUUID: IDS.acmeLabAp, host: network.deviceAddress, snmp: { version: '3', user: 'u', authKey: 'short', privKey: 'another-secret-x' } } } });
      expect(bad.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.snmp.authKey' } });
      expect(JSON.stringify(bad.body)).not.toContain('another-secret-x');
      // another company's device answers like a missing one
      const foreign = await app.graphql(CREATE, { key: writeKey, variables: { i: { virtualDeviceUUID: IDS.globexAp, host: network.deviceAddress, snmp: { version: '2c', community: 'public' } } } });
      expect(foreign.body.errors[0].extensions.code).toBe('UNAUTHORIZED');

      const listed = await app.graphql(`{ collectorTargetsForCompany(companyUUID: "${good.body.data.createCollectorTarget.target.companyUUID}") { ${TARGET_FIELDS} } }`, { key: readKey });
      expect(listed.body.data.collectorTargetsForCompany).toHaveLength(2);
      for (const answer of [good, wrong, bad, listed]) expect(holdsNoSecret(JSON.stringify(answer.body))).toEqual([]);

      // the collector's key gets them with credentials; another company's key gets none; a read key is refused
      const mine = await fetchTargets(ingestKey);
      expect(mine.status).toBe(200);
      expect(mine.headers.get('cache-control')).toBe('no-store');
      const devices = (mine.body as { devices: JsonTree[] }).devices;
      expect(devices.map((d) => d.serialNumber).sort()).toEqual([SERIALS.acmeAp, SERIALS.acmeSwitch].sort());
      expect(devices.find((d) => d.serialNumber === SERIALS.acmeSwitch)?.snmp).toEqual({ ...v3(TEST_V3_USER.authKey), level: 'authPriv' });
      expect(((await fetchTargets(otherIngestKey)).body as { devices: unknown[] }).devices).toEqual([]);
      expect((await fetchTargets(readKey)).status).toBe(403);
      expect((await fetchTargets(writeKey)).status).toBe(403);
      expect((await app.request('/api/v1/collector/targets')).status).toBe(401);
    });

    it('polls them from a collector started with only the server and its key: ports reach the API, a wrong v3 password is the device\'s last error', async () => {
      const keyFile = path.join(dir, `${kind}.key`);
      fs.writeFileSync(keyFile, `${ingestKey}\n`, { mode: 0o600 });
      const { child, result } = startNetgraph(['collector', '--server', app.url, '--key-file', keyFile, '--spool', path.join(dir, `${kind}-spool`)], { LOG_LEVEL: 'info' });
      const lan = linksOf(network.device).find((l) => l.ifname === network.lanInterface);
      const source = async (uuid: string) => (await app.graphql(SOURCE(uuid), { key: readKey })).body.data?.virtualDevice?.source as JsonTree | null;
      try {
        await until('the switch\'s ports', async () => {
          const response = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { portNumber label isUplink } }`, { key: readKey });
          return (response.body.data?.phyInterfacesForVirtualDevice as JsonTree[] | undefined ?? []).some((p) => p.portNumber === lan?.ifindex && p.isUplink === true);
        });
        await until('the failed poll', async () => (await source(IDS.acmeAp)) !== null);
      } catch (error) {
        child.kill('SIGKILL');
        throw error;
      }
      const finished = await stop(child, result);
      expect(finished.code).toBe(0);
      const switchSource = await source(IDS.acmeSwitch);
      expect(switchSource).toMatchObject({ kind: 'COLLECTOR', collectorName: 'ingest key', lastError: null });
      expect(switchSource?.pollDurationMs).toBeGreaterThan(0);
      expect(Date.parse(switchSource?.lastPollAt as string)).toBeGreaterThan(Date.now() - 120_000);
      const apSource = await source(IDS.acmeAp);
      expect(apSource).toMatchObject({ kind: 'COLLECTOR', collectorName: 'ingest key', lastError: expect.stringMatching(/refused the SNMPv3 credentials/) });
      // a device whose polls fail is not seen: it stays as it was imported, no ports
      const ap = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeAp}") { portNumber } }`, { key: readKey });
      expect(ap.body.data.phyInterfacesForVirtualDevice).toEqual([]);
      // no credential in the collector's log lines, nor in the audit log
      expect(finished.stderr).toContain('"msg":"polled"');
      expect(holdsNoSecret(finished.stderr + finished.stdout)).toEqual([]);
      expect(finished.stderr).not.toContain(ingestKey);
      const audit = await app.server.services.audit.list({ companySlug: 'acme' });
      expect(audit.filter((e) => e.action === 'collector_target.create')).toHaveLength(2);
      expect(holdsNoSecret(JSON.stringify(audit))).toEqual([]);
      // nor at rest in the clear
      const rows = await app.server.store.db.selectFrom('collector_targets').selectAll().execute();
      expect(holdsNoSecret(JSON.stringify(rows))).toEqual([]);
    }, 90_000);

    it('deletes a target with an audit entry; its collector key then gets it no more', async () => {
      const listed = await fetchTargets(ingestKey);
      const target = (listed.body as { devices: JsonTree[] }).devices.find((d) => d.serialNumber === SERIALS.acmeAp) as JsonTree;
      const deleted = await app.graphql('mutation ($i: CollectorTargetInput!) { deleteCollectorTarget(input: $i) { deletedTargetUUID } }', { key: writeKey, variables: { i: { targetUUID: target.targetUUID } } });
      expect(deleted.body.data.deleteCollectorTarget.deletedTargetUUID).toBe(target.targetUUID);
      expect(((await fetchTargets(ingestKey)).body as { devices: JsonTree[] }).devices.map((d) => d.serialNumber)).toEqual([SERIALS.acmeSwitch]);
      const again = await app.graphql('mutation ($i: CollectorTargetInput!) { deleteCollectorTarget(input: $i) { deletedTargetUUID } }', { key: writeKey, variables: { i: { targetUUID: target.targetUUID } } });
      expect(again.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
      const audit = await app.server.services.audit.list({ companySlug: 'acme' });
      expect(audit.filter((e) => e.action === 'collector_target.delete').map((e) => e.objectId)).toEqual([target.targetUUID]);
    });
  });
});
