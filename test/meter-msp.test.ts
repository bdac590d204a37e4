import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateImport } from '../src/platform/import/import.schema.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';
import { createWriteKey, errorOf, snapshotOf } from './helpers/writes.js';

// The fields a multi-company MSP dashboard written for Meter reads (issue 32): a network's street address and postal
// code, a VLAN's IPv4 client addressing; written by import, createNetwork/updateNetwork, createVLAN/updateVLAN, and exported.

/** The dashboard's first request, as it sends it. */
const MSP_NETWORKS = `{
      networksForCompany(companySlug: "acme") {
        UUID label slug
        mailingAddress { line1 line2 city postalCode }
      }
    }`;
/** The VLAN part of its per-network bundle, as it sends it. */
const mspVlans = (network: string) => `{
          vlans: vlans(networkUUID: "${network}") {
            UUID name vlanID isEnabled
            ipV4ClientGateway ipV4ClientPrefixLength
            ipV4ClientAssignmentProtocol
          }
        }`;

/** The fixture with a full address on HQ and client addressing on its Corp 10 VLAN, as an import brings them. */
function fixtureWithAddressing() {
  const data = createFixture();
  const hq = data.companies[0]!.networks[0]!;
  hq.mailingAddress = { line1: '1 Market St', line2: 'Floor 3', city: 'San Francisco', subdivisionCode: 'CA', postalCode: '94105' };
  hq.vlans[1] = { ...hq.vlans[1]!, ipV4ClientGateway: '10.0.10.1', ipV4ClientPrefixLength: 24, ipV4ClientAssignmentProtocol: 'DHCP' };
  return data;
}

describe.each(storeKinds())('the MSP dashboard fields on %s', (kind) => {
  let app: TestApp;
  let writer: string;
  const mutate = async (query: string) => app.graphql(query, { key: writer });

  beforeAll(async () => {
    app = await startTestApp(kind, { data: fixtureWithAddressing() });
    writer = await createWriteKey(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers the dashboard’s first request with the imported address', async () => {
    const res = await app.graphql(MSP_NETWORKS);
    expect(res.body).toEqual({
      data: {
        networksForCompany: [
          { UUID: IDS.acmeEmpty, label: 'Annex', slug: 'annex', mailingAddress: { line1: null, line2: null, city: 'Oakland', postalCode: null } },
          {
            UUID: IDS.acmeHq,
            label: 'HQ — Zürich',
            slug: 'hq',
            mailingAddress: { line1: '1 Market St', line2: 'Floor 3', city: 'San Francisco', postalCode: '94105' },
          },
          { UUID: IDS.acmeLab, label: 'Lab', slug: 'lab', mailingAddress: null },
        ],
      },
    });
  });

  it('answers the network view’s VLAN selection with the imported addressing, null where none is configured', async () => {
    const res = await app.graphql(mspVlans(IDS.acmeHq));
    const none = { ipV4ClientGateway: null, ipV4ClientPrefixLength: null, ipV4ClientAssignmentProtocol: null };
    const corp10 = { ipV4ClientGateway: '10.0.10.1', ipV4ClientPrefixLength: 24, ipV4ClientAssignmentProtocol: 'DHCP' };
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.vlans.map(({ UUID: _, ...v }: Record<string, unknown>) => v)).toEqual([
      { name: 'Corp', vlanID: 5, isEnabled: true, ...none },
      { name: 'Corp', vlanID: 10, isEnabled: true, ...corp10 },
      { name: 'Guest', vlanID: 20, isEnabled: false, ...none },
    ]);
    // another company's network answers like a missing one
    const foreign = await app.graphql(mspVlans(IDS.globexHq));
    expect(foreign.body.data).toEqual({ vlans: null });
  });

  it('writes the address through createNetwork and updateNetwork, and the export carries it', async () => {
    const created = await mutate(
      'mutation { createNetwork(input: { label: "Depot", slug: "depot", mailingAddress: { line1: "5 Dock Rd", postalCode: "8000", city: "Zürich" } }) ' +
        '{ network { UUID mailingAddress { line1 line2 city subdivisionCode postalCode } } } }',
    );
    const network = created.body.data.createNetwork.network;
    expect(network.mailingAddress).toEqual({ line1: '5 Dock Rd', line2: null, city: 'Zürich', subdivisionCode: null, postalCode: '8000' });
    const updated = await mutate(
      `mutation { updateNetwork(input: { networkUUID: "${network.UUID}", mailingAddress: { line1: "7 Dock Rd", line2: "Gate B", postalCode: "8005" } }) ` +
        '{ network { mailingAddress { line1 line2 city subdivisionCode postalCode } } } }',
    );
    // the address is replaced as a whole: the city not given is gone
    expect(updated.body.data.updateNetwork.network.mailingAddress).toEqual({ line1: '7 Dock Rd', line2: 'Gate B', city: null, subdivisionCode: null, postalCode: '8005' });
    const exported = (await snapshotOf(app)) as { companies: { networks: { slug: string; mailingAddress: unknown }[] }[] };
    const depot = exported.companies[0]!.networks.find((n) => n.slug === 'depot');
    expect(depot?.mailingAddress).toEqual({ line1: '7 Dock Rd', line2: 'Gate B', city: null, subdivisionCode: null, postalCode: '8005' });
    const long = await mutate(`mutation { updateNetwork(input: { networkUUID: "${network.UUID}", mailingAddress: { postalCode: "${'9'.repeat(21)}" } }) { network { UUID } } }`);
    expect(errorOf(long)).toEqual([['updateNetwork'], 'BAD_USER_INPUT', 'input.mailingAddress.postalCode']);
  });

  it('writes a VLAN’s client addressing through createVLAN and updateVLAN, in literals and variables', async () => {
    const fields = 'ipV4ClientGateway ipV4ClientPrefixLength ipV4ClientAssignmentProtocol';
    const created = await mutate(
      `mutation { createVLAN(input: { networkUUID: "${IDS.acmeHq}", name: "Voice", vlanID: 30, ipV4ClientGateway: "192.168.30.254", ` +
        `ipV4ClientPrefixLength: 23, ipV4ClientAssignmentProtocol: STATIC }) { vlan { UUID ${fields} } } }`,
    );
    const vlan = created.body.data.createVLAN.vlan;
    expect(vlan).toEqual({ UUID: vlan.UUID, ipV4ClientGateway: '192.168.30.254', ipV4ClientPrefixLength: 23, ipV4ClientAssignmentProtocol: 'STATIC' });
    const updated = await app.graphql(
      `mutation ($p: ClientAssignmentProtocol) { updateVLAN(input: { vlanUUID: "${vlan.UUID}", ipV4ClientAssignmentProtocol: $p }) { vlan { ${fields} } } }`,
      { key: writer, variables: { p: 'DHCP' } },
    );
    expect(updated.body.data.updateVLAN.vlan).toEqual({ ipV4ClientGateway: '192.168.30.254', ipV4ClientPrefixLength: 23, ipV4ClientAssignmentProtocol: 'DHCP' });
    const cleared = await mutate(`mutation { updateVLAN(input: { vlanUUID: "${vlan.UUID}", ipV4ClientGateway: null, ipV4ClientPrefixLength: null }) { vlan { ${fields} } } }`);
    expect(cleared.body.data.updateVLAN.vlan).toEqual({ ipV4ClientGateway: null, ipV4ClientPrefixLength: null, ipV4ClientAssignmentProtocol: 'DHCP' });
    const exported = (await snapshotOf(app)) as { companies: { networks: { vlans: { UUID: string }[] }[] }[] };
    const stored = exported.companies[0]!.networks.flatMap((n) => n.vlans).find((l) => l.UUID === vlan.UUID);
    expect(stored).toMatchObject({ ipV4ClientGateway: null, ipV4ClientPrefixLength: null, ipV4ClientAssignmentProtocol: 'DHCP' });
  });

  it.each([
    ['a gateway that is no IPv4 address', 'ipV4ClientGateway: "2001:db8::1", ipV4ClientPrefixLength: 64', 'input.ipV4ClientGateway'],
    ['a prefix above 32', 'ipV4ClientGateway: "10.0.0.1", ipV4ClientPrefixLength: 33', 'input.ipV4ClientPrefixLength'],
    ['a negative prefix', 'ipV4ClientGateway: "10.0.0.1", ipV4ClientPrefixLength: -1', 'input.ipV4ClientPrefixLength'],
    ['a gateway without a prefix', 'ipV4ClientGateway: "10.0.0.1"', 'input.ipV4ClientPrefixLength'],
    ['a prefix without a gateway', 'ipV4ClientPrefixLength: 24', 'input.ipV4ClientGateway'],
    ['the subnet’s own address', 'ipV4ClientGateway: "10.0.1.0", ipV4ClientPrefixLength: 24', 'input.ipV4ClientGateway'],
    ['the subnet’s broadcast address', 'ipV4ClientGateway: "10.0.1.127", ipV4ClientPrefixLength: 25', 'input.ipV4ClientGateway'],
  ])('refuses %s, naming the field, and writes nothing', async (_, fields, field) => {
    const before = await snapshotOf(app);
    const res = await mutate(`mutation { createVLAN(input: { networkUUID: "${IDS.acmeHq}", name: "Bad", vlanID: 99, ${fields} }) { vlan { UUID } } }`);
    expect(errorOf(res)).toEqual([['createVLAN'], 'BAD_USER_INPUT', field]);
    expect(await snapshotOf(app)).toEqual(before);
  });

  it('fits its batch of ten switches’ ports and wired clients in one operation (within the 750-point limit)', async () => {
    // step 6 of its refresh, as it sends it: SWITCH_BATCH_SIZE = 10 switches to a request
    const ports = (alias: string) => `  ${alias}: phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") {
    portNumber label isEnabled isUplink isUplinkActive portSpeedMbps
    nativeVLAN { name vlanID }
    connectedDevices { client { macAddress } portNumber }
  }`;
    const query = `{\n${Array.from({ length: 10 }, (_, i) => ports(`scd_${i}`)).join('\n')}\n}`;
    const res = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await app.createKey('acme')}` },
      body: JSON.stringify({ query, extensions: { cost: true } }),
    });
    expect(res.status, res.text).toBe(200);
    // each switch: 2 + 5 ports × (6 fields + nativeVLAN 3 + connectedDevices 2 + 1 device × 3) = 72
    expect(res.body.extensions.cost.requested).toBe(720);
    expect(res.body.data.scd_0).toEqual(res.body.data.scd_9);
  });

  it('takes any gateway of a /31 or /32, and refuses an unknown protocol before running', async () => {
    const res = await mutate(
      `mutation { createVLAN(input: { networkUUID: "${IDS.acmeLab}", name: "P2P", vlanID: 31, ipV4ClientGateway: "10.0.0.0", ipV4ClientPrefixLength: 31 }) { vlan { ipV4ClientGateway } } }`,
    );
    expect(res.body.data.createVLAN.vlan).toEqual({ ipV4ClientGateway: '10.0.0.0' });
    const unknown = await mutate(`mutation { createVLAN(input: { networkUUID: "${IDS.acmeLab}", name: "X", vlanID: 32, ipV4ClientAssignmentProtocol: BOOTP }) { vlan { UUID } } }`);
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('the import format’s VLAN addressing', () => {
  it('refuses what createVLAN refuses, at the VLAN’s path', () => {
    const data = fixtureWithAddressing();
    data.companies[0]!.networks[0]!.vlans[0] = { name: 'Bad', vlanID: 20, isEnabled: true, ipV4ClientGateway: '10.0.0.255', ipV4ClientPrefixLength: 24 };
    const result = validateImport(data);
    expect(result.problems).toEqual([
      { path: '$.companies[0].networks[0].vlans[0].ipV4ClientGateway', message: '10.0.0.255 is the address or the broadcast address of its /24 subnet: use a host address.' },
    ]);
  });
});
