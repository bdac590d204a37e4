import { inCompany, inNetworkOfCompany, networkUuidOf, text, uuidArgument } from '../../engine/read.model.js';
import type { FieldMapping, GraphQLFeature, ListMapping } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { InterVlanService } from './inter-vlan.service.js';

/** The vlanID of the VLAN row id expression `id`. */
const vlanNumber = (id: string, alias: string) => `(SELECT ${alias}.vlan_id FROM vlans ${alias} WHERE ${alias}.id = ${id})`;

/** True when the pair aliased `p` stores the VLAN with the smaller vlanID first. */
const lowFirst = (p: string) => `${vlanNumber(`${p}.vlan_low_id`, 'ivl')} < ${vlanNumber(`${p}.vlan_high_id`, 'ivh')}`;

/** The VLAN of the pair with the smaller vlanID (left) or the larger (right). */
const side = (left: boolean): FieldMapping => ({
  kind: 'object',
  table: 'vlans',
  join: (v, p) =>
    `${v}.id = (CASE WHEN ${lowFirst(p)} THEN ${p}.vlan_${left ? 'low' : 'high'}_id ELSE ${p}.vlan_${left ? 'high' : 'low'}_id END)`,
});

/** A network's permitted pairs, by the left VLAN's vlanID, then the right one's. */
const PAIRS_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'inter_vlan_pairs',
  join: (p, n) => `${p}.network_id = ${n}.id`,
  orderBy: (p) =>
    `(SELECT min(ovl.vlan_id) FROM vlans ovl WHERE ovl.id IN (${p}.vlan_low_id, ${p}.vlan_high_id)), ` +
    `(SELECT max(ovh.vlan_id) FROM vlans ovh WHERE ovh.id IN (${p}.vlan_low_id, ${p}.vlan_high_id))`,
};

/** Inter-VLAN communication: the unordered pairs of a network's VLANs allowed to talk (docs/security.md). */
export const INTER_VLAN_FEATURE = {
  sdl: /* GraphQL */ `
"""
Two VLANs of a network allowed to talk to each other. A pair is unordered:
leftVLAN is the one with the smaller vlanID.
"""
type InterVLANCommunicationPermittedPair {
  UUID: UUID!
  networkUUID: UUID!
  """The VLAN of the pair with the smaller vlanID."""
  leftVLAN: VLAN!
  """The VLAN of the pair with the larger vlanID."""
  rightVLAN: VLAN!
}

extend type Query {
  """
  The network's pairs of VLANs permitted to talk to each other, ordered by
  leftVLAN's vlanID, then rightVLAN's. VLANs of no pair cannot talk to each other.
  """
  interVLANCommunicationPermittedPairs("The network's UUID." networkUUID: UUID!): [InterVLANCommunicationPermittedPair!]
}

extend type Mutation {
  """
  Permits two VLANs of one network to talk to each other, in both
  directions. Permitting a permitted pair changes nothing and answers it.
  """
  permitInterVLANCommunication("The two VLANs, in either order." input: InterVLANPairInput!): PermitInterVLANCommunicationPayload

  """Forbids two VLANs of one network to talk to each other. Forbidding a pair that is not permitted changes nothing."""
  forbidInterVLANCommunication("The two VLANs, in either order." input: InterVLANPairInput!): ForbidInterVLANCommunicationPayload
}

"""Two different VLANs of one network, in either order."""
input InterVLANPairInput {
  "One VLAN."
  leftVLANUUID: UUID!
  "The other VLAN, of the same network."
  rightVLANUUID: UUID!
}

"""The result of permitInterVLANCommunication."""
type PermitInterVLANCommunicationPayload {
  """The permitted pair."""
  pair: InterVLANCommunicationPermittedPair!
}

"""The result of forbidInterVLANCommunication."""
type ForbidInterVLANCommunicationPayload {
  """The UUID of the removed pair; null when the VLANs were not permitted to talk."""
  forbiddenPairUUID: UUID
}
`,
  readModel: {
    InterVLANCommunicationPermittedPair: {
      UUID: text('uuid'),
      networkUUID: { kind: 'computed', type: 'string', sql: (p) => networkUuidOf(`${p}.network_id`) },
      leftVLAN: side(true),
      rightVLAN: side(false),
    },
  },
  roots: {
    interVLANCommunicationPermittedPairs: { table: 'networks', arguments: uuidArgument('networkUUID'), where: inCompany('uuid', 'networkUUID'), list: PAIRS_OF_NETWORK },
  },
  internalRoots: {
    // permitInterVLANCommunication reads the pair back through it
    interVLANPairByUUID: { table: 'inter_vlan_pairs', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  mutations: {
    permitInterVLANCommunication: async (s, caller, input) => ({
      objects: { pair: { root: 'interVLANPairByUUID', arg: (await s.interVlanPairs.permit(caller, asInput(input))).UUID } },
    }),
    forbidInterVLANCommunication: async (s, caller, input) => ({
      values: { forbiddenPairUUID: (await s.interVlanPairs.forbid(caller, asInput(input)))?.UUID ?? null },
    }),
  },
} satisfies GraphQLFeature<{ interVlanPairs: InterVlanService }>;
