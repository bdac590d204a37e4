import { bool, isCompany, text, uuidArgument } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { CompanyWriteService } from './company.service.js';
import type { ArgumentValues, GraphQLFeature, ListMapping, RootArgument } from '../../engine/read.model.js';
import { SLUG_MAX_LENGTH, SLUG_RULE, isSlug } from './company.rules.js';

/** Ordered by label, then UUID, as the schema says. */
const NETWORKS_OF_COMPANY: ListMapping = {
  kind: 'list',
  table: 'networks',
  join: (n, c) => `${n}.company_id = ${c}.id`,
  orderBy: (n) => `${n}.label, ${n}.uuid`,
};

/**
 * networksForCompany's networks: the company's, only those of
 * filter.networkUUIDs when that is a non-empty list. The list travels as one
 * comma-joined text parameter matched with LIKE (a UUID holds no comma, `%`
 * or `_`), not as a list parameter, which would cost the statement its batch
 * form (docs/ARCHITECTURE.md) for every call, filter or not.
 */
const FILTERED_NETWORKS_OF_COMPANY: ListMapping = {
  ...NETWORKS_OF_COMPANY,
  join: (n, c, context) => {
    if (!context.mayBeGiven('filter')) return NETWORKS_OF_COMPANY.join(n, c, context);
    const uuids = (args: ArgumentValues) => (args.filter as { networkUUIDs?: readonly string[] | null } | null | undefined)?.networkUUIDs ?? [];
    // two parameters, each placed once (SQLite's are positional)
    const all = context.value('boolean', (args) => uuids(args).length === 0);
    const list = context.value('text', (args) => uuids(args).join(','));
    return `${n}.company_id = ${c}.id AND (${all} OR (',' || ${list} || ',') LIKE ('%,' || ${n}.uuid || ',%'))`;
  },
};

/** A slug argument (a company's or a network's): checked by the slug rule before the database. */
export const slugArgument = (name: string): RootArgument => ({ name, type: 'text', check: isSlug, rule: SLUG_RULE });

/** Companies: the Company type and the reads that start from a company. Companies are written by the CLI and the import only. */
export const COMPANY_FEATURE = {
  sdl: /* GraphQL */ `
"""A customer account. An API key belongs to exactly one company."""
type Company {
  uuid: UUID!
  name: String!
  """Short, URL-safe name, unique across the service."""
  slug: String!
  """Whether the company is a customer (true unless set otherwise by import, \`netgraph company create --customer false\` or updateCompany)."""
  isCustomer: Boolean!
  """The company's website domain, e.g. \`acme.example\`; null when not set."""
  websiteDomain: String
  """Ordered by label, then UUID."""
  networks: [Network!]!
}

extend type Mutation {
  """Changes the given fields of the API key's own company (a read_write key)."""
  updateCompany("The fields to change." input: UpdateCompanyInput!): UpdateCompanyPayload
}

"""Changes to the key's own company: absent fields stay as they are."""
input UpdateCompanyInput {
  "Whether the company is a customer."
  isCustomer: Boolean
  "The company's website domain, e.g. \`acme.example\` (lowercase, no scheme or path); null removes it."
  websiteDomain: String
}

"""Which of a company's networks networksForCompany lists."""
input CompanyNetworksFilterInput {
  "Only the networks with these UUIDs (others, and other companies' UUIDs, are left out); absent, null or empty: every network."
  networkUUIDs: [UUID!]
}

"""The result of updateCompany."""
type UpdateCompanyPayload {
  """The company as changed."""
  company: Company!
}

extend type Query {
  """The company's networks, ordered by label, then UUID."""
  networksForCompany(
    "The company's slug: lowercase letters, digits and single hyphens, 1 to ${SLUG_MAX_LENGTH} characters; anything else is BAD_USER_INPUT."
    companySlug: String!
    "Only some of the networks."
    filter: CompanyNetworksFilterInput
  ): [Network!]

  """One company with everything below it."""
  companyBySlug(
    "The company's slug: lowercase letters, digits and single hyphens, 1 to ${SLUG_MAX_LENGTH} characters; anything else is BAD_USER_INPUT."
    slug: String!
  ): Company
}
`,
  readModel: {
    Company: {
      uuid: text('uuid'),
      name: text('name'),
      slug: text('slug'),
      isCustomer: bool('is_customer'),
      websiteDomain: text('website_domain', true),
      networks: NETWORKS_OF_COMPANY,
    },
  },
  roots: {
    networksForCompany: {
      table: 'companies',
      arguments: [slugArgument('companySlug'), { name: 'filter', type: 'input', fields: [{ name: 'networkUUIDs', type: 'uuidList' }] }],
      where: isCompany('slug', 'companySlug'),
      list: FILTERED_NETWORKS_OF_COMPANY,
    },
    companyBySlug: { table: 'companies', arguments: [slugArgument('slug')], where: isCompany('slug', 'slug') },
  },
  internalRoots: {
    // updateCompany reads the company back through it
    companyByUUID: { table: 'companies', arguments: uuidArgument('UUID'), where: isCompany('uuid', 'UUID') },
  },
  mutations: {
    updateCompany: async (s, caller, input) => ({
      objects: { company: { root: 'companyByUUID', arg: (await s.companyWrites.update(caller, asInput(input))).uuid } },
    }),
  },
} satisfies GraphQLFeature<{ companyWrites: CompanyWriteService }>;
