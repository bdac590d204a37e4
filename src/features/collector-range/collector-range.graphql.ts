import { dateTime, inCompany, integer, isCompany, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, MutationInput, ObjectReference } from '../../engine/read.model.js';
import type { CollectorRangeService, RangeSettingsInput } from './collector-range.service.js';
import { SNMP_INFO_FIELDS, SNMP_INFO_SDL } from '../collector-target/collector-target.graphql.js';

const range = (uuid: string): ObjectReference => ({ root: 'collectorRangeByUUID', arg: uuid });

/** The GraphQL settings input as the service takes it: only the fields given (collectorKeyUUID: null included). */
function toSettings(input: MutationInput): RangeSettingsInput {
  const names = ['range', 'port', 'snmp', 'ratePerSecond', 'intervalSeconds', 'collectorKeyUUID'];
  return Object.fromEntries(names.filter((name) => input[name] !== undefined).map((name) => [name, input[name]])) as RangeSettingsInput;
}

/** The collector key's column of a range row, for its UUID and label. */
const keyColumn = (column: 'uuid' | 'label') => ({
  kind: 'computed' as const,
  type: 'string' as const,
  nullable: true,
  sql: (t: string) => `(SELECT crk.${column} FROM api_keys crk WHERE crk.id = ${t}.api_key_id)`,
});

/** Discovery ranges: the CIDR ranges a company's SNMP collectors sweep for agents (docs/collector.md#ranges-in-netgraph). */
export const COLLECTOR_RANGE_FEATURE = {
  sdl: /* GraphQL */ `
"""
An IPv4 range the company's SNMP collectors sweep for agents (netgraph's own;
docs/collector.md). What a sweep finds becomes a DiscoveredDevice. Its SNMP
community or keys are stored encrypted and never shown: only the company's
collectors (ingest keys) receive them.
"""
type CollectorRange {
  UUID: UUID!
  companyUUID: UUID!
  """The range in CIDR notation, at most a /16, e.g. 10.0.0.0/24."""
  range: String!
  """The agents' UDP port."""
  port: Int!
${SNMP_INFO_SDL}
  """Addresses a sweep starts per second, at most."""
  ratePerSecond: Int!
  """Seconds from the start of one sweep to the next."""
  intervalSeconds: Int!
  """The ingest key of the one collector that sweeps it; null: every collector of the company."""
  collectorKeyUUID: UUID
  """That key's label; null: every collector of the company."""
  collectorKeyLabel: String
  """Whether a collector sweeps it, or why none does (its one collector's key revoked or expired)."""
  status: CollectorRangeStatus!
  createdAt: DateTime!
  updatedAt: DateTime!
}

"""
Whether a collector sweeps a discovery range. A range given to one collector
is handed to no other when that collector's key stops working (its credentials
were given for that one): update it (another collectorKeyUUID, or null for
every collector) or delete it.
"""
enum CollectorRangeStatus {
  "Swept: by every collector of the company, or by its one collector, whose key is valid."
  ACTIVE
  "Swept by no one: its collector's key is revoked."
  KEY_REVOKED
  "Swept by no one: its collector's key has expired."
  KEY_EXPIRED
}

extend type Query {
  """One discovery range by its UUID."""
  collectorRange("The range's UUID." UUID: UUID!): CollectorRange

  """The company's discovery ranges, ordered by range, then UUID."""
  collectorRangesForCompany("The company's UUID." companyUUID: UUID!): [CollectorRange!]
}

extend type Mutation {
  """Adds a discovery range for the company's collectors (or the one named by its key) to sweep."""
  createCollectorRange("The new range." input: CreateCollectorRangeInput!): CreateCollectorRangePayload

  """Changes the given settings of a range; snmp replaces its credentials whole; collectorKeyUUID null hands it to every collector."""
  updateCollectorRange("The range and the settings to change." input: UpdateCollectorRangeInput!): UpdateCollectorRangePayload

  """Deletes a range; collectors stop sweeping it when they next fetch their ranges."""
  deleteCollectorRange("The range to delete." input: CollectorRangeInput!): DeleteCollectorRangePayload
}

"""A new discovery range."""
input CreateCollectorRangeInput {
  "IPv4 CIDR, at most a /16, no host bits set, e.g. 10.0.0.0/24."
  range: String!
  "Default 161."
  port: Int
  snmp: CollectorSNMPInput!
  "Addresses started per second, 1 to 10000; default 100."
  ratePerSecond: Int
  "Seconds from one sweep's start to the next, 60 to 604800; default 3600."
  intervalSeconds: Int
  "The ingest key (UUID) of the one collector that sweeps it; absent or null: every collector of the company."
  collectorKeyUUID: UUID
}

"""Changes to a discovery range: absent fields stay as they are."""
input UpdateCollectorRangeInput {
  rangeUUID: UUID!
  range: String
  port: Int
  "Replaces the credentials whole."
  snmp: CollectorSNMPInput
  ratePerSecond: Int
  intervalSeconds: Int
  "null: every collector of the company."
  collectorKeyUUID: UUID
}

"""A discovery range, by UUID."""
input CollectorRangeInput {
  rangeUUID: UUID!
}

"""The result of createCollectorRange."""
type CreateCollectorRangePayload {
  range: CollectorRange!
}

"""The result of updateCollectorRange."""
type UpdateCollectorRangePayload {
  range: CollectorRange!
}

"""The result of deleteCollectorRange."""
type DeleteCollectorRangePayload {
  deletedRangeUUID: UUID!
}
`,
  readModel: {
    CollectorRange: {
      UUID: text('uuid'),
      companyUUID: { kind: 'computed', type: 'string', sql: (t) => `(SELECT crc.uuid FROM companies crc WHERE crc.id = ${t}.company_id)` },
      range: text('cidr'),
      port: integer('port'),
      ...SNMP_INFO_FIELDS,
      // the sealed credentials column is mapped by no field
      ratePerSecond: integer('rate_per_second'),
      intervalSeconds: integer('interval_seconds'),
      collectorKeyUUID: keyColumn('uuid'),
      collectorKeyLabel: keyColumn('label'),
      // the service's statusOf, as SQL: compared with the request's time, as the key check is
      status: {
        kind: 'computed',
        type: 'string',
        sql: (t, context) =>
          `(CASE WHEN ${t}.api_key_id IS NULL THEN 'ACTIVE' ELSE (SELECT CASE WHEN crs.revoked_at IS NOT NULL THEN 'KEY_REVOKED' ` +
          `WHEN crs.expires_at IS NOT NULL AND crs.expires_at <= ${context.now()} THEN 'KEY_EXPIRED' ELSE 'ACTIVE' END FROM api_keys crs WHERE crs.id = ${t}.api_key_id) END)`,
      },
      createdAt: dateTime('created_at'),
      updatedAt: dateTime('updated_at'),
    },
  },
  roots: {
    collectorRange: { table: 'collector_ranges', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
    collectorRangesForCompany: {
      table: 'companies',
      arguments: uuidArgument('companyUUID'),
      where: isCompany('uuid', 'companyUUID'),
      list: { kind: 'list', table: 'collector_ranges', join: (t, co) => `${t}.company_id = ${co}.id`, orderBy: (t) => `${t}.cidr, ${t}.uuid` },
    },
  },
  internalRoots: {
    // the mutations read a range back through this
    collectorRangeByUUID: { table: 'collector_ranges', arguments: uuidArgument('UUID'), where: inCompany('uuid', 'UUID') },
  },
  mutations: {
    createCollectorRange: async (s, caller, input) => {
      const created = await s.collectorRanges.create(caller, toSettings(input));
      return { objects: { range: range(created.UUID) } };
    },
    updateCollectorRange: async (s, caller, input) => {
      const updated = await s.collectorRanges.update(caller, { rangeUUID: input['rangeUUID'] as string, ...toSettings(input) });
      return { objects: { range: range(updated.UUID) } };
    },
    deleteCollectorRange: async (s, caller, input) => ({
      values: { deletedRangeUUID: (await s.collectorRanges.delete(caller, { rangeUUID: input['rangeUUID'] as string })).UUID },
    }),
  },
} satisfies GraphQLFeature<{ collectorRanges: CollectorRangeService }>;
