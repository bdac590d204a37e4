import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp, TestResponse } from './helpers/app.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { auditOf, createWriteKey, errorOf } from './helpers/writes.js';

// Issue 32: a network's security configuration and spare hardware, written through mutations and read over HTTP (docs/security.md).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ENTRY = 'UUID macAddress createdAt networkUUID reason';
const RULE = 'UUID name description action isEnabled srcPrefix dstPrefix priority networkUUID';
const PAIR = 'UUID networkUUID leftVLAN { vlanID } rightVLAN { vlanID }';
const SPARE = 'serialNumber deviceType deviceModel isConnectedToBackend macAddress networkUUID';

describe.each(storeKinds())('a network’s security configuration on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let readOnlyKey: string;
  let globexKey: string;
  const send = (query: string, variables?: unknown, as = key): Promise<TestResponse> => app.graphql(query, { key: as, variables });
  const ok = async (query: string, variables?: unknown, as = key) => {
    const res = await send(query, variables, as);
    expect(res.status, res.text).toBe(200);
    expect(res.body.errors, res.text).toBeUndefined();
    return res.body.data;
  };
  /** A read of another company's (or a missing) network: null with UNAUTHORIZED at the field, nothing else. */
  const refusedRead = async (query: string, field: string, as = globexKey) => {
    const res = await send(query, undefined, as);
    expect(res.body.data).toEqual({ [field]: null });
    expect(res.body.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code])).toEqual([[[field], 'UNAUTHORIZED']]);
  };
  /** A mutation refused: [path, code, field], and the audit log unchanged. */
  const refusedWrite = async (query: string, variables?: unknown, as = key) => {
    const before = (await auditOf(app)).length;
    const res = await send(query, variables, as);
    expect((await auditOf(app)).length).toBe(before);
    return errorOf(res);
  };
  const lastEntries = async (count: number) => (await auditOf(app)).slice(-count);

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    key = await createWriteKey(app);
    readOnlyKey = await app.createKey('acme');
    globexKey = await createWriteKey(app, 'globex', 'globex-writer');
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('blocked clients', () => {
    const list = (network: string = IDS.acmeHq) => `{ blockedClientsForNetwork(networkUUID: "${network}") { ${ENTRY} } }`;

    it('blockClient adds a MAC address, listed by MAC address with the time of the write and an audit entry', async () => {
      expect((await ok(list())).blockedClientsForNetwork).toEqual([]);
      const start = Date.now();
      const first = await ok(`mutation { blockClient(input: { networkUUID: "${IDS.acmeHq}", macAddress: "aa:bb:cc:00:00:02", reason: "stolen laptop" }) { blockedClient { ${ENTRY} } } }`);
      const second = await ok(
        'mutation ($i: BlockClientInput!) { blockClient(input: $i) { blockedClient { UUID macAddress reason } } }',
        { i: { networkUUID: IDS.acmeHq, macAddress: '0c:8d:db:12:34:56' } },
      );
      const entry = first.blockClient.blockedClient;
      expect(entry).toEqual({ UUID: expect.stringMatching(UUID), macAddress: 'aa:bb:cc:00:00:02', createdAt: expect.any(String), networkUUID: IDS.acmeHq, reason: 'stolen laptop' });
      expect(Date.parse(entry.createdAt)).toBeGreaterThanOrEqual(start - 1);
      expect(Date.parse(entry.createdAt)).toBeLessThanOrEqual(Date.now());
      expect(second.blockClient.blockedClient).toEqual({ UUID: expect.stringMatching(UUID), macAddress: '0c:8d:db:12:34:56', reason: null });
      const listed = (await ok(list())).blockedClientsForNetwork;
      expect(listed).toEqual([{ ...second.blockClient.blockedClient, createdAt: expect.any(String), networkUUID: IDS.acmeHq }, entry]);
      // another network of the company blocks nothing
      expect((await ok(list(IDS.acmeLab))).blockedClientsForNetwork).toEqual([]);
      const [blocked] = await lastEntries(2);
      expect(blocked).toMatchObject({ action: 'blocked_client.block', objectId: entry.UUID, before: null, after: { macAddress: 'aa:bb:cc:00:00:02', reason: 'stolen laptop', createdAt: entry.createdAt } });
    });

    it('refuses a MAC address blocked already, another company’s network, a bad reason and a read-only key', async () => {
      const block = (network: string, mac: string, reason = 'null') => `mutation { blockClient(input: { networkUUID: "${network}", macAddress: "${mac}", reason: ${reason} }) { blockedClient { UUID } } }`;
      expect(await refusedWrite(block(IDS.acmeHq, 'aa:bb:cc:00:00:02'))).toEqual([['blockClient'], 'CONFLICT', 'input.macAddress']);
      expect(await refusedWrite(block(IDS.acmeHq, 'aa:bb:cc:00:00:09', '"  "'))).toEqual([['blockClient'], 'BAD_USER_INPUT', 'input.reason']);
      expect(await refusedWrite(block(IDS.globexHq, 'aa:bb:cc:00:00:09'))).toEqual([['blockClient'], 'UNAUTHORIZED', 'input.networkUUID']);
      expect(await refusedWrite(block(IDS.acmeHq, 'aa:bb:cc:00:00:09'), undefined, globexKey)).toEqual([['blockClient'], 'UNAUTHORIZED', 'input.networkUUID']);
      expect((await refusedWrite(block(IDS.acmeHq, 'aa:bb:cc:00:00:09'), undefined, readOnlyKey))[1]).toBe('FORBIDDEN');
      // the MacAddress scalar refuses upper case before the resolver runs
      expect((await refusedWrite(block(IDS.acmeHq, 'AA:BB:CC:00:00:09')))[1]).toBe('BAD_USER_INPUT');
    });

    it('answers another company’s network like a missing one', async () => {
      await refusedRead(list(), 'blockedClientsForNetwork');
      await refusedRead(list('99999999-9999-4999-8999-999999999999'), 'blockedClientsForNetwork', key);
      expect((await ok(list(IDS.globexHq), undefined, globexKey)).blockedClientsForNetwork).toEqual([]);
    });

    it('unblockClient removes the entry; a MAC address not blocked there is UNAUTHORIZED like a foreign one', async () => {
      const unblock = (mac: string) => `mutation { unblockClient(input: { networkUUID: "${IDS.acmeHq}", macAddress: "${mac}" }) { unblockedClientUUID } }`;
      const [kept, removed] = (await ok(list())).blockedClientsForNetwork;
      expect((await ok(unblock('aa:bb:cc:00:00:02'))).unblockClient).toEqual({ unblockedClientUUID: removed.UUID });
      expect((await ok(list())).blockedClientsForNetwork).toEqual([kept]);
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'blocked_client.unblock', objectId: removed.UUID, after: null });
      expect(await refusedWrite(unblock('aa:bb:cc:00:00:02'))).toEqual([['unblockClient'], 'UNAUTHORIZED', 'input.macAddress']);
      expect(await refusedWrite(unblock('0c:8d:db:12:34:56'), undefined, globexKey)).toEqual([['unblockClient'], 'UNAUTHORIZED', 'input.networkUUID']);
    });
  });

  describe('firewall rules', () => {
    const list = (network: string = IDS.acmeHq) => `{ firewallRulesForNetwork(networkUUID: "${network}") { ${RULE} } }`;
    const create = (fields: string) => `mutation { createFirewallRule(input: { networkUUID: "${IDS.acmeHq}", ${fields} }) { firewallRule { ${RULE} } } }`;
    let rules: Record<string, { UUID: string }> = {};

    it('createFirewallRule: a rule without a priority goes last, prefixes are stored canonical, the list is by priority', async () => {
      const first = (await ok(create('name: "Block guests", action: DENY, srcPrefix: "10.0.20.0/24", dstPrefix: "10.0.10.0/24"'))).createFirewallRule.firewallRule;
      expect(first).toEqual({
        UUID: expect.stringMatching(UUID),
        name: 'Block guests',
        description: null,
        action: 'DENY',
        isEnabled: true,
        srcPrefix: '10.0.20.0/24',
        dstPrefix: '10.0.10.0/24',
        priority: 1,
        networkUUID: IDS.acmeHq,
      });
      const second = (
        await ok('mutation ($i: CreateFirewallRuleInput!) { createFirewallRule(input: $i) { firewallRule { UUID action priority srcPrefix dstPrefix isEnabled description } } }', {
          i: { networkUUID: IDS.acmeHq, name: 'v6 out', action: 'PERMIT', srcPrefix: '2001:DB8:0:0::/32', priority: 10, isEnabled: false, description: 'IPv6 egress' },
        })
      ).createFirewallRule.firewallRule;
      expect(second).toEqual({ UUID: expect.stringMatching(UUID), action: 'PERMIT', priority: 10, srcPrefix: '2001:db8::/32', dstPrefix: null, isEnabled: false, description: 'IPv6 egress' });
      const third = (await ok(create('name: "Default", action: PERMIT'))).createFirewallRule.firewallRule;
      expect(third).toMatchObject({ priority: 11, srcPrefix: null, dstPrefix: null });
      const listed = (await ok(list())).firewallRulesForNetwork;
      expect(listed.map((r: { name: string; priority: number }) => [r.name, r.priority])).toEqual([
        ['Block guests', 1],
        ['v6 out', 10],
        ['Default', 11],
      ]);
      expect(listed[0]).toEqual(first);
      expect((await ok(list(IDS.acmeLab))).firewallRulesForNetwork).toEqual([]);
      rules = { first, second, third };
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'firewall_rule.create', objectId: third.UUID, before: null, after: { name: 'Default', priority: 11 } });
    });

    it.each([
      ['a priority in use', 'name: "X", action: DENY, priority: 10', 'CONFLICT', 'input.priority'],
      ['priority 0', 'name: "X", action: DENY, priority: 0', 'BAD_USER_INPUT', 'input.priority'],
      ['priority past 1000000', 'name: "X", action: DENY, priority: 1000001', 'BAD_USER_INPUT', 'input.priority'],
      ['host bits set', 'name: "X", action: DENY, srcPrefix: "10.0.0.1/8"', 'BAD_USER_INPUT', 'input.srcPrefix'],
      ['an address without length', 'name: "X", action: DENY, srcPrefix: "10.0.0.0"', 'BAD_USER_INPUT', 'input.srcPrefix'],
      ['a word for any', 'name: "X", action: DENY, dstPrefix: "any"', 'BAD_USER_INPUT', 'input.dstPrefix'],
      ['an IPv6 length past 128', 'name: "X", action: DENY, dstPrefix: "2001:db8::/129"', 'BAD_USER_INPUT', 'input.dstPrefix'],
      ['a blank name', 'name: " ", action: DENY', 'BAD_USER_INPUT', 'input.name'],
    ])('createFirewallRule refuses %s, naming the field', async (_name, fields, code, field) => {
      expect(await refusedWrite(create(fields))).toEqual([['createFirewallRule'], code, field]);
    });

    it('refuses an action outside the enum, as a literal and as a variable', async () => {
      const literal = await send(create('name: "X", action: ALLOW'));
      expect(literal.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      const variable = await send('mutation ($a: FirewallRuleAction!) { createFirewallRule(input: { networkUUID: "' + IDS.acmeHq + '", name: "X", action: $a }) { firewallRule { UUID } } }', { a: 'ALLOW' });
      expect(variable.body.data ?? null).toBeNull();
      expect(variable.body.errors[0].message).toContain('ALLOW');
      expect((await ok(list())).firewallRulesForNetwork).toHaveLength(3);
    });

    it('updateFirewallRule and setFirewallRuleEnabled change the given fields and reorder by priority', async () => {
      const update = (uuid: string, fields: string) => `mutation { updateFirewallRule(input: { firewallRuleUUID: "${uuid}", ${fields} }) { firewallRule { ${RULE} } } }`;
      const moved = (await ok(update(rules.third!.UUID, 'priority: 5, description: "catch-all", dstPrefix: "::/0"'))).updateFirewallRule.firewallRule;
      expect(moved).toMatchObject({ name: 'Default', priority: 5, description: 'catch-all', dstPrefix: '::/0', action: 'PERMIT' });
      const cleared = (await ok(update(rules.second!.UUID, 'description: null, action: DENY'))).updateFirewallRule.firewallRule;
      expect(cleared).toMatchObject({ description: null, action: 'DENY', srcPrefix: '2001:db8::/32', priority: 10, isEnabled: false });
      const enabled = await ok(`mutation { setFirewallRuleEnabled(input: { firewallRuleUUID: "${rules.second!.UUID}", isEnabled: true }) { firewallRule { UUID isEnabled } } }`);
      expect(enabled.setFirewallRuleEnabled.firewallRule).toEqual({ UUID: rules.second!.UUID, isEnabled: true });
      const listed = (await ok(list())).firewallRulesForNetwork;
      expect(listed.map((r: { name: string; priority: number; isEnabled: boolean }) => [r.name, r.priority, r.isEnabled])).toEqual([
        ['Block guests', 1, true],
        ['Default', 5, true],
        ['v6 out', 10, true],
      ]);
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'firewall_rule.update', before: { isEnabled: false }, after: { isEnabled: true } });
      expect(await refusedWrite(update(rules.third!.UUID, 'priority: 1'))).toEqual([['updateFirewallRule'], 'CONFLICT', 'input.priority']);
      expect(await refusedWrite(update(rules.third!.UUID, 'srcPrefix: "fe80::1/10"'))).toEqual([['updateFirewallRule'], 'BAD_USER_INPUT', 'input.srcPrefix']);
      expect(await refusedWrite(`mutation { updateFirewallRule(input: { firewallRuleUUID: "${rules.third!.UUID}" }) { firewallRule { UUID } } }`)).toEqual([
        ['updateFirewallRule'],
        'BAD_USER_INPUT',
        'input',
      ]);
      expect(await refusedWrite(update(rules.third!.UUID, 'name: "Mine"'), undefined, globexKey)).toEqual([['updateFirewallRule'], 'UNAUTHORIZED', 'input.firewallRuleUUID']);
    });

    it('answers another company’s network like a missing one, and deleteFirewallRule removes a rule', async () => {
      await refusedRead(list(), 'firewallRulesForNetwork');
      const del = (uuid: string) => `mutation { deleteFirewallRule(input: { firewallRuleUUID: "${uuid}" }) { deletedFirewallRuleUUID } }`;
      expect(await refusedWrite(del(rules.first!.UUID), undefined, globexKey)).toEqual([['deleteFirewallRule'], 'UNAUTHORIZED', 'input.firewallRuleUUID']);
      expect((await ok(del(rules.first!.UUID))).deleteFirewallRule).toEqual({ deletedFirewallRuleUUID: rules.first!.UUID });
      expect((await ok(list())).firewallRulesForNetwork.map((r: { priority: number }) => r.priority)).toEqual([5, 10]);
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'firewall_rule.delete', objectId: rules.first!.UUID, after: null });
      // the freed priority is free again
      expect((await ok(create('name: "Again", action: DENY, priority: 1'))).createFirewallRule.firewallRule.priority).toBe(1);
    });
  });

  describe('inter-VLAN communication', () => {
    const list = (network: string = IDS.acmeHq) => `{ interVLANCommunicationPermittedPairs(networkUUID: "${network}") { ${PAIR} } }`;
    const pairInput = (left: string, right: string) => `input: { leftVLANUUID: "${left}", rightVLANUUID: "${right}" }`;
    const permit = (left: string, right: string) => `mutation { permitInterVLANCommunication(${pairInput(left, right)}) { pair { ${PAIR} } } }`;
    const forbid = (left: string, right: string) => `mutation { forbidInterVLANCommunication(${pairInput(left, right)}) { forbiddenPairUUID } }`;
    let vlan: Record<number, string> = {};

    beforeAll(async () => {
      const vlans = (await ok(`{ vlans(networkUUID: "${IDS.acmeHq}") { UUID vlanID } }`)).vlans as { UUID: string; vlanID: number }[];
      vlan = Object.fromEntries(vlans.map((v) => [v.vlanID, v.UUID]));
      expect(Object.keys(vlan)).toEqual(['5', '10', '20']);
    });

    it('permits unordered pairs, listed with the smaller vlanID left, by left then right', async () => {
      expect((await ok(list())).interVLANCommunicationPermittedPairs).toEqual([]);
      const a = (await ok(permit(vlan[20]!, vlan[10]!))).permitInterVLANCommunication.pair;
      expect(a).toEqual({ UUID: expect.stringMatching(UUID), networkUUID: IDS.acmeHq, leftVLAN: { vlanID: 10 }, rightVLAN: { vlanID: 20 } });
      const b = (await ok(permit(vlan[5]!, vlan[20]!))).permitInterVLANCommunication.pair;
      expect((await ok(list())).interVLANCommunicationPermittedPairs).toEqual([b, a]);
      expect((await lastEntries(1))[0]).toMatchObject({
        action: 'inter_vlan_pair.permit',
        objectId: b.UUID,
        before: null,
        after: { networkUUID: IDS.acmeHq, leftVLANUUID: vlan[5], rightVLANUUID: vlan[20] },
      });
      // the same pair in the other order: the same pair, nothing recorded
      const entries = (await auditOf(app)).length;
      expect((await ok(permit(vlan[10]!, vlan[20]!))).permitInterVLANCommunication.pair).toEqual(a);
      expect((await auditOf(app)).length).toBe(entries);
      expect((await ok(list())).interVLANCommunicationPermittedPairs).toHaveLength(2);
    });

    it('refuses one VLAN twice, VLANs of two networks, and another company’s VLAN', async () => {
      const lab = (await ok(`mutation { createVLAN(input: { networkUUID: "${IDS.acmeLab}", name: "Lab", vlanID: 30 }) { vlan { UUID } } }`)).createVLAN.vlan.UUID;
      const globexVlan = (await ok(`{ vlans(networkUUID: "${IDS.globexHq}") { UUID } }`, undefined, globexKey)).vlans[0].UUID;
      expect(await refusedWrite(permit(vlan[5]!, vlan[5]!))).toEqual([['permitInterVLANCommunication'], 'BAD_USER_INPUT', 'input.rightVLANUUID']);
      expect(await refusedWrite(permit(vlan[5]!, lab))).toEqual([['permitInterVLANCommunication'], 'BAD_USER_INPUT', 'input.rightVLANUUID']);
      expect(await refusedWrite(permit(vlan[5]!, globexVlan))).toEqual([['permitInterVLANCommunication'], 'UNAUTHORIZED', 'input.rightVLANUUID']);
      expect(await refusedWrite(permit(globexVlan, vlan[5]!))).toEqual([['permitInterVLANCommunication'], 'UNAUTHORIZED', 'input.leftVLANUUID']);
      expect(await refusedWrite(forbid(vlan[5]!, vlan[20]!), undefined, globexKey)).toEqual([['forbidInterVLANCommunication'], 'UNAUTHORIZED', 'input.leftVLANUUID']);
      await refusedRead(list(), 'interVLANCommunicationPermittedPairs');
      expect((await ok(list(IDS.globexHq), undefined, globexKey)).interVLANCommunicationPermittedPairs).toEqual([]);
    });

    it('forbids a pair in either order; deleting a VLAN removes its pairs', async () => {
      const [withFive, tenTwenty] = (await ok(list())).interVLANCommunicationPermittedPairs;
      expect((await ok(forbid(vlan[20]!, vlan[10]!))).forbidInterVLANCommunication).toEqual({ forbiddenPairUUID: tenTwenty.UUID });
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'inter_vlan_pair.forbid', objectId: tenTwenty.UUID, after: null });
      expect((await ok(forbid(vlan[10]!, vlan[20]!))).forbidInterVLANCommunication).toEqual({ forbiddenPairUUID: null });
      expect((await ok(list())).interVLANCommunicationPermittedPairs).toEqual([withFive]);
      await ok(`mutation { deleteVLAN(input: { vlanUUID: "${vlan[5]}" }) { deletedVLANUUID } }`);
      expect((await ok(list())).interVLANCommunicationPermittedPairs).toEqual([]);
    });
  });

  describe('IDS/IPS', () => {
    const config = (network: string = IDS.acmeHq) => `{ network(UUID: "${network}") { idsIPSConfig { UUID networkUUID mode } } }`;

    it('a network never configured answers null; setIDSIPSConfig sets the mode and keeps the UUID', async () => {
      expect((await ok(config())).network).toEqual({ idsIPSConfig: null });
      const set = (await ok(`mutation { setIDSIPSConfig(input: { networkUUID: "${IDS.acmeHq}", mode: IDS }) { idsIPSConfig { UUID networkUUID mode } } }`)).setIDSIPSConfig;
      expect(set.idsIPSConfig).toEqual({ UUID: expect.stringMatching(UUID), networkUUID: IDS.acmeHq, mode: 'IDS' });
      const changed = await ok('mutation ($m: IDSIPSMode!) { setIDSIPSConfig(input: { networkUUID: "' + IDS.acmeHq + '", mode: $m }) { idsIPSConfig { UUID mode } } }', { m: 'IPS' });
      expect(changed.setIDSIPSConfig.idsIPSConfig).toEqual({ UUID: set.idsIPSConfig.UUID, mode: 'IPS' });
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'ids_ips_config.set', objectId: set.idsIPSConfig.UUID, before: { mode: 'IDS' }, after: { mode: 'IPS' } });
      const networks = (await ok('{ networksForCompany(companySlug: "acme") { UUID idsIPSConfig { mode } } }')).networksForCompany as { UUID: string; idsIPSConfig: unknown }[];
      expect(networks.map((n) => [n.UUID, n.idsIPSConfig]).sort()).toEqual(
        [
          [IDS.acmeHq, { mode: 'IPS' }],
          [IDS.acmeLab, null],
          [IDS.acmeEmpty, null],
        ].sort(),
      );
      // the same mode again records nothing
      const entries = (await auditOf(app)).length;
      await ok(`mutation { setIDSIPSConfig(input: { networkUUID: "${IDS.acmeHq}", mode: IPS }) { idsIPSConfig { UUID } } }`);
      expect((await auditOf(app)).length).toBe(entries);
    });

    it('refuses another company’s network and a mode outside the enum', async () => {
      const set = (network: string, mode: string) => `mutation { setIDSIPSConfig(input: { networkUUID: "${network}", mode: ${mode} }) { idsIPSConfig { UUID } } }`;
      expect(await refusedWrite(set(IDS.acmeHq, 'IDS'), undefined, globexKey)).toEqual([['setIDSIPSConfig'], 'UNAUTHORIZED', 'input.networkUUID']);
      expect((await send(set(IDS.acmeHq, 'DETECT'))).body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      await refusedRead(config(), 'network');
      expect((await ok(config(IDS.globexHq), undefined, globexKey)).network).toEqual({ idsIPSConfig: null });
    });

    it('deleteIDSIPSConfig makes it null again; deleting none answers null', async () => {
      const { UUID: uuid } = (await ok(config())).network.idsIPSConfig;
      const del = `mutation { deleteIDSIPSConfig(input: { networkUUID: "${IDS.acmeHq}" }) { deletedIDSIPSConfigUUID } }`;
      expect((await ok(del)).deleteIDSIPSConfig).toEqual({ deletedIDSIPSConfigUUID: uuid });
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'ids_ips_config.delete', objectId: uuid, after: null });
      expect((await ok(config())).network).toEqual({ idsIPSConfig: null });
      expect((await ok(del)).deleteIDSIPSConfig).toEqual({ deletedIDSIPSConfigUUID: null });
    });
  });

  describe('spare hardware at a network', () => {
    const list = (network: string, filter = '') => `{ spareHardwareDevicesForNetwork(networkUUID: "${network}"${filter}) { ${SPARE} } }`;
    const spare = (serialNumber: string, deviceType: string, deviceModel: string, networkUUID: string | null) => ({
      serialNumber,
      deviceType,
      deviceModel,
      isConnectedToBackend: false,
      macAddress: null,
      networkUUID,
    });
    const place = (serial: string, network: string) =>
      `mutation { placeSpareHardwareDevice(input: { serialNumber: "${serial}", networkUUID: ${network} }) { hardwareDevice { serialNumber networkUUID virtualDeviceUUID } } }`;

    it('lists what registerHardwareDevice and placeSpareHardwareDevice place at the network, by serial number', async () => {
      expect((await ok(list(IDS.acmeHq))).spareHardwareDevicesForNetwork).toEqual([]);
      await ok(`mutation { registerHardwareDevice(input: { serialNumber: "NEW-AP-0002", deviceType: ACCESS_POINT, deviceModel: "AP-W7", networkUUID: "${IDS.acmeHq}" }) { hardwareDevice { serialNumber } } }`);
      await ok('mutation { registerHardwareDevice(input: { serialNumber: "NEW-AP-0001", deviceType: ACCESS_POINT, deviceModel: "AP-W8" }) { hardwareDevice { networkUUID } } }');
      const placed = await ok(place('M1A3-SPARE-01', `"${IDS.acmeHq}"`));
      expect(placed.placeSpareHardwareDevice.hardwareDevice).toEqual({ serialNumber: 'M1A3-SPARE-01', networkUUID: IDS.acmeHq, virtualDeviceUUID: null });
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'hardware_device.place', objectId: 'M1A3-SPARE-01', before: { spareNetworkUUID: null }, after: { spareNetworkUUID: IDS.acmeHq } });
      expect((await ok(list(IDS.acmeHq))).spareHardwareDevicesForNetwork).toEqual([
        spare('M1A3-SPARE-01', 'SWITCH', 'SW-24P', IDS.acmeHq),
        spare('NEW-AP-0002', 'ACCESS_POINT', 'AP-W7', IDS.acmeHq),
      ]);
      // placed nowhere: in no network's list
      expect((await ok('{ hardwareDevice(serialNumber: "NEW-AP-0001") { networkUUID } }')).hardwareDevice).toEqual({ networkUUID: null });
      expect((await ok(list(IDS.acmeLab))).spareHardwareDevicesForNetwork).toEqual([]);
    });

    it('filters by model and type (enum literal and variable) and pages with limit and offset', async () => {
      const serials = async (filter: string, variables?: unknown) =>
        ((await ok(variables ? list(IDS.acmeHq, filter).replace('{ spare', 'query ($f: HardwareDevicesFilter) { spare') : list(IDS.acmeHq, filter), variables)).spareHardwareDevicesForNetwork as { serialNumber: string }[]).map(
          (h) => h.serialNumber,
        );
      expect(await serials(', filter: { deviceType: SWITCH }')).toEqual(['M1A3-SPARE-01']);
      expect(await serials(', filter: $f', { f: { deviceType: 'ACCESS_POINT' } })).toEqual(['NEW-AP-0002']);
      expect(await serials(', filter: { deviceModel: "AP-W7" }')).toEqual(['NEW-AP-0002']);
      expect(await serials(', filter: { deviceModel: "AP-W7", deviceType: SWITCH }')).toEqual([]);
      expect(await serials(', filter: { limit: 1 }')).toEqual(['M1A3-SPARE-01']);
      expect(await serials(', filter: { limit: 1, offset: 1 }')).toEqual(['NEW-AP-0002']);
      expect(await serials(', filter: $f', { f: { offset: 2 } })).toEqual([]);
      expect(await serials(', filter: {}')).toEqual(['M1A3-SPARE-01', 'NEW-AP-0002']);
    });

    it.each([
      ['limit: 0', 'filter.limit'],
      ['limit: 101', 'filter.limit'],
      ['offset: -1', 'filter.offset'],
    ])('refuses %s, naming the argument', async (filter, argument) => {
      const res = await send(list(IDS.acmeHq, `, filter: { ${filter} }`));
      expect(res.body.data).toEqual({ spareHardwareDevicesForNetwork: null });
      expect(res.body.errors.map((e: { extensions: { code: string; argument: string } }) => [e.extensions.code, e.extensions.argument])).toEqual([['BAD_USER_INPUT', argument]]);
      const type = await send(list(IDS.acmeHq, ', filter: { deviceType: OBSERVER }'));
      expect(type.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it('hardware leaving a virtual device stays spare at its network; assigning takes it off the list', async () => {
      await ok(`mutation { unassignHardwareDevice(input: { serialNumber: "${SERIALS.acmeSwitch}" }) { hardwareDevice { serialNumber } } }`);
      expect((await lastEntries(1))[0]).toMatchObject({ action: 'hardware_device.unassign', after: { virtualDeviceUUID: null, spareNetworkUUID: IDS.acmeHq } });
      await ok(`mutation { deleteVirtualDevice(input: { virtualDeviceUUID: "${IDS.acmeLabAp}" }) { deletedVirtualDeviceUUID } }`);
      const hq = (await ok(list(IDS.acmeHq))).spareHardwareDevicesForNetwork as { serialNumber: string }[];
      expect(hq.map((h) => h.serialNumber)).toEqual(['M1A3-SPARE-01', SERIALS.acmeSwitch, 'NEW-AP-0002']);
      expect((await ok(list(IDS.acmeLab))).spareHardwareDevicesForNetwork).toEqual([{ ...spare(SERIALS.acmeLabAp, 'ACCESS_POINT', 'AP-W6E', IDS.acmeLab), isConnectedToBackend: true }]);
      await ok(`mutation { assignHardwareDevice(input: { serialNumber: "M1A3-SPARE-01", virtualDeviceUUID: "${IDS.acmeSwitch}" }) { hardwareDevice { serialNumber } } }`);
      const after = (await ok(list(IDS.acmeHq))).spareHardwareDevicesForNetwork as { serialNumber: string }[];
      expect(after.map((h) => h.serialNumber)).toEqual([SERIALS.acmeSwitch, 'NEW-AP-0002']);
      expect((await ok('{ hardwareDevice(serialNumber: "M1A3-SPARE-01") { networkUUID virtualDeviceUUID } }')).hardwareDevice).toEqual({
        networkUUID: IDS.acmeHq,
        virtualDeviceUUID: IDS.acmeSwitch,
      });
    });

    it('refuses assigned hardware, another company’s hardware and network; null places it nowhere', async () => {
      expect(await refusedWrite(place('M1A3-SPARE-01', `"${IDS.acmeLab}"`))).toEqual([['placeSpareHardwareDevice'], 'CONFLICT', 'input.serialNumber']);
      expect(await refusedWrite(place(SERIALS.globexAp, `"${IDS.acmeLab}"`))).toEqual([['placeSpareHardwareDevice'], 'UNAUTHORIZED', 'input.serialNumber']);
      expect(await refusedWrite(place('NEW-AP-0002', `"${IDS.globexHq}"`))).toEqual([['placeSpareHardwareDevice'], 'UNAUTHORIZED', 'input.networkUUID']);
      expect(await refusedWrite(place('NEW-AP-0002', `"${IDS.acmeLab}"`), undefined, globexKey)).toEqual([['placeSpareHardwareDevice'], 'UNAUTHORIZED', 'input.serialNumber']);
      const registerForeign = `mutation { registerHardwareDevice(input: { serialNumber: "NEW-AP-0009", deviceType: SWITCH, deviceModel: "X", networkUUID: "${IDS.globexHq}" }) { hardwareDevice { serialNumber } } }`;
      expect(await refusedWrite(registerForeign)).toEqual([['registerHardwareDevice'], 'UNAUTHORIZED', 'input.networkUUID']);
      await refusedRead(list(IDS.acmeHq), 'spareHardwareDevicesForNetwork');
      expect((await ok(list(IDS.globexHq), undefined, globexKey)).spareHardwareDevicesForNetwork).toEqual([]);
      expect((await ok(place('NEW-AP-0002', 'null'))).placeSpareHardwareDevice.hardwareDevice).toEqual({ serialNumber: 'NEW-AP-0002', networkUUID: null, virtualDeviceUUID: null });
      const hq = (await ok(list(IDS.acmeHq))).spareHardwareDevicesForNetwork as { serialNumber: string }[];
      expect(hq.map((h) => h.serialNumber)).toEqual([SERIALS.acmeSwitch]);
    });
  });

  describe('import and export', () => {
    const NET = 'a0000000-0000-4000-8000-000000000001';
    const OTHER = 'a0000000-0000-4000-8000-000000000002';
    const RULE_UUID = 'a0000000-0000-4000-8000-0000000000f1';
    const document = () => ({
      companies: [
        {
          uuid: 'a0000000-0000-4000-8000-0000000000c0',
          name: 'Initech',
          slug: 'initech',
          networks: [
            {
              UUID: NET,
              label: 'Office',
              slug: 'office',
              isActive: true,
              vlans: [
                { name: 'Corp', vlanID: 10, isEnabled: true },
                { name: 'Voice', vlanID: 30, isEnabled: true },
                { name: 'Guest', vlanID: 20, isEnabled: true },
              ],
              blockedClients: [{ macAddress: '3c:22:fb:00:00:09', reason: 'rogue', createdAt: '2026-11-21T18:00:00+01:00' }],
              firewallRules: [
                { UUID: RULE_UUID, name: 'v6', action: 'PERMIT', srcPrefix: '2001:DB8::/32', priority: 20 },
                { name: 'Guests out', description: 'PCI', action: 'DENY', isEnabled: false, srcPrefix: '10.0.20.0/24', dstPrefix: '10.0.10.0/24', priority: 10 },
              ],
              interVLANPairs: [
                { leftVLANID: 30, rightVLANID: 10 },
                { leftVLANID: 10, rightVLANID: 20 },
              ],
              idsIPSConfig: { mode: 'IPS' },
            },
            { UUID: OTHER, label: 'Depot', slug: 'depot', isActive: true },
          ],
          spareHardwareDevices: [
            { serialNumber: 'INI-SW-0001', deviceType: 'SWITCH', deviceModel: 'SW-8', isConnectedToBackend: false, networkUUID: NET },
            { serialNumber: 'INI-SW-0002', deviceType: 'SWITCH', deviceModel: 'SW-8', isConnectedToBackend: false },
          ],
        },
      ],
    });

    it('imports a network’s configuration and spare hardware placement, read back exactly and exported losslessly', async () => {
      await app.server.services.imports.import(document());
      const initech = await app.createKey('initech');
      const read = await ok(
        `{ blockedClientsForNetwork(networkUUID: "${NET}") { macAddress reason createdAt } firewallRulesForNetwork(networkUUID: "${NET}") { UUID name description action isEnabled srcPrefix dstPrefix priority }
           interVLANCommunicationPermittedPairs(networkUUID: "${NET}") { leftVLAN { vlanID } rightVLAN { vlanID } } network(UUID: "${NET}") { idsIPSConfig { mode } }
           spareHardwareDevicesForNetwork(networkUUID: "${NET}") { serialNumber } }`,
        undefined,
        initech,
      );
      expect(read).toEqual({
        blockedClientsForNetwork: [{ macAddress: '3c:22:fb:00:00:09', reason: 'rogue', createdAt: '2026-11-21T17:00:00.000Z' }],
        firewallRulesForNetwork: [
          { UUID: expect.stringMatching(UUID), name: 'Guests out', description: 'PCI', action: 'DENY', isEnabled: false, srcPrefix: '10.0.20.0/24', dstPrefix: '10.0.10.0/24', priority: 10 },
          { UUID: RULE_UUID, name: 'v6', description: null, action: 'PERMIT', isEnabled: true, srcPrefix: '2001:db8::/32', dstPrefix: null, priority: 20 },
        ],
        interVLANCommunicationPermittedPairs: [
          { leftVLAN: { vlanID: 10 }, rightVLAN: { vlanID: 20 } },
          { leftVLAN: { vlanID: 10 }, rightVLAN: { vlanID: 30 } },
        ],
        network: { idsIPSConfig: { mode: 'IPS' } },
        spareHardwareDevicesForNetwork: [{ serialNumber: 'INI-SW-0001' }],
      });
      const exported = (await app.server.services.imports.export('initech')).companies[0]!;
      const office = exported.networks.find((n) => n.UUID === NET)!;
      expect(office.blockedClients).toEqual([{ UUID: expect.stringMatching(UUID), macAddress: '3c:22:fb:00:00:09', reason: 'rogue', createdAt: '2026-11-21T17:00:00.000Z' }]);
      expect(office.firewallRules?.map((r) => [r.priority, r.srcPrefix, r.isEnabled])).toEqual([
        [10, '10.0.20.0/24', false],
        [20, '2001:db8::/32', true],
      ]);
      expect(office.interVLANPairs?.map((p) => [p.leftVLANID, p.rightVLANID])).toEqual([
        [10, 20],
        [10, 30],
      ]);
      expect(office.idsIPSConfig).toEqual({ UUID: expect.stringMatching(UUID), mode: 'IPS' });
      const depot = exported.networks.find((n) => n.UUID === OTHER)!;
      expect(Object.keys(depot)).toEqual(['UUID', 'label', 'slug', 'isActive', 'mailingAddress', 'virtualDevices', 'vlans', 'ssids', 'clients']);
      expect(exported.spareHardwareDevices).toEqual([
        { serialNumber: 'INI-SW-0001', deviceType: 'SWITCH', deviceModel: 'SW-8', isConnectedToBackend: false, networkUUID: NET },
        { serialNumber: 'INI-SW-0002', deviceType: 'SWITCH', deviceModel: 'SW-8', isConnectedToBackend: false },
      ]);
      // the export is itself an import document: under a new slug with new UUIDs it imports to the same configuration
      const again = JSON.parse(JSON.stringify(exported).replaceAll('a0000000-', 'b0000000-').replace('"initech"', '"initech-2"').replaceAll('INI-', 'IN2-'));
      for (const n of again.networks) for (const list of ['blockedClients', 'firewallRules', 'interVLANPairs', 'vlans', 'ssids']) for (const item of n[list] ?? []) delete item.UUID;
      for (const n of again.networks) if (n.idsIPSConfig) delete n.idsIPSConfig.UUID;
      await app.server.services.imports.import({ companies: [again] });
      const copy = (await app.server.services.imports.export('initech-2')).companies[0]!;
      const strip = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/"UUID":"[0-9a-f-]{36}",?/g, '').replaceAll('b0000000-', 'a0000000-').replaceAll('IN2-', 'INI-').replace('"initech-2"', '"initech"'));
      expect(strip(copy)).toEqual(strip(exported));
    });

    it('rejects a bad configuration at its JSON path, writing nothing', async () => {
      const bad = document();
      const company = bad.companies[0]!;
      company.slug = 'initech-bad';
      company.uuid = 'c0000000-0000-4000-8000-0000000000c0';
      company.networks[0]!.UUID = 'c0000000-0000-4000-8000-000000000001';
      company.networks[1]!.UUID = 'c0000000-0000-4000-8000-000000000002';
      company.spareHardwareDevices = [{ serialNumber: 'BAD-1', deviceType: 'SWITCH', deviceModel: 'X', isConnectedToBackend: false, networkUUID: NET }];
      const office = company.networks[0]! as Record<string, unknown>;
      office.firewallRules = [
        { name: 'a', action: 'DENY', priority: 10, srcPrefix: '10.0.0.1/8' },
        { name: 'b', action: 'ALLOW', priority: 10 },
      ];
      office.interVLANPairs = [{ leftVLANID: 10, rightVLANID: 99 }, { leftVLANID: 20, rightVLANID: 20 }];
      office.blockedClients = [{ macAddress: 'AA:BB:CC:DD:EE:FF' }];
      office.idsIPSConfig = { mode: 'OFF' };
      const error = await app.server.services.imports.import(bad).then(
        () => undefined,
        (e: { details: { problems: { path: string }[] } }) => e,
      );
      const p = '$.companies[0]';
      expect(error?.details.problems.map((problem) => problem.path).sort()).toEqual(
        [
          `${p}.networks[0].blockedClients[0].macAddress`,
          `${p}.networks[0].firewallRules[0].srcPrefix`,
          `${p}.networks[0].firewallRules[1].action`,
          `${p}.networks[0].firewallRules[1].priority`,
          `${p}.networks[0].idsIPSConfig.mode`,
          `${p}.networks[0].interVLANPairs[0].rightVLANID`,
          `${p}.networks[0].interVLANPairs[1].rightVLANID`,
          `${p}.spareHardwareDevices[0].networkUUID`,
        ].sort(),
      );
      await expect(app.server.services.imports.export('initech-bad')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });

  describe('complexity', () => {
    const requested = async (query: string) => {
      const res = await app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, extensions: { cost: true } }),
      });
      expect(res.body.errors).toBeUndefined();
      return res.body.extensions.cost.requested;
    };

    it('prices each new list at five elements, spare hardware at its page, idsIPSConfig as an object', async () => {
      expect(await requested(`{ blockedClientsForNetwork(networkUUID: "${IDS.acmeHq}") { ${ENTRY} } }`)).toBe(2 + 5 * 5);
      expect(await requested(`{ firewallRulesForNetwork(networkUUID: "${IDS.acmeHq}") { ${RULE} } }`)).toBe(2 + 5 * 9);
      expect(await requested(`{ interVLANCommunicationPermittedPairs(networkUUID: "${IDS.acmeHq}") { ${PAIR} } }`)).toBe(2 + 5 * (2 + 2 + 2));
      expect(await requested(`{ spareHardwareDevicesForNetwork(networkUUID: "${IDS.acmeHq}", filter: { limit: 3 }) { serialNumber deviceType } }`)).toBe(2 + 3 * 2);
      expect(await requested(`{ spareHardwareDevicesForNetwork(networkUUID: "${IDS.acmeHq}") { serialNumber deviceType deviceModel isConnectedToBackend macAddress } }`)).toBe(2 + 100 * 5);
      expect(await requested(`{ network(UUID: "${IDS.acmeHq}") { UUID idsIPSConfig { UUID networkUUID mode } } }`)).toBe(1 + 1 + 1 + 3);
    });
  });
});
