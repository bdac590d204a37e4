import { describe, expect, it } from 'vitest';
import { getDialect } from '../db/dialect.js';
import { bool, text } from './read.model.js';
import type { GraphQLFeature } from './read.model.js';
import { TOPOLOGY_FEATURE as TOPOLOGY } from '../features/topology/topology.graphql.js';
import type { Services } from '../services.js';
import { compileDocument } from './compile.js';
import { FEATURES } from './features.js';
import { createSchema } from './schema.js';

const [COMPANY, NETWORK, DEVICE, CLIENT, VLAN, SSID, PORT, BSSID] = FEATURES;

/** The feature list with `VLAN` replaced by `vlan` (and TOPOLOGY, whose LLDPNeighbor PhyInterface names). */
function withVlan(vlan: GraphQLFeature<Services>): GraphQLFeature<Services>[] {
  return [COMPANY, NETWORK, DEVICE, CLIENT, vlan, SSID, PORT, BSSID, TOPOLOGY];
}

describe('assembling the features', () => {
  it('builds the schema, and compiles a document through it, from the feature list', () => {
    const schema = createSchema(FEATURES);
    expect(Object.keys(schema.getQueryType()?.getFields() ?? {})).toEqual([
      'virtualDevice',
      'hardwareDevice',
      'networksForCompany',
      'virtualDevicesForNetwork',
      'networkClients',
      'companyBySlug',
      'network',
      'networkBySlug',
      'networkClientsPage',
      'networksClients',
      'vlans',
      'vlan',
      'ssidsForNetwork',
      'ssid',
      'uplinkPhyInterfacesForNetwork',
      'phyInterfacesForVirtualDevice',
      'bssidsForNetwork',
      'activeClients',
      'networkUplinkQuality',
      'networkUplinkThroughput',
      'networksUplinkQualities',
      'switchPortStats',
      'controllerPortStats',
      'switchPortMetricsRate',
      'controllerPortMetricsRate',
      'wirelessClientMetrics',
      'wirelessClientMetricsByAP',
      'wirelessClientMetricsByClient',
      'allClientMetricsByClient',
      'allClientMetricsByVLAN',
      'channelUtilizationByNetwork',
      'channelUtilizationByAP',
      'channelUtilizationByClient',
      'controllerDNSRequestRates',
      'apHealthScores',
      'switchMACTable',
      'switchMACTablePage',
      'pduMetrics',
      'pdusMetrics',
      'networkTopology',
      'recentEventLogEventsPage',
      'wirelessClientConnectionEventsPage',
      'blockedClientsForNetwork',
      'firewallRulesForNetwork',
      'interVLANCommunicationPermittedPairs',
      'idsEvents',
      'ipsEvents',
      'rogueAccessPointsObservedOnNetwork',
      'honeypotSSIDsObservedOnNetwork',
      'spareHardwareDevicesForNetwork',
      'webhookEndpoints',
      'webhookDeliveries',
      'alertReceiver',
      'alertReceiversForCompany',
      'collectorTarget',
      'collectorTargetsForCompany',
      'collectorRange',
      'collectorRangesForCompany',
      'discoveredDevicesForCompany',
      'changes',
    ]);
    const compiled = compileDocument(schema, FEATURES, getDialect('sqlite'), '{ networkClients(networkUUID: "11111111-1111-4111-8111-111111111111") { ip } }');
    expect(compiled.text).toContain('FROM network_clients');
    // in text order: the key check (the time, then the key), the clients' online window (in the list's join), then the root's argument and company
    expect(compiled.slots).toEqual([
      { kind: 'now', type: 'timestamptz' },
      { kind: 'key', type: 'bigint' },
      { kind: 'onlineSince', type: 'timestamptz' },
      { kind: 'arg', root: 0, path: 'networkUUID', type: 'uuid' },
      { kind: 'company', type: 'bigint' },
    ]);
  });

  it('refuses a schema field without a mapping', () => {
    const broken = withVlan({ ...VLAN, sdl: `${VLAN.sdl}\nextend type VLAN { isPrimary: Boolean! }` });
    expect(() => createSchema(broken)).toThrow('read model: no mapping for VLAN.isPrimary');
  });

  it('refuses a mapping without a schema field', () => {
    const broken = withVlan({ ...VLAN, readModel: { VLAN: { ...VLAN.readModel.VLAN, isPrimary: bool('is_primary') } } });
    expect(() => createSchema(broken)).toThrow('read model: the mapping of VLAN.isPrimary names no schema field');
  });

  it('refuses a mapping of the wrong kind', () => {
    const broken = withVlan({ ...VLAN, readModel: { VLAN: { ...VLAN.readModel.VLAN, vlanID: { kind: 'list', table: 'vlans', join: () => 'true' } } } });
    expect(() => createSchema(broken)).toThrow('read model: VLAN.vlanID maps as list, but its type is Int!');
  });

  it('refuses a Query field without a root, and a root without a Query field', () => {
    expect(() => createSchema([COMPANY, NETWORK, DEVICE, { ...CLIENT, roots: {} }, VLAN, SSID, PORT, BSSID, TOPOLOGY])).toThrow('read model: no root for Query.networkClients');
    const extra = { ...CLIENT, roots: { ...CLIENT.roots, clientByMac: CLIENT.roots.networkClients } };
    expect(() => createSchema([COMPANY, NETWORK, DEVICE, extra, VLAN, SSID, PORT, BSSID, TOPOLOGY])).toThrow('read model: the root clientByMac names no Query field');
  });

  it('refuses a Mutation field without a resolver, and a resolver without a Mutation field', () => {
    const { deleteVLAN, ...others } = VLAN.mutations;
    expect(() => createSchema(withVlan({ ...VLAN, mutations: others }))).toThrow('mutations: no resolver for Mutation.deleteVLAN');
    expect(() => createSchema(withVlan({ ...VLAN, mutations: { ...VLAN.mutations, renameVLAN: deleteVLAN } }))).toThrow(
      'mutations: the resolver renameVLAN names no Mutation field',
    );
  });

  it('refuses what two features declare', () => {
    const twice = { sdl: 'scalar Spare', readModel: { VLAN: { name: text('name') } }, roots: {}, internalRoots: {}, mutations: {} };
    expect(() => createSchema([...FEATURES, twice])).toThrow('read model: VLAN.name is mapped twice');
  });
});
