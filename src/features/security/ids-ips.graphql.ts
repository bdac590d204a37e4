import { inNetworkOfCompany, networkUuidOf, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { IdsIpsService } from './ids-ips.service.js';

/** IDS/IPS: a network's intrusion detection (and prevention) mode, Network.idsIPSConfig (docs/security.md). */
export const IDS_IPS_FEATURE = {
  sdl: /* GraphQL */ `
"""How a network's intrusion detection works."""
enum IDSIPSMode {
  """Detection only: matching traffic is reported (idsEvents), not stopped."""
  IDS
  """Detection and prevention: matching traffic is stopped and reported."""
  IPS
}

"""A network's IDS/IPS configuration (setIDSIPSConfig)."""
type IDSIPSConfig {
  UUID: UUID!
  networkUUID: UUID!
  mode: IDSIPSMode!
}

extend type Network {
  """The network's IDS/IPS configuration; null when none was ever set (or it was deleted): not configured."""
  idsIPSConfig: IDSIPSConfig
}

extend type Mutation {
  """
  Sets a network's IDS/IPS mode, configuring IDS/IPS if it was not. The
  configuration keeps its UUID when its mode changes.
  """
  setIDSIPSConfig("The network and its mode." input: SetIDSIPSConfigInput!): SetIDSIPSConfigPayload

  """Removes a network's IDS/IPS configuration: idsIPSConfig reads null again."""
  deleteIDSIPSConfig("The network." input: DeleteIDSIPSConfigInput!): DeleteIDSIPSConfigPayload
}

"""A network's IDS/IPS mode."""
input SetIDSIPSConfigInput {
  "The network."
  networkUUID: UUID!
  "The mode."
  mode: IDSIPSMode!
}

"""The network whose IDS/IPS configuration to remove."""
input DeleteIDSIPSConfigInput {
  "The network."
  networkUUID: UUID!
}

"""The result of setIDSIPSConfig."""
type SetIDSIPSConfigPayload {
  """The configuration as set."""
  idsIPSConfig: IDSIPSConfig!
}

"""The result of deleteIDSIPSConfig."""
type DeleteIDSIPSConfigPayload {
  """The UUID of the removed configuration; null when the network had none."""
  deletedIDSIPSConfigUUID: UUID
}
`,
  readModel: {
    Network: {
      idsIPSConfig: { kind: 'object', table: 'ids_ips_configs', join: (c, n) => `${c}.network_id = ${n}.id` },
    },
    IDSIPSConfig: {
      UUID: text('uuid'),
      networkUUID: { kind: 'computed', type: 'string', sql: (c) => networkUuidOf(`${c}.network_id`) },
      mode: text('mode'),
    },
  },
  roots: {},
  internalRoots: {
    // setIDSIPSConfig reads the configuration back through it
    idsIPSConfigByUUID: { table: 'ids_ips_configs', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  mutations: {
    setIDSIPSConfig: async (s, caller, input) => ({
      objects: { idsIPSConfig: { root: 'idsIPSConfigByUUID', arg: (await s.idsIps.set(caller, asInput(input))).UUID } },
    }),
    deleteIDSIPSConfig: async (s, caller, input) => ({ values: { deletedIDSIPSConfigUUID: (await s.idsIps.delete(caller, asInput(input)))?.UUID ?? null } }),
  },
} satisfies GraphQLFeature<{ idsIps: IdsIpsService }>;
