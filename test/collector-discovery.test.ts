import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { settled } from './helpers/changes.js';
import { runNetgraph, startNetgraph, stopNetgraph } from './helpers/cli.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { TEST_V3_USER, buildSweepNetwork, canBuildNetworks, startAgent } from './helpers/netns.js';
import type { SweepNetwork, TestAgent } from './helpers/netns.js';
import { createScopedKey } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// Discovery (docs/collector.md#discovery) against net-snmp's real agents in network namespaces:
// a /29 with two agents and silent addresses, swept by the CLI, stored by the server, adopted by
// mutation and then polled by a collector that has only its ingest key.
const AVAILABLE = canBuildNetworks();
if (!AVAILABLE && process.env.CI === 'true') throw new Error('CI must run the collector tests: they need root, iproute2, snmpd and snmpget (.ci/run installs them)');

const DEVICE_FIELDS = 'UUID address snmpVersion sysName sysDescr sysObjectID vendor model serialNumber state virtualDeviceUUID collectorName firstSeenAt lastSeenAt';
const LIST = `{ discoveredDevicesForCompany(companySlug: "acme") { ${DEVICE_FIELDS} } }`;
const ADOPT = `mutation ($i: AdoptDiscoveredDeviceInput!) { adoptDiscoveredDevice(input: $i) { discoveredDevice { UUID state virtualDeviceUUID } virtualDevice { UUID label deviceType networkUUID hardwareDevice { serialNumber } } target { host port snmpVersion intervalSeconds } } }`;
const IGNORE = 'mutation ($i: DiscoveredDeviceInput!) { ignoreDiscoveredDevice(input: $i) { discoveredDevice { UUID state } } }';

describe.skipIf(!AVAILABLE)('discovery: a collector sweeps a range for SNMP agents, netgraph stores them, an admin adopts one', () => {
  let network: SweepNetwork;
  let agents: TestAgent[];
  let dir: string;
  const file = (name: string, value: unknown) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, JSON.stringify(value), { mode: 0o600 });
    return at;
  };
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-discovery-'));
    network = buildSweepNetwork();
    agents = await Promise.all([
      ...network.devices.map((device, i) => startAgent(device, network.addresses[i] as string, [], `netgraph-disc-${i === 0 ? 'a' : 'b'}`)),
      // outside the /29, and SNMPv3 only: found only by a wider range with the v3 user's credentials
      startAgent(network.outsider.device, network.outsider.address, [], 'netgraph-disc-c', { communities: [] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all((agents ?? []).map((a) => a.stop()));
    network?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const discover = async (snmp: unknown, ...more: string[]) => {
    const result = await runNetgraph(['collector', 'discover', '--range', network.range, '--snmp', file(`snmp-${Math.random()}.json`, snmp), '--timeout', '300', ...more], {});
    return { ...result, json: result.code === 0 && more.includes('--json') ? (JSON.parse(result.stdout) as JsonTree) : null };
  };

  it('finds both agents of the /29 with their system group, vendor, model and serial, and counts the silent addresses', async () => {
    const { code, json, stderr } = await discover({ version: '2c', community: 'public' }, '--once', '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(json).toMatchObject({ ranges: [network.range], addresses: 6, noAnswer: 4, refused: [] });
    const found = (json?.found as JsonTree[]).sort((a, b) => String(a.address).localeCompare(String(b.address)));
    expect(found.map((f) => [f.address, f.sysName, f.vendor, f.model, f.snmpVersion])).toEqual([
      [network.addresses[0], 'netgraph-disc-a', 'Net-SNMP', 'Linux', '2c'],
      [network.addresses[1], 'netgraph-disc-b', 'Net-SNMP', 'Linux', '2c'],
    ]);
    expect(found[0]?.sysObjectID).toBe('1.3.6.1.4.1.8072.3.2.10');
    expect(found[0]?.sysDescr).toMatch(/^Linux /);
    // no ENTITY-MIB in stock snmpd: each namespace's first MAC address, its own
    expect(found.map((f) => f.serialNumber)).toEqual([expect.stringMatching(/^[0-9A-F]{12}$/), expect.stringMatching(/^[0-9A-F]{12}$/)]);
    expect(found[0]?.serialNumber).not.toBe(found[1]?.serialNumber);

    // SNMPv3 finds them too, with the first credentials that answer
    const v3 = await discover([{ version: '2c', community: 'nobody-here' }, { version: '3', ...TEST_V3_USER, authProtocol: 'sha256', privProtocol: 'aes' }], '--once', '--json');
    expect((v3.json?.found as JsonTree[]).map((f) => f.snmpVersion)).toEqual(['3', '3']);

    const table = await discover({ version: '2c', community: 'public' }, '--once');
    expect(table.stdout).toContain('netgraph-disc-a');
    expect(table.stdout).toContain(`swept 6 addresses of ${network.range}: 2 found, 4 did not answer, 0 refused the credentials`);
  }, 60_000);

  it('finds nothing with wrong credentials: a wrong community is no answer, wrong v3 keys are refusals', async () => {
    const community = await discover({ version: '2c', community: 'wrong-community' }, '--once', '--json');
    expect(community.json).toMatchObject({ addresses: 6, found: [], noAnswer: 6, refused: [] });
    const v3 = await discover({ version: '3', user: TEST_V3_USER.user, authKey: 'wrong-auth-password', privKey: TEST_V3_USER.privKey }, '--once', '--json');
    expect(v3.json).toMatchObject({ addresses: 6, found: [], noAnswer: 4 });
    expect((v3.json?.refused as JsonTree[]).map((r) => r.error)).toEqual([expect.stringMatching(/refused the SNMPv3 credentials/), expect.stringMatching(/refused the SNMPv3 credentials/)]);
    expect(v3.stdout).not.toContain('wrong-auth-password');
  }, 60_000);

  it('refuses a range larger than a /16, or with host bits set, before it sweeps', async () => {
    const wide = await runNetgraph(['collector', 'discover', '--range', '10.0.0.0/8', '--snmp', file('wide.json', { version: '2c', community: 'public' }), '--once'], {});
    expect(wide.code).not.toBe(0);
    expect(wide.stderr).toContain('--range: 10.0.0.0/8 holds 16,777,216 addresses: sweep at most a /16');
    const host = await runNetgraph(['collector', 'discover', '--range', '10.0.0.5/24', '--snmp', file('host.json', { version: '2c', community: 'public' }), '--once'], {});
    expect(host.stderr).toContain('its network is 10.0.0.0/24');
  });

  describe.each(storeKinds())('on %s', (kind) => {
    let app: TestApp;
    let writeKey: string;
    let readKey: string;
    let ingestKey: string;
    let keyFile: string;
    beforeAll(async () => {
      app = await startTestApp(kind, { data: createFixture() });
      writeKey = await createScopedKey(app, 'read_write');
      readKey = await app.createKey('acme');
      ingestKey = await createScopedKey(app, 'ingest');
      keyFile = path.join(dir, `${kind}.key`);
      fs.writeFileSync(keyFile, `${ingestKey}\n`, { mode: 0o600 });
    });
    afterAll(async () => {
      await app?.close();
    });
    const list = async () => ((await app.graphql(LIST, { key: readKey })).body.data.discoveredDevicesForCompany as JsonTree[]);
    const post = (key: string, body: unknown) =>
      app.request('/api/v1/collector/discovered', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it('stores what a sweep posts as NEW discovered devices of the key\'s company, and refuses a bad body whole', async () => {
      const { code, stdout } = await discover({ version: '2c', community: 'public' }, '--server', app.url, '--key-file', keyFile);
      expect(code).toBe(0);
      expect(stdout).toContain('posted to netgraph (2 new)');
      const devices = await list();
      expect(devices.map((d) => [d.address, d.sysName, d.vendor, d.model, d.state, d.virtualDeviceUUID])).toEqual([
        [network.addresses[0], 'netgraph-disc-a', 'Net-SNMP', 'Linux', 'NEW', null],
        [network.addresses[1], 'netgraph-disc-b', 'Net-SNMP', 'Linux', 'NEW', null],
      ]);
      // found again: the same rows, seen later
      const again = await discover({ version: '2c', community: 'public' }, '--server', app.url, '--key-file', keyFile);
      expect(again.stdout).toContain('(0 new)');
      const later = await list();
      expect(later.map((d) => d.UUID)).toEqual(devices.map((d) => d.UUID));
      expect(Date.parse(later[0]?.lastSeenAt as string)).toBeGreaterThanOrEqual(Date.parse(devices[0]?.lastSeenAt as string));
      expect(later[0]?.firstSeenAt).toBe(devices[0]?.firstSeenAt);

      const unknown = await post(ingestKey, { devices: [{ address: '192.0.2.9', snmpVersion: '2c', vendor: 'made up' }] });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(unknown.body)).toContain('devices[0].vendor: unknown field');
      const badAddress = await post(ingestKey, { devices: [{ address: '192.0.2.300', snmpVersion: '2c' }, { address: '192.0.2.9', snmpVersion: '1' }] });
      expect(JSON.stringify(badAddress.body)).toMatch(/devices\[0\]\.address: must be an IPv4 or IPv6 address.*devices\[1\]\.snmpVersion/);
      expect((await post(ingestKey, { devices: [] })).status).toBe(400);
      expect((await post(readKey, { devices: [{ address: '192.0.2.9', snmpVersion: '2c' }] })).status).toBe(403);
      expect((await post(writeKey, { devices: [{ address: '192.0.2.9', snmpVersion: '2c' }] })).status).toBe(403);
      expect(await list()).toHaveLength(2);
    }, 60_000);

    it('adopts one by mutation (hardware, virtual device, target, audited), ignores the other, and a collector with only its key then polls the adopted one', async () => {
      const [first, second] = await list();
      const adopted = await app.graphql(ADOPT, {
        key: writeKey,
        variables: { i: { discoveredDeviceUUID: first?.UUID, networkUUID: IDS.acmeHq, snmp: { version: '2c', community: 'public' }, intervalSeconds: 10 } },
      });
      expect(adopted.body.errors).toBeUndefined();
      const payload = adopted.body.data.adoptDiscoveredDevice as JsonTree;
      const deviceUuid = (payload.virtualDevice as JsonTree).UUID as string;
      expect(payload).toMatchObject({
        discoveredDevice: { UUID: first?.UUID, state: 'ADOPTED', virtualDeviceUUID: deviceUuid },
        virtualDevice: { label: 'netgraph-disc-a', deviceType: 'SWITCH', networkUUID: IDS.acmeHq, hardwareDevice: { serialNumber: first?.serialNumber } },
        target: { host: network.addresses[0], port: 161, snmpVersion: '2c', intervalSeconds: 10 },
      });
      const twice = await app.graphql(ADOPT, { key: writeKey, variables: { i: { discoveredDeviceUUID: first?.UUID, networkUUID: IDS.acmeHq, snmp: { version: '2c', community: 'public' } } } });
      expect(twice.body.errors[0].extensions.code).toBe('CONFLICT');
      const readOnly = await app.graphql(IGNORE, { key: readKey, variables: { i: { discoveredDeviceUUID: second?.UUID } } });
      expect(readOnly.body.errors[0].extensions.code).toBe('FORBIDDEN');
      const ignored = await app.graphql(IGNORE, { key: writeKey, variables: { i: { discoveredDeviceUUID: second?.UUID } } });
      expect(ignored.body.data.ignoreDiscoveredDevice.discoveredDevice).toEqual({ UUID: second?.UUID, state: 'IGNORED' });
      expect((await list()).map((d) => d.state)).toEqual(['ADOPTED', 'IGNORED']);

      const audit = await app.server.services.audit.list({ companySlug: 'acme' });
      expect(audit.filter((e) => e.action.startsWith('discovered_device.')).map((e) => [e.action, e.objectId])).toEqual([
        ['discovered_device.adopt', first?.UUID],
        ['discovered_device.ignore', second?.UUID],
      ]);
      expect(JSON.stringify(audit)).not.toContain('"public"');
      // the change feed gets the virtual device and the hardware it made
      await settled(app);
      const feed = await app.graphql('{ changes(limit: 100) { changes { objectType objectUUID kind } } }', { key: readKey });
      const kinds = (feed.body.data.changes.changes as JsonTree[]).map((c) => `${c.objectType} ${c.objectUUID} ${c.kind}`);
      expect(kinds).toEqual(expect.arrayContaining([`VirtualDevice ${deviceUuid} CREATED`, `HardwareDevice ${first?.serialNumber} CREATED`]));

      const { child, result } = startNetgraph(['collector', '--server', app.url, '--key-file', keyFile, '--spool', path.join(dir, `${kind}-spool`)], { LOG_LEVEL: 'info' });
      try {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const ports = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${deviceUuid}") { portNumber label } }`, { key: readKey });
          const labels = ((ports.body.data?.phyInterfacesForVirtualDevice as JsonTree[] | undefined) ?? []).map((p) => p.label);
          if (labels.includes('eth0')) break;
          if (Date.now() > deadline) throw new Error(`the adopted device's ports never arrived: ${JSON.stringify(ports.body)}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      } catch (error) {
        child.kill('SIGKILL');
        throw error;
      }
      const finished = await stopNetgraph(child, result);
      expect(finished.code).toBe(0);
    }, 90_000);

    it('sweeps the ranges of its configuration file when run as `netgraph collector --config`, and posts what it found with its key', async () => {
      const before = (await list()).map((d) => [d.address, d.lastSeenAt]);
      const config = file(`${kind}-collector.json`, {
        server: app.url,
        apiKey: ingestKey,
        spoolDir: path.join(dir, `${kind}-config-spool`),
        targets: false,
        discovery: { ranges: [network.range], snmp: [{ version: '2c', community: 'public' }], timeoutMs: 300, intervalSeconds: 60 },
      });
      const { child, result } = startNetgraph(['collector', '--config', config], { LOG_LEVEL: 'info' });
      let seen: JsonTree[] = [];
      try {
        const deadline = Date.now() + 60_000;
        // both agents found again by the file's sweep: each seen after it was last seen before
        while (!before.every(([address, at]) => seen.some((d) => d.address === address && Date.parse(d.lastSeenAt as string) > Date.parse(at as string)))) {
          if (Date.now() > deadline) throw new Error(`the configuration file's sweep never arrived: ${JSON.stringify(seen)}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
          seen = await list();
        }
      } catch (error) {
        child.kill('SIGKILL');
        throw error;
      }
      const finished = await stopNetgraph(child, result);
      expect(finished.code).toBe(0);
      // the sweep's own log line counts the /29: the two agents and the four silent addresses
      expect(finished.stderr).toMatch(/"ranges":\["[^"]+"\],"addresses":6,"found":2,"new":0,"noAnswer":4,"refused":0[^\n]*"msg":"discovery sweep"/);
      // it says what stopped it: the SIGTERM stopNetgraph sent
      expect(finished.stderr).toMatch(/"reason":"stopped by SIGTERM"[^\n]*"msg":"collector stopped"/);
      expect(seen.map((d) => [d.address, d.state, d.collectorName])).toEqual([
        [network.addresses[0], 'ADOPTED', 'ingest key'],
        [network.addresses[1], 'IGNORED', 'ingest key'],
      ]);
    }, 90_000);

    it('sweeps a range created through the API when run with only the server and its key: the agents appear as NEW discovered devices', async () => {
      // a fresh company state: nothing discovered yet
      const fresh = await startTestApp(kind, { data: createFixture() });
      const collectorKey = await fresh.server.services.apiKeys.create({ companySlug: 'acme', label: 'site-a collector', scope: 'ingest' });
      const created = await fresh.graphql('mutation ($i: CreateCollectorRangeInput!) { createCollectorRange(input: $i) { range { UUID range collectorKeyLabel } } }', {
        key: await createScopedKey(fresh, 'read_write'),
        variables: { i: { range: network.range, snmp: { version: '2c', community: 'public' }, ratePerSecond: 50, intervalSeconds: 60, collectorKeyUUID: collectorKey.id } },
      });
      expect(created.body.errors).toBeUndefined();
      const rangeId = created.body.data.createCollectorRange.range.UUID as string;
      const freshKeyFile = path.join(dir, `${kind}-range.key`);
      fs.writeFileSync(freshKeyFile, `${collectorKey.key}\n`, { mode: 0o600 });
      const freshRead = await fresh.createKey('acme');
      const discovered = async () => (await fresh.graphql(LIST, { key: freshRead })).body.data.discoveredDevicesForCompany as JsonTree[];
      expect(await discovered()).toEqual([]);
      const { child, result } = startNetgraph(['collector', '--server', fresh.url, '--key-file', freshKeyFile, '--spool', path.join(dir, `${kind}-range-spool`)], { LOG_LEVEL: 'info' });
      let seen: JsonTree[] = [];
      try {
        const deadline = Date.now() + 60_000;
        while (seen.length < 2) {
          if (Date.now() > deadline) throw new Error(`the range's sweep never arrived: ${JSON.stringify(seen)}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
          seen = await discovered();
        }
      } catch (error) {
        child.kill('SIGKILL');
        await fresh.close();
        throw error;
      }
      const finished = await stopNetgraph(child, result);
      await fresh.close();
      expect(finished.code).toBe(0);
      expect(seen.map((d) => [d.address, d.sysName, d.vendor, d.state, d.collectorName])).toEqual([
        [network.addresses[0], 'netgraph-disc-a', 'Net-SNMP', 'NEW', 'site-a collector'],
        [network.addresses[1], 'netgraph-disc-b', 'Net-SNMP', 'NEW', 'site-a collector'],
      ]);
      // the sweep's log line names the range it came from, and counts the /29
      expect(finished.stderr).toMatch(new RegExp(`"addresses":6,"found":2,"new":2,"noAnswer":4,"refused":0,[^\\n]*"rangeId":"${rangeId}"[^\\n]*"msg":"discovery sweep"`));
      expect(finished.stderr).not.toContain(collectorKey.key);
      expect(finished.stderr).not.toContain('"public"');
    }, 90_000);
    describe('overlapping ranges in netgraph, swept as one cycle', () => {
      // 198.18.N.0/27 with the community (first by range), 198.18.N.0/28 with the v3 user (second): the /28 holds
      // both /29 agents, which know the v3 user too, and the SNMPv3-only outsider at .9
      let fresh: TestApp;
      let collectorKey: { key: string; id: string };
      let freshRead: string;
      const ids = { wide: '', narrow: '' };
      const v3 = { version: '3', ...TEST_V3_USER, authProtocol: 'sha256', privProtocol: 'aes' };
      beforeAll(async () => {
        fresh = await startTestApp(kind, { data: createFixture() });
        collectorKey = await fresh.server.services.apiKeys.create({ companySlug: 'acme', label: 'overlap collector', scope: 'ingest' });
        freshRead = await fresh.createKey('acme');
        const writer = await createScopedKey(fresh, 'read_write');
        const create = async (range: string, snmp: unknown) => {
          const created = await fresh.graphql('mutation ($i: CreateCollectorRangeInput!) { createCollectorRange(input: $i) { range { UUID } } }', {
            key: writer,
            variables: { i: { range, snmp, ratePerSecond: 200, intervalSeconds: 60, collectorKeyUUID: collectorKey.id } },
          });
          expect(created.body.errors).toBeUndefined();
          return created.body.data.createCollectorRange.range.UUID as string;
        };
        ids.wide = await create(`${network.prefix}.0/27`, { version: '2c', community: 'public' });
        ids.narrow = await create(`${network.prefix}.0/28`, v3);
      });
      afterAll(async () => {
        await fresh?.close();
      });
      const discovered = async () => (await fresh.graphql(LIST, { key: freshRead })).body.data.discoveredDevicesForCompany as JsonTree[];

      it('`collector --once` sweeps the file\'s range and netgraph\'s once, probing each address once per credentials and each agent once, prints what it found and posts nothing', async () => {
        const config = file(`${kind}-once.json`, {
          server: fresh.url,
          apiKey: collectorKey.key,
          spoolDir: path.join(dir, `${kind}-once-spool`),
          discovery: { ranges: [network.range], snmp: [{ version: '2c', community: 'public' }], timeoutMs: 300 },
        });
        const once = await runNetgraph(['collector', '--config', config, '--once', '--json'], {});
        expect(once.stderr).toBe('');
        expect(once.code).toBe(0);
        const printed = JSON.parse(once.stdout) as { devices: JsonTree[]; discovery: JsonTree[] };
        expect(printed.devices).toEqual([]);
        const found = (sweep: JsonTree | undefined) => (sweep?.found as JsonTree[]).map((f) => [f.address, f.sysName, f.snmpVersion]).sort();
        expect(printed.discovery.map((d) => [d.rangeId, d.ranges, d.addresses, d.noAnswer, (d.refused as unknown[]).length, d.skipped])).toEqual([
          // the file's /29 first: its two agents found with the community, its four other addresses silent
          [null, [network.range], 6, 4, 0, 0],
          // the /27 with the same credentials tries none of the /29's addresses again
          [ids.wide, [`${network.prefix}.0/27`], 24, 24, 0, 6],
          // the /28 with other credentials leaves out the two agents found, and tries the silent addresses again with them
          [ids.narrow, [`${network.prefix}.0/28`], 12, 11, 0, 2],
        ]);
        expect(found(printed.discovery[0])).toEqual([
          [network.addresses[0], 'netgraph-disc-a', '2c'],
          [network.addresses[1], 'netgraph-disc-b', '2c'],
        ]);
        expect(found(printed.discovery[1])).toEqual([]);
        expect(found(printed.discovery[2])).toEqual([[network.outsider.address, 'netgraph-disc-c', '3']]);
        // printed, not posted: as --once prints polls' reports without sending them
        expect(await discovered()).toEqual([]);

        const text = await runNetgraph(['collector', '--config', config, '--once'], {});
        expect(text.code).toBe(0);
        expect(text.stdout).toContain(`swept 6 addresses of ${network.range} (the configuration file): 2 found, 4 did not answer, 0 refused the credentials\n`);
        expect(text.stdout).toContain(`swept 12 addresses of ${network.prefix}.0/28 (range ${ids.narrow}): 1 found, 11 did not answer, 0 refused the credentials, 2 left to an earlier range of the cycle`);
        expect(text.stdout).toMatch(new RegExp(`^${network.outsider.address.replace(/\./g, '\\.')}\\s+netgraph-disc-c\\s+Net-SNMP\\s+Linux\\s+[0-9A-F]{12}\\s+v3\\s`, 'm'));
        expect(text.stdout + text.stderr).not.toContain(TEST_V3_USER.authKey);
      }, 60_000);

      it('a running collector posts each agent once a cycle: the first range that finds it; an address silent to one range\'s credentials is found with the other\'s', async () => {
        const keyFile = path.join(dir, `${kind}-overlap.key`);
        fs.writeFileSync(keyFile, `${collectorKey.key}\n`, { mode: 0o600 });
        const { child, result } = startNetgraph(['collector', '--server', fresh.url, '--key-file', keyFile, '--spool', path.join(dir, `${kind}-overlap-spool`)], { LOG_LEVEL: 'info' });
        let seen: JsonTree[] = [];
        try {
          const deadline = Date.now() + 60_000;
          while (seen.length < 3) {
            if (Date.now() > deadline) throw new Error(`the overlapping ranges' sweeps never arrived: ${JSON.stringify(seen)}`);
            await new Promise((resolve) => setTimeout(resolve, 250));
            seen = await discovered();
          }
          // the second range's sweep line is logged once its post is answered: a moment after the server stored it
          await new Promise((resolve) => setTimeout(resolve, 500));
        } catch (error) {
          child.kill('SIGKILL');
          throw error;
        }
        const finished = await stopNetgraph(child, result);
        expect(finished.code).toBe(0);
        // the /29 agents keep the version the first range found them with: the v3 range neither probed nor posted them
        expect(seen.map((d) => [d.address, d.sysName, d.snmpVersion, d.state]).sort()).toEqual([
          [network.addresses[0], 'netgraph-disc-a', '2c', 'NEW'],
          [network.addresses[1], 'netgraph-disc-b', '2c', 'NEW'],
          [network.outsider.address, 'netgraph-disc-c', '3', 'NEW'],
        ].sort());
        const sweeps = finished.stderr.split('\n').filter((line) => line.includes('"msg":"discovery sweep"'));
        expect(sweeps).toHaveLength(2);
        expect(sweeps[0]).toMatch(new RegExp(`"addresses":30,"found":2,"new":2,"noAnswer":28,"refused":0,"skipped":0,[^\\n]*"rangeId":"${ids.wide}"`));
        expect(sweeps[1]).toMatch(new RegExp(`"addresses":12,"found":1,"new":1,"noAnswer":11,"refused":0,"skipped":2,[^\\n]*"rangeId":"${ids.narrow}"`));
        expect(finished.stderr).not.toContain(TEST_V3_USER.authKey);
      }, 90_000);
    });
  });
});
