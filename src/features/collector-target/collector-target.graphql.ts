import { dateTime, inCompany, integer, isCompany, networkUuidOf, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, MutationInput, ObjectReference } from '../../engine/read.model.js';
import type { CollectorTargetService, TargetSettingsInput } from './collector-target.service.js';

const target = (uuid: string): ObjectReference => ({ root: 'collectorTargetByUUID', arg: uuid });

/** The GraphQL settings input as the service takes it: only the fields given. */
function toSettings(input: MutationInput): TargetSettingsInput {
  const given = (name: string) => (input[name] === undefined ? {} : { [name]: input[name] });
  return { ...given('host'), ...given('port'), ...given('snmp'), ...given('intervalSeconds'), ...given('uplinks'), ...given('uplinkProbes') } as TargetSettingsInput;
}

/** The fields of stored SNMP credentials' kind, a target's and a discovery range's alike (never a community or key). */
export const SNMP_INFO_SDL = /* GraphQL */ `
  """2c or 3."""
  snmpVersion: String!
  """SNMPv3: the USM user; null for 2c."""
  snmpUser: String
  """SNMPv3: authPriv or authNoPriv; null for 2c."""
  snmpLevel: String
  """SNMPv3: sha, sha224, sha256, sha384 or sha512; null for 2c."""
  authProtocol: String
  """SNMPv3 authPriv: aes, aes256b or aes256r; null otherwise."""
  privProtocol: String`;

/** The read model of those fields. */
export const SNMP_INFO_FIELDS = {
  snmpVersion: text('snmp_version'),
  snmpUser: text('snmp_user', true),
  snmpLevel: text('snmp_level', true),
  authProtocol: text('auth_protocol', true),
  privProtocol: text('priv_protocol', true),
};

/** Collector targets: the devices a company's SNMP collectors poll (docs/collector.md). */
export const COLLECTOR_TARGET_FEATURE = {
  sdl: /* GraphQL */ `
"""
A device the company's SNMP collectors poll (netgraph's own; docs/collector.md).
Its SNMP community or keys are stored encrypted and never shown: only the
company's collectors (ingest keys) receive them.
"""
type CollectorTarget {
  UUID: UUID!
  companyUUID: UUID!
  """The virtual device whose assigned hardware the collector reports as."""
  virtualDeviceUUID: UUID!
  networkUUID: UUID!
  """The agent's address: an IP address or a host name."""
  host: String!
  """The agent's UDP port."""
  port: Int!
${SNMP_INFO_SDL}
  """Seconds from the start of one poll to the next."""
  intervalSeconds: Int!
  """Interface names (ifName, else ifDescr) reported as uplinks."""
  uplinks: [String!]!
  """Uplink probes as <uplink>=<host>:<port>, e.g. eth0=198.51.100.1:443."""
  uplinkProbes: [String!]!
  createdAt: DateTime!
  updatedAt: DateTime!
}

extend type Query {
  """One collector target by its UUID."""
  collectorTarget("The target's UUID." UUID: UUID!): CollectorTarget

  """The company's collector targets, ordered by host, then UUID."""
  collectorTargetsForCompany("The company's UUID." companyUUID: UUID!): [CollectorTarget!]
}

extend type Mutation {
  """Adds a collector target for a virtual device with hardware assigned (one per device)."""
  createCollectorTarget("The new target." input: CreateCollectorTargetInput!): CreateCollectorTargetPayload

  """Changes the given settings of a target; snmp replaces its credentials whole."""
  updateCollectorTarget("The target and the settings to change." input: UpdateCollectorTargetInput!): UpdateCollectorTargetPayload

  """Deletes a target; collectors stop polling it when they next fetch their targets."""
  deleteCollectorTarget("The target to delete." input: CollectorTargetInput!): DeleteCollectorTargetPayload
}

"""SNMP credentials: version 2c with community, or version 3 with user, authKey and (authPriv) privKey. Secrets are stored encrypted and never shown."""
input CollectorSNMPInput {
  "2c or 3."
  version: String!
  "2c: the community."
  community: String
  "3: the USM user."
  user: String
  "3: authPriv (default) or authNoPriv."
  level: String
  "3: sha, sha224, sha256 (default), sha384 or sha512."
  authProtocol: String
  "3: the authentication password, 8 to 255 characters."
  authKey: String
  "3 authPriv: aes (default), aes256b or aes256r."
  privProtocol: String
  "3 authPriv: the privacy password, 8 to 255 characters."
  privKey: String
}

"""A new collector target."""
input CreateCollectorTargetInput {
  virtualDeviceUUID: UUID!
  host: String!
  "Default 161."
  port: Int
  snmp: CollectorSNMPInput!
  "10 to 86400; default 60."
  intervalSeconds: Int
  uplinks: [String!]
  "<uplink>=<host>:<port>, the uplink one of uplinks."
  uplinkProbes: [String!]
}

"""Changes to a collector target: absent fields stay as they are."""
input UpdateCollectorTargetInput {
  targetUUID: UUID!
  host: String
  port: Int
  "Replaces the credentials whole."
  snmp: CollectorSNMPInput
  intervalSeconds: Int
  uplinks: [String!]
  uplinkProbes: [String!]
}

"""A collector target, by UUID."""
input CollectorTargetInput {
  targetUUID: UUID!
}

"""The result of createCollectorTarget."""
type CreateCollectorTargetPayload {
  target: CollectorTarget!
}

"""The result of updateCollectorTarget."""
type UpdateCollectorTargetPayload {
  target: CollectorTarget!
}

"""The result of deleteCollectorTarget."""
type DeleteCollectorTargetPayload {
  deletedTargetUUID: UUID!
}
`,
  readModel: {
    CollectorTarget: {
      UUID: text('uuid'),
      companyUUID: { kind: 'computed', type: 'string', sql: (t) => `(SELECT ctc.uuid FROM companies ctc WHERE ctc.id = ${t}.company_id)` },
      virtualDeviceUUID: { kind: 'computed', type: 'string', sql: (t) => `(SELECT ctv.uuid FROM virtual_devices ctv WHERE ctv.id = ${t}.virtual_device_id)` },
      networkUUID: { kind: 'computed', type: 'string', sql: (t) => networkUuidOf(`(SELECT ctn.network_id FROM virtual_devices ctn WHERE ctn.id = ${t}.virtual_device_id)`) },
      host: text('host'),
      port: integer('port'),
      ...SNMP_INFO_FIELDS,
      intervalSeconds: integer('interval_seconds'),
      // JSON lists of strings as stored; the sealed credentials column is mapped by no field
      uplinks: { kind: 'computed', type: 'json', sql: (t) => `${t}.uplinks` },
      uplinkProbes: { kind: 'computed', type: 'json', sql: (t) => `${t}.uplink_probes` },
      createdAt: dateTime('created_at'),
      updatedAt: dateTime('updated_at'),
    },
  },
  roots: {
    collectorTarget: { table: 'collector_targets', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
    collectorTargetsForCompany: {
      table: 'companies',
      arguments: uuidArgument('companyUUID'),
      where: isCompany('uuid', 'companyUUID'),
      list: { kind: 'list', table: 'collector_targets', join: (t, co) => `${t}.company_id = ${co}.id`, orderBy: (t) => `${t}.host, ${t}.uuid` },
    },
  },
  internalRoots: {
    // the mutations read a target back through this
    collectorTargetByUUID: { table: 'collector_targets', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
  },
  mutations: {
    createCollectorTarget: async (s, caller, input) => {
      const created = await s.collectorTargets.create(caller, { virtualDeviceUUID: input['virtualDeviceUUID'] as string, ...toSettings(input) });
      return { objects: { target: target(created.UUID) } };
    },
    updateCollectorTarget: async (s, caller, input) => {
      const updated = await s.collectorTargets.update(caller, { targetUUID: input['targetUUID'] as string, ...toSettings(input) });
      return { objects: { target: target(updated.UUID) } };
    },
    deleteCollectorTarget: async (s, caller, input) => ({
      values: { deletedTargetUUID: (await s.collectorTargets.delete(caller, { targetUUID: input['targetUUID'] as string })).UUID },
    }),
  },
} satisfies GraphQLFeature<{ collectorTargets: CollectorTargetService }>;
