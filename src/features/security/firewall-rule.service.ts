import { TEXT_MAX } from '../../kernel/rules.js';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/caller.js';
import { buildChange } from '../../platform/audit/audit.service.js';
import { isGiven, notFound, optionalText, requireBoolean, requireOneOf, requireSomeChange, requireText, requireUuid } from '../../platform/write/write.rules.js';
import type { WriteService } from '../../platform/write/write.service.js';
import { toCanonicalPrefix } from './firewall-rule.prefix.js';
import { createFirewallRuleRepository } from './firewall-rule.repository.js';
import type { FirewallRuleRow, FirewallRuleValues } from './firewall-rule.repository.js';
import { getCallersNetwork } from '../network/network.access.js';

/** The actions of a firewall rule. */
export const FIREWALL_ACTIONS = ['PERMIT', 'DENY'] as const;

/** The largest priority a rule may have. */
export const MAX_FIREWALL_PRIORITY = 1_000_000;

/** The fields of a firewall rule as the API takes them. */
export interface FirewallRuleFields {
  readonly name: string;
  readonly description?: string | null;
  readonly action: string;
  readonly isEnabled?: boolean;
  readonly srcPrefix?: string | null;
  readonly dstPrefix?: string | null;
  readonly priority?: number | null;
}

/** A firewall rule as the API and the audit log show it. */
export interface FirewallRuleSnapshot extends FirewallRuleValues {
  readonly UUID: string;
  readonly networkUUID: string;
}

const UPDATABLE = ['name', 'description', 'action', 'isEnabled', 'srcPrefix', 'dstPrefix', 'priority'] as const;

function prefix(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  const canonical = typeof value === 'string' ? toCanonicalPrefix(value) : undefined;
  if (canonical !== undefined) return canonical;
  throw new AppError('BAD_USER_INPUT', `${field} must be an IPv4 or IPv6 network in CIDR form with no host bits set, e.g. 10.0.0.0/8 or 2001:db8::/32; null matches any address.`, {
    field,
  });
}

function priorityOf(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_FIREWALL_PRIORITY) return value;
  throw new AppError('BAD_USER_INPUT', `priority must be a whole number from 1 to ${MAX_FIREWALL_PRIORITY}.`, { field: 'priority' });
}

/** Checks a rule's fields but its priority, which the caller has checked. */
function checkFields(input: Partial<FirewallRuleFields>, priority: number): FirewallRuleValues {
  return {
    name: requireText(input.name, 'name', TEXT_MAX.firewallRuleName),
    description: optionalText(input.description, 'description', TEXT_MAX.description),
    action: requireOneOf(input.action, 'action', FIREWALL_ACTIONS),
    isEnabled: input.isEnabled === undefined ? true : requireBoolean(input.isEnabled, 'isEnabled'),
    srcPrefix: prefix(input.srcPrefix, 'srcPrefix'),
    dstPrefix: prefix(input.dstPrefix, 'dstPrefix'),
    priority,
  };
}

const priorityConflict = (priority: number) =>
  new AppError('CONFLICT', `Another rule of this network has priority ${priority}: pick another, or move that rule first.`, { field: 'priority' });

/**
 * A network's firewall rules: create, update (enable and disable too),
 * delete. Priorities are unique per network (lower first); a rule created
 * without one goes last. Each is one audited transaction.
 */
export function createFirewallRuleService(writes: WriteService) {
  return {
    /** Adds a rule to a network; without a priority, one more than the network's largest. */
    async create(caller: Caller, input: { networkUUID: string } & FirewallRuleFields): Promise<FirewallRuleSnapshot> {
      return writes.run(caller, async (tx) => {
        const network = await getCallersNetwork(tx, caller, input.networkUUID);
        const rules = createFirewallRuleRepository(tx);
        const given = input.priority === undefined || input.priority === null ? undefined : priorityOf(input.priority);
        const values = checkFields(input, given ?? priorityOf((await rules.maxPriority(network.id)) + 1));
        if (await rules.isPriorityTaken(network.id, values.priority)) throw priorityConflict(values.priority);
        const uuid = randomUUID();
        await writes.unique(rules.insert(network.id, uuid, values), () => priorityConflict(values.priority));
        const created = { UUID: uuid, networkUUID: network.uuid, ...values };
        return { result: created, change: buildChange('firewall_rule.create', uuid, null, created) };
      });
    },

    /** Changes the given fields of a rule; absent fields stay, null clears description and the prefixes. */
    async update(caller: Caller, input: { firewallRuleUUID: string } & Partial<FirewallRuleFields>): Promise<FirewallRuleSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.firewallRuleUUID, 'firewallRuleUUID');
        requireSomeChange(input, UPDATABLE);
        const rules = createFirewallRuleRepository(tx);
        const row = await rules.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('firewallRuleUUID');
        const pick = <K extends (typeof UPDATABLE)[number]>(field: K) => (isGiven(input, field) ? input[field] : row[field]);
        const after = checkFields(
          { name: pick('name'), description: pick('description'), action: pick('action'), isEnabled: pick('isEnabled'), srcPrefix: pick('srcPrefix'), dstPrefix: pick('dstPrefix') },
          isGiven(input, 'priority') ? priorityOf(input.priority) : row.priority,
        );
        if (await rules.isPriorityTaken(row.networkId, after.priority, row.id)) throw priorityConflict(after.priority);
        await writes.unique(rules.update(row.id, after), () => priorityConflict(after.priority));
        const snapshot = { UUID: uuid, networkUUID: row.networkUuid, ...after };
        return { result: snapshot, change: buildChange('firewall_rule.update', uuid, toSnapshot(row), snapshot) };
      });
    },

    /** Deletes a rule. */
    async delete(caller: Caller, input: { firewallRuleUUID: string }): Promise<FirewallRuleSnapshot> {
      return writes.run(caller, async (tx) => {
        const uuid = requireUuid(input.firewallRuleUUID, 'firewallRuleUUID');
        const rules = createFirewallRuleRepository(tx);
        const row = await rules.findByUuid(caller.companyId, uuid);
        if (!row) throw notFound('firewallRuleUUID');
        await rules.delete(row.id);
        const before = toSnapshot(row);
        return { result: before, change: buildChange('firewall_rule.delete', uuid, before, null) };
      });
    },
  };
}

export type FirewallRuleService = ReturnType<typeof createFirewallRuleService>;

function toSnapshot(row: FirewallRuleRow): FirewallRuleSnapshot {
  const { name, description, action, isEnabled, srcPrefix, dstPrefix, priority } = row;
  return { UUID: row.uuid, networkUUID: row.networkUuid, name, description, action, isEnabled, srcPrefix, dstPrefix, priority };
}
