import { SSID_MAX_BYTES, VLAN_ID } from '../../kernel/rules.js';
import { bool, filterField, inCompany, inNetworkOfCompany, networkUuidOf, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping, ObjectReference } from '../../engine/read.model.js';
import { vlanByNumber } from '../vlan/vlan.graphql.js';
import { asInput } from '../../platform/write/write.rules.js';
import { SSID_ENCRYPTION_PROTOCOLS } from './ssid.service.js';
import type { SsidService } from './ssid.service.js';

const ssid = (uuid: string): ObjectReference => ({ root: 'ssidByUUID', arg: uuid });

/** A network's SSIDs, ordered by ssid, as the schema says (Network.ssids and the ssidsForNetwork root). */
export const SSIDS_OF_NETWORK: ListMapping = { kind: 'list', table: 'ssids', join: (s, n) => `${s}.network_id = ${n}.id`, orderBy: (s) => `${s}.ssid` };

/** ssidsForNetwork's SSIDs: the network's, with filter.isGuest, filter.isHidden and filter.ssid (exact) when given. */
const FILTERED_SSIDS_OF_NETWORK: ListMapping = {
  ...SSIDS_OF_NETWORK,
  join: (s, n, c) => {
    if (!c.mayBeGiven('filter')) return SSIDS_OF_NETWORK.join(s, n, c);
    // a flag parameter, not `arg IS NULL`: PostgreSQL cannot type an uncast text parameter there
    const given = (field: string, column: string) => `(${c.value('boolean', (args) => filterField(args, field) == null)} OR ${s}.${column} = ${c.arg(`filter.${field}`)})`;
    return `${s}.network_id = ${n}.id AND ${given('isGuest', 'is_guest')} AND ${given('isHidden', 'is_hidden')} AND ${given('ssid', 'ssid')}`;
  },
};

/** The fields of a new SSID, alone (NewSSIDInput) or on an existing network (CreateSSIDInput). */
const NEW_SSID_FIELDS = `  "Wireless network name, 1 to ${SSID_MAX_BYTES} bytes of UTF-8, unique within the network."
  ssid: String!
  "Whether the SSID is broadcast."
  isEnabled: Boolean! = true
  "Whether the SSID is for guests."
  isGuest: Boolean! = false
  "Whether the SSID is hidden (not broadcast in beacons)."
  isHidden: Boolean! = false
  "One of SSIDEncryptionProtocol's values as a string, e.g. \`WPA2\` or \`WPA3_TRANSITION\`, or null; anything else is BAD_USER_INPUT."
  encryptionProtocol: String
  "The number (${VLAN_ID.min} to ${VLAN_ID.max}) of the network's VLAN its clients go on, or null."
  vlanID: Int`;

/** SSIDs: the SSID type and its writes. A network lists its SSIDs (network.graphql.ts). */
export const SSID_FEATURE = {
  sdl: /* GraphQL */ `
"""A wireless network broadcast by a network's access points."""
type SSID {
  UUID: UUID!
  """1 to ${SSID_MAX_BYTES} bytes, unique within the network."""
  ssid: String!
  isEnabled: Boolean!
  """Whether the SSID is for guests (false unless set)."""
  isGuest: Boolean!
  """Whether the SSID is not broadcast (false unless set)."""
  isHidden: Boolean!
  """The SSID's encryption and authentication; null when not set."""
  encryptionProtocol: SSIDEncryptionProtocol
  """The network's VLAN its clients are put on; null when none is set or the network has no VLAN of that number."""
  vlan: VLAN
  """The network the SSID belongs to."""
  networkUUID: UUID!
}

"""Which of a network's SSIDs ssidsForNetwork lists; every field given must hold."""
input SSIDFilterInput {
  "Only guest SSIDs (true) or only the others (false); absent or null: both."
  isGuest: Boolean
  "Only hidden SSIDs (true) or only the others (false); absent or null: both."
  isHidden: Boolean
  "Only the SSID with exactly this name (case and bytes as stored); absent or null: every name."
  ssid: String
}

"""How an SSID encrypts and authenticates (Meter's values)."""
enum SSIDEncryptionProtocol {
  """Open, with MAC-based RADIUS authentication."""
  OPEN_MAC_AUTH_RADIUS
  """WPA2-Personal (pre-shared key)."""
  WPA2
  """WPA2 with 802.1X (RADIUS)."""
  WPA2_ENTERPRISE
  """WPA2 with identity pre-shared keys."""
  WPA2_IPSK
  """WPA2 with multiple pre-shared keys."""
  WPA2_MPSK
  """WPA3-Personal (SAE)."""
  WPA3
  """WPA3 with 802.1X (RADIUS)."""
  WPA3_ENTERPRISE
  """WPA3 Opportunistic Wireless Encryption."""
  WPA3_OWE
  """WPA2 and WPA3 mixed."""
  WPA3_TRANSITION
}

extend type Query {
  """The network's SSIDs, ordered by ssid."""
  ssidsForNetwork(
    "The network's UUID."
    networkUUID: UUID!
    "Only some of the SSIDs."
    filter: SSIDFilterInput
  ): [SSID!]

  """One SSID by its UUID."""
  ssid("The SSID's UUID." UUID: UUID!): SSID
}

extend type Mutation {
  """Adds an SSID to a network."""
  createSSID("The new SSID." input: CreateSSIDInput!): CreateSSIDPayload

  """Changes the given fields of an SSID, e.g. \`isEnabled: false\` to switch it off."""
  updateSSID("The SSID and the fields to change." input: UpdateSSIDInput!): UpdateSSIDPayload

  """Deletes an SSID."""
  deleteSSID("The SSID to delete." input: DeleteSSIDInput!): DeleteSSIDPayload
}

"""An SSID created together with its network."""
input NewSSIDInput {
${NEW_SSID_FIELDS}
}

"""A new SSID on an existing network."""
input CreateSSIDInput {
  "The network to add it to."
  networkUUID: UUID!
${NEW_SSID_FIELDS}
}

"""Changes to an SSID: absent fields stay as they are."""
input UpdateSSIDInput {
  "The SSID to change."
  ssidUUID: UUID!
  "New name, 1 to ${SSID_MAX_BYTES} bytes of UTF-8, unique within the network."
  ssid: String
  "Whether the SSID is broadcast."
  isEnabled: Boolean
  "Whether the SSID is for guests."
  isGuest: Boolean
  "Whether the SSID is hidden."
  isHidden: Boolean
  "New encryption protocol, one of SSIDEncryptionProtocol's values as a string; null removes it."
  encryptionProtocol: String
  "The number of the network's VLAN its clients go on; null removes it."
  vlanID: Int
}

"""The SSID to delete."""
input DeleteSSIDInput {
  "The SSID's UUID."
  ssidUUID: UUID!
}

"""The result of createSSID."""
type CreateSSIDPayload {
  """The new SSID."""
  ssid: SSID!
}

"""The result of updateSSID."""
type UpdateSSIDPayload {
  """The SSID as changed."""
  ssid: SSID!
}

"""The result of deleteSSID."""
type DeleteSSIDPayload {
  """The UUID of the deleted SSID."""
  deletedSSIDUUID: UUID!
}
`,
  readModel: {
    SSID: {
      UUID: text('uuid'),
      ssid: text('ssid'),
      isEnabled: bool('is_enabled'),
      isGuest: bool('is_guest'),
      isHidden: bool('is_hidden'),
      // a value stored before the protocol was checked against Meter's list (any text then) reads as null, never off the enum
      encryptionProtocol: {
        kind: 'computed',
        type: 'string',
        nullable: true,
        sql: (s) => `(CASE WHEN ${s}.encryption_protocol IN (${SSID_ENCRYPTION_PROTOCOLS.map((p) => `'${p}'`).join(', ')}) THEN ${s}.encryption_protocol END)`,
      },
      vlan: vlanByNumber(
        (s) => `${s}.network_id`,
        (s) => `${s}.vlan_id`,
      ),
      networkUUID: { kind: 'computed', type: 'string', sql: (s) => networkUuidOf(`${s}.network_id`) },
    },
  },
  roots: {
    ssidsForNetwork: {
      table: 'networks',
      arguments: [
        { name: 'networkUUID', type: 'uuid' },
        {
          name: 'filter',
          type: 'input',
          fields: [
            { name: 'isGuest', type: 'boolean' },
            { name: 'isHidden', type: 'boolean' },
            // any name: one no SSID has matches none
            { name: 'ssid', type: 'text', check: () => true, rule: 'a name' },
          ],
        },
      ],
      where: inCompany('uuid', 'networkUUID'),
      list: FILTERED_SSIDS_OF_NETWORK,
    },
    ssid: { table: 'ssids', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  internalRoots: {
    // createSSID and updateSSID read the SSID back through it
    ssidByUUID: { table: 'ssids', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  mutations: {
    createSSID: async (s, caller, input) => ({ objects: { ssid: ssid((await s.ssids.create(caller, asInput(input))).UUID) } }),
    updateSSID: async (s, caller, input) => ({ objects: { ssid: ssid((await s.ssids.update(caller, asInput(input))).UUID) } }),
    deleteSSID: async (s, caller, input) => ({ values: { deletedSSIDUUID: (await s.ssids.delete(caller, asInput(input))).UUID } }),
  },
} satisfies GraphQLFeature<{ ssids: SsidService }>;
