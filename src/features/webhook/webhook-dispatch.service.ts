import { onlineSince as onlineSinceAt } from '../../kernel/online.js';
import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { EVENT_ALERTS, EVENT_ALERT_OF, auditPayload, clientCountPayload, eventPayload, expiringKeyPayload, serializePayload } from './webhook.alerts.js';
import type { DispatchEvent, Payload } from './webhook.alerts.js';
import { meterAuditPayload, meterEventPayload, meterPayloadOf } from './webhook.meter.js';
import type { PayloadFormat } from './webhook.meter.js';
import { createDispatchRepository } from './webhook-dispatch.repository.js';
import type { ActiveRule } from './webhook-dispatch.repository.js';
import { createOutboxRepository } from './webhook-outbox.repository.js';
import type { NewMessage } from './webhook-outbox.repository.js';

/** How many events or audit entries one dispatch transaction takes. */
export const DISPATCH_BATCH = 1_000;

/** A new webhook-id: `msg_` and 32 hex digits, the same on every attempt and replay. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** True when the rule asks for this alert on this network (a rule without a network takes all of the company's). */
function matches(rule: ActiveRule, alertType: string, companyId: number, networkId: number | null): boolean {
  return rule.alertType === alertType && rule.companyId === companyId && (rule.networkId === null || rule.networkId === networkId);
}

/** A payload in each body format, built only when an endpoint asks for that one. */
export type PayloadOf = (format: PayloadFormat) => Payload;

/** How long before its expiry an API key's API_KEY_EXPIRING alert fires. */
export const KEY_EXPIRY_WARNING_MS = 7 * 86_400_000;

/** An event as the alert EVENT_ALERT_OF names for its type; an event of another type matches no rule. */
function describeEvent(event: DispatchEvent): { alertType: string; networkId: number | null; payload: PayloadOf } {
  const alert = EVENT_ALERT_OF[event.type];
  if (alert === undefined) {
    // no rule names a type that is no alert (activeRules took EVENT_ALERTS only), so no body is ever asked for
    return { alertType: event.type, networkId: event.networkId, payload: () => { throw new Error('dispatch-event-without-alert'); } };
  }
  return { alertType: alert, networkId: event.networkId, payload: (format) => (format === 'meter' ? meterEventPayload(event, alert) : eventPayload(event, alert)) };
}

/**
 * One message per endpoint whose rules match (two rules of one endpoint, or
 * an endpoint that is also a receiver's target, give one message), with the
 * body in the endpoint's format.
 */
function messagesFor(rules: readonly ActiveRule[], alertType: string, companyId: number, networkId: number | null, payload: PayloadOf, createdAt: string): NewMessage[] {
  const endpoints = new Map(rules.filter((rule) => matches(rule, alertType, companyId, networkId)).map((rule) => [rule.endpointId, rule.format]));
  const bodies = new Map<PayloadFormat, string>();
  const bodyOf = (format: PayloadFormat): string => {
    const body = bodies.get(format) ?? serializePayload(payload(format));
    bodies.set(format, body);
    return body;
  };
  return [...endpoints].map(([endpointId, format]) => ({ uuid: newMessageId(), companyId, endpointId, alertType, payload: bodyOf(format), createdAt }));
}

/**
 * Turns what happened into outbox messages (none for EMAIL targets when
 * `canEmail` is false: no SMTP server is configured). Events and audit entries are
 * committed with the report or write that caused them; each dispatch takes a
 * batch of those not yet dispatched, inserts the messages their companies'
 * rules ask for and marks them dispatched, all in one transaction: a process
 * that dies in between leaves them undispatched, and nothing is lost or sent
 * twice. `now` is the clock messages are stamped with.
 */
export function createDispatcher(store: Store, now: () => Date, offlineAfterSeconds: number, canEmail = true) {
  type Repository = ReturnType<typeof createDispatchRepository>;
  /** One transaction: take a batch, queue what the companies' rules ask for, mark the batch dispatched. */
  async function dispatchBatch<T extends { id: number; companyId: number }>(
    table: 'events' | 'audit_log',
    take: (repository: Repository) => Promise<T[]>,
    alertTypes: readonly string[],
    describe: (row: T) => { alertType: string; networkId: number | null; payload: PayloadOf; writtenAt?: string },
    mark: (repository: Repository, ids: number[], at: string) => Promise<void>,
  ): Promise<number> {
    if (!(await createDispatchRepository(store, store.dialect).hasUndispatched(table))) return 0;
    return store.lockingTransaction(async (tx) => {
      const repository = createDispatchRepository(tx, store.dialect);
      const rows = await take(repository);
      if (rows.length === 0) return 0;
      const at = now().toISOString();
      const rules = await repository.activeRules(alertTypes, [...new Set(rows.map((row) => row.companyId))], canEmail);
      const messages = rows.flatMap((row) => {
        const { alertType, networkId, payload, writtenAt } = describe(row);
        // an endpoint created after the row was written but before this dispatch does not hear of it
        const written = writtenAt === undefined ? undefined : Date.parse(writtenAt);
        const hearing = written === undefined ? rules : rules.filter((rule) => rule.endpointCreatedMs <= written);
        return messagesFor(hearing, alertType, row.companyId, networkId, payload, at);
      });
      await createOutboxRepository(tx, store.dialect).insertMessages(messages);
      await mark(repository, rows.map((row) => row.id), at);
      return rows.length;
    });
  }

  return {
    /**
     * How many enabled EMAIL targets receive nothing because no SMTP server
     * is configured (0 when one is): their alerts are not queued at all,
     * rather than queued to fail and be retried for days.
     */
    async unsentEmailTargets(): Promise<number> {
      return canEmail ? 0 : createDispatchRepository(store, store.dialect).countEmailChannels();
    },

    /** Dispatches one batch of events; returns how many events it took (DISPATCH_BATCH: call again). */
    dispatchEvents: () =>
      dispatchBatch(
        'events',
        (repository) => repository.takeEvents(DISPATCH_BATCH),
        EVENT_ALERTS,
        describeEvent,
        (repository, ids, at) => repository.markEventsDispatched(ids, at),
      ),

    /** Dispatches one batch of audit entries as AUDIT_LOG messages; returns how many entries it took. */
    dispatchAudit: () =>
      dispatchBatch(
        'audit_log',
        (repository) => repository.takeAuditEntries(DISPATCH_BATCH),
        ['AUDIT_LOG'],
        (entry) => ({ alertType: 'AUDIT_LOG', networkId: null, payload: (format) => (format === 'meter' ? meterAuditPayload(entry) : auditPayload(entry)), writtenAt: entry.occurredAt }),
        (repository, ids, at) => repository.markAuditDispatched(ids, at),
      ),

    /**
     * Queues API_KEY_EXPIRING for each unrevoked key of a company with such
     * a rule whose expiry is in (now, now + 7 days], once per key: the key is
     * claimed by a conditional update (`expiry_alerted_at` from NULL) in the
     * transaction that queues its messages, so of several processes exactly
     * one queues them. A key of a company without a rule is not claimed (a
     * rule made later still hears of it). Returns how many keys it claimed.
     */
    async checkExpiringKeys(): Promise<number> {
      return store.lockingTransaction(async (tx) => {
        const repository = createDispatchRepository(tx, store.dialect);
        const rules = await repository.activeRules(['API_KEY_EXPIRING'], undefined, canEmail);
        if (rules.length === 0) return 0;
        const at = now();
        const until = new Date(at.getTime() + KEY_EXPIRY_WARNING_MS).toISOString();
        const keys = await repository.claimExpiringKeys([...new Set(rules.map((rule) => rule.companyId))], at.toISOString(), until);
        const messages = keys.flatMap((key) =>
          messagesFor(rules, 'API_KEY_EXPIRING', key.companyId, null, (format) => {
            const standard = expiringKeyPayload(key, at.toISOString());
            return format === 'meter' ? meterPayloadOf('API_KEY_EXPIRING', standard) : standard;
          }, at.toISOString()),
        );
        await createOutboxRepository(tx, store.dialect).insertMessages(messages);
        return keys.length;
      });
    },

    /**
     * Compares each network's connected clients with the CLIENT_COUNT_ABOVE
     * rules that cover it and queues a message for each upward crossing
     * (once: the rule's state per network says it was above at the last
     * check, until the count is at or below the threshold again). Returns
     * how many messages it queued.
     */
    async checkClientCounts(): Promise<number> {
      return store.lockingTransaction(async (tx) => {
        const repository = createDispatchRepository(tx, store.dialect);
        const rules = await repository.activeRules(['CLIENT_COUNT_ABOVE']);
        if (rules.length === 0) return 0;
        const at = now();
        const onlineSince = onlineSinceAt(at.getTime(), offlineAfterSeconds * 1000);
        const counts = await repository.clientCounts([...new Set(rules.map((rule) => rule.companyId))], onlineSince);
        const messages: NewMessage[] = [];
        for (const rule of rules) {
          for (const network of counts.filter((count) => matches(rule, 'CLIENT_COUNT_ABOVE', count.companyId, count.networkId))) {
            const threshold = rule.threshold ?? 0;
            if (!(await repository.crossAbove(rule.id, network.networkId, network.clients > threshold))) continue;
            const standard = clientCountPayload(network, network.clients, threshold, at.toISOString());
            const body = serializePayload(rule.format === 'meter' ? meterPayloadOf('CLIENT_COUNT_ABOVE', standard) : standard);
            messages.push({ uuid: newMessageId(), companyId: rule.companyId, endpointId: rule.endpointId, alertType: 'CLIENT_COUNT_ABOVE', payload: body, createdAt: at.toISOString() });
          }
        }
        await createOutboxRepository(tx, store.dialect).insertMessages(messages);
        return messages.length;
      });
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
