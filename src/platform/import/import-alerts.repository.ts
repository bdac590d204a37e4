import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { insertEmailReceiver, listEmailReceivers } from '../../features/alert/alert.service.js';
import type { ImportAlertReceiver } from './import.alerts.js';

/**
 * Inserts a company's imported alert receivers through the alert service's
 * insertEmailReceiver, in the import's transaction: each EMAIL target gets
 * its own email channel row of the outbox, as createAlertReceiver makes it.
 */
export async function insertAlertReceivers(trx: Kysely<Database>, companyId: number, receivers: readonly ImportAlertReceiver[], networkIds: ReadonlyMap<string, number>, now: string): Promise<void> {
  for (const receiver of receivers) {
    const rules = receiver.rules.flatMap((rule): { alertType: string; networkId: number | null }[] =>
      rule.networkUUIDs === undefined ? [{ alertType: rule.alert, networkId: null }] : rule.networkUUIDs.map((uuid) => ({ alertType: rule.alert, networkId: networkIds.get(uuid) as number })),
    );
    const emailAddresses = receiver.targets.map((target) => target.emailAddress);
    await insertEmailReceiver({ db: trx }, companyId, { uuid: receiver.UUID ?? randomUUID(), label: receiver.label, emailAddresses, rules }, now);
  }
}

/** A company's alert receivers in the import format, by label: their EMAIL targets and rules (rules grouped per alert). */
export async function readAlertReceivers(db: Kysely<Database>, companyId: number): Promise<ImportAlertReceiver[]> {
  return (await listEmailReceivers({ db }, companyId)).map((receiver) => {
    const rules = new Map<string, string[] | undefined>();
    for (const rule of receiver.rules) {
      const networks = rules.has(rule.alertType) ? rules.get(rule.alertType) : [];
      rules.set(rule.alertType, rule.networkUuid === null || networks === undefined ? undefined : [...networks, rule.networkUuid]);
    }
    const targets = receiver.emailAddresses.map((emailAddress) => ({ type: 'EMAIL' as const, emailAddress }));
    return { UUID: receiver.uuid, label: receiver.label, targets, rules: [...rules].map(([alert, networkUUIDs]) => (networkUUIDs === undefined ? { alert } : { alert, networkUUIDs })) };
  });
}
