import { TEXT_MAX } from '../../kernel/rules.js';
import { bool, inCompany, inNetworkOfCompany, integer, networkUuidOf, text, uuidArgument } from '../../engine/read.model.js';
import type { GraphQLFeature, ListMapping, ObjectReference } from '../../engine/read.model.js';
import { asInput } from '../../platform/write/write.rules.js';
import type { FirewallRuleService } from './firewall-rule.service.js';

const rule = (uuid: string): ObjectReference => ({ root: 'firewallRuleByUUID', arg: uuid });

/** A network's firewall rules, in the order they apply: by priority (unique per network). */
const RULES_OF_NETWORK: ListMapping = { kind: 'list', table: 'firewall_rules', join: (r, n) => `${r}.network_id = ${n}.id`, orderBy: (r) => `${r}.priority` };

/** Firewall rules: a network's ordered PERMIT/DENY rules and their writes (docs/security.md). */
export const FIREWALL_RULE_FEATURE = {
  sdl: /* GraphQL */ `
"""What a firewall rule does with the traffic it matches."""
enum FirewallRuleAction {
  PERMIT
  DENY
}

"""A firewall rule of a network. Rules apply in priority order, lower first."""
type FirewallRule {
  UUID: UUID!
  name: String!
  """Free text; null when not set."""
  description: String
  action: FirewallRuleAction!
  """A disabled rule is kept but matches nothing."""
  isEnabled: Boolean!
  """Source network in CIDR form (IPv4 or IPv6); null matches any source."""
  srcPrefix: String
  """Destination network in CIDR form (IPv4 or IPv6); null matches any destination."""
  dstPrefix: String
  """1 to 1000000, unique within the network; lower applies first."""
  priority: Int!
  networkUUID: UUID!
}

extend type Query {
  """The network's firewall rules, ordered by priority (the order they apply)."""
  firewallRulesForNetwork("The network's UUID." networkUUID: UUID!): [FirewallRule!]
}

extend type Mutation {
  """Adds a firewall rule to a network; without a priority it goes last (one more than the largest)."""
  createFirewallRule("The new rule." input: CreateFirewallRuleInput!): CreateFirewallRulePayload

  """
  Changes the given fields of a firewall rule. A priority another rule of the
  network has is CONFLICT: move that rule first.
  """
  updateFirewallRule("The rule and the fields to change." input: UpdateFirewallRuleInput!): UpdateFirewallRulePayload

  """Enables or disables a firewall rule (updateFirewallRule with isEnabled only)."""
  setFirewallRuleEnabled("The rule and whether it is enabled." input: SetFirewallRuleEnabledInput!): UpdateFirewallRulePayload

  """Deletes a firewall rule."""
  deleteFirewallRule("The rule to delete." input: DeleteFirewallRuleInput!): DeleteFirewallRulePayload
}

"""A new firewall rule."""
input CreateFirewallRuleInput {
  "The network to add it to."
  networkUUID: UUID!
  "Rule name, 1 to ${TEXT_MAX.firewallRuleName} characters, not blank."
  name: String!
  "Free text, up to ${TEXT_MAX.description} characters, or null."
  description: String
  "What the rule does with matching traffic."
  action: FirewallRuleAction!
  "Whether the rule is enabled."
  isEnabled: Boolean! = true
  "Source network in CIDR form with no host bits set (10.0.0.0/8, 2001:db8::/32); null: any."
  srcPrefix: String
  "Destination network in CIDR form with no host bits set; null: any."
  dstPrefix: String
  "1 to 1000000, unused on the network; absent: after the network's last rule."
  priority: Int
}

"""Changes to a firewall rule: absent fields stay as they are."""
input UpdateFirewallRuleInput {
  "The rule to change."
  firewallRuleUUID: UUID!
  "New name, 1 to ${TEXT_MAX.firewallRuleName} characters, not blank."
  name: String
  "New description, up to ${TEXT_MAX.description} characters; null removes it."
  description: String
  "New action."
  action: FirewallRuleAction
  "Whether the rule is enabled."
  isEnabled: Boolean
  "New source network in CIDR form; null: any."
  srcPrefix: String
  "New destination network in CIDR form; null: any."
  dstPrefix: String
  "New priority, 1 to 1000000, unused on the network."
  priority: Int
}

"""Whether a firewall rule is enabled."""
input SetFirewallRuleEnabledInput {
  "The rule."
  firewallRuleUUID: UUID!
  "True to enable it, false to disable it."
  isEnabled: Boolean!
}

"""The firewall rule to delete."""
input DeleteFirewallRuleInput {
  "The rule's UUID."
  firewallRuleUUID: UUID!
}

"""The result of createFirewallRule."""
type CreateFirewallRulePayload {
  """The new rule."""
  firewallRule: FirewallRule!
}

"""The result of updateFirewallRule and setFirewallRuleEnabled."""
type UpdateFirewallRulePayload {
  """The rule as changed."""
  firewallRule: FirewallRule!
}

"""The result of deleteFirewallRule."""
type DeleteFirewallRulePayload {
  """The UUID of the deleted rule."""
  deletedFirewallRuleUUID: UUID!
}
`,
  readModel: {
    FirewallRule: {
      UUID: text('uuid'),
      name: text('name'),
      description: text('description', true),
      action: text('action'),
      isEnabled: bool('is_enabled'),
      srcPrefix: text('src_prefix', true),
      dstPrefix: text('dst_prefix', true),
      priority: integer('priority'),
      networkUUID: { kind: 'computed', type: 'string', sql: (r) => networkUuidOf(`${r}.network_id`) },
    },
  },
  roots: {
    firewallRulesForNetwork: { table: 'networks', arguments: uuidArgument('networkUUID'), where: inCompany('uuid', 'networkUUID'), list: RULES_OF_NETWORK },
  },
  internalRoots: {
    // the rule writes read the rule back through it
    firewallRuleByUUID: { table: 'firewall_rules', arguments: uuidArgument('UUID'), where: inNetworkOfCompany('uuid', 'UUID') },
  },
  mutations: {
    createFirewallRule: async (s, caller, input) => ({ objects: { firewallRule: rule((await s.firewallRules.create(caller, asInput(input))).UUID) } }),
    updateFirewallRule: async (s, caller, input) => ({ objects: { firewallRule: rule((await s.firewallRules.update(caller, asInput(input))).UUID) } }),
    setFirewallRuleEnabled: async (s, caller, input) => ({ objects: { firewallRule: rule((await s.firewallRules.update(caller, asInput(input))).UUID) } }),
    deleteFirewallRule: async (s, caller, input) => ({ values: { deletedFirewallRuleUUID: (await s.firewallRules.delete(caller, asInput(input))).UUID } }),
  },
} satisfies GraphQLFeature<{ firewallRules: FirewallRuleService }>;
